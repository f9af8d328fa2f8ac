// Model families as data: what sets one decoder-only architecture apart from the shared forward pass. Each
// architecture registers itself from its own small file; the forward pass never switches on a family name.
package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlxbun/mlxbun/internal/config"
)

// Family describes one architecture. Attention and MLP biases need no flag: a bias is used when the checkpoint
// holds one (Qwen2's q/k/v, Llama's attention_bias), which is what the configs of these families imply.
type Family struct {
	Name string
	// QKNorm: an RMSNorm over each query and key head before rope (Qwen3, SmolLM3 has none).
	QKNorm bool
	// FusedQKV and FusedGateUp: the checkpoint stores q/k/v as one qkv_proj and gate/up as one gate_up_proj
	// (Phi-3); they are split by rows at load.
	FusedQKV, FusedGateUp bool
	// UsesRope reports whether layer i rotates queries and keys (false: a NoPE layer). Nil: every layer does.
	UsesRope func(c *config.Model, layer int) bool
}

var families = map[string]Family{}

func register(f Family, modelTypes ...string) {
	for _, t := range modelTypes {
		families[t] = f
	}
}

// Known lists the registered model_type values.
func Known() []string {
	out := make([]string, 0, len(families))
	for t := range families {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func familyFor(c *config.Model) (Family, error) {
	f, ok := families[c.ModelType]
	if !ok {
		return Family{}, fmt.Errorf("config.json: unknown model_type %q (known: %s)", c.ModelType, strings.Join(Known(), ", "))
	}
	return f, nil
}
