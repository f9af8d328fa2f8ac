// The config checks every family shares, run by For before a family's own Check: keys that the forward pass
// treats as fixed (the MLP's activation, every layer's attention kind) must say what the family implements, so
// that a config asking for something else is refused by name instead of running the family's default silently.
package family

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlxbun/mlxbun/internal/config"
)

// The hidden_act / hidden_activation values transformers' ACT2FN maps to the function each MLP kind computes
// ("swish" is its other name for SiLU).
var (
	swigluActs = []string{"silu", "swish"}
	gegluActs  = []string{"gelu_pytorch_tanh"}
)

const fullAttention = "full_attention"

// commonCheck refuses an activation the family's MLP does not compute and, for the families whose every layer is
// full causal attention (no per-layer geometry, no hybrid layers), any other layer type or a sliding window.
func commonCheck(f Family, c *config.Model) error {
	acts, mlp := swigluActs, "SwiGLU"
	if f.GeGLU {
		acts, mlp = gegluActs, "GeGLU"
	}
	for _, k := range []string{"hidden_act", "hidden_activation"} {
		v, ok := c.Raw[k]
		if !ok || v == nil {
			continue
		}
		if s, isStr := v.(string); !isStr || !slices.Contains(acts, s) {
			return fmt.Errorf("%s %s is not supported: the %s MLP computes %s only", k, showValue(v), mlp, strings.Join(acts, " or "))
		}
	}
	if f.LayerAttn != nil || f.Layer != nil {
		return nil // Gemma's and the hybrids' own checks read their layer_types
	}
	if v, ok := c.Raw["layer_types"]; ok && v != nil {
		lt, isList := v.([]any)
		if !isList || len(lt) != c.NumLayers {
			return fmt.Errorf("layer_types must list one type for each of the %d layers (num_hidden_layers), got %s", c.NumLayers, showValue(v))
		}
		for i, t := range lt {
			if t != fullAttention {
				return fmt.Errorf("layer_types[%d] is %s: %s layers are %q only (sliding-window attention is not implemented for this family)", i, showValue(t), f.Name, fullAttention)
			}
		}
	}
	if on, _ := c.Raw["use_sliding_window"].(bool); on {
		return fmt.Errorf("use_sliding_window true is not supported: sliding-window attention is not implemented for %s", f.Name)
	}
	return nil
}

// showValue renders a config value for a message: strings quoted, anything else as Go prints it, cut short.
func showValue(v any) string {
	s := fmt.Sprint(v)
	if str, ok := v.(string); ok {
		s = fmt.Sprintf("%q", str)
	}
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}
