// Llama 1/2/3 and Mistral: the plain pre-norm decoder the other families vary from.
package family

func init() { register(Family{Name: "llama", Projections: llamaProjections}, "llama", "mistral") }
