package backend

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/rope"
)

// Fused ops: sequences of the plain ops that a backend may serve in fewer launches, each named here with the
// sequence it stands for. A backend that serves one implements its interface and answers Supports for its Op; it
// computes exactly what the sequence computes, to the rounding the plain ops promise (verify's Fused/* cases hold
// every backend to that). The model issues them through the functions below, which run the plain sequence on a
// backend that does not serve the op, so the model never knows which backend fuses what.
const (
	// OpAddRMSNorm: Add(sum, a, b); RMSNorm(y, sum, w, eps) — the residual add and the norm after it.
	OpAddRMSNorm Op = "add_rmsnorm"
	// OpNormRope: RMSNorm(x, x, w, eps) over each head of x (len(w) columns); Rope(x, pos, heads, table).
	OpNormRope Op = "norm_rope"
	// OpNormRopeQK: NormRope(q, pos, wq, qheads, eps, table); NormRope(k, pos, wk, kheads, eps, table) — a layer's
	// query and key head norms with their ropes (Qwen3), q and k disjoint.
	OpNormRopeQK Op = "norm_rope_qk"
	// OpMatMulGroup: MatMul(ys[i], x, ws[i]) for each i — two or three projections of one input (q, k, v).
	OpMatMulGroup Op = "matmul_group"
	// OpGateUpSwiGLU: MatMul(gate, x, wg); MatMul(up, x, wu); SwiGLU(h, gate, up) — h may be gate or up.
	OpGateUpSwiGLU Op = "gate_up_swiglu"
)

// FusedOps are the fused ops, in the order their interfaces are declared.
var FusedOps = []Op{OpAddRMSNorm, OpNormRope, OpNormRopeQK, OpMatMulGroup, OpGateUpSwiGLU}

// AddRMSNormer serves OpAddRMSNorm.
type AddRMSNormer interface {
	AddRMSNorm(sum, y, a, b, w Tensor, eps float32)
}

// NormRoper serves OpNormRope.
type NormRoper interface {
	NormRope(x, pos, w Tensor, heads int, eps float32, table *rope.Table)
}

// NormRopeQKer serves OpNormRopeQK.
type NormRopeQKer interface {
	NormRopeQK(q, k, pos, wq, wk Tensor, qheads, kheads int, eps float32, table *rope.Table)
}

// MatMulGrouper serves OpMatMulGroup.
type MatMulGrouper interface {
	MatMulGroup(ys []Tensor, x Tensor, ws []Linear)
}

// GateUpSwiGLUer serves OpGateUpSwiGLU.
type GateUpSwiGLUer interface {
	GateUpSwiGLU(h, gate, up, x Tensor, wg, wu Linear)
}

// ServesFused is the Supports answer for a fused op: nil when b implements its interface.
func ServesFused(b Backend, op Op) error {
	var ok bool
	switch op {
	case OpAddRMSNorm:
		_, ok = b.(AddRMSNormer)
	case OpNormRope:
		_, ok = b.(NormRoper)
	case OpNormRopeQK:
		_, ok = b.(NormRopeQKer)
	case OpMatMulGroup:
		_, ok = b.(MatMulGrouper)
	case OpGateUpSwiGLU:
		_, ok = b.(GateUpSwiGLUer)
	default:
		return fmt.Errorf("%s: not a fused op", op)
	}
	if !ok {
		return &UnsupportedError{Backend: b.Name(), Query: Query{Op: op}, Why: "runs as its plain ops"}
	}
	return nil
}

// AddRMSNorm is sum = a + b, then y = RMSNorm(sum, w, eps), as one op where b serves it.
func AddRMSNorm(be Backend, sum, y, a, b, w Tensor, eps float32) {
	if f, ok := be.(AddRMSNormer); ok {
		f.AddRMSNorm(sum, y, a, b, w, eps)
		return
	}
	be.Add(sum, a, b)
	be.RMSNorm(y, sum, w, eps)
}

// NormRope is x = RMSNorm(x, w, eps) per head, then Rope(x, pos, heads, table), as one op where b serves it.
func NormRope(be Backend, x, pos, w Tensor, heads int, eps float32, table *rope.Table) {
	if f, ok := be.(NormRoper); ok {
		f.NormRope(x, pos, w, heads, eps, table)
		return
	}
	be.RMSNorm(x, x, w, eps)
	be.Rope(x, pos, heads, table)
}

// NormRopeQK is NormRope of q (qheads heads, weight wq), then NormRope of k (kheads heads, weight wk), both at pos
// with one table, as one op where b serves it; otherwise the two NormRopes (each one op where b serves that).
func NormRopeQK(be Backend, q, k, pos, wq, wk Tensor, qheads, kheads int, eps float32, table *rope.Table) {
	if f, ok := be.(NormRopeQKer); ok {
		f.NormRopeQK(q, k, pos, wq, wk, qheads, kheads, eps, table)
		return
	}
	NormRope(be, q, pos, wq, qheads, eps, table)
	NormRope(be, k, pos, wk, kheads, eps, table)
}

// MatMulGroup is ys[i] = x·ws[i]ᵀ for each i, as one op where b serves it.
func MatMulGroup(be Backend, ys []Tensor, x Tensor, ws []Linear) {
	if len(ys) != len(ws) {
		panic(fmt.Sprintf("backend: MatMulGroup: %d outputs for %d linears", len(ys), len(ws)))
	}
	if f, ok := be.(MatMulGrouper); ok && len(ws) > 1 {
		f.MatMulGroup(ys, x, ws)
		return
	}
	for i, w := range ws {
		be.MatMul(ys[i], x, w)
	}
}

// GateUpSwiGLU is gate = x·wgᵀ, up = x·wuᵀ, h = silu(gate)·up, as one op where b serves it.
func GateUpSwiGLU(be Backend, h, gate, up, x Tensor, wg, wu Linear) {
	if f, ok := be.(GateUpSwiGLUer); ok {
		f.GateUpSwiGLU(h, gate, up, x, wg, wu)
		return
	}
	be.MatMul(gate, x, wg)
	be.MatMul(up, x, wu)
	be.SwiGLU(h, gate, up)
}
