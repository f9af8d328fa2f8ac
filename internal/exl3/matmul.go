// The CPU forward over EXL3 codes for any number of activation rows, in the layer's rotated basis as exllamav3's
// kernels run it: x' = H(su ⊙ x), y' = x'·Ŵ, y = sv ⊙ H(y'), the inner matrix decoded on the fly in strips of
// output columns, each weight once per call, parallel over GOMAXPROCS.
package exl3

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// DenseFunc is a dense matmul kernel, y[n, out] = x[n, in]·wᵀ with w [out, in] (the CPU backend passes its own).
type DenseFunc func(y, x, w []float32, n, in, out int)

// stripBytes bounds a decoded strip of Ŵᵀ (f32 [columns, PadIn]) that MatMulWith hands to a dense kernel.
const stripBytes = 8 << 20

// MatMul computes y[n, Out] = x[n, In]·Wᵀ in f32 for any n ≥ 0 (MatMulWith without a dense kernel).
func (w *Weights) MatMul(y, x []float32, n int) { w.MatMulWith(y, x, n, nil) }

// MatMulWith computes y[n, Out] = x[n, In]·Wᵀ in f32. Each row of x is padded with zeros to PadIn and rotated
// (rht.Apply with pre su); Ŵ is decoded a strip of output columns at a time into a [columns, PadIn] matrix (Ŵᵀ's
// rows) and multiplied by the rotated rows — by dense when given, else each output a vec.Dot; each row of the
// result is rotated back (rht.Apply with post sv) and cut to Out. Results do not depend on the number of
// goroutines. Panics (a programmer error) on wrong slice lengths.
func (w *Weights) MatMulWith(y, x []float32, n int, dense DenseFunc) {
	if n < 0 || len(x) < n*w.In || len(y) < n*w.Out {
		panic(fmt.Sprintf("exl3: MatMul of %d rows: x has %d values (want %d), y %d (want %d)", n, len(x), n*w.In, len(y), n*w.Out))
	}
	if n == 0 {
		return
	}
	pk, pn := w.PadIn(), w.PadOut()
	xr := make([]float32, n*pk)
	for m := range n {
		row := xr[m*pk : (m+1)*pk]
		copy(row, x[m*w.In:(m+1)*w.In])
		rht.Apply(row, row, w.SU, nil, Block)
	}
	yr := make([]float32, n*pn)
	tab, off := w.Codebook.table(), tileOffsets(1, pk)
	group := max(1, min(w.TilesN, stripBytes/(4*TileSide*pk)))
	strip := make([]float32, group*TileSide*pk)
	var ys []float32
	if dense != nil {
		ys = make([]float32, n*group*TileSide)
	}
	for g0 := 0; g0 < w.TilesN; g0 += group {
		gn := min(group, w.TilesN-g0)
		cols := gn * TileSide
		vec.ParallelFor(gn*w.TilesK, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				j, kb := i/w.TilesK, i%w.TilesK
				w.decodeTile(strip[j*TileSide*pk+kb*TileSide:], off, w.Tile(w.Tiles, kb, g0+j), tab)
			}
		})
		if dense != nil {
			dense(ys, xr, strip[:cols*pk], n, pk, cols)
			for m := range n {
				copy(yr[m*pn+g0*TileSide:m*pn+g0*TileSide+cols], ys[m*cols:(m+1)*cols])
			}
			continue
		}
		vec.ParallelFor(cols, 1, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				col := strip[c*pk : (c+1)*pk]
				for m := range n {
					yr[m*pn+g0*TileSide+c] = vec.Dot(xr[m*pk:(m+1)*pk], col)
				}
			}
		})
	}
	for m := range n {
		row := yr[m*pn : (m+1)*pn]
		rht.Apply(row, row, nil, w.SV, Block)
		copy(y[m*w.Out:(m+1)*w.Out], row)
	}
}
