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
	// OpMatMulAdd: MatMul(t, x, w); Add(y, r, t) — a projection added to the residual stream (y may be r); t is
	// scratch, its contents afterwards unspecified.
	OpMatMulAdd Op = "matmul_add"
	// OpNormMatMulGroup: RMSNorm(xn, x, nw, eps); MatMulGroup(ys, xn, ws) — the input norm folded into the
	// projections that read it (q, k, v).
	OpNormMatMulGroup Op = "norm_matmul_group"
	// OpNormGateUpSwiGLU: RMSNorm(xn, x, nw, eps); GateUpSwiGLU(h, gate, up, xn, wg, wu).
	OpNormGateUpSwiGLU Op = "norm_gate_up_swiglu"
	// OpDeltaRuleNormGated: GatedDeltaRule(dst, qkv, a, b, aLog, dtBias, st, layer, seq, pos);
	// RMSNormGated(dst, dst, z, nw, eps) — a DeltaNet block's delta rule and the gated norm of its output.
	OpDeltaRuleNormGated Op = "delta_rule_norm_gated"
	// OpNormRopeAttention: NormRopeQK(q, k, pos, wq, wk, qheads, kheads, eps, table); Attention(dst, q, k, v,
	// cache, layer, seq, pos, scale) — a layer's head norms and ropes folded into its attention (Qwen3's decode
	// step: the normalized keys reach the cache without a launch of their own). q and k are scratch: their
	// contents afterwards are unspecified, so no later op may read them (the model folds only layers whose keys
	// no other layer reads).
	OpNormRopeAttention Op = "norm_rope_attention"
)

// FusedOps are the fused ops, in the order their interfaces are declared.
var FusedOps = []Op{OpAddRMSNorm, OpNormRope, OpNormRopeQK, OpMatMulGroup, OpGateUpSwiGLU, OpMatMulAdd, OpNormMatMulGroup,
	OpNormGateUpSwiGLU, OpDeltaRuleNormGated, OpNormRopeAttention}

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

// MatMulAdder serves OpMatMulAdd. MatMulAddFuses reports whether MatMulAdd of w over rows activation rows is one
// launch on this backend (else it runs the plain sequence, which costs a launch more than MatMul and AddRMSNorm):
// the model folds a residual add into a projection only where it is (Model.ops, residualNorm).
type MatMulAdder interface {
	MatMulAdd(y, t, x Tensor, w Linear, r Tensor)
	MatMulAddFuses(w Linear, rows int) bool
}

// NormMatMulGrouper serves OpNormMatMulGroup.
type NormMatMulGrouper interface {
	NormMatMulGroup(ys []Tensor, xn, x, nw Tensor, eps float32, ws []Linear)
}

// NormGateUpSwiGLUer serves OpNormGateUpSwiGLU.
type NormGateUpSwiGLUer interface {
	NormGateUpSwiGLU(h, gate, up, xn, x, nw Tensor, eps float32, wg, wu Linear)
}

// DeltaRuleNormGateder serves OpDeltaRuleNormGated (on a backend that is a LinearAttention).
type DeltaRuleNormGateder interface {
	DeltaRuleNormGated(dst, qkv, z, a, b, aLog, dtBias, nw Tensor, eps float32, st RecurrentState, layer int, seq, pos Tensor)
}

// NormRopeAttentioner serves OpNormRopeAttention.
type NormRopeAttentioner interface {
	NormRopeAttention(dst, q, k, v Tensor, cache KVCache, layer int, seq, pos, wq, wk Tensor, qheads, kheads int, eps float32, table *rope.Table, scale float32)
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
	case OpMatMulAdd:
		_, ok = b.(MatMulAdder)
	case OpNormMatMulGroup:
		_, ok = b.(NormMatMulGrouper)
	case OpNormGateUpSwiGLU:
		_, ok = b.(NormGateUpSwiGLUer)
	case OpDeltaRuleNormGated:
		_, ok = b.(DeltaRuleNormGateder)
	case OpNormRopeAttention:
		_, ok = b.(NormRopeAttentioner)
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

// NormRopeAttention is NormRopeQK of q and k, then Attention of q over the cache with k and v as this step's
// keys and values, as one op where b serves it; q and k are left unspecified either way.
func NormRopeAttention(be Backend, dst, q, k, v Tensor, cache KVCache, layer int, seq, pos, wq, wk Tensor, qheads, kheads int, eps float32, table *rope.Table, scale float32) {
	if f, ok := be.(NormRopeAttentioner); ok {
		f.NormRopeAttention(dst, q, k, v, cache, layer, seq, pos, wq, wk, qheads, kheads, eps, table, scale)
		return
	}
	NormRopeQK(be, q, k, pos, wq, wk, qheads, kheads, eps, table)
	be.Attention(dst, q, k, v, cache, layer, seq, pos, scale)
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

// MatMulAdd is y = r + x·wᵀ (t scratch), as one op where b serves it.
func MatMulAdd(be Backend, y, t, x Tensor, w Linear, r Tensor) {
	if f, ok := be.(MatMulAdder); ok {
		f.MatMulAdd(y, t, x, w, r)
		return
	}
	be.MatMul(t, x, w)
	be.Add(y, r, t)
}

// MatMulAddFuses reports whether MatMulAdd of w over rows rows is one launch on be.
func MatMulAddFuses(be Backend, w Linear, rows int) bool {
	f, ok := be.(MatMulAdder)
	return ok && f.MatMulAddFuses(w, rows)
}

// NormMatMulGroup is xn = RMSNorm(x, nw, eps), then ys[i] = xn·ws[i]ᵀ, as one op where b serves it.
func NormMatMulGroup(be Backend, ys []Tensor, xn, x, nw Tensor, eps float32, ws []Linear) {
	if f, ok := be.(NormMatMulGrouper); ok {
		f.NormMatMulGroup(ys, xn, x, nw, eps, ws)
		return
	}
	be.RMSNorm(xn, x, nw, eps)
	MatMulGroup(be, ys, xn, ws)
}

// NormGateUpSwiGLU is xn = RMSNorm(x, nw, eps), then GateUpSwiGLU on xn, as one op where b serves it.
func NormGateUpSwiGLU(be Backend, h, gate, up, xn, x, nw Tensor, eps float32, wg, wu Linear) {
	if f, ok := be.(NormGateUpSwiGLUer); ok {
		f.NormGateUpSwiGLU(h, gate, up, xn, x, nw, eps, wg, wu)
		return
	}
	be.RMSNorm(xn, x, nw, eps)
	GateUpSwiGLU(be, h, gate, up, xn, wg, wu)
}

// DeltaRuleNormGated is la.GatedDeltaRule into dst, then dst = la.RMSNormGated(dst, z, nw, eps), as one op where
// la serves it.
func DeltaRuleNormGated(la LinearAttention, dst, qkv, z, a, b, aLog, dtBias, nw Tensor, eps float32, st RecurrentState, layer int, seq, pos Tensor) {
	if f, ok := la.(DeltaRuleNormGateder); ok {
		f.DeltaRuleNormGated(dst, qkv, z, a, b, aLog, dtBias, nw, eps, st, layer, seq, pos)
		return
	}
	la.GatedDeltaRule(dst, qkv, a, b, aLog, dtBias, st, layer, seq, pos)
	la.RMSNormGated(dst, dst, z, nw, eps)
}
