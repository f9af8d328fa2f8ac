// This file is the reference decode: reading a block's states from the packed words, and the named decode variants
// (the arithmetic each kernel promises to reproduce) that turn a state and a row scale into a weight.
package trellis

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// Variant names one decode arithmetic. Each kernel's contract names the variant whose bits it reproduces.
// The seeds' numbered variants (kernels/trellis/index.ts, codebook.ts) map onto these as documented per constant.
type Variant int

const (
	// Exact: w = Value1MAD(s)·scale in f32, the value y/147.800537109375 correctly rounded and one rounded multiply.
	// Seeds' variant 5 (and 0–3 before their bf16 rounding). The most accurate decode; the encoder's MSE is measured
	// with it.
	Exact Variant = iota
	// BF16: w = bf16(Value1MAD(s)·scale), rounded to nearest even. Seeds' variants 0–3 and the bf16 expansion
	// (expandTrellis): what a dense bf16 weight made from the codes holds, bit for bit.
	BF16
	// Reciprocal: w = (f32(y)·f32(1/147.800537109375))·scale, two rounded f32 multiplies; the value is within one ulp
	// of Exact's. Seeds' variants 6–13 (13 is what the seeds' layers run): every packed matvec/scatter/codebook
	// kernel's per-weight f32 weight.
	Reciprocal
	// Factored: the scale leaves the sum. Axis 1: out = (Σ_i f32(y)·x_i)·(scale·Rcp1MAD) per output. Axis 0: each input
	// row is prescaled, x'_r = x_r·(scale_r·Rcp1MAD), then out = Σ_r f32(y)·x'_r. The seeds' factored and MMA kernels.
	// As a per-weight value (DecodeRow, Dense) it is f32(y)·(scale·Rcp1MAD), the weight the sum applies; a factored
	// matmul matches Dense+matmul only to accumulation rounding.
	Factored
	numVariants
)

var variantNames = [numVariants]string{Exact: "exact", BF16: "bf16", Reciprocal: "reciprocal", Factored: "factored"}

func (v Variant) String() string {
	if v < 0 || v >= numVariants {
		return fmt.Sprintf("Variant(%d)", int(v))
	}
	return variantNames[v]
}

// ParseVariant maps a variant name (String's spelling) to its Variant.
func ParseVariant(name string) (Variant, error) {
	for v, n := range variantNames {
		if n == name {
			return Variant(v), nil
		}
	}
	return 0, fmt.Errorf("trellis: unknown decode variant %q (exact, bf16, reciprocal, factored)", name)
}

func (v Variant) check() {
	if v < 0 || v >= numVariants {
		panic(fmt.Sprintf("trellis: unknown decode variant %d", int(v)))
	}
}

// stateAt is state_t of one block: the L-bit window starting at bit (T−1−t)·K of the block's words, wrapping at
// T·K bits (tail-biting); bit i of the window is bit (p+i) mod T·K, little-endian within words. L ≤ 16 < 32, so
// the window spans at most two words, the second being the first again past the block's end.
func stateAt(blk []uint32, t, T, K, L int) uint32 {
	p := (T - 1 - t) * K
	wi := p >> 5
	next := wi + 1
	if next == len(blk) {
		next = 0
	}
	win := (uint64(blk[next])<<32 | uint64(blk[wi])) >> uint(p&31)
	return uint32(win) & (1<<uint(L) - 1)
}

// blockStates writes the T states of one block into dst[:T].
func blockStates(dst []uint32, blk []uint32, T, K, L int) {
	for t := range dst[:T] {
		dst[t] = stateAt(blk, t, T, K, L)
	}
}

// RowStates writes the Cols states of coded row r into dst (len ≥ Cols), de-interleaving when needed.
func (w *Weights) RowStates(r int, dst []uint32) {
	w.checkRow(r, len(dst))
	for b := range w.Blocks() {
		blockStates(dst[b*w.T:(b+1)*w.T], w.Block(r, b), w.T, w.K, w.L)
	}
}

func (w *Weights) checkRow(r, n int) {
	if r < 0 || r >= w.Rows {
		panic(fmt.Sprintf("trellis: coded row %d outside 0..%d", r, w.Rows-1))
	}
	if n < w.Cols {
		panic(fmt.Sprintf("trellis: destination of %d values for a coded row of %d", n, w.Cols))
	}
}

// variantTables maps a variant to the per-state table its weight starts from and whether the row scale multiplies
// it here (Factored leaves the scale to the sum).
var variantTables = [numVariants]struct {
	table  func(*tables) []float32
	scaled bool
}{
	Exact:      {func(t *tables) []float32 { return t.value }, true},
	BF16:       {func(t *tables) []float32 { return t.value }, true},
	Reciprocal: {func(t *tables) []float32 { return t.rcp }, true},
	Factored:   {func(t *tables) []float32 { return t.code }, false},
}

// decodeBlocks writes the weights of blocks [b0, b1) of coded row r under variant v into dst (len (b1−b0)·T),
// dst[j] being position b0·T+j. Factored writes f32(y) (the scale is the caller's to apply); the other variants
// write the full weight.
func (w *Weights) decodeBlocks(r, b0, b1 int, v Variant, tab *tables, dst []float32) {
	T, K := w.T, w.K
	vt := variantTables[v]
	vals := vt.table(tab)
	scale := float32(1)
	if vt.scaled {
		scale = w.Scales[r]
	}
	mask := uint32(1)<<uint(w.L) - 1
	for b := b0; b < b1; b++ {
		blk := w.Block(r, b)
		out := dst[(b-b0)*T : (b-b0+1)*T]
		nw := len(blk)
		for t := range out {
			p := (T - 1 - t) * K
			wi := p >> 5
			next := wi + 1
			if next == nw {
				next = 0
			}
			s := uint32((uint64(blk[next])<<32|uint64(blk[wi]))>>uint(p&31)) & mask
			out[t] = vals[s] * scale
		}
		if v == BF16 {
			for t, x := range out {
				out[t] = dtype.RoundBF16(x)
			}
		}
	}
}

// DecodeRow writes coded row r (Cols weights, de-interleaved) under variant v into dst (len ≥ Cols). For Factored
// each weight is f32(y)·(scale·Rcp1MAD). Panics (a programmer error) on a row outside the matrix, a short dst or
// an unknown variant.
func (w *Weights) DecodeRow(r int, v Variant, dst []float32) {
	v.check()
	w.checkRow(r, len(dst))
	w.decodeBlocks(r, 0, w.Blocks(), v, tablesFor(w.L), dst[:w.Cols])
	if v == Factored {
		f := w.Scales[r] * Rcp1MAD
		for i, y := range dst[:w.Cols] {
			dst[i] = y * f
		}
	}
}

// Dense returns W in the linear layer's orientation [OutFeatures, InFeatures] under variant v: the coded rows
// themselves on axis 1, their transpose on axis 0.
func (w *Weights) Dense(v Variant) []float32 {
	v.check()
	out := make([]float32, w.Rows*w.Cols)
	row := make([]float32, w.Cols)
	for r := range w.Rows {
		w.DecodeRow(r, v, row)
		if w.Axis == 1 {
			copy(out[r*w.Cols:], row)
			continue
		}
		// Axis 0: coded row r is input feature r, position c output feature c: W[c, r].
		for c, x := range row {
			out[c*w.Rows+r] = x
		}
	}
	return out
}
