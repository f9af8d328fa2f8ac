// What a model asks of a device before it is loaded: one matmul query per linear layer, built from config.json
// (and its quantization block) and the checkpoint's tensor headers alone, through the family's tensor map. The
// registry (backend.OpenFor) picks a device from them and LoadFrom asks its backend about them before binding,
// so a device that cannot serve a layer is passed over, or fails naming the layer, before any weight is read.
package model

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// Queries lists the matmul queries of the model in dir (SourceQueries); no weight data is read.
func Queries(dir string) ([]backend.Query, error) {
	cfg, arch, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer arch.Close()
	qs, err := SourceQueries(cfg, arch)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return qs, nil
}

// SyntheticQueries lists the matmul queries of a synthetic preset (dense bf16 throughout).
func SyntheticQueries(name string) ([]backend.Query, error) {
	cfg, err := SyntheticConfig(name)
	if err != nil {
		return nil, err
	}
	src, err := newRandomSource(cfg, 0)
	if err != nil {
		return nil, err
	}
	return SourceQueries(cfg, src)
}

// SourceQueries lists one matmul query per linear layer the model binds, in binding order: every layer's
// projections (a fused one gives a query per part, named as LoadLinear will see it), the side projections
// (Gemma 4's per-layer inputs) and the output head; then one query per op beyond the Backend interface the
// model needs (variations.go: windowed or softcapped attention, GeGLU, ...), and one per attention shape
// (attnQueries). Each query's weight is described
// from its tensors' headers: dtype for dense weights, the quantization block's spec and the stored shape (the
// 3-bit interleave) for quantized ones, K and the codebook marker for EXL3 ones. A tensor missing, or shaped unlike the config implies, is an error
// naming it.
func SourceQueries(cfg *config.Model, src Source) ([]backend.Query, error) {
	fam, err := family.For(cfg)
	if err != nil {
		return nil, err
	}
	tm := fam.TensorsOf(cfg, src.Has)
	var qs []backend.Query
	add := func(l family.Linear) error {
		wt, err := describe(cfg, src, l)
		if err != nil {
			return err
		}
		for k, p := range l.Parts {
			qs = append(qs, backend.Query{Op: backend.OpMatMul, Name: l.PartName(k), Weight: wt, Out: p.Rows, In: l.In})
		}
		return nil
	}
	for _, L := range tm.Layers {
		for _, l := range L.Linears {
			if err := add(l); err != nil {
				return nil, err
			}
		}
	}
	for _, l := range tm.SideLinears() {
		if err := add(l); err != nil {
			return nil, err
		}
	}
	if err := add(tm.OutputHead(src.Has)); err != nil {
		return nil, err
	}
	qs = append(qs, needs(cfg, fam, tm)...)
	qs = append(qs, hybridQueries(tm)...)
	return append(qs, attnQueries(tm)...), nil
}

// attnQueries asks one OpAttention query per distinct attention shape (heads, head dim, window, softcap), named
// after the first layer of that shape: a device whose kernels stop short of a head dim (Gemma 4's global 512)
// is passed over before loading. A DeltaNet layer attends through its recurrent state and asks nothing here.
func attnQueries(tm *family.Map) []backend.Query {
	var qs []backend.Query
	seen := map[backend.AttnShape]bool{}
	for i, L := range tm.Layers {
		if L.Hybrid != nil && L.Hybrid.DeltaNet != nil {
			continue
		}
		a := L.Attn
		s := backend.AttnShape{Heads: a.Heads, KVHeads: a.KVHeads, HeadDim: a.HeadDim, Window: a.Window > 0, Softcap: a.Softcap > 0}
		if !seen[s] {
			seen[s] = true
			qs = append(qs, backend.Query{Op: backend.OpAttention, Name: fmt.Sprintf("model.layers.%d.self_attn", i), Attn: s})
		}
	}
	return qs
}

// describe is the Weight of module l as src stores it.
func describe(cfg *config.Model, src Source, l family.Linear) (backend.Weight, error) {
	stored := l.Storage(src.Has)
	if stored == family.StoredEXL3 {
		return describeEXL3(cfg, src, l) // exl3.go
	}
	quantized := stored == family.StoredQuantized
	name := l.Path + ".weight"
	if !quantized {
		name = l.WeightName()
	}
	h, err := header(src, name)
	if err != nil {
		return backend.Weight{}, err
	}
	if !quantized {
		if !slices.Equal(h.Shape, l.WeightShape()) {
			return backend.Weight{}, fmt.Errorf("tensor %q has shape %v, the config implies %v", name, h.Shape, l.WeightShape())
		}
		return backend.Weight{Format: backend.FormatDense, DType: h.DType}, nil
	}
	q, ok := cfg.Quant.For(l.Path)
	if !ok {
		return backend.Weight{}, fmt.Errorf("tensor %q: has %s.scales but config.json's quantization block does not cover %s", name, l.Path, l.Path)
	}
	switch q.Mode {
	case "trellis":
		g, err := trellis.NewGeometry(trellis.Spec{K: q.Bits, L: q.Trellis.L, T: q.GroupSize, Code: q.Trellis.Code, Axis: q.Trellis.Axis}, h.Shape)
		if err != nil {
			return backend.Weight{}, fmt.Errorf("tensor %q: %w", name, err)
		}
		if g.InFeatures() != l.In || g.OutFeatures() != l.Out {
			return backend.Weight{}, fmt.Errorf("tensor %q: trellis codes of a %d→%d projection, the config implies %d→%d",
				name, g.InFeatures(), g.OutFeatures(), l.In, l.Out)
		}
		if l.Fused() && g.Axis != 1 {
			return backend.Weight{}, fmt.Errorf("tensor %q: a fused projection coded along axis %d (only axis 1 splits by rows): %w",
				name, g.Axis, backend.ErrUnsupported)
		}
		return backend.Weight{Format: backend.FormatTrellis, Bits: g.K, Group: g.T, L: g.L, Code: g.Code, Axis: g.Axis,
			Interleaved: g.Interleaved}, nil
	case "affine":
		return backend.Weight{Format: backend.FormatAffine, Bits: q.Bits, Group: q.GroupSize}, nil
	}
	return backend.Weight{}, fmt.Errorf("tensor %q: quantization mode %q: %w", name, q.Mode, backend.ErrUnsupported)
}

// headerSource is a Source that can describe a tensor (name, dtype, shape) without producing its data; a
// safetensors archive needs no such method, its Tensor only slices the mapping.
type headerSource interface {
	Header(name string) (backend.Host, error)
}

// header is a tensor's description without its data.
func header(src Source, name string) (backend.Host, error) {
	if hs, ok := src.(headerSource); ok {
		return hs.Header(name)
	}
	h, err := src.Tensor(name)
	h.Data = nil
	return h, err
}
