// Gemma 2, 3 and 4 (model_type gemma2, gemma3_text, gemma4_text): Llama's projections with sandwich norms
// (post-attention and pre/post-feedforward), a GeGLU MLP, embeddings scaled by √hidden, sliding-window and
// global layers (layer_types, or every pattern-th layer global) and softcaps.
//
//   - Gemma 2: RMSNorm weights applied as 1+w; softmax scale query_pre_attn_scalar^−½; attention scores and
//     final logits softcapped.
//   - Gemma 3: Gemma 2 with q/k norms (1+w) and a rope base per layer type (rope_parameters per type, or
//     rope_local_base_freq for the sliding layers), no softcaps.
//   - Gemma 4: plain-w norms, q/k norms and a weightless v norm, softmax scale 1, wider heads on the global layers
//     (per_layer_config, or global_head_dim) with proportional partial rope, per-layer input embeddings, a
//     per-layer output scalar, the last num_kv_shared_layers layers attending over the keys and values of the
//     last earlier layer of their type, attention_k_eq_v (values are the key projection on global layers) and
//     the final logit softcap. The MoE block (enable_moe_block) is not supported yet.
package family

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/mlxbun/mlxbun/internal/config"
)

func init() {
	for _, g := range []struct {
		gen   int
		name  string
		types []string
	}{{2, "gemma2", []string{"gemma2"}}, {3, "gemma3", []string{"gemma3_text"}}, {4, "gemma4", []string{"gemma4_text"}}} {
		gen := g.gen
		register(Family{Name: g.name, Projections: llamaProjections, QKNorm: gen >= 3, NormPlusOne: gen < 4,
			Check: func(c *config.Model) error { return gemmaCheck(c, gen) },
			Variations: Variations{ScaleEmbed: true, GeGLU: true,
				LayerAttn: func(c *config.Model, i int) Attn { return gemmaAttn(c, i, gen) },
				Extend:    func(c *config.Model, m *Map) { gemmaExtend(c, m, gen) },
			}}, g.types...)
	}
}

const (
	slidingLayer = "sliding_attention"
	fullLayer    = "full_attention"
)

// gemmaLayerType is layer i's type: layer_types when the config has it, else every pattern-th layer global
// (sliding_window_pattern; Gemma 2 alternates, Gemma 3 and 4 default to 6), as HF's configs derive it.
func gemmaLayerType(c *config.Model, i, gen int) string {
	if lt, ok := c.Raw["layer_types"].([]any); ok {
		s, _ := lt[i].(string)
		return s
	}
	pattern := 6
	if gen == 2 {
		pattern = 2
	}
	for _, k := range []string{"sliding_window_pattern", "_sliding_window_pattern"} {
		if v, ok := rawInt(c.Raw, k); ok && v > 0 {
			pattern = v
		}
	}
	if (i+1)%pattern != 0 {
		return slidingLayer
	}
	return fullLayer
}

// gemmaKVShared is the first layer that shares keys and values (Gemma 4's num_kv_shared_layers; NumLayers: none).
func gemmaKVShared(c *config.Model, gen int) int {
	n, _ := rawInt(c.Raw, "num_kv_shared_layers")
	if gen < 4 || n <= 0 {
		return c.NumLayers
	}
	return c.NumLayers - n
}

func gemmaAttn(c *config.Model, i, gen int) Attn {
	typ := gemmaLayerType(c, i, gen)
	a := Attn{Heads: c.NumHeads, KVHeads: c.NumKVHeads, HeadDim: c.HeadDim, KVFrom: i}
	if typ == slidingLayer {
		a.Window, _ = rawInt(c.Raw, "sliding_window")
	}
	if gen == 4 {
		if typ == fullLayer {
			if v, ok := rawInt(c.Raw, "global_head_dim"); ok && v > 0 {
				a.HeadDim = v
			}
			if k, _ := c.Raw["attention_k_eq_v"].(bool); k {
				a.VFromK = true
				if v, ok := rawInt(c.Raw, "num_global_key_value_heads"); ok && v > 0 {
					a.KVHeads = v
				}
			}
		}
		over, _ := gemmaPerLayer(c)[strconv.Itoa(i)].(map[string]any)
		for key, dst := range map[string]*int{"head_dim": &a.HeadDim, "num_attention_heads": &a.Heads, "num_key_value_heads": &a.KVHeads} {
			if v, ok := rawInt(over, key); ok && v > 0 {
				*dst = v
			}
		}
		a.Scale = 1
		if first := gemmaKVShared(c, gen); i >= first {
			for j := first - 1; j >= 0; j-- {
				if gemmaLayerType(c, j, gen) == typ {
					a.KVFrom = j
					break
				}
			}
		}
	} else {
		s := float64(c.HeadDim)
		if v, ok := rawNum(c.Raw, "query_pre_attn_scalar"); ok && v > 0 {
			s = v
		}
		a.Scale = math.Pow(s, -0.5)
		a.Softcap, _ = rawNum(c.Raw, "attn_logit_softcapping")
	}
	if gen >= 3 {
		a.Rope = gemmaRope(c, typ, a.HeadDim)
	}
	return a
}

