// MoE variants of the dense tiny fixtures, for the MoE families no fixture holds: each sparse layer's experts
// (and shared expert) carry the dense MLP's own weights, beside a seeded random router, so the model is as
// well-conditioned as its source. With norm_topk_prob the routed weights sum to 1 and a sparse block without a
// shared expert computes the dense MLP (to rounding): the Qwen3-MoE variant computes its Qwen3 source's function.
package variant

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// moeLayout says how a variant stores its sparse layers.
type moeLayout struct {
	experts   int
	sparse    func(layer int) bool
	perExpert bool // mlp.experts.E.{gate,up,down}_proj.weight (the published checkpoints), else stacked (transformers 5)
	shared    bool // a shared expert (the dense MLP again) with a zero gate: sigmoid 0 = 1/2 of it added
}

// qwen3MoE: tiny-qwen3 (2 layers) with layer 0 sparse (4 experts, 2 routed) and layer 1 dense (mlp_only_layers),
// experts stored one module each as Qwen3-30B-A3B's checkpoint is.
func qwen3MoE(c map[string]any) {
	c["model_type"], c["num_experts"], c["num_experts_per_tok"] = "qwen3_moe", qwen3MoELayout.experts, 2
	c["moe_intermediate_size"], c["norm_topk_prob"], c["decoder_sparse_step"] = c["intermediate_size"], true, 1
	c["mlp_only_layers"] = []int{1}
}

var qwen3MoELayout = moeLayout{experts: 4, sparse: func(l int) bool { return l == 0 }, perExpert: true}

// qwen3_5MoE: tiny-qwen3_5 with every MLP sparse (2 experts, 1 routed: its 4 layers keep the quantizer's round trip
// short) with a shared expert, experts stacked, and no intermediate_size (Qwen3.5-MoE's config has none).
func qwen3_5MoE(c map[string]any) {
	c["model_type"], c["num_experts"], c["num_experts_per_tok"] = "qwen3_5_moe_text", qwen3_5MoELayout.experts, 1
	c["moe_intermediate_size"], c["shared_expert_intermediate_size"] = c["intermediate_size"], c["intermediate_size"]
	delete(c, "intermediate_size")
}

var qwen3_5MoELayout = moeLayout{experts: 2, sparse: func(int) bool { return true }, shared: true}

// sparseMLPs rewrites the dense MLPs of the layers l.sparse picks as sparse blocks of the dense weights.
func (l moeLayout) sparseMLPs(ts []backend.Host) []backend.Host {
	by := map[string]backend.Host{}
	for _, h := range ts {
		by[h.Name] = h
	}
	var out []backend.Host
	for _, h := range ts {
		var layer int
		var rest string
		if _, err := fmt.Sscanf(h.Name, "model.layers.%d.%s", &layer, &rest); err != nil || !l.sparse(layer) ||
			!strings.HasPrefix(rest, "mlp.") {
			out = append(out, h)
			continue
		}
		if rest != "mlp.gate_proj.weight" { // the block is written once, at its gate_proj
			continue
		}
		p := fmt.Sprintf("model.layers.%d.mlp.", layer)
		gate, up, down := by[p+"gate_proj.weight"], by[p+"up_proj.weight"], by[p+"down_proj.weight"]
		hidden := gate.Shape[1]
		out = append(out, routerWeights(p+"gate.weight", gate.DType, l.experts, hidden))
		if l.perExpert {
			for e := range l.experts {
				for _, w := range []backend.Host{gate, up, down} {
					w.Name = fmt.Sprintf("%sexperts.%d.%s", p, e, strings.TrimPrefix(w.Name, p))
					out = append(out, w)
				}
			}
		} else {
			out = append(out, stack(p+"experts.gate_up_proj", l.experts, gate, up), stack(p+"experts.down_proj", l.experts, down))
		}
		if l.shared {
			for _, w := range []backend.Host{gate, up, down} {
				w.Name = p + "shared_expert." + strings.TrimPrefix(w.Name, p)
				out = append(out, w)
			}
			z := backend.Host{Name: p + "shared_expert_gate.weight", DType: gate.DType, Shape: []int{1, hidden}}
			z.Data = make([]byte, hidden*gate.DType.Size())
			out = append(out, z)
		}
	}
	return out
}

// stack is n copies of the concatenation of ws (by rows) as one [n, rows, cols] tensor.
func stack(name string, n int, ws ...backend.Host) backend.Host {
	h := backend.Host{Name: name, DType: ws[0].DType, Shape: []int{n, 0, ws[0].Shape[1]}}
	for _, w := range ws {
		h.Shape[1] += w.Shape[0]
	}
	for range n {
		for _, w := range ws {
			h.Data = append(h.Data, w.Data...)
		}
	}
	return h
}

// routerWeights is a seeded uniform [−0.05, 0.05) router [experts, hidden] of dtype dt (bf16 or f32).
func routerWeights(name string, dt backend.DType, experts, hidden int) backend.Host {
	h := backend.Host{Name: name, DType: dt, Shape: []int{experts, hidden}}
	n := experts * hidden
	h.Data = make([]byte, n*dt.Size())
	x := uint64(len(name))*0x9e3779b97f4a7c15 + 1
	for i := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v := (float32(x>>40)/(1<<24) - 0.5) / 10
		if dt == backend.F32 {
			binary.LittleEndian.PutUint32(h.Data[4*i:], math.Float32bits(v))
		} else {
			binary.LittleEndian.PutUint16(h.Data[2*i:], backend.F32ToBF16(v))
		}
	}
	return h
}
