// Qwen3: Llama's layout plus an RMSNorm over every query and key head (q_norm, k_norm) before rope.
package family

func init() { register(Family{Name: "qwen3", Projections: llamaProjections, QKNorm: true}, "qwen3") }
