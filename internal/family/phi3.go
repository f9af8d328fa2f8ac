// Phi-3: q/k/v fused into one qkv_proj and gate/up into one gate_up_proj (gate first), each stacked by output
// rows; su/longrope scaling with the top-level original_max_position_embeddings (internal/model's newRope).
package family

func init() {
	register(Family{Name: "phi3", Projections: []Projection{
		{"self_attn.qkv_proj", []Slot{Q, K, V}}, {"self_attn.o_proj", []Slot{O}},
		{"mlp.gate_up_proj", []Slot{Gate, Up}}, {"mlp.down_proj", []Slot{Down}},
	}}, "phi3")
}