func gemmaPerLayer(c *config.Model) map[string]any {
	m, _ := c.Raw["per_layer_config"].(map[string]any)
	return m
}

// gemmaRope is the rope of a layer type: rope_parameters[type] when the config nests them by type (HF 5), else
// the top-level rope for global layers and rope_local_base_freq for sliding ones (older Gemma 3 configs). A
// proportional rope rotates part of the whole head by itself (partial_rotary_factor inside its dict).
func gemmaRope(c *config.Model, typ string, headDim int) *RopeSpec {
	if rp, ok := c.Raw["rope_parameters"].(map[string]any); ok {
		if sub, ok := rp[typ].(map[string]any); ok {
			theta, ok := rawNum(sub, "rope_theta")
			if !ok {
				theta = 10000
			}
			scaling := map[string]any{}
			for k, v := range sub {
				if k != "rope_theta" && v != nil {
					scaling[k] = v
				}
			}
			kind, _ := scaling["rope_type"].(string)
			dims := headDim
			if prf, ok := rawNum(sub, "partial_rotary_factor"); ok && kind != "proportional" {
				dims = int(float64(headDim) * prf)
			}
			if kind == "" || kind == "default" {
				scaling = nil
			}
			return &RopeSpec{Dims: dims, Theta: theta, Scaling: scaling}
		}
	}
	if typ == slidingLayer {
		theta, ok := rawNum(c.Raw, "rope_local_base_freq")
		if !ok {
			theta = 10000
		}
		return &RopeSpec{Dims: headDim, Theta: theta}
	}
	return &RopeSpec{Dims: int(float64(headDim) * c.PartialRotaryFactor), Theta: c.RopeTheta, Scaling: c.RopeScaling}
}

// gemmaExtend renames the pre-MLP norm, adds the sandwich norms and, for Gemma 4, the layer scalars, the
// per-layer inputs and the double-wide MLP of KV-sharing layers.
func gemmaExtend(c *config.Model, m *Map, gen int) {
	hidden := c.HiddenSize
	dim, _ := rawInt(c.Raw, "hidden_size_per_layer_input")
	shared := gemmaKVShared(c, gen)
	wide, _ := c.Raw["use_double_wide_mlp"].(bool)
	for i := range m.Layers {
		L := &m.Layers[i]
		p := fmt.Sprintf("model.layers.%d.", i)
		if L.Attn.KVFrom != i {
			if m.Unused == nil {
				m.Unused = map[string]bool{}
			}
			for _, n := range []string{"k_proj.weight", "v_proj.weight", "k_norm.weight", "v_norm.weight"} {
				m.Unused[p+"self_attn."+n] = true
			}
		}
		plusOne := gen < 4
		L.PostNorm = Vector{Name: p + "pre_feedforward_layernorm.weight", Shape: []int{hidden}, PlusOne: plusOne}
		L.AttnOutNorm = &Vector{Name: p + "post_attention_layernorm.weight", Shape: []int{hidden}, PlusOne: plusOne}
		L.MLPOutNorm = &Vector{Name: p + "post_feedforward_layernorm.weight", Shape: []int{hidden}, PlusOne: plusOne}
		if gen < 4 {
			continue
		}
		L.VNorm = true
		L.Scalar = &Vector{Name: p + "layer_scalar", Shape: []int{1}}
		if dim > 0 {
			L.Input = &LayerInput{
				Gate: keptLinear(p+"per_layer_input_gate", dim, hidden),
				Proj: keptLinear(p+"per_layer_projection", hidden, dim),
				Norm: Vector{Name: p + "post_per_layer_input_norm.weight", Shape: []int{hidden}},
			}
		}
		if wide && i >= shared && shared > 0 {
			for k := range L.Linears {
				l := &L.Linears[k]
				switch l.Parts[0].Slot {
				case Gate, Up:
					l.Out *= 2
					l.Parts[0].Rows *= 2
				case Down:
					l.In *= 2
				}
			}
		}
	}
	if gen == 4 && dim > 0 {
		vocab, _ := rawInt(c.Raw, "vocab_size_per_layer_input")
		in := &Inputs{Dim: dim,
			Table: Vector{Name: "model.embed_tokens_per_layer.weight", Shape: []int{vocab, c.NumLayers * dim}},
			Proj:  keptLinear("model.per_layer_model_projection", c.NumLayers*dim, hidden),
			Norm:  Vector{Name: "model.per_layer_projection_norm.weight", Shape: []int{dim}},
		}
		in.Proj.Parts = nil
		for range c.NumLayers {
			in.Proj.Parts = append(in.Proj.Parts, Part{Rows: dim})
		}
		m.Inputs = in
	}
	m.FinalSoftcap, _ = rawNum(c.Raw, "final_logit_softcapping")
}

