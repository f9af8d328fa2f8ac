// The plan: what happens to every tensor of the input checkpoint, decided and checked before any encoding starts,
// so that bad input (an unknown tensor, a shape the block length does not divide, a rule matching nothing) fails
// in a second rather than after an hour of encoding.
package quantize

import (
	"fmt"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// role is what the quantizer does with one tensor.
type role int

const (
	roleKeep   role = iota // written as bf16 (norms, biases; embeddings and lm_head unless affine8)
	roleCoded              // trellis-coded linear weight: <path>.weight U32 + <path>.scales F16
	roleAffine             // MLX affine 8-bit group 64: <path>.weight U32 + <path>.scales/.biases BF16
	roleDrop               // not written (rotary inverse frequencies, which every loader recomputes)
	roleEmbed              // an embedding or lm_head: becomes roleKeep or roleAffine per Options.Embeddings
)

// projections maps a linear layer's module name (the path's last component) to its coded axis: the attention and
// MLP input projections are coded along their input dimension, the down projection along its output dimension
// (stored transposed). Phi-3's fused qkv_proj and gate_up_proj are input projections too.
var projections = map[string]int{
	"q_proj": 1, "k_proj": 1, "v_proj": 1, "o_proj": 1, "gate_proj": 1, "up_proj": 1, "down_proj": 0,
	"qkv_proj": 1, "gate_up_proj": 1,
}

// embeddingNames are the tensors --embeddings decides about.
var embeddingNames = map[string]bool{"model.embed_tokens.weight": true, "lm_head.weight": true}

// roles classifies a tensor name; the first entry whose test holds wins. path is the name without its last
// component, leaf the path's last component, suffix the name's last component ("weight", "bias", ...).
var roles = []struct {
	role role
	test func(name, path, leaf, suffix string) bool
}{
	{roleEmbed, func(name, _, _, _ string) bool { return embeddingNames[name] }},
	{roleCoded, func(_, path, leaf, suffix string) bool {
		_, ok := projections[leaf]
		return ok && suffix == "weight" && strings.HasPrefix(path, "model.layers.")
	}},
	{roleKeep, func(_, _, leaf, suffix string) bool { _, ok := projections[leaf]; return ok && suffix == "bias" }},
	{roleKeep, func(_, _, leaf, suffix string) bool {
		return strings.HasSuffix(leaf, "norm") && (suffix == "weight" || suffix == "bias")
	}},
	{roleDrop, func(name, _, _, _ string) bool { return strings.HasSuffix(name, ".rotary_emb.inv_freq") }},
}

// classify returns a tensor's role and module path, or an error for a tensor no supported decoder has.
func classify(name string) (role, string, error) {
	path, suffix := name, ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		path, suffix = name[:i], name[i+1:]
	}
	leaf := path[strings.LastIndexByte(path, '.')+1:]
	for _, r := range roles {
		if r.test(name, path, leaf, suffix) {
			return r.role, path, nil
		}
	}
	return 0, "", fmt.Errorf("tensor %q is not part of a supported decoder (embeddings, lm_head, norms, and the "+
		"q/k/v/o, gate/up/down projections of model.layers.N)", name)
}

// item is one input tensor and what becomes of it.
type item struct {
	name, path string
	role       role
	shape      []int
	out, in    int // roleCoded, roleAffine: the linear layer's [out, in]
	spec       trellis.Spec
	interleave bool             // roleCoded: store the 3-bit axis-0 block interleave
	qspec      config.QuantSpec // roleCoded, roleAffine: what the config block says for path
}

// affine8 is the spec of --embeddings affine8: MLX affine, 8 bits, groups of 64.
var affine8 = config.QuantSpec{Mode: "affine", Bits: 8, GroupSize: 64}

// quantSpec is the config block's spelling of a trellis spec.
func quantSpec(s trellis.Spec) config.QuantSpec {
	return config.QuantSpec{Mode: "trellis", Bits: s.K, GroupSize: s.T, Trellis: &config.TrellisParams{L: s.L, Code: s.Code, Axis: s.Axis}}
}

// floatDTypes are the input dtypes the quantizer reads.
var floatDTypes = map[backend.DType]bool{backend.F32: true, backend.F16: true, backend.BF16: true}

// plan classifies every tensor and checks each coded one against its spec. headers gives each tensor's dtype and
// shape (data untouched).
func plan(headers []backend.Host, o Options) ([]item, error) {
	items := make([]item, 0, len(headers))
	used := make([]bool, len(o.Rules))
	for _, h := range headers {
		r, path, err := classify(h.Name)
		if err != nil {
			return nil, err
		}
		if r != roleDrop && !floatDTypes[h.DType] {
			return nil, fmt.Errorf("tensor %q has dtype %s; the quantizer reads unquantized BF16, F16 or F32 checkpoints", h.Name, h.DType)
		}
		it := item{name: h.Name, path: path, role: r, shape: h.Shape}
		if r == roleEmbed {
			it.role = roleKeep
			if o.Embeddings == EmbeddingsAffine8 {
				it.role = roleAffine
			}
		}
		if it.role == roleCoded || it.role == roleAffine {
			if len(h.Shape) != 2 || h.Shape[0] < 1 || h.Shape[1] < 1 {
				return nil, fmt.Errorf("tensor %q has shape %v, want a 2-D [out, in] weight", h.Name, h.Shape)
			}
			it.out, it.in = h.Shape[0], h.Shape[1]
		}
		switch it.role {
		case roleCoded:
			for i, r := range o.Rules {
				used[i] = used[i] || r.Matches(path)
			}
			bits := bitsFor(o.Rules, path, o.Bits)
			it.spec = trellis.Spec{K: bits, L: o.L, T: o.GroupSize, Code: "1mad", Axis: projections[path[strings.LastIndexByte(path, '.')+1:]]}
			if err := checkCoded(&it); err != nil {
				return nil, err
			}
			it.qspec = quantSpec(it.spec)
		case roleAffine:
			if it.in%affine8.GroupSize != 0 {
				return nil, fmt.Errorf("tensor %q %v: --embeddings affine8 needs in-features that are a multiple of %d", h.Name, h.Shape, affine8.GroupSize)
			}
			it.qspec = affine8
		}
		items = append(items, it)
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("--bits-per-path: rule %q matches no quantized projection (paths look like model.layers.0.mlp.down_proj)", o.Rules[i])
		}
	}
	return items, nil
}

// checkCoded validates a coded tensor's spec and shape and decides the interleave: 3-bit down projections are
// stored as [out/512, in, 48] whenever the format allows it (T 256, L 12, out a multiple of 512).
func checkCoded(it *item) error {
	s := it.spec
	if err := s.Validate(); err != nil {
		return fmt.Errorf("tensor %q: bits %d, L %d, group size %d: %w", it.name, s.K, s.L, s.T, err)
	}
	coded, what := it.in, "in-features"
	if s.Axis == 0 {
		coded, what = it.out, "out-features (the coded dimension of a down projection)"
	}
	if coded%s.T != 0 {
		hint := ""
		for t := s.T / 2; t >= 1 && t*s.K%32 == 0; t /= 2 {
			if coded%t == 0 {
				hint = fmt.Sprintf(" (--group-size %d divides it)", t)
				break
			}
		}
		return fmt.Errorf("tensor %q %v: %s %d are not a multiple of the group size %d%s", it.name, it.shape, what, coded, s.T, hint)
	}
	it.interleave = s.Axis == 0 && s.K == 3 && s.T == 256 && s.L == 12 && it.out%trellis.InterleaveCols == 0
	return nil
}
