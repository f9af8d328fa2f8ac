// Package family holds what sets one decoder-only architecture apart from the shared forward pass, and each
// family's tensor map: the name and shape of every checkpoint tensor, which projections are fused, each
// projection's coded axis and what may be quantized. The binder (internal/model), the device query
// (model.Queries) and the quantizer (internal/quantize) all read it, so a checkpoint the quantizer writes is one
// the binder loads. Each architecture registers itself from its own small file; nothing switches on a name.
//
// It imports only internal/config: both sides import it without cycles.
package family

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
	// Projections are the linear modules of every layer as the checkpoint stores them, under
	// model.layers.N.<Module>. A module holding several slots stacks them by output rows in the order given
	// (Phi-3's qkv_proj: q, k, v; gate_up_proj: gate first).
	Projections []Projection
	// QKNorm: an RMSNorm over each query and key head before rope (Qwen3; SmolLM3 has none).
	QKNorm bool
	// UsesRope reports whether layer i rotates queries and keys (false: a NoPE layer). Nil: every layer does.
	UsesRope func(c *config.Model, layer int) bool
	// NormPlusOne: every RMSNorm scales by (1 + w), its weight stored zero-centred (Gemma 2, 3; Qwen3.5,
	// Qwen3-Next).
	NormPlusOne bool
	// Layer, when set, builds layer i's map itself, for families whose layers differ by kind (the hybrids,
	// hybrid.go); Projections, QKNorm and UsesRope are then not read. Check, when set, validates the
	// family's own config keys (For calls it), so the hooks and Layer may assume a config it accepted.
	Layer func(c *config.Model, layer int) Layer
	Check func(c *config.Model) error

	// What a family varies beyond the layout (layers.go; Gemma): zero for the others.
	Variations
}

// Projection is one stored linear module of a layer and the forward-pass slots its output rows hold, in order.
type Projection struct {
	Module string // under model.layers.N, e.g. "self_attn.qkv_proj"
	Slots  []Slot
}

// llamaProjections is the unfused layout every family but Phi-3 stores.
var llamaProjections = []Projection{
	{"self_attn.q_proj", []Slot{Q}}, {"self_attn.k_proj", []Slot{K}}, {"self_attn.v_proj", []Slot{V}},
	{"self_attn.o_proj", []Slot{O}},
	{"mlp.gate_proj", []Slot{Gate}}, {"mlp.up_proj", []Slot{Up}}, {"mlp.down_proj", []Slot{Down}},
}

var families = map[string]Family{}

// register adds a family under its model_type values. A layout that misses a slot, repeats one, or fuses slots
// coded along different axes is a programmer error.
func register(f Family, modelTypes ...string) {
	if f.Layer != nil {
		for _, t := range modelTypes {
			families[t] = f
		}
		return
	}
	seen := map[Slot]bool{}
	for _, p := range f.Projections {
		for _, s := range p.Slots {
			if s >= layerSlots || seen[s] || s.Axis() != p.Slots[0].Axis() {
				panic(fmt.Sprintf("family %s: projection %s: slot %s not a layer slot, repeated, or fused across coded axes", f.Name, p.Module, s))
			}
			seen[s] = true
		}
	}
	if len(seen) != int(layerSlots) {
		panic(fmt.Sprintf("family %s: %d of the %d layer slots stored", f.Name, len(seen), layerSlots))
	}
	for _, t := range modelTypes {
		families[t] = f
	}
}

// Known lists the registered model_type values, sorted.
func Known() []string {
	out := make([]string, 0, len(families))
	for t := range families {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Supported is nil when modelType (config.json's model_type) names a registered family, else the error For
// returns for it: the value and the known ones, or that the key is missing.
func Supported(modelType string) error {
	if _, ok := families[modelType]; ok {
		return nil
	}
	if modelType == "" {
		return fmt.Errorf("%s: no model_type, so the architecture is unknown (known: %s)", config.ConfigFile, strings.Join(Known(), ", "))
	}
	return fmt.Errorf("%s: model_type %q is not a supported architecture (known: %s)",
		config.ConfigFile, modelType, strings.Join(Known(), ", "))
}

// For returns the family of a config's model_type; an unknown one is an error listing the known ones, and a config
// asking for what the family does not implement (check.go, then the family's Check) is an error naming the key.
func For(c *config.Model) (Family, error) {
	if err := Supported(c.ModelType); err != nil {
		return Family{}, err
	}
	f := families[c.ModelType]
	if err := commonCheck(f, c); err != nil {
		return Family{}, fmt.Errorf("%s: %s: %w", config.ConfigFile, c.ModelType, err)
	}
	if f.Check != nil {
		if err := f.Check(c); err != nil {
			return Family{}, fmt.Errorf("%s: %s: %w", config.ConfigFile, c.ModelType, err)
		}
	}
	return f, nil
}
