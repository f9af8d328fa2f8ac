// Qwen3-Next: the Qwen3.5 hybrid with its DeltaNet projections fused and interleaved per key head (in_proj_qkvz:
// q, k, v, z of each key head's group; in_proj_ba: b, a), and sparse MoE blocks (a softmax router choosing
// num_experts_per_tok of num_experts SwiGLU experts, renormalised when norm_topk_prob, plus a shared expert scaled
// by sigmoid(shared_expert_gate)) on the layers decoder_sparse_step and mlp_only_layers leave sparse. The map is
// hybrid.go's and moe.go's.
package family

func init() {
	f := hybridFamily("qwen3_next", &qwen3NextKeys, false)
	f.NormPlusOne = true
	register(f, "qwen3_next")
}
