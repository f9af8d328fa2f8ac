// Llama 1/2/3 and Mistral: the plain pre-norm decoder the other families vary from.
package model

func init() { register(Family{Name: "llama"}, "llama", "mistral") }
