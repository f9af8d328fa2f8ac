// Reading one EXL3 module from a checkpoint: its tensors found by suffix, each checked for dtype and shape
// against the others and the layer's dims, every error naming the tensor.
package exl3

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// Reader gives a checkpoint's tensors: whether one exists, and its dtype, shape and little-endian bytes.
type Reader interface {
	Has(name string) bool
	Read(name string) (dtype.DType, []int, []byte, error)
}

// Read reads the EXL3 module at path (<path>.trellis and the tensors beside it) for a layer of in → out features.
func Read(r Reader, path string, in, out int) (*Weights, error) {
	name := path + SuffixTrellis
	dt, shape, data, err := r.Read(name)
	if err != nil {
		return nil, err
	}
	if dt != dtype.I16 {
		return nil, fmt.Errorf("tensor %q: EXL3 trellis must be I16, got %s", name, dt)
	}
	g, err := NewGeometry(shape)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", name, err)
	}
	if Padded(in) != g.PadIn() || Padded(out) != g.PadOut() {
		return nil, fmt.Errorf("tensor %q: %w: trellis %v holds %d→%d features, the config implies %d→%d (stored %d→%d)",
			name, ErrFormat, shape, g.PadIn(), g.PadOut(), in, out, Padded(in), Padded(out))
	}
	tiles := Uint16s(data)
	su, err := side(r, path, SuffixSUH, SuffixSU, g.PadIn())
	if err != nil {
		return nil, err
	}
	sv, err := side(r, path, SuffixSVH, SuffixSV, g.PadOut())
	if err != nil {
		return nil, err
	}
	var markers [2]*uint32
	for i, suffix := range []string{SuffixMCG, SuffixMul1} {
		if markers[i], err = marker(r, path+suffix); err != nil {
			return nil, err
		}
	}
	cb, err := CodebookOf(markers[0], markers[1])
	if err != nil {
		return nil, fmt.Errorf("module %q: %w", path, err)
	}
	w, err := New(g, cb, in, out, tiles, su, sv)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", name, err)
	}
	return w, nil
}

// side reads one side's vector of n: the fp16 signs-and-scales (<path><scaled>, F16 [n]) or the packed signs
// (<path><packed>, I16 [n/16]); exactly one must be present.
func side(r Reader, path, scaled, packed string, n int) ([]float32, error) {
	hs, hp := r.Has(path+scaled), r.Has(path+packed)
	switch {
	case hs && hp:
		return nil, fmt.Errorf("module %q: both %s and %s (one side's vector, stored twice)", path, scaled, packed)
	case !hs && !hp:
		return nil, fmt.Errorf("module %q: EXL3 trellis without %s (or %s)", path, scaled, packed)
	}
	name, want, wantShape := path+scaled, dtype.F16, []int{n}
	if hp {
		name, want, wantShape = path+packed, dtype.I16, []int{n / 16}
	}
	dt, shape, data, err := r.Read(name)
	if err != nil {
		return nil, err
	}
	if dt != want || !slices.Equal(shape, wantShape) {
		return nil, fmt.Errorf("tensor %q is %s %v, want %s %v", name, dt, shape, want, wantShape)
	}
	if hp {
		return UnpackSigns(Uint16s(data)), nil
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = dtype.F16ToF32(binary.LittleEndian.Uint16(data[2*i:]))
	}
	return v, nil
}

// marker reads a codebook marker (I32 scalar) or reports it absent (nil).
func marker(r Reader, name string) (*uint32, error) {
	if !r.Has(name) {
		return nil, nil
	}
	dt, shape, data, err := r.Read(name)
	if err != nil {
		return nil, err
	}
	if dt != dtype.I32 || len(shape) != 0 || len(data) != 4 {
		return nil, fmt.Errorf("tensor %q is %s %v, want an I32 scalar (a codebook marker)", name, dt, shape)
	}
	v := binary.LittleEndian.Uint32(data)
	return &v, nil
}
