// Phi-3: fused qkv_proj and gate_up_proj (gate first), su/longrope scaling with the top-level
// original_max_position_embeddings.
package model

func init() { register(Family{Name: "phi3", FusedQKV: true, FusedGateUp: true}, "phi3") }
