// Fuzz targets: arbitrary specs, stored shapes, word streams and scales through NewGeometry, NewWeights, the bit
// reader, every decode variant and MatMul. Whatever the bytes, nothing panics; a rejection wraps ErrFormat; an
// accepted artifact decodes to the plain reader's states.
package trellis

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

func FuzzDecode(f *testing.F) {
	f.Add([]byte{3, 12, 1, 0, 1, 2, 4, 24}, []byte("some words to decode, some words to decode"), uint16(0x3C00))
	f.Add([]byte{3, 12, 1, 0, 0, 3, 1, 2, 48}, []byte{1, 2, 3, 4, 5, 6, 7, 8}, uint16(0x2E66))
	f.Add([]byte{2, 16, 3, 0, 1, 2, 1, 4}, []byte{0xFF, 0xFF, 0xFF, 0xFF}, uint16(0xBC00))
	f.Add([]byte{8, 16, 0, 0, 1, 2, 2, 1}, []byte{0x80}, uint16(0x7C00))
	f.Add([]byte{9, 40, 7, 3, 5, 1, 0}, []byte{}, uint16(0))
	// header: k, L, T selector, code selector, axis, ndim, dims...; words: little-endian uint32s (cycled to fill).
	f.Fuzz(func(t *testing.T, header, wordBytes []byte, scaleBits uint16) {
		defer limit.Watch(t, limit.FuzzInput)()
		if len(header) < 6 {
			return
		}
		ts := []int{4, 8, 32, 64, 100, 128, 256, 0}
		codeNames := []string{"1mad", "2mad", "", "1MAD"}
		spec := Spec{
			K:    int(int8(header[0])),
			L:    int(int8(header[1])),
			T:    ts[int(header[2])%len(ts)],
			Code: codeNames[int(header[3])%len(codeNames)],
			Axis: int(int8(header[4])),
		}
		ndim := int(header[5]) % 5
		shape := make([]int, 0, ndim)
		for i := range ndim {
			d := 0
			if 6+i < len(header) {
				d = int(int8(header[6+i]))
			}
			shape = append(shape, d)
		}
		g, err := NewGeometry(spec, shape)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("NewGeometry(%+v, %v): %v does not wrap ErrFormat", spec, shape, err)
			}
			return
		}
		if g.Words() > 1<<16 {
			return
		}
		words := make([]uint32, g.Words())
		if len(wordBytes) >= 4 {
			for i := range words {
				j := (4 * i) % (len(wordBytes) - 3)
				words[i] = binary.LittleEndian.Uint32(wordBytes[j:])
			}
		}
		// A wrong word or scale count must be an error, not a panic.
		if _, err := NewWeights(g, words[:len(words)/2], make([]float32, g.Rows)); err == nil && len(words) > 1 {
			t.Fatal("NewWeights accepted half the words")
		}
		scales := make([]float32, g.Rows)
		for i := range scales {
			scales[i] = dtype.F16ToF32(scaleBits)
		}
		w, err := NewWeights(g, words, scales)
		if err != nil {
			t.Fatalf("NewWeights with the right counts: %v", err)
		}
		states := make([]uint32, g.Cols)
		row := make([]float32, g.Cols)
		for r := range min(g.Rows, 4) {
			w.RowStates(r, states)
			want := specRowStates(words, g, r)
			for i := range want {
				if states[i] != want[i] {
					t.Fatalf("row %d pos %d: %#x, plain reader %#x", r, i, states[i], want[i])
				}
			}
			for v := range numVariants {
				w.DecodeRow(r, v, row)
				for i, x := range row {
					if finite := !math.IsInf(float64(scales[r]), 0) && !math.IsNaN(float64(scales[r])); finite &&
						(math.IsNaN(float64(x)) || math.IsInf(float64(x), 0)) {
						t.Fatalf("row %d pos %d %v: %v from finite scale %v", r, i, v, x, scales[r])
					}
				}
			}
		}
		if g.Rows*g.Cols <= 1<<14 {
			x := make([]float32, g.InFeatures())
			for i := range x {
				x[i] = 1
			}
			w.MatMul(make([]float32, g.OutFeatures()), x, 1, Reciprocal)
		}
	})
}
