// The gated DeltaNet token mixer of the hybrid models, over the backend's LinearAttention ops: the input
// projections, the short causal conv with SiLU, the gated delta rule over each sequence's recurrent state, the
// gated RMSNorm and the output projection. Shapes in backend/hybrid.go.
package model

import "github.com/mlxbun/mlxbun/internal/backend"

// deltaNet: ws.proj = the DeltaNet block of layer L over ws.xn, advancing each row's sequence state in cache.
func (m *Model) deltaNet(ws *workspace, L *layer, cache backend.KVCache) {
	b, d, h := m.b, L.dn, ws.hy
	la := b.(backend.LinearAttention) // checked at load (bindHybrid)
	st := cache.(*hybridCache).state
	eps := float32(m.Config.RMSNormEps)
	// The four input projections as two groups a backend may serve in one launch each: the wide pair (qkv, z;
	// trellis-coded in a quantized model) and the two one-row-per-head products (b, a; kept dense by the quantizer).
	// A deferred input norm (residual.go) folds into the first group, which writes ws.xn for the second.
	wide, wideW := []backend.Tensor{h.qkv, h.z}, []backend.Linear{d.qkv, d.z}
	if ws.pend != nil {
		backend.NormMatMulGroup(b, wide, ws.xn, ws.x, ws.pend, eps, wideW)
		ws.pend = nil
	} else {
		backend.MatMulGroup(b, wide, ws.xn, wideW)
	}
	backend.MatMulGroup(b, []backend.Tensor{h.beta, h.a}, ws.xn, []backend.Linear{d.b, d.a})
	la.CausalConv(h.qkv, h.qkv, d.conv, st, d.slot, ws.seq, ws.pos)
	backend.DeltaRuleNormGated(la, h.core, h.qkv, h.z, h.a, h.beta, d.aLog, d.dtBias, d.norm, eps, st, d.slot, ws.seq, ws.pos)
	// out_proj has no rotation or adapter slot (rotate.go and lora.go cover Q..Down), so it defers to the residual
	// add whenever the backend adds in the projection's launch and no sandwich norm comes between.
	if L.attnOutNorm == nil && backend.MatMulAddFuses(b, d.out, ws.n) {
		ws.out = &outProj{x: h.core, w: d.out}
		return
	}
	b.MatMul(ws.proj, h.core, d.out)
}
