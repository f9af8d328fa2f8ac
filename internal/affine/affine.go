// Package affine holds MLX's affine (group-wise scale and bias) quantized weights and their reference decode.
//
// Format (MLX `mode: "affine"`, the `.weight`, `.scales`, `.biases` tensors of a quantized linear layer): W [Out, In]
// is split along In into groups of GroupSize; weight (o, i) is w = scale[o, i/GroupSize]·q + bias[o, i/GroupSize]
// with q a Bits-bit unsigned integer. Each row's q values form one little-endian bitstream: q_i occupies bits
// [i·Bits, (i+1)·Bits) of the row, bit j of the stream being bit j%32 of the row's word j/32. For 2, 4 and 8 bits
// that is q_i in word i/(32/Bits) at bit (i%(32/Bits))·Bits; for 3, 5 and 6 bits it is MLX's byte packing (8 values
// in 3 bytes, 8 in 5, 4 in 3) read as little-endian uint32. Scales and biases are bf16/f16 in files, widened here.
//
// This package is the CPU reference: Dense expands W, MatMul applies it to activation rows decoding on the fly.
package affine

import (
	"errors"
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/vec"
)

// ErrFormat is wrapped by every rejection of a bit width, group size or tensor size.
var ErrFormat = errors.New("affine format")

// Weights is an MLX affine-quantized matrix [Out, In]: In/GroupSize groups per row, each value
// w = scale·q + bias with q a Bits-bit unsigned integer packed little-endian into uint32 words.
type Weights struct {
	Bits, GroupSize int
	Out, In         int
	Packed          []uint32  // [Out, In·Bits/32]
	Scales, Biases  []float32 // [Out, In/GroupSize]
}

// TableBits and TableGroup are the affine format mlxbun writes the tables it quantizes in: the output head by
// default and the embeddings when asked (quantize --head, --embeddings), and the synthetic benchmark models' head.
// Eight bits keep a table's error far below the trellis projections' while halving the bytes of bf16 (why this
// width and what it costs in bits/byte: docs/trellis-format.md section 12).
const (
	TableBits  = 8
	TableGroup = 64
)

// supported lists the bit widths and group sizes MLX's affine kernels instantiate.
var (
	supportedBits   = map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true, 8: true}
	supportedGroups = map[int]bool{32: true, 64: true, 128: true}
)

// Supported reports whether this package (and MLX) handles bits and groupSize, naming which one it does not.
func Supported(bits, groupSize int) error {
	if !supportedBits[bits] {
		return fmt.Errorf("%w: %d bits (want 2, 3, 4, 5, 6 or 8)", ErrFormat, bits)
	}
	if !supportedGroups[groupSize] {
		return fmt.Errorf("%w: group size %d (want 32, 64 or 128)", ErrFormat, groupSize)
	}
	return nil
}