// keptLinear is a side projection [out, in] that stays unquantized.
func keptLinear(path string, out, in int) Linear {
	return Linear{Path: path, Out: out, In: in, Parts: []Part{{Rows: out}}, Axis: 1, Keep: true}
}

var errGemma = errors.New("unsupported")

// gemmaCheck rejects what the forward pass does not implement or a config that contradicts itself (the
// activation is checked for every family in check.go).
func gemmaCheck(c *config.Model, gen int) error {
	if v, ok := c.Raw["layer_types"]; ok && v != nil {
		lt, ok := v.([]any)
		if !ok || len(lt) != c.NumLayers {
			return fmt.Errorf("layer_types must list %d layer types, got %s", c.NumLayers, showValue(v))
		}
		for i, t := range lt {
			if t != slidingLayer && t != fullLayer {
				return fmt.Errorf("layer_types[%d] is %s, want %q or %q", i, showValue(t), slidingLayer, fullLayer)
			}
		}
	}
	for _, k := range []string{"attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar"} {
		if v, ok := c.Raw[k]; ok && v != nil {
			if f, isNum := v.(float64); !isNum || f < 0 {
				return fmt.Errorf("%s must be a non-negative number or null, got %v", k, v)
			}
		}
	}
	// "vision" makes only image tokens attend both ways; a text-only model stays causal, so it serves as is.
	if b, _ := c.Raw["use_bidirectional_attention"].(string); b != "" && b != "vision" {
		return fmt.Errorf("use_bidirectional_attention %q: %w", b, errGemma)
	}
	if gen == 4 {
		if moe, _ := c.Raw["enable_moe_block"].(bool); moe {
			return fmt.Errorf("enable_moe_block: the MoE block is %w", errGemma)
		}
		if dim, _ := rawInt(c.Raw, "hidden_size_per_layer_input"); dim > 0 {
			if v, _ := rawInt(c.Raw, "vocab_size_per_layer_input"); v != c.VocabSize {
				return fmt.Errorf("vocab_size_per_layer_input %d differs from vocab_size %d: %w", v, c.VocabSize, errGemma)
			}
		}
		for k, v := range gemmaPerLayer(c) {
			if i, err := strconv.Atoi(k); err != nil || i < 0 || i >= c.NumLayers {
				return fmt.Errorf("per_layer_config key %q is not a layer index below %d", k, c.NumLayers)
			}
			if _, ok := v.(map[string]any); !ok {
				return fmt.Errorf("per_layer_config[%q] must be an object, got %v", k, v)
			}
		}
		if first := gemmaKVShared(c, gen); first < c.NumLayers {
			if first <= 0 {
				return fmt.Errorf("num_kv_shared_layers %d leaves no layer of its own keys and values", c.NumLayers-first)
			}
		}
	}
	for i := range c.NumLayers {
		a := gemmaAttn(c, i, gen)
		switch {
		case a.Heads <= 0 || a.KVHeads <= 0 || a.HeadDim <= 0 || a.Heads%a.KVHeads != 0:
			return fmt.Errorf("layer %d: %d heads, %d kv heads of %d: heads must be a positive multiple of kv heads", i, a.Heads, a.KVHeads, a.HeadDim)
		case gemmaLayerType(c, i, gen) == slidingLayer && a.Window <= 0:
			return fmt.Errorf("layer %d is a sliding-window layer and sliding_window is %v", i, c.Raw["sliding_window"])
		case i >= gemmaKVShared(c, gen) && a.KVFrom == i:
			return fmt.Errorf("layer %d shares keys and values but no earlier layer of its type has its own", i)
		case a.KVFrom != i:
			if s := gemmaAttn(c, a.KVFrom, gen); s.KVHeads != a.KVHeads || s.HeadDim != a.HeadDim {
				return fmt.Errorf("layer %d shares the keys and values of layer %d, whose geometry differs", i, a.KVFrom)
			}
		}
		if a.Rope != nil && (a.Rope.Dims <= 0 || a.Rope.Dims > a.HeadDim || a.Rope.Dims%2 != 0) {
			return fmt.Errorf("layer %d: rope rotates %d of %d dims", i, a.Rope.Dims, a.HeadDim)
		}
	}
	return nil
}

// rawNum reads a number from a decoded JSON object (false when absent, null or not a number).
func rawNum(m map[string]any, key string) (float64, bool) {
	f, ok := m[key].(float64)
	return f, ok
}

// rawInt reads an integer from a decoded JSON object.
func rawInt(m map[string]any, key string) (int, bool) {
	f, ok := m[key].(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}
