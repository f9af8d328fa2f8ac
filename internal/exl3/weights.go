// An EXL3 linear layer in host memory and its reference reconstruction (docs/exl3-format.md sections 4–5): the
// inner matrix the tiles decode to, and the layer's weights in the original basis, W = diag(su)·H·Ŵ·H·diag(sv)
// in exllamav3's [in, out] orientation, returned here as [out, in].
package exl3

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/rht"
)

// Weights is one EXL3 linear layer: its tiles, codebook and the two scale vectors of its Hadamard sides.
type Weights struct {
	Geometry
	Codebook Codebook
	// In and Out are the layer's features; the stored ones (PadIn, PadOut) are those rounded up to Block, the
	// padding being zero inputs and dropped outputs.
	In, Out int
	Tiles   []uint16  // [TilesK, TilesN, 16·K] as stored (int16 bits)
	SU      []float32 // [PadIn] the input side's signs and scales (suh, fp16 widened exactly)
	SV      []float32 // [PadOut] the output side's signs and scales (svh)
}

// New checks the parts of an EXL3 layer against each other: the stored dims must be in and out rounded up to
// Block, and the tiles and vectors must have the lengths the geometry implies.
func New(g Geometry, cb Codebook, in, out int, tiles []uint16, su, sv []float32) (*Weights, error) {
	if int(cb) >= len(codebookNames) {
		return nil, fmt.Errorf("%w: codebook %v", ErrFormat, cb)
	}
	if g.K < MinK || g.K > MaxK || g.TilesK <= 0 || g.TilesN <= 0 || g.TilesK%tilesPerB != 0 || g.TilesN%tilesPerB != 0 {
		return nil, fmt.Errorf("%w: geometry %+v", ErrFormat, g)
	}
	if Padded(in) != g.PadIn() || Padded(out) != g.PadOut() || in <= 0 || out <= 0 {
		return nil, fmt.Errorf("%w: trellis of %d→%d stored features for a %d→%d layer (stored dims are the layer's rounded up to %d)",
			ErrFormat, g.PadIn(), g.PadOut(), in, out, Block)
	}
	switch {
	case len(tiles) != g.Len():
		return nil, fmt.Errorf("%w: %d trellis elements, want %d", ErrFormat, len(tiles), g.Len())
	case len(su) != g.PadIn():
		return nil, fmt.Errorf("%w: input scales of %d, want %d", ErrFormat, len(su), g.PadIn())
	case len(sv) != g.PadOut():
		return nil, fmt.Errorf("%w: output scales of %d, want %d", ErrFormat, len(sv), g.PadOut())
	}
	return &Weights{Geometry: g, Codebook: cb, In: in, Out: out, Tiles: tiles, SU: su, SV: sv}, nil
}

// Padded is a layer dim as exllamav3 stores it: n rounded up to a multiple of Block.
func Padded(n int) int { return (n + Block - 1) / Block * Block }

// InFeatures and OutFeatures are the layer's dims.
func (w *Weights) InFeatures() int  { return w.In }
func (w *Weights) OutFeatures() int { return w.Out }

// Inner is the inner matrix Ŵ [PadIn, PadOut] (row-major, exllamav3's orientation) the tiles decode to: each
// weight its state's codebook value, bit-exact to exllamav3's reconstruct kernel (which stores it as fp16).
func (w *Weights) Inner() []float32 {
	n := w.PadOut()
	m := make([]float32, w.PadIn()*n)
	tab, off := w.Codebook.table(), tileOffsets(n, 1)
	for kb := range w.TilesK {
		for nb := range w.TilesN {
			w.decodeTile(m[kb*TileSide*n+nb*TileSide:], off, w.Tile(w.Tiles, kb, nb), tab)
		}
	}
	return m
}

// Dense is the layer's weights W [Out, In] in the original basis, the reference reconstruction: in exllamav3's
// orientation W[k][o] = su[k]·(H·Ŵ·H)[k][o]·sv[o], H = blockdiag(H_128)/√128 (H_128 Sylvester), applied as
// exllamav3's get_weight_tensor does — the input side first (the Hadamard down each column, then su), then the
// output side (along each row, then sv) — in f32 with rht.Apply's arithmetic where exllamav3 rounds each step to
// fp16 (docs/exl3-format.md section 5 lists the differences). The padding is cut off.
func (w *Weights) Dense() []float32 {
	pk, pn := w.PadIn(), w.PadOut()
	t := transpose(w.Inner(), pk, pn) // [pn, pk]: row o is column o of Ŵ
	for o := range pn {
		row := t[o*pk : (o+1)*pk]
		rht.Apply(row, row, nil, w.SU, Block)
	}
	m := transpose(t, pn, pk) // [pk, pn]
	for k := range pk {
		row := m[k*pn : (k+1)*pn]
		rht.Apply(row, row, nil, w.SV, Block)
	}
	out := make([]float32, w.Out*w.In)
	for o := range w.Out {
		for k := range w.In {
			out[o*w.In+k] = m[k*pn+o]
		}
	}
	return out
}

// transpose returns the [cols, rows] transpose of m [rows, cols].
func transpose(m []float32, rows, cols int) []float32 {
	t := make([]float32, len(m))
	for i := range rows {
		for j := range cols {
			t[j*rows+i] = m[i*cols+j]
		}
	}
	return t
}