// New binds packed words [out, in·bits/32] and scales and biases [out, in/groupSize] (kept, not copied),
// validating every size.
func New(bits, groupSize, out, in int, packed []uint32, scales, biases []float32) (*Weights, error) {
	w := &Weights{Bits: bits, GroupSize: groupSize, Out: out, In: in, Packed: packed, Scales: scales, Biases: biases}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// Validate checks the bit width (2, 3, 4, 5, 6, 8), the group size (32, 64, 128), that In is whole groups and
// whole words, and the three slices' lengths.
func (w *Weights) Validate() error {
	if err := Supported(w.Bits, w.GroupSize); err != nil {
		return err
	}
	if w.Out < 1 || w.In < 1 || w.In > math.MaxInt32 || w.Out > math.MaxInt/w.In {
		return fmt.Errorf("%w: matrix %d×%d", ErrFormat, w.Out, w.In)
	}
	if w.In%w.GroupSize != 0 {
		return fmt.Errorf("%w: %d inputs not a multiple of group size %d", ErrFormat, w.In, w.GroupSize)
	}
	// Every group size above holds a whole number of words at every width (32·Bits bits per 32 values).
	if got, want := len(w.Packed), w.Out*w.WordsPerRow(); got != want {
		return fmt.Errorf("%w: %d packed words for %d×%d at %d bits (want %d)", ErrFormat, got, w.Out, w.In, w.Bits, want)
	}
	groups := w.Out * (w.In / w.GroupSize)
	if len(w.Scales) != groups || len(w.Biases) != groups {
		return fmt.Errorf("%w: %d scales and %d biases for %d groups", ErrFormat, len(w.Scales), len(w.Biases), groups)
	}
	return nil
}

// WordsPerRow is In·Bits/32.
func (w *Weights) WordsPerRow() int { return w.In * w.Bits / 32 }

// DecodeRow writes row o of W (In values) into dst: w = float32(scale·q) + bias, the product rounded before the
// add (no fused multiply-add, so every platform gets the same bits). Panics on a row outside the matrix or a
// short dst (programmer errors).
func (w *Weights) DecodeRow(o int, dst []float32) {
	if o < 0 || o >= w.Out || len(dst) < w.In {
		panic(fmt.Sprintf("affine: row %d of %d into %d values (want %d)", o, w.Out, len(dst), w.In))
	}
	bits := uint(w.Bits)
	mask := uint64(1)<<bits - 1
	words := w.Packed[o*w.WordsPerRow() : (o+1)*w.WordsPerRow()]
	ng := w.In / w.GroupSize
	scales, biases := w.Scales[o*ng:(o+1)*ng], w.Biases[o*ng:(o+1)*ng]
	for g := range ng {
		s, b := scales[g], biases[g]
		for i := g * w.GroupSize; i < (g+1)*w.GroupSize; i++ {
			p := uint(i) * bits
			wi := p / 32
			v := uint64(words[wi])
			if wi+1 < uint(len(words)) {
				v |= uint64(words[wi+1]) << 32
			}
			q := float32(v >> (p % 32) & mask)
			dst[i] = float32(s*q) + b
		}
	}
}

// Dense returns W [Out, In].
func (w *Weights) Dense() []float32 {
	out := make([]float32, w.Out*w.In)
	for o := range w.Out {
		w.DecodeRow(o, out[o*w.In:(o+1)*w.In])
	}
	return out
}

// MatMul computes y[n, Out] = x[n, In]·Wᵀ in f32, decoding each row of W once for all n activation rows, rows
// split across GOMAXPROCS goroutines. Each output is a dot product in a fixed order (four interleaved partial sums),
// independent of scheduling. Panics on wrong slice lengths.
func (w *Weights) MatMul(y, x []float32, n int) {
	if n < 0 || len(x) < n*w.In || len(y) < n*w.Out {
		panic(fmt.Sprintf("affine: MatMul of %d rows: x has %d values (want %d), y %d (want %d)", n, len(x), n*w.In, len(y), n*w.Out))
	}
	if n == 0 {
		return
	}
	vec.ParallelFor(w.Out, 1, func(lo, hi int) {
		row := make([]float32, w.In)
		for o := lo; o < hi; o++ {
			w.DecodeRow(o, row)
			for m := range n {
				y[m*w.Out+o] = vec.Dot(row, x[m*w.In:(m+1)*w.In])
			}
		}
	})
}

// Quantize codes W [out, in] (row-major) at bits and groupSize the way MLX's affine quantize does: per group, the
// end of larger magnitude is the edge, scale = ±max((max−min)/(2^bits−1), 1e−7) pointing from the edge across the
// group, the scale then adjusted so the edge is an exact multiple of it (and the bias zero when it rounds to none),
// q = clip(round((w − bias)/scale), 0, 2^bits−1). Scales and biases are returned in f32; a caller storing them in
// bf16/f16 rounds them first. Meant for tests and tools, not checked bit for bit against MLX.
func Quantize(dense []float32, out, in, bits, groupSize int) (*Weights, error) {
	w := &Weights{Bits: bits, GroupSize: groupSize, Out: out, In: in}
	if !supportedBits[bits] || !supportedGroups[groupSize] || out < 1 || in < 1 || in%groupSize != 0 ||
		out > math.MaxInt/in {
		return nil, fmt.Errorf("%w: cannot quantize %d×%d at %d bits, group %d", ErrFormat, out, in, bits, groupSize)
	}
	if len(dense) != out*in {
		return nil, fmt.Errorf("%w: %d values for a %d×%d weight", ErrFormat, len(dense), out, in)
	}
	ng := in / groupSize
	w.Packed = make([]uint32, out*w.WordsPerRow())
	w.Scales = make([]float32, out*ng)
	w.Biases = make([]float32, out*ng)
	bins := float32(int(1)<<bits - 1)
	for o := range out {
		words := w.Packed[o*w.WordsPerRow() : (o+1)*w.WordsPerRow()]
		for g := range ng {
			grp := dense[o*in+g*groupSize : o*in+(g+1)*groupSize]
			lo, hi := grp[0], grp[0]
			for _, v := range grp {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return nil, fmt.Errorf("affine quantize: row %d holds a non-finite weight", o)
				}
				lo, hi = min(lo, v), max(hi, v)
			}
			scale := max((hi-lo)/bins, 1e-7)
			edge := hi
			if abs(lo) > abs(hi) {
				edge = lo
			} else {
				scale = -scale
			}
			bias := edge
			if q0 := float32(math.RoundToEven(float64(edge / scale))); q0 != 0 {
				scale = edge / q0
			} else {
				bias = 0
			}
			w.Scales[o*ng+g], w.Biases[o*ng+g] = scale, bias
			for j, v := range grp {
				q := min(max(float32(math.RoundToEven(float64((v-bias)/scale))), 0), bins)
				p := uint(g*groupSize+j) * uint(bits)
				words[p/32] |= uint32(q) << (p % 32)
				if p%32+uint(bits) > 32 {
					words[p/32+1] |= uint32(q) >> (32 - p%32)
				}
			}
		}
	}
	return w, nil
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }

// OutputRows is the matrix of output rows [start, start+n) alone (a part of a fused projection): row blocks of
// the packed words, scales and biases, which are views of w's, not copies.
func (w *Weights) OutputRows(start, n int) (*Weights, error) {
	if start < 0 || n < 1 || start+n > w.Out {
		return nil, fmt.Errorf("%w: output rows [%d, %d) outside %d", ErrFormat, start, start+n, w.Out)
	}
	wpr, g := w.WordsPerRow(), w.In/w.GroupSize
	return New(w.Bits, w.GroupSize, n, w.In, w.Packed[start*wpr:(start+n)*wpr],
		w.Scales[start*g:(start+n)*g], w.Biases[start*g:(start+n)*g])
}
