// The plan: what happens to every tensor of the input checkpoint, decided and checked before any encoding starts,
// so that bad input (an unknown tensor, a shape the config does not imply or the block length does not divide, a
// rule matching nothing) fails in a second rather than after an hour of encoding. Names, shapes, coded axes and
// what may be quantized come from the family's tensor map (internal/family), the one the loader binds through.
package quantize

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// role is what the quantizer does with one tensor.
type role int

const (
	roleKeep   role = iota // written as bf16 (norms, biases; tables stored bf16: tableAffine)
	roleCoded              // trellis-coded linear weight: <path>.weight U32 + <path>.scales F16
	roleAffine             // a table as MLX affine 8-bit group 64: <path>.weight U32 + <path>.scales/.biases BF16
	roleDrop               // not written (rotary inverse frequencies, which every loader recomputes)
	roleCopy               // outside the text model (a wrapped checkpoint's vision and audio towers): written as read
)

// classify finds a tensor (by the text model's name) in the family's tensor map: its entry (module path, kind,
// the shape the config implies, the coded axis) and true; false for a tensor that is dropped; or an error for a
// tensor the family's checkpoints do not hold.
func classify(tm *family.Map, famName, name string) (family.Tensor, bool, error) {
	if t, ok := tm.Lookup(name); ok {
		return t, true, nil
	}
	if tm.Dropped(name) {
		return family.Tensor{Name: name}, false, nil
	}
	return family.Tensor{}, false, fmt.Errorf("tensor %q is not part of a %s checkpoint with this config (embeddings, "+
		"lm_head, norms, and the projections of model.layers.0-%d)", name, famName, len(tm.Layers)-1)
}

// item is one input tensor and what becomes of it. name and path are the checkpoint's own, under which the
// output stores it and its quantization block keys it; text and textPath are the text model's (the same but in
// a wrapped multimodal checkpoint, config.Model.TextName), under which the map, the rules and the loader know it.
type item struct {
	name, path     string
	text, textPath string
	role           role
	shape          []int
	out, in        int // roleCoded, roleAffine: the linear layer's [out, in]
	spec           trellis.Spec
	interleave     bool             // roleCoded: store the 3-bit axis-0 block interleave
	qspec          config.QuantSpec // roleCoded, roleAffine: what the config block says for path
	table          bool             // the embedding table or lm_head (family.KindTable)
	// roleCoded linears of a layer's q..down slots: the site whose Hessian they use (layer −1: none), and with
	// Options.RHT their rotations (nil: that side not rotated).
	site          site
	rotIn, rotOut *rht.Side
}

// layerLinear is where a module sits in the family's map: its layer, its Linear, and whether the layer is a
// hybrid one (DeltaNet or MoE: neither calibrated nor rotated here).
type layerLinear struct {
	layer  int
	linear family.Linear
	hybrid bool
}

// layerLinears indexes the map's layer linears by module path.
func layerLinears(tm *family.Map) map[string]layerLinear {
	idx := map[string]layerLinear{}
	for i, L := range tm.Layers {
		for _, l := range L.Linears {
			idx[l.Path] = layerLinear{layer: i, linear: l, hybrid: L.Hybrid != nil}
		}
	}
	return idx
}

// signSeed derives a sign vector's seed from the run's seed and the vector's name, so each rotation has its own
// signs and the same run always draws the same ones.
func signSeed(seed uint64, name string) uint64 {
	h := seed ^ 0xcbf29ce484222325
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 0x100000001b3
	}
	return h
}

// placeLinear fills a coded item's site and, with rotations asked for, its sign vectors: the input signs are
// drawn per site (so q/k/v and gate/up share theirs and the model rotates their activation once); the output
// signs per module, for modules whose rows are stored whole and in order (not fused, not regrouped). A side whose
// dimension has no Hadamard block (rht.Block) stays unrotated.
func placeLinear(it *item, idx map[string]layerLinear, o Options) {
	it.site = site{layer: -1}
	ll, ok := idx[it.textPath]
	if !ok || ll.hybrid || ll.linear.Parts[0].Slot >= family.Head {
		return
	}
	slot := ll.linear.Parts[0].Slot
	it.site = site{layer: ll.layer, slot: siteOf[slot]}
	if !o.RHT {
		return
	}
	if b := rht.Block(it.in); b > 0 {
		name := fmt.Sprintf("model.layers.%d.%s.in", ll.layer, siteOf[slot])
		it.rotIn = &rht.Side{Signs: rht.Signs(signSeed(o.Seed, name), it.in), Block: b}
	}
	if b := rht.Block(it.out); b > 0 && !ll.linear.Fused() && ll.linear.Regroup() == nil {
		it.rotOut = &rht.Side{Signs: rht.Signs(signSeed(o.Seed, it.textPath+".out"), it.out), Block: b}
	}
}

// affine8 is the spec of a table stored affine (--head affine8, --embeddings affine8): MLX affine, 8 bits, groups
// of 64.
var affine8 = config.QuantSpec{Mode: "affine", Bits: affine.TableBits, GroupSize: affine.TableGroup}

