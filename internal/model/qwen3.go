// Qwen3: Llama's layout plus an RMSNorm over every query and key head (q_norm, k_norm) before rope.
package model

func init() { register(Family{Name: "qwen3", QKNorm: true}, "qwen3") }
