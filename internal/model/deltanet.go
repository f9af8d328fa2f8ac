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
	b.MatMul(h.qkv, ws.xn, d.qkv)
	b.MatMul(h.z, ws.xn, d.z)
	b.MatMul(h.beta, ws.xn, d.b)
	b.MatMul(h.a, ws.xn, d.a)
	la.CausalConv(h.qkv, h.qkv, d.conv, st, d.slot, ws.seq, ws.pos)
	la.GatedDeltaRule(h.core, h.qkv, h.a, h.beta, d.aLog, d.dtBias, st, d.slot, ws.seq, ws.pos)
	la.RMSNormGated(h.core, h.core, h.z, d.norm, float32(m.Config.RMSNormEps))
	b.MatMul(ws.proj, h.core, d.out)
}
