// The binder turns checkpoint tensors into backend tensors and linears, checking each shape against what the
// config implies. It keeps the first error so the family's binding code reads as a plain list of tensors.
package model

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
)

type binder struct {
	m   *Model
	err error
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

// vector uploads a norm weight or embedding table.
func (w *binder) vector(name string, shape ...int) backend.Tensor {
	if w.err == nil && w.m.arch.Has(quantScales(name)) {
		h, ok := w.dequantized(name, shape...)
		if !ok {
			return nil
		}
		return w.upload(h)
	}
	h, ok := w.host(name, shape...)
	if !ok {
		return nil
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

// linear binds <path>.weight (+ .bias) as a [out, in] linear, dense or quantized as the checkpoint stores it.
func (w *binder) linear(path string, out, in int) backend.Linear {
	if w.err != nil {
		return nil
	}
	spec := backend.LinearSpec{Name: path, Out: out, In: in}
	if w.m.arch.Has(path + ".scales") {
		if !w.quantized(&spec, path) {
			return nil
		}
	} else {
		h, ok := w.host(path+".weight", out, in)
		if !ok {
			return nil
		}
		spec.Dense = &h
	}
	if w.m.arch.Has(path + ".bias") {
		b, ok := w.host(path+".bias", out)
		if !ok {
			return nil
		}
		spec.Bias = &b
	}
	l, err := w.m.b.LoadLinear(spec)
	if err != nil {
		w.fail(err)
		return nil
	}
	return l
}

// splitLinear binds a fused dense projection [Σouts, in] as consecutive row blocks (Phi-3's qkv_proj, gate_up_proj).
func (w *binder) splitLinear(path string, in int, outs ...int) []backend.Linear {
	res := make([]backend.Linear, len(outs))
	if w.err != nil {
		return res
	}
	if w.m.arch.Has(path + ".scales") {
		w.fail(fmt.Errorf("tensor %q: fused quantized projections: %w", path+".weight", backend.ErrUnsupported))
		return res
	}
	total := 0
	for _, o := range outs {
		total += o
	}
	h, ok := w.host(path+".weight", total, in)
	if !ok {
		return res
	}
	rowBytes := in * h.DType.Size()
	start := 0
	for k, o := range outs {
		part := backend.Host{Name: fmt.Sprintf("%s.weight[%d:%d]", path, start, start+o), DType: h.DType,
			Shape: []int{o, in}, Data: h.Data[start*rowBytes : (start+o)*rowBytes]}
		l, err := w.m.b.LoadLinear(backend.LinearSpec{Name: part.Name, Out: o, In: in, Dense: &part})
		if err != nil {
			w.fail(err)
			return res
		}
		res[k] = l
		start += o
	}
	return res
}

// quantScales names the scales tensor beside a weight tensor name ("x.weight" -> "x.scales").
func quantScales(weightName string) string {
	const suffix = ".weight"
	if len(weightName) > len(suffix) && weightName[len(weightName)-len(suffix):] == suffix {
		return weightName[:len(weightName)-len(suffix)] + ".scales"
	}
	return weightName + ".scales"
}
