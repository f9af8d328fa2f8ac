// SmolLM3: Llama's layout where every no_rope_layer_interval-th layer skips rope (NoPE), as no_rope_layers says.
package family

import "github.com/mlxbun/mlxbun/internal/config"

func init() {
	register(Family{Name: "smollm3", Projections: llamaProjections, UsesRope: smolUsesRope}, "smollm3")
}

// smolUsesRope follows the config's no_rope_layers (1 = rope) or, when absent, the default interval of 4:
// layer i is NoPE when (i+1) % interval == 0.
func smolUsesRope(c *config.Model, layer int) bool {
	if layer < len(c.NoRopeLayers) {
		return c.NoRopeLayers[layer] != 0
	}
	interval := 4
	if v, ok := c.Raw["no_rope_layer_interval"].(float64); ok && v >= 1 {
		interval = int(v)
	}
	return (layer+1)%interval != 0
}
