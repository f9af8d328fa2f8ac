// Sparse MoE blocks as data (Qwen3-MoE, Qwen3-Next, Qwen3.5-MoE): their config keys with each family's defaults,
// and the linears of a sparse MLP: a softmax router (mlp.gate) choosing num_experts_per_tok of num_experts SwiGLU
// experts, and for the families that have one a shared expert scaled by sigmoid(shared_expert_gate). The experts
// are stored stacked as transformers 5 holds them (mlp.experts.gate_up_proj [experts, 2·inter, hidden], gate rows
// first; mlp.experts.down_proj [experts, hidden, inter]) or one module each as the published checkpoints store them
// (mlp.experts.E.gate_proj, .up_proj, .down_proj); the map takes the layout the checkpoint has (TensorsOf).
package family

import (
	"fmt"
	"math"
	"strings"

	"github.com/mlxbun/mlxbun/internal/config"
)

// MoE is what a config says of its sparse MLPs, with the family's defaults applied.
type MoE struct {
	Experts, TopK int    // num_experts (0: every MLP is dense), num_experts_per_tok
	NormTopK      bool   // the chosen experts' weights renormalised to sum to 1 (norm_topk_prob)
	MoEInter      int    // moe_intermediate_size: each expert's
	SharedInter   int    // shared_expert_intermediate_size; 0: no shared expert (Qwen3-MoE)
	Sparse        []bool // per layer: a sparse MoE block, from decoder_sparse_step and mlp_only_layers
}

// moeKeys are a family's defaults (its transformers config class's) for the MoE keys a config may leave out.
type moeKeys struct {
	experts, topK, inter int
	shared               bool // the family has a shared expert (default size sharedInter)
	sharedInter          int
	normTopK             bool // norm_topk_prob's default
	alwaysNorm           bool // the router always renormalises and the family has no norm_topk_prob (Qwen3.5-MoE)
	everyLayer           bool // every layer is sparse; the family reads no decoder_sparse_step or mlp_only_layers
}

var (
	qwen3MoEKeys   = moeKeys{experts: 128, topK: 8, inter: 768}
	qwen3NextKeys  = moeKeys{experts: 512, topK: 10, inter: 512, shared: true, sharedInter: 512, normTopK: true}
	qwen3_5MoEKeys = moeKeys{experts: 256, topK: 8, inter: 512, shared: true, sharedInter: 512, alwaysNorm: true, everyLayer: true}
)

// count reads a non-negative integer key of c, def when absent or null.
func count(c *config.Model, key string, def int) (int, error) {
	v, ok := c.Raw[key]
	if !ok || v == nil {
		return def, nil
	}
	f, isNum := v.(float64)
	if !isNum || f != math.Trunc(f) || f < 0 || f > 1<<30 {
		return 0, fmt.Errorf("%s must be a non-negative integer, got %v", key, v)
	}
	return int(f), nil
}

// moeOf reads c's MoE keys with the family's defaults k.
func moeOf(c *config.Model, k moeKeys) (MoE, error) {
	var h MoE
	var first error
	num := func(key string, def int) int {
		n, err := count(c, key, def)
		if first == nil {
			first = err
		}
		return n
	}
	h.Experts, h.TopK, h.MoEInter = num("num_experts", k.experts), num("num_experts_per_tok", k.topK), num("moe_intermediate_size", k.inter)
	// transformers 5 writes the expert count as num_local_experts (its attribute map keeps num_experts as the alias).
	if v, ok := c.Raw["num_local_experts"]; ok && v != nil {
		local := num("num_local_experts", 0)
		if old, had := c.Raw["num_experts"]; had && old != nil && local != h.Experts && first == nil {
			first = fmt.Errorf("num_experts %d and num_local_experts %d disagree", h.Experts, local)
		}
		h.Experts = local
	}
	if k.shared {
		h.SharedInter = num("shared_expert_intermediate_size", k.sharedInter)
	}
	h.NormTopK = k.normTopK || k.alwaysNorm
	if v, ok := c.Raw["norm_topk_prob"]; ok && v != nil && !k.alwaysNorm {
		b, isBool := v.(bool)
		if !isBool && first == nil {
			first = fmt.Errorf("norm_topk_prob must be true or false, got %v", v)
		}
		h.NormTopK = b
	}
	step, only := 1, map[int]bool{}
	if !k.everyLayer {
		step = num("decoder_sparse_step", 1)
		if v, ok := c.Raw["mlp_only_layers"]; ok && v != nil {
			list, isList := v.([]any)
			for _, x := range list {
				f, isNum := x.(float64)
				if !isNum || f != math.Trunc(f) || f < 0 || int(f) >= c.NumLayers {
					isList = false
					break
				}
				only[int(f)] = true
			}
			if !isList && first == nil {
				first = fmt.Errorf("mlp_only_layers must be a list of layer indices below %d, got %v", c.NumLayers, v)
			}
		}
	}
	if first != nil {
		return h, first
	}
	h.Sparse = make([]bool, c.NumLayers)
	for i := range h.Sparse {
		h.Sparse[i] = h.Experts > 0 && step > 0 && !only[i] && (i+1)%step == 0
	}
	if h.Experts > 0 && (h.TopK < 1 || h.TopK > h.Experts || h.MoEInter < 1 || k.shared && h.SharedInter < 1) {
		return h, fmt.Errorf("num_experts %d, num_experts_per_tok %d, moe_intermediate_size %d, shared_expert_intermediate_size %d: want 1 ≤ top-k ≤ experts and positive sizes",
			h.Experts, h.TopK, h.MoEInter, h.SharedInter)
	}
	for i, s := range h.Sparse {
		if !s && c.IntermediateSize == 0 {
			return h, fmt.Errorf("no intermediate_size, and layer %d has a dense MLP", i)
		}
	}
	return h, nil
}

