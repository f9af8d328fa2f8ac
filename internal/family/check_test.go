package family

import (
	"strings"
	"testing"
)

// TestCommonChecks: every fixture's config passes For; an activation its MLP does not compute, an unknown layer
// type, a layer_types list of the wrong length and a sliding window the family lacks are refused, naming the key.
func TestCommonChecks(t *testing.T) {
	fixtures := []string{"models/tiny-qwen3", "models/tiny-llama3", "models/tiny-qwen2-yarn", "models/tiny-gemma2",
		"models/tiny-gemma3", "models/tiny-gemma4", "models/tiny-qwen3_5", "models/tiny-qwen3-next-moe"}
	for _, fx := range fixtures {
		c, _ := fixtureMap(t, fx) // For accepts the published shape of each family
		edit := func(e func(map[string]any)) map[string]any {
			raw := map[string]any{}
			for k, v := range c.Raw {
				raw[k] = v
			}
			e(raw)
			return raw
		}
		layers := float64(c.NumLayers)
		bad := []struct {
			name string
			raw  map[string]any
			want string
		}{
			{"gelu", edit(func(r map[string]any) { r["hidden_act"] = "gelu" }), `hidden_act "gelu" is not supported`},
			{"relu", edit(func(r map[string]any) { r["hidden_activation"] = "relu" }), `hidden_activation "relu"`},
			{"banana", edit(func(r map[string]any) { r["hidden_act"] = "banana" }), `"banana"`},
			{"number", edit(func(r map[string]any) { r["hidden_act"] = 3.0 }), "hidden_act 3"},
			{"unknown layer type", edit(func(r map[string]any) {
				lt := make([]any, c.NumLayers)
				for i := range lt {
					lt[i] = "full_attention"
				}
				lt[len(lt)-1] = "chunked_attention"
				r["layer_types"] = lt
			}), `"chunked_attention"`},
			{"short layer_types", edit(func(r map[string]any) { r["layer_types"] = []any{"full_attention"} }), "layer_types"},
			{"layer_types not a list", edit(func(r map[string]any) { r["layer_types"] = "full_attention" }), "layer_types"},
		}
		if c.Raw["num_hidden_layers"] != layers {
			t.Fatalf("%s: num_hidden_layers %v", fx, c.Raw["num_hidden_layers"])
		}
		if strings.Contains(fx, "qwen3") && !strings.Contains(fx, "_5") && !strings.Contains(fx, "next") || strings.Contains(fx, "llama") {
			bad = append(bad, struct {
				name string
				raw  map[string]any
				want string
			}{"sliding window", edit(func(r map[string]any) { r["use_sliding_window"] = true }), "use_sliding_window"})
		}
		for _, b := range bad {
			_, err := For(reparse(t, b.raw))
			if err == nil || !strings.Contains(err.Error(), b.want) || !strings.HasPrefix(err.Error(), "config.json: ") {
				t.Errorf("%s, %s: For = %v, want an error naming %q", fx, b.name, err, b.want)
			}
		}
		ok := edit(func(map[string]any) {})
		if c.Raw["hidden_act"] == "silu" {
			ok["hidden_act"] = "swish" // transformers' other name for SiLU
		}
		if _, err := For(reparse(t, ok)); err != nil {
			t.Errorf("%s: an activation the MLP computes is refused: %v", fx, err)
		}
	}
}
