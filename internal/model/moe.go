// The sparse MoE block of Qwen3-MoE, Qwen3-Next and Qwen3.5-MoE over the backend's MoE ops: a softmax router
// choosing the top-k experts (renormalised as norm_topk_prob says), each a SwiGLU MLP, plus (Qwen3-Next, Qwen3.5-MoE)
// a shared SwiGLU expert scaled by sigmoid(shared_expert_gate·x), as transformers' Qwen3MoeSparseMoeBlock and
// Qwen3NextSparseMoeBlock compute it.
package model

import "github.com/mlxbun/mlxbun/internal/backend"

// moe: ws.proj = the MoE block of layer L over ws.xn.
func (m *Model) moe(ws *workspace, L *layer) {
	b, e, h, cfg := m.b, L.moe, ws.hy, m.hybrid
	mo := b.(backend.MoE) // checked at load (bindHybrid), as SigmoidGate is when there is a shared expert
	b.MatMul(h.logits, ws.xn, e.router)
	mo.Route(h.ids, h.weights, h.logits, cfg.TopK, cfg.NormTopK)
	mo.Experts(ws.proj, ws.xn, h.ids, h.weights, e.gate, e.up, e.down)
	if e.sharedGate == nil {
		return
	}
	sg := b.(backend.SigmoidGate)
	b.MatMul(h.sgate, ws.xn, e.sharedGate)
	b.MatMul(h.sup, ws.xn, e.sharedUp)
	b.SwiGLU(h.sgate, h.sgate, h.sup)
	b.MatMul(h.sout, h.sgate, e.sharedDown)
	b.MatMul(h.sg, ws.xn, e.sg)
	sg.SigmoidMul(h.sout, h.sout, h.sg)
	b.Add(ws.proj, ws.proj, h.sout)
}
