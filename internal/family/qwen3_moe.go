// Qwen3-MoE (Qwen3-30B-A3B, Qwen3-235B-A22B): Qwen3's attention (q/k norms, plain RMSNorm weights) with a sparse
// MoE block on the layers decoder_sparse_step and mlp_only_layers leave sparse: a softmax router choosing
// num_experts_per_tok of num_experts SwiGLU experts of moe_intermediate_size, renormalised when norm_topk_prob,
// and no shared expert; the other layers keep Qwen3's dense MLP. The sparse MLP's map is moe.go's.
package family

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/config"
)

func init() {
	register(Family{Name: "qwen3_moe", Projections: llamaProjections, QKNorm: true,
		Check:      func(c *config.Model) error { _, err := moeOf(c, qwen3MoEKeys); return err },
		Variations: Variations{Extend: qwen3MoEExtend}}, "qwen3_moe")
}

// qwen3MoEExtend swaps each sparse layer's dense MLP for the MoE block's linears.
func qwen3MoEExtend(c *config.Model, m *Map) {
	h, err := moeOf(c, qwen3MoEKeys)
	if err != nil {
		panic(fmt.Sprintf("family qwen3_moe: Extend on a config Check refused: %v", err))
	}
	cfg := &Hybrid{MoE: h, DeltaNet: make([]bool, c.NumLayers), AttnLayers: c.NumLayers}
	for i := range m.Layers {
		if !h.Sparse[i] {
			continue
		}
		L := &m.Layers[i]
		var keep []Linear
		for _, l := range L.Linears {
			if s := l.Parts[0].Slot; s != Gate && s != Up && s != Down {
				keep = append(keep, l)
			}
		}
		L.Linears = append(keep, moeLinears(fmt.Sprintf("model.layers.%d.", i), h, c.HiddenSize)...)
		L.Hybrid = &HybridLayer{Config: cfg, Sparse: true}
	}
}