// moeLinears are layer p's sparse MLP: the router, the stacked experts, and the shared expert with its gate
// when the family has one.
func moeLinears(p string, h MoE, hidden int) []Linear {
	one := func(module string, s Slot, out, in, axis int) Linear {
		return Linear{Path: p + module, Out: out, In: in, Parts: []Part{{Slot: s, Rows: out}}, Axis: axis}
	}
	router := one("mlp.gate", Router, h.Experts, hidden, 1)
	router.Keep = true
	gateUp := Linear{Path: p + "mlp.experts.gate_up_proj", Out: h.Experts * 2 * h.MoEInter, In: hidden, Axis: 1, Experts: h.Experts}
	down := Linear{Path: p + "mlp.experts.down_proj", Out: h.Experts * hidden, In: h.MoEInter, Axis: 1, Experts: h.Experts}
	for e := range h.Experts {
		gateUp.Parts = append(gateUp.Parts, Part{Slot: ExpertGate, Rows: h.MoEInter, Expert: e}, Part{Slot: ExpertUp, Rows: h.MoEInter, Expert: e})
		down.Parts = append(down.Parts, Part{Slot: ExpertDown, Rows: hidden, Expert: e})
	}
	out := []Linear{router, gateUp, down}
	if h.SharedInter == 0 {
		return out
	}
	sharedGate := one("mlp.shared_expert_gate", SharedExpertGate, 1, hidden, 1)
	sharedGate.Keep = true
	return append(out,
		one("mlp.shared_expert.gate_proj", SharedGate, h.SharedInter, hidden, 1),
		one("mlp.shared_expert.up_proj", SharedUp, h.SharedInter, hidden, 1),
		one("mlp.shared_expert.down_proj", SharedDown, hidden, h.SharedInter, 0), sharedGate)
}

// expertModules name an expert's own modules, by slot, under mlp.experts.E.
var expertModules = map[Slot]string{ExpertGate: "gate_proj", ExpertUp: "up_proj", ExpertDown: "down_proj"}

// perExpert is a layer's expert stacks (Linears with Experts > 0) as one module per expert and slot, in expert
// order (gate, up, down); other linears stay as they are. Each is coded along its input like the stacks.
func perExpert(ls []Linear) []Linear {
	var out, stacks []Linear
	for _, l := range ls {
		if l.Experts > 0 {
			stacks = append(stacks, l)
		} else {
			out = append(out, l)
		}
	}
	if len(stacks) == 0 {
		return ls
	}
	base := expertsPrefix(stacks[0])
	var experts [][]Linear
	for _, s := range stacks {
		for _, p := range s.Parts {
			for len(experts) <= p.Expert {
				experts = append(experts, nil)
			}
			experts[p.Expert] = append(experts[p.Expert], Linear{Path: fmt.Sprintf("%s%d.%s", base, p.Expert, expertModules[p.Slot]),
				Out: p.Rows, In: s.In, Parts: []Part{p}, Axis: s.Axis})
		}
	}
	for _, e := range experts {
		out = append(out, e...)
	}
	return out
}

// expertsPrefix is the module prefix of an expert stack's experts: "model.layers.N.mlp.experts.".
func expertsPrefix(stack Linear) string { return stack.Path[:strings.LastIndex(stack.Path, ".")+1] }

// storedPerExpert reports whether a checkpoint (has: its tensor names) stores layer L's experts one module each.
func storedPerExpert(L Layer, has func(string) bool) bool {
	for _, l := range L.Linears {
		if l.Experts > 0 {
			p := expertsPrefix(l) + "0.gate_proj"
			return has(p+".weight") || has(p+".scales")
		}
	}
	return false
}
