// The tensor map: every tensor one family's checkpoint holds for one config, with the shape the config implies,
// what each tensor is to the forward pass, and what the quantizer may do with it.
package family

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlxbun/mlxbun/internal/config"
)

// Slot is one linear layer of the shared forward pass.
type Slot uint8

const (
	Q    Slot = iota // [heads·headDim, hidden]
	K                // [kvHeads·headDim, hidden]
	V                // [kvHeads·headDim, hidden]
	O                // [hidden, heads·headDim]
	Gate             // [intermediate, hidden]
	Up               // [intermediate, hidden]
	Down             // [hidden, intermediate]
	Head             // the output projection [vocab, hidden], lm_head or the tied embedding table
	numSlots

	layerSlots = Head // Q..Down: what every layer stores
)

var slotNames = [numSlots]string{"q", "k", "v", "o", "gate", "up", "down", "lm_head"}

func (s Slot) String() string {
	if s < numSlots {
		return slotNames[s]
	}
	if n, ok := hybridSlotName(s); ok {
		return n
	}
	return fmt.Sprintf("slot(%d)", uint8(s))
}

// Axis is the trellis coded axis of the slot's weight: 1 (along the input dimension) for the attention and MLP
// input projections and o_proj, 0 (along the output dimension, stored transposed) for down_proj.
func (s Slot) Axis() int {
	if s == Down {
		return 0
	}
	return 1
}

// shape is the slot's [out, in] under c for a layer of attention geometry a.
func (s Slot) shape(c *config.Model, a Attn) (out, in int) {
	q, kv := a.Heads*a.HeadDim, a.KVHeads*a.HeadDim
	switch s {
	case Q:
		return q, c.HiddenSize
	case K, V:
		return kv, c.HiddenSize
	case O:
		return c.HiddenSize, q
	case Gate, Up:
		return c.IntermediateSize, c.HiddenSize
	case Down:
		return c.HiddenSize, c.IntermediateSize
	case Head:
		return c.VocabSize, c.HiddenSize
	}
	panic(fmt.Sprintf("family: shape of %s", s))
}

// Kind is what a checkpoint tensor is, which decides what the quantizer may do with it.
type Kind uint8

const (
	// KindTable: the embedding table or the output head [vocab, hidden]; kept in bf16 or stored as MLX affine
	// (quantize --head affine8, the head's default, or --embeddings affine8), never trellis-coded (the table is
	// looked up by row).
	KindTable Kind = iota
	// KindWeight: a projection's weight [out, in]; trellis-coded along its Linear's Axis (MLX checkpoints may
	// hold it affine-quantized).
	KindWeight
	KindBias // a projection's optional bias [out]: kept
	KindNorm // an RMSNorm weight: kept
	// KindParam: a small tensor kept as stored, never quantized: DeltaNet's conv weights, A_log and dt_bias, and
	// the linears a family marks Keep (MoE routers, the shared-expert gate, DeltaNet's β and decay projections,
	// Gemma 4's per-layer input gate and projections).
	KindParam
)

// Vector is a tensor uploaded as it is stored: the embedding table and the norm weights.
type Vector struct {
	Name    string
	Shape   []int
	PlusOne bool // a zero-centred norm weight: the forward pass scales by (1 + w) (Family.NormPlusOne)
}

// Part is one row block of a stored projection.
type Part struct {
	Slot   Slot
	Rows   int
	Expert int // the expert of an expert slot (hybrid.go)
}

// Linear is one stored linear module: <Path>.weight [Out, In] (or the quantized tensors beside it, as the
// config's quantization block says for Path) and an optional <Path>.bias [Out].
type Linear struct {
	Path    string
	Out, In int
	Parts   []Part // row blocks in order, Σ Rows = Out; one part when unfused
	Axis    int    // the coded axis of its trellis codes
	Table   bool   // the output head: stored as the embedding table is (KindTable), never trellis-coded
	// Keep is a small linear never quantized (KindParam: Gemma 4's side projections, the hybrids' routers and
	// gates). Hybrid families (hybrid.go): Experts > 0 a stack of that many experts' weights (WeightName,
	// WeightShape); Interleave a stored row pattern repeated per head (group) that binding regroups so the parts
	// are contiguous (Regroup).
	Keep       bool
	Experts    int
	Interleave []int
}

// Storage is how a checkpoint stores a linear module's weight.
type Storage uint8

const (
	StoredDense     Storage = iota // <path>.weight, a float tensor [out, in]
	StoredQuantized                // <path>.weight codes with <path>.scales: MLX affine or trellis, as the quantization block says
	StoredEXL3                     // exllamav3's <path>.trellis with its sign-and-scale vectors (internal/exl3)
)

// Storage is how the checkpoint that has the given tensors stores l: EXL3 when it holds <path>.trellis (what
// exllamav3's loader keys on), quantized when it holds <path>.scales, dense otherwise. Every linear of the map,
// the output head included, may be EXL3; the embedding table is looked up by row and never is.
func (l Linear) Storage(has func(name string) bool) Storage {
	switch {
	case has(l.Path + ".trellis"):
		return StoredEXL3
	case has(l.Path + ".scales"):
		return StoredQuantized
	}
	return StoredDense
}

