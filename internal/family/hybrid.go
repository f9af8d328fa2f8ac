// The hybrid linear-attention families (Qwen3.5, Qwen3-Next) as data: their config keys, the slots their layers
// add to the shared ones, and the layer maps both build. A layer is either a gated DeltaNet token mixer
// (linear_attn.*: the q/k/v and z/b/a input projections, a short depthwise conv, A_log, dt_bias, a gated RMSNorm
// and out_proj) or gated full attention (self_attn.*: q_proj holding query and output gate per head, q/k norms,
// partial rotary); its MLP is dense SwiGLU or a sparse MoE block (router, stacked experts, a shared expert with
// a sigmoid gate). Every RMSNorm but the DeltaNet's gated one scales by (1+w) (stored zero-centred).
package family

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/config"
)

// Slots of the hybrid layers, beyond the shared forward pass's.
const (
	AttnGate         Slot = numSlots + iota // gated attention's output gate: the second half of each head of q_proj
	DeltaQKV                                // DeltaNet q, k, v (the conv input) [2·keyDim + valueDim, hidden]
	DeltaZ                                  // DeltaNet output gate [valueDim, hidden]
	DeltaB                                  // DeltaNet β logits [valueHeads, hidden]
	DeltaA                                  // DeltaNet decay input [valueHeads, hidden]
	DeltaOut                                // out_proj [hidden, valueDim]
	Router                                  // mlp.gate [experts, hidden]
	ExpertGate                              // expert e's gate rows of experts.gate_up_proj [moeInter, hidden]
	ExpertUp                                // expert e's up rows [moeInter, hidden]
	ExpertDown                              // expert e's experts.down_proj [hidden, moeInter]
	SharedGate                              // shared_expert.gate_proj [sharedInter, hidden]
	SharedUp                                // shared_expert.up_proj
	SharedDown                              // shared_expert.down_proj [hidden, sharedInter]
	SharedExpertGate                        // shared_expert_gate [1, hidden]
	hybridEnd
)

var hybridSlotNames = [...]string{"attn_gate", "deltanet_qkv", "deltanet_z", "deltanet_b", "deltanet_a", "deltanet_out",
	"router", "expert_gate", "expert_up", "expert_down", "shared_gate", "shared_up", "shared_down", "shared_expert_gate"}

func hybridSlotName(s Slot) (string, bool) {
	if s >= numSlots && s < hybridEnd {
		return hybridSlotNames[s-numSlots], true
	}
	return "", false
}

// Hybrid is what a hybrid config says beyond the shared keys, with transformers' defaults applied.
type Hybrid struct {
	DeltaNet []bool // per layer: a gated DeltaNet layer (layer_types "linear_attention"), else full attention
	// Gated DeltaNet (linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim,
	// linear_conv_kernel_dim).
	KeyHeads, ValueHeads, KeyDim, ValueDim, ConvKernel int
	MoE                                                    // the sparse MLPs (moe.go); Experts 0: every MLP is dense
	KeyWidth, ValueWidth                               int // KeyHeads·KeyDim, ValueHeads·ValueDim
	ConvDim                                            int // 2·KeyWidth + ValueWidth: q, k and v, the conv's channels
	DeltaLayers, AttnLayers                            int // how many layers of each kind
}

// hybridDefaults are transformers' Qwen3NextConfig (and Qwen3_5TextConfig) defaults for keys a config may leave out.
var hybridDefaults = map[string]int{
	"linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
	"linear_conv_kernel_dim": 4, "full_attention_interval": 4,
}

