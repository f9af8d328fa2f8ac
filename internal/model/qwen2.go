// Qwen2 / Qwen2.5: Llama's layout with biases on q, k and v (present in the checkpoint).
package model

func init() { register(Family{Name: "qwen2"}, "qwen2") }
