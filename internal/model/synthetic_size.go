// What a synthetic model holds and reads, counted from tensor headers alone (no weights made): the parameter
// count the published totals are checked against, and the bytes a decode step reads, the numerator of the
// bandwidth roofline bench prints; a MoE model's step reads only the experts it routes to.
package model

import (
	"strings"

	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// SyntheticSize is what a synthetic model holds and reads.
type SyntheticSize struct {
	Params      int64 // elements of every tensor of the unquantized checkpoint
	StoredBytes int64 // bytes of every stored tensor (words and scales for the coded ones)
	// ActiveParams are the parameters one token computes with: Params, but a MoE layer's experts counted
	// num_experts_per_tok of num_experts (the published "activated" figure, embeddings included).
	ActiveParams int64
	// DecodeBytes are the weight bytes one decode step of one sequence reads: every tensor once, but the tables
	// looked up by row (the embeddings when untied, Gemma 4's per-layer inputs) one row each, and of an expert
	// stack its routed experts' share only. KV-cache and recurrent-state traffic is not counted (it depends on
	// the position; Qwen3.5-27B's DeltaNet states are 151 MB in f32).
	DecodeBytes int64
}

// namedSource is what SyntheticStats reads: the tensors a synthetic source holds and their headers.
type namedSource interface {
	Source
	headerSource
	Names() []string
}

// SyntheticStats counts a preset stored as q (q.Bits 0: bf16) from its headers.
func SyntheticStats(name string, q SyntheticQuant) (SyntheticSize, error) {
	p, err := preset(name)
	if err != nil {
		return SyntheticSize{}, err
	}
	code := trellis.Spec{}
	if q.Bits > 0 {
		code = syntheticCode(q.Bits)
	}
	return rawStats(p, code, q.BF16Head)
}

// rawStats counts the synthetic model of config fields raw coded as code (K 0: bf16), its head bf16 or affine.
func rawStats(raw map[string]any, code trellis.Spec, bf16Head bool) (SyntheticSize, error) {
	cfg, src, err := syntheticSource(raw, code, bf16Head, 0)
	if err != nil {
		return SyntheticSize{}, err
	}
	dense, err := newRandomSource(cfg, 0)
	if err != nil {
		return SyntheticSize{}, err
	}
	var s SyntheticSize
	routed := routedShare(dense.tm)
	for _, n := range dense.Names() {
		t := dense.held[n]
		p := int64(shapeElements(t.Shape))
		s.Params += p
		s.ActiveParams += routed[t.Path].of(p)
	}
	head := dense.headPath()
	tables := map[string]bool{} // module paths of the tables
	for _, t := range dense.held {
		if t.Kind == family.KindTable {
			tables[t.Path] = true
		}
	}
	for _, n := range src.Names() {
		h, err := src.Header(n)
		if err != nil {
			return s, err
		}
		b := int64(h.Elements()) * int64(h.DType.Size())
		s.StoredBytes += b
		// a table looked up by row reads one row of each of its tensors (words, scales and biases when affine)
		if path := n[:max(strings.LastIndexByte(n, '.'), 0)]; tables[path] && path != head {
			b /= int64(h.Shape[0])
		}
		path := strings.TrimSuffix(strings.TrimSuffix(n, ".weight"), ".scales")
		s.DecodeBytes += routed[path].of(b)
	}
	return s, nil
}

// share is the fraction k/n of a tensor one token reads; the zero share is the whole tensor.
type share struct{ k, n int64 }

func (f share) of(v int64) int64 {
	if f.n == 0 {
		return v
	}
	return v * f.k / f.n
}

// routedShare gives each expert stack's module path the share of it a token is routed to: num_experts_per_tok
// of num_experts (a stack's experts are equal row blocks, dense or coded).
func routedShare(tm *family.Map) map[string]share {
	out := map[string]share{}
	for _, L := range tm.Layers {
		for _, l := range L.Linears {
			if l.Experts > 0 && L.Hybrid != nil {
				out[l.Path] = share{k: int64(L.Hybrid.Config.TopK), n: int64(l.Experts)}
			}
		}
	}
	return out
}

func shapeElements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// syntheticSource parses config fields raw (with a trellis block coded as code when code.K > 0, the output head
// affine unless bf16Head) and makes its source.
func syntheticSource(raw map[string]any, code trellis.Spec, bf16Head bool, seed uint64) (*config.Model, namedSource, error) {
	cfg, err := parseRaw(raw)
	if err != nil {
		return nil, nil, err
	}
	if code.K == 0 {
		src, err := newRandomSource(cfg, seed)
		return cfg, src, err
	}
	q, err := withTrellis(raw, cfg, code, bf16Head)
	if err != nil {
		return nil, nil, err
	}
	if cfg, err = parseRaw(q); err != nil {
		return nil, nil, err
	}
	src, err := newTrellisSource(cfg, code, bf16Head, seed)
	return cfg, src, err
}

// smallSizes are the dimensions a scaled-down preset takes, for the keys it has (and sets above zero): every
// coded dimension stays a multiple of the trellis group size (256), heads keep dividing into kv heads.
var smallSizes = map[string]int{
	"hidden_size": 256, "intermediate_size": 512, "vocab_size": 512, "vocab_size_per_layer_input": 512,
	"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "global_head_dim": 128,
	"num_global_key_value_heads": 1, "hidden_size_per_layer_input": 32, "sliding_window": 8,
	"linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 64, "linear_value_head_dim": 64,
	"num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 256, "shared_expert_intermediate_size": 256,
}

// scaledDown is a preset shrunk for CPU tests, its structure kept: smallSizes, and one period of its layer types
// (two layers when it has none).
func scaledDown(name string) (map[string]any, error) {
	p, err := preset(name)
	if err != nil {
		return nil, err
	}
	for k, v := range smallSizes {
		if n, ok := p[k].(int); ok && n > 0 {
			p[k] = v
		}
	}
	n := min(2, p["num_hidden_layers"].(int))
	if lt, ok := p["layer_types"].([]any); ok {
		n = period(lt)
		p["layer_types"] = lt[:n]
	}
	p["num_hidden_layers"] = n
	return p, nil
}

// period is the length of the shortest prefix of list that repeats to form it.
func period(list []any) int {
	for n := 1; n < len(list); n++ {
		if len(list)%n != 0 {
			continue
		}
		same := true
		for i := n; i < len(list) && same; i++ {
			same = list[i] == list[i%n]
		}
		if same {
			return n
		}
	}
	return len(list)
}

// Size counts a loaded model as SyntheticStats counts a preset (DecodeBytes left zero): Params (and
// ActiveParams) the parameters of the unquantized model its config shapes (sourceParams: the same for a bf16,
// an MLX affine, a trellis or an EXL3 checkpoint of one config), StoredBytes the bytes of every tensor stored (0
// for a source that cannot list its tensors).
func (m *Model) Size() (SyntheticSize, error) {
	return sourceSize(m.Config, m.Family, m.arch)
}

// sourceSize is Size for config c of family f stored in src.
func sourceSize(c *config.Model, f family.Family, src Source) (SyntheticSize, error) {
	var s SyntheticSize
	s.Params, s.ActiveParams = sourceParams(f.Tensors(c), c.TieWordEmbeddings, src.Has)
	ns, ok := src.(namer)
	if !ok {
		return s, nil
	}
	for _, n := range ns.Names() {
		h, err := header(src, n)
		if err != nil {
			return s, err
		}
		s.StoredBytes += int64(h.Elements()) * int64(h.DType.Size())
	}
	return s, nil
}

// sourceParams counts the parameters of the unquantized model of tensor map tm (the family's, experts stacked),
// checkpoint has holding its tensors in any form, and those one token computes with (a MoE stack's routed share).
// Every tensor is named and shaped by the map, not by what the checkpoint stores: a projection coded as trellis
// words and scales (<path>.weight, .scales), as EXL3's <path>.trellis with .suh, .svh and its codebook marker,
// or stored per expert is counted as the [out, in] weight it codes, the unquantized model's. The map's optional
// tensors are the biases, counted when the checkpoint has them (never quantized, they keep their names), and
// lm_head, counted unless the model is tied (tie_word_embeddings, or no lm_head stored: OutputHead) — the table
// counted once as transformers' num_parameters does, though exllamav3 stores a tied head again at head_bits.
func sourceParams(tm *family.Map, tied bool, has func(name string) bool) (params, active int64) {
	tied = tied || tm.OutputHead(has).Path != tm.Head.Path
	routed := routedShare(tm)
	for _, t := range tm.All() {
		switch {
		case t.Kind == family.KindBias && !has(t.Name):
			continue
		case t.Name == tm.Head.WeightName() && tied:
			continue
		}
		p := int64(shapeElements(t.Shape))
		params += p
		active += routed[t.Path].of(p)
	}
	return params, active
}