// hybridOf reads c's hybrid keys. moe is the family's MoE defaults, nil for a family of dense MLPs only (Qwen3.5:
// its num_experts, if any, is ignored as transformers ignores it).
func hybridOf(c *config.Model, moe *moeKeys) (Hybrid, error) {
	var h Hybrid
	var err error
	num := func(key string) int {
		n, e := count(c, key, hybridDefaults[key])
		if err == nil {
			err = e
		}
		return n
	}
	h.KeyHeads, h.ValueHeads = num("linear_num_key_heads"), num("linear_num_value_heads")
	h.KeyDim, h.ValueDim = num("linear_key_head_dim"), num("linear_value_head_dim")
	h.ConvKernel = num("linear_conv_kernel_dim")
	h.DeltaNet = make([]bool, c.NumLayers)
	switch lt := c.Raw["layer_types"].(type) {
	case nil:
		every := num("full_attention_interval")
		if every < 1 && err == nil {
			err = fmt.Errorf("full_attention_interval must be positive")
		}
		for i := range h.DeltaNet {
			h.DeltaNet[i] = every > 0 && (i+1)%every != 0
		}
	case []any:
		if len(lt) != c.NumLayers {
			return h, fmt.Errorf("layer_types has %d entries for %d layers", len(lt), c.NumLayers)
		}
		for i, t := range lt {
			switch t {
			case "linear_attention":
				h.DeltaNet[i] = true
			case "full_attention":
			default:
				return h, fmt.Errorf("layer_types[%d] is %s, want \"linear_attention\" or \"full_attention\"", i, showValue(t))
			}
		}
	default:
		return h, fmt.Errorf("layer_types must be a list, got %s", showValue(lt))
	}
	if g, ok := c.Raw["attn_output_gate"].(bool); ok && !g {
		return h, fmt.Errorf("attn_output_gate false is not supported (every Qwen3.5/Qwen3-Next attention layer is gated)")
	}
	if err != nil {
		return h, err
	}
	h.Sparse = make([]bool, c.NumLayers)
	if moe != nil {
		if h.MoE, err = moeOf(c, *moe); err != nil {
			return h, err
		}
	} else if c.IntermediateSize == 0 {
		return h, fmt.Errorf("missing intermediate_size")
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"linear_num_key_heads", h.KeyHeads}, {"linear_num_value_heads", h.ValueHeads}, {"linear_key_head_dim", h.KeyDim},
		{"linear_value_head_dim", h.ValueDim}, {"linear_conv_kernel_dim", h.ConvKernel}} {
		if d.v < 1 {
			return h, fmt.Errorf("%s must be positive", d.name)
		}
	}
	if h.ValueHeads%h.KeyHeads != 0 {
		return h, fmt.Errorf("linear_num_value_heads %d is not a multiple of linear_num_key_heads %d", h.ValueHeads, h.KeyHeads)
	}
	h.KeyWidth, h.ValueWidth = h.KeyHeads*h.KeyDim, h.ValueHeads*h.ValueDim
	h.ConvDim = 2*h.KeyWidth + h.ValueWidth
	for _, d := range h.DeltaNet {
		if d {
			h.DeltaLayers++
		} else {
			h.AttnLayers++
		}
	}
	return h, nil
}

// HybridLayer is what a hybrid layer (and a MoE family's sparse layer, whose Config has no DeltaNet layers) adds
// to Layer.
type HybridLayer struct {
	Config   *Hybrid          // the model's hybrid keys
	DeltaNet *DeltaNetVectors // nil: a full-attention layer (gated when it has an AttnGate part)
	Sparse   bool             // the MLP is a sparse MoE block
}

// DeltaNetVectors are a DeltaNet layer's small tensors, uploaded as stored (KindParam).
type DeltaNetVectors struct {
	Conv   Vector // linear_attn.conv1d.weight [convDim, 1, kernel]
	ALog   Vector // linear_attn.A_log [valueHeads]
	DtBias Vector // linear_attn.dt_bias [valueHeads]
	Norm   Vector // linear_attn.norm.weight [valueDim]: the gated RMSNorm's weight, plain (not 1+w)
}

func (h *HybridLayer) vectors() []Vector {
	if h == nil || h.DeltaNet == nil {
		return nil
	}
	d := h.DeltaNet
	return []Vector{d.Conv, d.ALog, d.DtBias, d.Norm}
}

// WeightName is the tensor holding the module's unquantized weight: <Path>.weight, or for a stack of experts
// the tensor <Path> itself (transformers' experts.gate_up_proj [experts, out, in]). Quantized, either is stored
// as <Path>.weight (codes) and <Path>.scales.
func (l Linear) WeightName() string {
	if l.Experts > 0 {
		return l.Path
	}
	return l.Path + ".weight"
}

// WeightShape is the unquantized weight's shape as stored: [Out, In], or [Experts, Out/Experts, In].
func (l Linear) WeightShape() []int {
	if l.Experts > 0 {
		return []int{l.Experts, l.Out / l.Experts, l.In}
	}
	return []int{l.Out, l.In}
}

// Regroup lists the stored row blocks [start, start+n) in the order that makes the parts contiguous: nil when
// they already are; for an Interleave pattern P repeated G = Out/ΣP times, block j of every group, then block j+1.
func (l Linear) Regroup() [][2]int {
	if len(l.Interleave) == 0 {
		return nil
	}
	per := 0
	for _, n := range l.Interleave {
		per += n
	}
	groups := l.Out / per
	var out [][2]int
	off := 0
	for _, n := range l.Interleave {
		for g := range groups {
			out = append(out, [2]int{g*per + off, n})
		}
		off += n
	}
	return out
}