// Fused reports whether the module stacks several slots.
func (l Linear) Fused() bool { return len(l.Parts) > 1 }

// RowRange is part k's first row and row count.
func (l Linear) RowRange(k int) (start, n int) {
	for _, p := range l.Parts[:k] {
		start += p.Rows
	}
	return start, l.Parts[k].Rows
}

// PartName names part k in messages and to the backend: the path when unfused, else the path and its rows
// ("model.layers.0.self_attn.qkv_proj[256:320]").
func (l Linear) PartName(k int) string {
	if !l.Fused() {
		return l.Path
	}
	start, n := l.RowRange(k)
	return fmt.Sprintf("%s[%d:%d]", l.Path, start, start+n)
}

// Layer is one decoder layer's tensors.
type Layer struct {
	InNorm, PostNorm Vector  // PostNorm is the norm before the MLP (Gemma's pre_feedforward_layernorm)
	QNorm, KNorm     *Vector // [headDim]; nil unless the family has QKNorm (KNorm also nil on a KV-sharing layer)
	Linears          []Linear
	Rope             bool         // false: a NoPE layer
	Attn             Attn         // the layer's attention geometry (layers.go)
	Sandwich                      // Gemma's further per-layer tensors (layers.go); zero for the pre-norm families
	Hybrid           *HybridLayer // the hybrid families' DeltaNet tensors and MoE flag (hybrid.go); nil otherwise
}

// Map is every tensor of a model as its family stores it, with the shapes its config implies.
type Map struct {
	Embed    Vector // model.embed_tokens.weight [vocab, hidden]
	Norm     Vector // model.norm.weight [hidden]
	Layers   []Layer
	Head     Linear // lm_head [vocab, hidden]
	TiedHead Linear // the embedding table as the output projection
	// FinalSoftcap > 0 caps the logits as tanh(l/c)·c (Gemma 2, 4); Inputs are Gemma 4's per-layer input
	// embeddings (nil for the others).
	FinalSoftcap float64
	Inputs       *Inputs
	// Unused names tensors a checkpoint may hold that this model never reads (the k_proj, v_proj and k_norm of
	// Gemma 4's KV-sharing layers): the quantizer drops them.
	Unused map[string]bool

	index map[string]Tensor
}

// Tensor is one checkpoint tensor of a map.
type Tensor struct {
	Name  string // "model.layers.0.self_attn.q_proj.weight"
	Path  string // its module, as the quantization block keys it: "model.layers.0.self_attn.q_proj"
	Kind  Kind
	Shape []int // unquantized, as the config implies
	Axis  int   // KindWeight: the coded axis
	// PlusOne: a zero-centred norm weight the forward pass applies as (1 + w) (KindNorm; Vector.PlusOne).
	PlusOne bool
}

// Tensors is the family's map for c, expert weights stacked as transformers 5 holds them (TensorsOf).
func (f Family) Tensors(c *config.Model) *Map { return f.TensorsOf(c, nil) }

