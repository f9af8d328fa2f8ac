// Binding quantized checkpoint tensors (trellis codes, MLX affine) to linear specs, and dequantizing quantized
// embedding tables, which are looked up by row rather than multiplied.
package model

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// quantized fills spec from <path>.weight/.scales(/.biases) as the config's quantization block describes them.
func (w *binder) quantized(spec *backend.LinearSpec, path string) bool {
	q, ok := w.m.Config.Quant.For(path)
	if !ok {
		w.fail(fmt.Errorf("tensor %q: has %s.scales but config.json's quantization block does not cover %s", path+".weight", path, path))
		return false
	}
	switch q.Mode {
	case "trellis":
		t, err := w.trellis(path, q.Bits, q.GroupSize, q.Trellis.L, q.Trellis.Code, q.Trellis.Axis)
		if err != nil {
			w.fail(err)
			return false
		}
		if t.InFeatures() != spec.In || t.OutFeatures() != spec.Out {
			w.fail(fmt.Errorf("tensor %q: trellis codes of a %d→%d projection, the config implies %d→%d",
				path+".weight", t.InFeatures(), t.OutFeatures(), spec.In, spec.Out))
			return false
		}
		spec.Trellis = t
	case "affine":
		a, err := w.affine(path, q.Bits, q.GroupSize, spec.Out, spec.In)
		if err != nil {
			w.fail(err)
			return false
		}
		spec.Affine = a
	default:
		w.fail(fmt.Errorf("tensor %q: quantization mode %q: %w", path+".weight", q.Mode, backend.ErrUnsupported))
		return false
	}
	return true
}

// recordSource is a Source whose files carry __metadata__ (a safetensors archive): where geometry records live.
type recordSource interface {
	MetadataOf(tensor, key string) (string, bool)
}

func (w *binder) trellis(path string, bits, group, L int, code string, axis int) (*trellis.Weights, error) {
	words, err := w.m.arch.Tensor(path + ".weight")
	if err != nil {
		return nil, err
	}
	if words.DType != backend.U32 {
		return nil, fmt.Errorf("tensor %q: trellis codes must be U32, got %s", path+".weight", words.DType)
	}
	spec := trellis.Spec{K: bits, L: L, T: group, Code: code, Axis: axis}
	// Codes written with a geometry record must be read with that geometry: a config edited after quantizing is
	// refused here, before the words are decoded as something else. Artifacts without records load as before.
	if rs, ok := w.m.arch.(recordSource); ok {
		if rec, ok := rs.MetadataOf(path+".weight", trellis.RecordKey(path+".weight")); ok {
			if err := trellis.CheckRecord(rec, spec, words.Shape); err != nil {
				return nil, fmt.Errorf("tensor %q: %w", path+".weight", err)
			}
		}
	}
	g, err := trellis.NewGeometry(spec, words.Shape)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", path+".weight", err)
	}
	scales, err := w.floats(path+".scales", g.Rows)
	if err != nil {
		return nil, err
	}
	t, err := trellis.NewWeights(g, uint32s(words.Data), scales)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", path+".weight", err)
	}
	return t, nil
}

func (w *binder) affine(path string, bits, group, out, in int) (*affine.Weights, error) {
	packed, err := w.m.arch.Tensor(path + ".weight")
	if err != nil {
		return nil, err
	}
	if packed.DType != backend.U32 {
		return nil, fmt.Errorf("tensor %q: affine codes must be U32, got %s", path+".weight", packed.DType)
	}
	if group <= 0 || in%group != 0 {
		return nil, fmt.Errorf("tensor %q: %d input features are not a multiple of group size %d", path+".weight", in, group)
	}
	scales, err := w.floats(path+".scales", out*(in/group))
	if err != nil {
		return nil, err
	}
	biases, err := w.floats(path+".biases", out*(in/group))
	if err != nil {
		return nil, err
	}
	a, err := affine.New(bits, group, out, in, uint32s(packed.Data), scales, biases)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", path+".weight", err)
	}
	return a, nil
}

// floats reads a floating tensor of n elements (any shape) as float32.
func (w *binder) floats(name string, n int) ([]float32, error) {
	h, err := w.m.arch.Tensor(name)
	if err != nil {
		return nil, err
	}
	if h.Elements() != n {
		return nil, fmt.Errorf("tensor %q has %d elements (shape %v), want %d", name, h.Elements(), h.Shape, n)
	}
	v, err := h.Float32s()
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", name, err)
	}
	return v, nil
}

// dequantized expands a quantized embedding table to a float32 host tensor of the given shape.
func (w *binder) dequantized(name string, shape ...int) (backend.Host, bool) {
	if len(shape) != 2 {
		w.fail(fmt.Errorf("tensor %q: only 2-D tables can be quantized", name))
		return backend.Host{}, false
	}
	path := name[:len(name)-len(".weight")]
	spec := &backend.LinearSpec{Name: path, Out: shape[0], In: shape[1]}
	if !w.quantized(spec, path) {
		return backend.Host{}, false
	}
	var dense []float32
	if spec.Affine != nil {
		dense = spec.Affine.Dense()
	} else {
		dense = spec.Trellis.Dense(trellis.Reciprocal)
	}
	b := make([]byte, 4*len(dense))
	for i, v := range dense {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return backend.Host{Name: name, DType: backend.F32, Shape: shape, Data: b}, true
}

// uint32s reads little-endian words (copied: the source may be a read-only mapping of any alignment).
func uint32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}
