// Qwen3.5 (text): the hybrid of three gated DeltaNet layers to one gated full-attention layer (layer_types), its
// DeltaNet projections stored split (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a), every MLP dense SwiGLU;
// (1+w) RMSNorms, partial rotary on the attention layers. Qwen3.5-MoE (qwen3_5_moe_text) is the same hybrid with
// every MLP a sparse MoE block with a shared expert, its router always renormalising (moe.go). The map is
// hybrid.go's.
package family

func init() {
	f := hybridFamily("qwen3_5", nil, true)
	f.NormPlusOne = true
	register(f, "qwen3_5_text")
	m := hybridFamily("qwen3_5_moe", &qwen3_5MoEKeys, true)
	m.NormPlusOne = true
	register(m, "qwen3_5_moe_text")
}
