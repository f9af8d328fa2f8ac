// The binder turns checkpoint tensors into backend tensors and linears, checking each shape against what the
// config implies. It keeps the first error so the family's binding code reads as a plain list of tensors.
package model

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/rope"
)

type binder struct {
	m     *Model
	err   error
	ropes map[string]*rope.Table // per-layer rope tables by spec (variations.go)
	rots  map[string]*rotation   // bound rotations by block and signs (rotate.go): equal signs share one
}

func (w *binder) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// host fetches a floating-point tensor and checks its shape.
func (w *binder) host(name string, shape ...int) (backend.Host, bool) {
	if w.err != nil {
		return backend.Host{}, false
	}
	h, err := w.m.arch.Tensor(name)
	if err != nil {
		w.fail(err)
		return h, false
	}
	if !slices.Equal(h.Shape, shape) {
		w.fail(fmt.Errorf("tensor %q has shape %v, the config implies %v", name, h.Shape, shape))
		return h, false
	}
	switch h.DType {
	case backend.F32, backend.F16, backend.BF16:
	default:
		w.fail(fmt.Errorf("tensor %q has dtype %s, want BF16, F16 or F32", name, h.DType))
		return h, false
	}
	return h, true
}

// vector uploads a norm weight or embedding table (a quantized table dequantized).
func (w *binder) vector(v family.Vector) backend.Tensor {
	if w.err == nil && w.m.arch.Has(quantScales(v.Name)) {
		h, ok := w.dequantized(v.Name, v.Shape...)
		if !ok {
			return nil
		}
		return w.upload(h)
	}
	h, ok := w.host(v.Name, v.Shape...)
	if !ok {
		return nil
	}
	if v.PlusOne {
		h = plusOne(h)
	}
	return w.upload(h)
}

func (w *binder) upload(h backend.Host) backend.Tensor {
	t, err := w.m.b.Upload(h)
	if err != nil {
		w.fail(fmt.Errorf("tensor %q: %w", h.Name, err))
		return nil
	}
	return t
}

// linear binds a module the forward pass applies without rotations (linearRot); sign vectors beside it are an
// error.
func (w *binder) linear(l family.Linear) []backend.Linear {
	res, r := w.linearRot(l)
	if r != (linRot{}) {
		w.fail(fmt.Errorf("tensor %q: rotation signs on a projection the forward pass does not rotate", l.Path+".weight"))
	}
	return res
}

// linearRot binds the module l.Path (<path>.weight dense or quantized, or EXL3's <path>.trellis, as the checkpoint
// stores it, + .bias) as one backend linear per part: a fused module (Phi-3's qkv_proj, gate_up_proj) is split by
// output rows, of the dense weight, of the trellis codes and their per-row scales, or of the affine codes, scales
// and biases (EXL3 modules are whole: exl3.go). It returns the module's rotations too (rotate.go), the bias
// already in the rotated output basis.
func (w *binder) linearRot(l family.Linear) ([]backend.Linear, linRot) {
	res := make([]backend.Linear, len(l.Parts))
	if w.err != nil {
		return res, linRot{}
	}
	rot := w.rotations(l)
	if w.err != nil {
		return res, rot
	}
	whole := backend.LinearSpec{Name: l.Path, Out: l.Out, In: l.In}
	switch l.Storage(w.m.arch.Has) {
	case family.StoredEXL3:
		if !w.exl3(&whole, l) { // exl3.go
			return res, rot
		}
	case family.StoredQuantized:
		if !w.quantized(&whole, l.Path) {
			return res, rot
		}
	default:
		h, ok := w.host(l.WeightName(), l.WeightShape()...)
		if !ok {
			return res, rot
		}
		h.Shape = []int{l.Out, l.In} // an expert stack [experts, out, in] as one [experts·out, in]
		whole.Dense = &h
	}
	if w.m.arch.Has(l.Path + ".bias") {
		b, ok := w.host(l.Path+".bias", l.Out)
		if !ok {
			return res, rot
		}
		if rot.out != nil {
			var err error
			if b, err = rotateBias(b, rot.out); err != nil {
				w.fail(err)
				return res, rot
			}
		}
		whole.Bias = &b
	}
	if blocks := l.Regroup(); blocks != nil {
		var err error
		if whole, err = regroup(whole, blocks); err != nil {
			w.fail(err)
			return res, rot
		}
	}
	for k := range l.Parts {
		spec := whole
		if l.Fused() {
			start, n := l.RowRange(k)
			var err error
			if spec, err = outputRows(whole, l.PartName(k), start, n); err != nil {
				w.fail(err)
				return res, rot
			}
		}
		lin, err := w.m.b.LoadLinear(spec)
		if err != nil {
			w.fail(err)
			return res, rot
		}
		res[k] = lin
	}
	return res, rot
}

// outputRows is the spec of output rows [start, start+n) of s, named name; the weights are views of s's.
func outputRows(s backend.LinearSpec, name string, start, n int) (backend.LinearSpec, error) {
	part := backend.LinearSpec{Name: name, Out: n, In: s.In}
	var err error
	switch {
	case s.Dense != nil:
		part.Dense = rowsOf(*s.Dense, name+".weight", start, n)
	case s.Trellis != nil:
		part.Trellis, err = s.Trellis.OutputRows(start, n)
	case s.Affine != nil:
		part.Affine, err = s.Affine.OutputRows(start, n)
	}
	if err != nil {
		return part, fmt.Errorf("tensor %q: fused projection: %w", s.Name+".weight", err)
	}
	if s.Bias != nil {
		part.Bias = rowsOf(*s.Bias, name+".bias", start, n)
	}
	return part, nil
}

// rowsOf is rows [start, start+n) of a host tensor whose first dimension is rows (a view).
func rowsOf(h backend.Host, name string, start, n int) *backend.Host {
	rowBytes := len(h.Data) / h.Shape[0]
	shape := append([]int{n}, h.Shape[1:]...)
	return &backend.Host{Name: name, DType: h.DType, Shape: shape, Data: h.Data[start*rowBytes : (start+n)*rowBytes]}
}

// quantScales names the scales tensor beside a weight tensor name ("x.weight" -> "x.scales").
func quantScales(weightName string) string {
	const suffix = ".weight"
	if len(weightName) > len(suffix) && weightName[len(weightName)-len(suffix):] == suffix {
		return weightName[:len(weightName)-len(suffix)] + ".scales"
	}
	return weightName + ".scales"
}
