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
	// The four input projections as two groups a backend may serve in one launch each: the wide pair (qkv, z;
	// trellis-coded in a quantized model) and the two one-row-per-head products (b, a; kept dense by the quantizer).
	backend.MatMulGroup(b, []backend.Tensor{h.qkv, h.z}, ws.xn, []backend.Linear{d.qkv, d.z})
	backend.MatMulGroup(b, []backend.Tensor{h.beta, h.a}, ws.xn, []backend.Linear{d.b, d.a})
	la.CausalConv(h.qkv, h.qkv, d.conv, st, d.slot, ws.seq, ws.pos)
	la.GatedDeltaRule(h.core, h.qkv, h.a, h.beta, d.aLog, d.dtBias, st, d.slot, ws.seq, ws.pos)
	la.RMSNormGated(h.core, h.core, h.z, d.norm, float32(m.Config.RMSNormEps))
	b.MatMul(ws.proj, h.core, d.out)
}