// hybridFamily builds a hybrid family: moe is its MoE defaults when its MLPs may be sparse (nil: dense only);
// split says whether DeltaNet's projections are stored split (Qwen3.5: in_proj_qkv, in_proj_z, in_proj_b,
// in_proj_a) or fused and interleaved per key head (Qwen3-Next: in_proj_qkvz, in_proj_ba).
func hybridFamily(name string, moe *moeKeys, split bool) Family {
	return Family{
		Name:   name,
		QKNorm: true,
		Check:  func(c *config.Model) error { _, err := hybridOf(c, moe); return err },
		Layer: func(c *config.Model, i int) Layer {
			h, err := hybridOf(c, moe)
			if err != nil {
				panic(fmt.Sprintf("family %s: Layer on a config Check refused: %v", name, err))
			}
			return hybridLayer(c, h, i, split)
		},
	}
}

// hybridLayer is layer i's map.
func hybridLayer(c *config.Model, h Hybrid, i int, split bool) Layer {
	p := fmt.Sprintf("model.layers.%d.", i)
	hidden := c.HiddenSize
	L := Layer{
		InNorm:   Vector{Name: p + "input_layernorm.weight", Shape: []int{hidden}, PlusOne: true},
		PostNorm: Vector{Name: p + "post_attention_layernorm.weight", Shape: []int{hidden}, PlusOne: true},
		Hybrid:   &HybridLayer{Config: &h, Sparse: h.Sparse[i]},
	}
	one := func(module string, s Slot, out, in, axis int) Linear {
		return Linear{Path: p + module, Out: out, In: in, Parts: []Part{{Slot: s, Rows: out}}, Axis: axis}
	}
	if h.DeltaNet[i] {
		a := p + "linear_attn."
		L.Hybrid.DeltaNet = &DeltaNetVectors{
			Conv:   Vector{Name: a + "conv1d.weight", Shape: []int{h.ConvDim, 1, h.ConvKernel}},
			ALog:   Vector{Name: a + "A_log", Shape: []int{h.ValueHeads}},
			DtBias: Vector{Name: a + "dt_bias", Shape: []int{h.ValueHeads}},
			Norm:   Vector{Name: a + "norm.weight", Shape: []int{h.ValueDim}},
		}
		r := h.ValueHeads / h.KeyHeads
		if split {
			b, aa := one("linear_attn.in_proj_b", DeltaB, h.ValueHeads, hidden, 1), one("linear_attn.in_proj_a", DeltaA, h.ValueHeads, hidden, 1)
			b.Keep, aa.Keep = true, true
			L.Linears = append(L.Linears, one("linear_attn.in_proj_qkv", DeltaQKV, h.ConvDim, hidden, 1),
				one("linear_attn.in_proj_z", DeltaZ, h.ValueWidth, hidden, 1), b, aa)
		} else {
			L.Linears = append(L.Linears,
				Linear{Path: a + "in_proj_qkvz", Out: h.ConvDim + h.ValueWidth, In: hidden, Axis: 1,
					Parts:      []Part{{Slot: DeltaQKV, Rows: h.ConvDim}, {Slot: DeltaZ, Rows: h.ValueWidth}},
					Interleave: []int{h.KeyDim, h.KeyDim, r * h.ValueDim, r * h.ValueDim}},
				Linear{Path: a + "in_proj_ba", Out: 2 * h.ValueHeads, In: hidden, Axis: 1, Keep: true,
					Parts:      []Part{{Slot: DeltaB, Rows: h.ValueHeads}, {Slot: DeltaA, Rows: h.ValueHeads}},
					Interleave: []int{r, r}})
		}
		L.Linears = append(L.Linears, one("linear_attn.out_proj", DeltaOut, hidden, h.ValueWidth, 1))
	} else {
		hd, q, kv := c.HeadDim, c.NumHeads*c.HeadDim, c.NumKVHeads*c.HeadDim
		L.QNorm = &Vector{Name: p + "self_attn.q_norm.weight", Shape: []int{hd}, PlusOne: true}
		L.KNorm = &Vector{Name: p + "self_attn.k_norm.weight", Shape: []int{hd}, PlusOne: true}
		L.Rope = true
		L.Linears = append(L.Linears,
			Linear{Path: p + "self_attn.q_proj", Out: 2 * q, In: hidden, Axis: 1,
				Parts: []Part{{Slot: Q, Rows: q}, {Slot: AttnGate, Rows: q}}, Interleave: []int{hd, hd}},
			one("self_attn.k_proj", K, kv, hidden, 1), one("self_attn.v_proj", V, kv, hidden, 1),
			one("self_attn.o_proj", O, hidden, q, 1))
	}
	if !h.Sparse[i] {
		inter := c.IntermediateSize
		L.Linears = append(L.Linears, one("mlp.gate_proj", Gate, inter, hidden, 1), one("mlp.up_proj", Up, inter, hidden, 1),
			one("mlp.down_proj", Down, hidden, inter, 0))
		return L
	}
	L.Linears = append(L.Linears, moeLinears(p, h.MoE, hidden)...)
	return L
}
