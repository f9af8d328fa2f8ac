// The fused ops of the backend contract (internal/backend/fused.go) as single launches where a kernel takes the
// shapes — add_rmsnorm for a whole-row norm of the sum, rmsnorm_rope for a head norm and its rope, the fused
// gate/up/SwiGLU trellis forms — and their plain sequences otherwise (same values either way). MatMulGroup is not
// served: the Metal GEMVs take one layer a launch, so the helper issues the plain MatMuls.

package metal

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// AddRMSNorm: sum = a + c, y = RMSNorm(sum, w, eps); one launch for a whole-row norm into another tensor.
func (b *Backend) AddRMSNorm(sum, y, a, c, w backend.Tensor, eps float32) {
	s, d, x, z, ww := tensorOf("AddRMSNorm", sum), tensorOf("AddRMSNorm", y), tensorOf("AddRMSNorm", a), tensorOf("AddRMSNorm", c), tensorOf("AddRMSNorm", w)
	sameShape("AddRMSNorm", s, x)
	sameShape("AddRMSNorm", x, z)
	sameShape("AddRMSNorm", d, s)
	if !b.f32("AddRMSNorm", s, d, x, z) {
		return
	}
	g := ww.elems()
	if len(s.shape) != 2 || s.shape[1] != g || sameRegion(d, s) || ww.dt != backend.F32 {
		b.Add(sum, a, c)
		b.RMSNorm(y, sum, w, eps)
		return
	}
	b.run(PlanAddRMSNorm(s.shape[0], g, eps), map[Role]*Tensor{RoleSum: s, RoleDst: d, RoleA: x, RoleB: z, RoleNormW: ww})
}

// NormRope: x = RMSNorm(x, w, eps) per head, then Rope(x, pos, heads, table), in one rmsnorm_rope launch where
// the plan takes the head width.
func (b *Backend) NormRope(x, pos, w backend.Tensor, heads int, eps float32, table *rope.Table) {
	xx, p, ww := tensorOf("NormRope", x), tensorOf("NormRope", pos), tensorOf("NormRope", w)
	if !b.f32("NormRope", xx) {
		return
	}
	n, width := rows2("NormRope", "x", xx)
	if table == nil || heads < 1 || width%heads != 0 || width/heads != ww.elems() || ww.dt != backend.F32 {
		b.RMSNorm(x, x, w, eps)
		b.Rope(x, pos, heads, table)
		return
	}
	fused, err := PlanRMSNormRope(n, heads, width/heads, eps, table)
	if err != nil {
		b.RMSNorm(x, x, w, eps)
		b.Rope(x, pos, heads, table)
		return
	}
	if p.elems() != n {
		backend.ShapeError("NormRope", "x, pos", [][]int{xx.shape, p.shape}, fmt.Sprintf("%d heads, one position per row", heads))
	}
	cs := b.cosSin(p, n, table)
	if cs == nil {
		return
	}
	defer b.release(cs.buf)
	b.run(fused, map[Role]*Tensor{RoleDst: xx, RoleX: xx, RoleNormW: ww, RoleCosSin: cs})
}

// GateUpSwiGLU: gate = x·wgᵀ, up = x·wuᵀ, h = silu(gate)·up in one fused gate/up launch for axis-1 trellis layers
// without bias at a decode row count (PlanGateUp); the plain ops otherwise.
func (b *Backend) GateUpSwiGLU(h, gate, up, x backend.Tensor, wg, wu backend.Linear) {
	d, gt, ut, xx := tensorOf("GateUpSwiGLU", h), tensorOf("GateUpSwiGLU", gate), tensorOf("GateUpSwiGLU", up), tensorOf("GateUpSwiGLU", x)
	g, gok := wg.(*linear)
	u, uok := wu.(*linear)
	plain := func() {
		b.MatMul(gate, x, wg)
		b.MatMul(up, x, wu)
		b.SwiGLU(h, gate, up)
	}
	if !gok || !uok || !gateUpFusable(g) || !gateUpFusable(u) || len(xx.shape) != 2 || xx.shape[0] > backend.MaxDecodeRows ||
		g.geom.Rows != u.geom.Rows || g.geom.Cols != u.geom.Cols || g.geom.T != u.geom.T || g.geom.L != u.geom.L {
		plain()
		return
	}
	// h is gate or up (the model's in-place SwiGLU) or a buffer of its own.
	if !sameRegion(d, gt) && !sameRegion(d, ut) && (d.buf == gt.buf || d.buf == ut.buf || d.buf == xx.buf) {
		plain()
		return
	}
	n := xx.shape[0]
	p, err := PlanGateUp(b.fam, *g.geom, *u.geom, n)
	if err != nil {
		plain() // no fused form for this row count or geometry
		return
	}
	roles := map[Role]*Tensor{RoleDst: d, RoleX: xx, RoleGateW: g.words, RoleGateS: g.scales, RoleUpW: u.words, RoleUpS: u.scales,
		RoleGate: gt, RoleUp: ut}
	// The projection SwiGLU overwrites in place is never observable after it: its write goes to scratch, so no
	// buffer is bound twice.
	switch {
	case sameRegion(d, gt):
		roles[RoleGate] = nil
	case sameRegion(d, ut):
		roles[RoleUp] = nil
	}
	if roles[RoleGate] == nil || roles[RoleUp] == nil {
		s := b.scratchOf(d.elems()*4, p.Form)
		if s == nil {
			return // the failure is recorded (and returned by the next Sync)
		}
		for _, r := range []Role{RoleGate, RoleUp} {
			if roles[r] == nil {
				roles[r] = s
			}
		}
	}
	b.logf("MatMul gate, MatMul up and SwiGLU in one %s launch", p.Form)
	b.encode(p, roles)
}

// gateUpFusable reports whether a layer may be one half of a fused gate/up launch: axis-1 trellis without bias.
func gateUpFusable(l *linear) bool { return l.geom != nil && l.geom.Axis == 1 && l.bias == nil }
