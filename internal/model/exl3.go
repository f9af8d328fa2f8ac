// EXL3 linears (exllamav3's format, docs/exl3-format.md): describing one from its tensor headers for the device
// queries, and binding it as a backend linear. A module is EXL3 when the checkpoint holds <path>.trellis (the
// family map's Storage); the layer then computes y = x·Wᵀ in the original basis, its Hadamard sides inside the
// backend's linear, so the forward pass is the same as for any other format.
package model

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/family"
)

// exl3Module checks that module l may be bound from EXL3 tensors at all: the config must say the checkpoint is
// exllamav3's, and the module must be one whole unfused projection, since the output Hadamard mixes rows across
// 128-row blocks (a fused or row-regrouped projection cannot be cut into its parts) and exllamav3 stores experts
// one module each, not as the stack the family map names.
func exl3Module(cfg *config.Model, l family.Linear) error {
	name := l.Path + exl3.SuffixTrellis
	switch {
	case cfg.EXL3 == nil:
		return fmt.Errorf("tensor %q: EXL3 codes, but config.json's quantization_config is not quant_method \"exl3\"", name)
	case l.Fused():
		return fmt.Errorf("tensor %q: a fused projection (%d parts) stored as EXL3: %w", name, len(l.Parts), backend.ErrUnsupported)
	case l.Regroup() != nil:
		return fmt.Errorf("tensor %q: a projection whose rows are regrouped at load stored as EXL3: %w", name, backend.ErrUnsupported)
	case l.Experts > 0:
		return fmt.Errorf("tensor %q: an expert stack stored as EXL3: %w", name, backend.ErrUnsupported)
	}
	return nil
}

// describeEXL3 is the Weight of EXL3 module l from src's headers: K from the trellis shape, the codebook from the
// marker present.
func describeEXL3(cfg *config.Model, src Source, l family.Linear) (backend.Weight, error) {
	if err := exl3Module(cfg, l); err != nil {
		return backend.Weight{}, err
	}
	name := l.Path + exl3.SuffixTrellis
	h, err := header(src, name)
	if err != nil {
		return backend.Weight{}, err
	}
	if h.DType != backend.I16 {
		return backend.Weight{}, fmt.Errorf("tensor %q: EXL3 trellis must be I16, got %s", name, h.DType)
	}
	g, err := exl3.NewGeometry(h.Shape)
	if err != nil {
		return backend.Weight{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	if g.PadIn() != exl3.Padded(l.In) || g.PadOut() != exl3.Padded(l.Out) {
		return backend.Weight{}, fmt.Errorf("tensor %q: trellis %v holds %d→%d features, the config implies %d→%d (stored %d→%d)",
			name, h.Shape, g.PadIn(), g.PadOut(), l.In, l.Out, exl3.Padded(l.In), exl3.Padded(l.Out))
	}
	var mcg, mul1 *uint32
	if src.Has(l.Path + exl3.SuffixMCG) {
		mcg = new(exl3.MCGMult)
	}
	if src.Has(l.Path + exl3.SuffixMul1) {
		mul1 = new(exl3.Mul1Mult)
	}
	cb, err := exl3.CodebookOf(mcg, mul1) // the markers' values are checked when bound
	if err != nil {
		return backend.Weight{}, fmt.Errorf("module %q: %w", l.Path, err)
	}
	return backend.Weight{Format: backend.FormatEXL3, Bits: g.K, Code: cb.String()}, nil
}

// exl3 fills spec from module l's EXL3 tensors.
func (w *binder) exl3(spec *backend.LinearSpec, l family.Linear) bool {
	if err := exl3Module(w.m.Config, l); err != nil {
		w.fail(err)
		return false
	}
	x, err := exl3.Read(exl3Reader{w.m.arch}, l.Path, l.In, l.Out)
	if err != nil {
		w.fail(err)
		return false
	}
	spec.EXL3 = x
	return true
}

// exl3Reader reads a Source's tensors for package exl3.
type exl3Reader struct{ Source }

func (r exl3Reader) Read(name string) (dtype.DType, []int, []byte, error) {
	h, err := r.Tensor(name)
	return h.DType, h.Shape, h.Data, err
}
