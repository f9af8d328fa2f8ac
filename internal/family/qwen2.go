// Qwen2 / Qwen2.5: Llama's layout with biases on q, k and v (present in the checkpoint).
package family

func init() { register(Family{Name: "qwen2", Projections: llamaProjections}, "qwen2") }