// tableAffine decides whether the table at path is stored affine, and names the option that asks for it (for
// messages). head is the path of the checkpoint's output projection: lm_head, or the embedding table of a tied
// model, which is both and so stored affine when either option asks.
func tableAffine(path, head string, tm *family.Map, o Options) (bool, string) {
	emb := o.Embeddings == EmbeddingsAffine8
	switch {
	case path == head && o.Head == HeadAffine8:
		what := "--head affine8 (the default; --head bf16 keeps the head in bf16)"
		if path != tm.Head.Path {
			what = "--head affine8 (the default; this tied table is the output head: --head bf16 keeps it in bf16)"
		}
		return true, what
	case path == head && path == tm.Head.Path:
		return false, ""
	}
	return emb, "--embeddings affine8"
}

// quantSpec is the config block's spelling of a trellis spec.
func quantSpec(s trellis.Spec) config.QuantSpec {
	return config.QuantSpec{Mode: "trellis", Bits: s.K, GroupSize: s.T, Trellis: &config.TrellisParams{L: s.L, Code: s.Code, Axis: s.Axis}}
}

// floatDTypes are the input dtypes the quantizer reads.
var floatDTypes = map[backend.DType]bool{backend.F32: true, backend.F16: true, backend.BF16: true}

// plan classifies every tensor through the family's tensor map and checks each against the shape the config
// implies and each coded one against its spec. headers gives each tensor's dtype and shape (data untouched).
// Completeness is the loader's to check: a checkpoint missing a tensor quantizes, and fails to load naming it.
// A wrapped multimodal checkpoint's tensors outside its language model are copied as they are.
func plan(headers []backend.Host, fam family.Family, cfg *config.Model, o Options) ([]item, error) {
	text := map[string]bool{}
	for _, h := range headers {
		if n, ok := cfg.TextName(h.Name); ok {
			text[n] = true
		}
	}
	tm := fam.TensorsOf(cfg, func(n string) bool { return text[n] })
	idx := layerLinears(tm)
	head := tm.OutputHead(func(name string) bool { return text[name] }).Path // by the text model's names
	items := make([]item, 0, len(headers))
	used := make([]bool, len(o.Rules))
	for _, h := range headers {
		name, ok := cfg.TextName(h.Name)
		if !ok {
			items = append(items, item{name: h.Name, role: roleCopy, shape: h.Shape})
			continue
		}
		t, kept, err := classify(tm, fam.Name, name)
		if err != nil {
			return nil, err
		}
		if !kept {
			items = append(items, item{name: h.Name, text: name, role: roleDrop, shape: h.Shape})
			continue
		}
		if !floatDTypes[h.DType] {
			return nil, fmt.Errorf("tensor %q has dtype %s; the quantizer reads unquantized BF16, F16 or F32 checkpoints", h.Name, h.DType)
		}
		if !slices.Equal(h.Shape, t.Shape) {
			return nil, fmt.Errorf("tensor %q has shape %v, the config implies %v", h.Name, h.Shape, t.Shape)
		}
		it := item{name: h.Name, path: storedPath(h.Name, name, t.Path), text: name, textPath: t.Path, shape: h.Shape,
			table: t.Kind == family.KindTable}
		switch t.Kind {
		case family.KindTable:
			it.role = roleKeep
			if ok, _ := tableAffine(it.textPath, head, tm, o); ok {
				it.role = roleAffine
			}
		case family.KindWeight:
			it.role = roleCoded
		}
		if it.role == roleCoded || it.role == roleAffine {
			// [out, in], or a stack of experts [experts, out, in] coded as one [experts·out, in] (family.Linear)
			it.in = h.Shape[len(h.Shape)-1]
			it.out = h.Elements() / it.in
		}
		switch it.role {
		case roleCoded:
			for i, r := range o.Rules {
				used[i] = used[i] || r.Matches(it.textPath)
			}
			bits := bitsFor(o.Rules, it.textPath, o.Bits)
			it.spec = trellis.Spec{K: bits, L: o.L, T: o.GroupSize, Code: "1mad", Axis: t.Axis}
			if ll, ok := idx[it.textPath]; o.Axis0 && ok && !ll.linear.Fused() && ll.linear.Regroup() == nil && it.out%o.GroupSize == 0 {
				it.spec.Axis = 0
			}
			if err := checkCoded(&it); err != nil {
				return nil, err
			}
			placeLinear(&it, idx, o)
			it.qspec = quantSpec(it.spec)
		case roleAffine:
			if it.in%affine8.GroupSize != 0 {
				_, what := tableAffine(it.textPath, head, tm, o)
				return nil, fmt.Errorf("tensor %q %v: %s needs in-features that are a multiple of %d", h.Name, h.Shape, what, affine8.GroupSize)
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

// storedPath is the checkpoint's own module path of a tensor stored as name, whose text-model name is text and
// module path textPath: the stored name's prefix in place of the text name's (they differ in that prefix only).
func storedPath(name, text, textPath string) string {
	return name[:len(name)-len(text)+len(textPath)]
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
