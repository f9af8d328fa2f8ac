// Qwen3.5 (text): the hybrid of three gated DeltaNet layers to one gated full-attention layer (layer_types), its
// DeltaNet projections stored split (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a), every MLP dense SwiGLU;
// (1+w) RMSNorms, partial rotary on the attention layers. The map is hybrid.go's.
package family

func init() {
	f := hybridFamily("qwen3_5", false, true)
	f.NormPlusOne = true
	register(f, "qwen3_5_text")
}
