// The residual seam of the shared forward pass: a block's output projection (o, down), the residual add after it
// and the next input norm. Where the backend folds the add into the projection's launch (backend.MatMulAddFuses),
// the projection is deferred to the add and issued as one MatMulAdd, and the norm ws.xn = RMSNorm(ws.x, w) is
// deferred to the projections that read ws.xn, which issue it with theirs (NormMatMulGroup, NormGateUpSwiGLU) or
// first, as RMSNorm, before anything else reads ws.xn (inputNorm). Elsewhere the seam is the plain MatMul and
// AddRMSNorm, so a backend that fuses none of it runs exactly what it ran before.
package model

import (
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/family"
)

// outProj is a deferred output projection: ws.proj = x·wᵀ, not yet issued.
type outProj struct {
	x backend.Tensor
	w backend.Linear
}

// projectOut is project(ws, ws.proj, in, L, s, w) for a block's output projection, deferred to the residual add
// when nothing comes between them (no output rotation or adapter, no sandwich norm) and the backend adds the
// residual in the projection's launch.
func (m *Model) projectOut(ws *workspace, in *rotInput, L *layer, s family.Slot, w backend.Linear, norm backend.Tensor) {
	if norm == nil && m.plain(L, s) && backend.MatMulAddFuses(m.b, w, ws.n) {
		ws.out = &outProj{x: in.by(L.rot[s].in), w: w}
		return
	}
	m.project(ws, ws.proj, in, L, s, w)
}

// residualProj issues a deferred output projection as ws.x += x·wᵀ (MatMulAdd, ws.proj its scratch) and reports
// whether there was one.
func (m *Model) residualProj(ws *workspace) bool {
	o := ws.out
	if o == nil {
		return false
	}
	ws.out = nil
	backend.MatMulAdd(m.b, ws.x, ws.proj, o.x, o.w, ws.x)
	return true
}

// inputNorm issues a deferred input norm (ws.xn = RMSNorm(ws.x, pend)) as its own op: before a reader of ws.xn
// that does not fold it.
func (m *Model) inputNorm(ws *workspace) {
	if ws.pend != nil {
		m.b.RMSNorm(ws.xn, ws.x, ws.pend, float32(m.Config.RMSNormEps))
		ws.pend = nil
	}
}