// TensorsOf is the family's map for c as a checkpoint stores it, has reporting the tensors it holds (nil: none
// known): a sparse layer whose experts the checkpoint stores one module each (mlp.experts.E.gate_proj, as the
// published MoE checkpoints do) maps them so, any other stacked (moe.go).
func (f Family) TensorsOf(c *config.Model, has func(name string) bool) *Map {
	vocab, hidden := c.VocabSize, c.HiddenSize
	m := &Map{
		Embed:    Vector{Name: "model.embed_tokens.weight", Shape: []int{vocab, hidden}},
		Norm:     Vector{Name: "model.norm.weight", Shape: []int{hidden}, PlusOne: f.NormPlusOne},
		Layers:   make([]Layer, c.NumLayers),
		Head:     Linear{Path: "lm_head", Out: vocab, In: hidden, Parts: []Part{{Slot: Head, Rows: vocab}}, Axis: 1, Table: true},
		TiedHead: Linear{Path: "model.embed_tokens", Out: vocab, In: hidden, Parts: []Part{{Slot: Head, Rows: vocab}}, Axis: 1, Table: true},
	}
	for i := range m.Layers {
		if f.Layer != nil {
			m.Layers[i] = f.Layer(c, i)
			continue
		}
		L := &m.Layers[i]
		p := fmt.Sprintf("model.layers.%d.", i)
		L.Attn = defaultAttn(c, i)
		if f.LayerAttn != nil {
			L.Attn = f.LayerAttn(c, i)
		}
		L.InNorm = Vector{Name: p + "input_layernorm.weight", Shape: []int{hidden}, PlusOne: f.NormPlusOne}
		L.PostNorm = Vector{Name: p + "post_attention_layernorm.weight", Shape: []int{hidden}, PlusOne: f.NormPlusOne}
		if f.QKNorm {
			L.QNorm = &Vector{Name: p + "self_attn.q_norm.weight", Shape: []int{L.Attn.HeadDim}, PlusOne: f.NormPlusOne}
			if L.Attn.KVFrom == i {
				L.KNorm = &Vector{Name: p + "self_attn.k_norm.weight", Shape: []int{L.Attn.HeadDim}, PlusOne: f.NormPlusOne}
			}
		}
		L.Rope = f.UsesRope == nil || f.UsesRope(c, i)
		for _, pr := range f.Projections {
			l := Linear{Path: p + pr.Module, Axis: pr.Slots[0].Axis()}
			for _, s := range pr.Slots {
				if !L.Attn.stores(s, i) {
					continue
				}
				out, in := s.shape(c, L.Attn)
				l.Parts = append(l.Parts, Part{Slot: s, Rows: out})
				l.Out, l.In = l.Out+out, in
			}
			if len(l.Parts) > 0 {
				L.Linears = append(L.Linears, l)
			}
		}
	}
	for i := range m.Layers { // a layer built without geometry has the config's
		if m.Layers[i].Attn.Heads == 0 {
			m.Layers[i].Attn = defaultAttn(c, i)
		}
	}
	if f.Extend != nil {
		f.Extend(c, m)
	}
	for i, L := range m.Layers {
		if has != nil && storedPerExpert(L, has) {
			m.Layers[i].Linears = perExpert(L.Linears)
		}
	}
	m.index = map[string]Tensor{}
	vec := func(v Vector, k Kind) {
		m.index[v.Name] = Tensor{Name: v.Name, Path: strings.TrimSuffix(v.Name, ".weight"), Kind: k, Shape: v.Shape, PlusOne: v.PlusOne}
	}
	lin := func(l Linear) {
		k := KindWeight
		switch {
		case l.Table:
			k = KindTable
		case l.Keep:
			k = KindParam
		}
		m.index[l.WeightName()] = Tensor{Name: l.WeightName(), Path: l.Path, Kind: k, Shape: l.WeightShape(), Axis: l.Axis}
		m.index[l.Path+".bias"] = Tensor{Name: l.Path + ".bias", Path: l.Path, Kind: KindBias, Shape: []int{l.Out}}
	}
	vec(m.Embed, KindTable)
	vec(m.Norm, KindNorm)
	for _, L := range m.Layers {
		vec(L.InNorm, KindNorm)
		vec(L.PostNorm, KindNorm)
		for _, v := range []*Vector{L.QNorm, L.KNorm} {
			if v != nil {
				vec(*v, KindNorm)
			}
		}
		for _, l := range L.Linears {
			lin(l)
		}
		for _, v := range L.Sandwich.norms() {
			vec(v, KindNorm)
		}
		for _, v := range L.Hybrid.vectors() {
			vec(v, KindParam)
		}
	}
	for _, l := range m.SideLinears() {
		lin(l)
		delete(m.index, l.Path+".bias")
	}
	if in := m.Inputs; in != nil {
		vec(in.Table, KindTable)
		vec(in.Norm, KindNorm)
	}
	lin(m.Head)
	delete(m.index, "lm_head.bias") // no family has one
	return m
}

// SideLinears lists the linear modules outside the layers' slots, in binding order: each layer's per-layer
// input gate and projection, then the model's per-layer input projection (Gemma 4); none for other families.
func (m *Map) SideLinears() []Linear {
	var out []Linear
	for _, L := range m.Layers {
		if in := L.Input; in != nil {
			out = append(out, in.Gate, in.Proj)
		}
	}
	if m.Inputs != nil {
		out = append(out, m.Inputs.Proj)
	}
	return out
}

// Lookup finds an unquantized checkpoint tensor by name.
func (m *Map) Lookup(name string) (Tensor, bool) {
	t, ok := m.index[name]
	return t, ok
}

// All lists every tensor of the map, sorted by name: what a complete unquantized checkpoint of this config may
// hold (biases and lm_head included; a checkpoint leaves out the biases its family does not use and lm_head
// when tied).
func (m *Map) All() []Tensor {
	out := make([]Tensor, 0, len(m.index))
	for _, t := range m.index {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tensor) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// OutputHead is the output projection a checkpoint binds: lm_head when it holds one (dense, quantized or EXL3:
// exllamav3 stores the head, tied or not, at head_bits), else the embedding table. A checkpoint without lm_head
// is tied whatever tie_word_embeddings says, as mlx-lm treats it.
func (m *Map) OutputHead(has func(name string) bool) Linear {
	if has(m.Head.Path+".weight") || m.Head.Storage(has) != StoredDense {
		return m.Head
	}
	return m.TiedHead
}

// Dropped reports a tensor a checkpoint may hold that no loader reads: rotary inverse frequencies, which are
// recomputed from the config, and Qwen3-Next's multi-token-prediction head (mtp.*, which transformers ignores too).
func Dropped(name string) bool {
	return strings.HasSuffix(name, ".rotary_emb.inv_freq") || strings.HasPrefix(name, "mtp.")
}

// Dropped reports a tensor of this model's checkpoints that no loader reads: Dropped's, and the map's Unused.
func (m *Map) Dropped(name string) bool { return Dropped(name) || m.Unused[name] }
