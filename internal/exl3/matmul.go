// The CPU forward over EXL3 codes for any number of activation rows, in the layer's rotated basis as exllamav3's
// kernels run it: x' = H(su ⊙ x), y' = x'·Ŵ, y = sv ⊙ H(y'), the inner matrix decoded on the fly, each output
// column once per call, parallel over GOMAXPROCS.
package exl3

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// MatMul computes y[n, Out] = x[n, In]·Wᵀ in f32 for any n ≥ 0. Each row of x is padded with zeros to PadIn and
// rotated (rht.Apply with pre su); each output column of Ŵ is decoded once into a run of PadIn values and dotted
// with every rotated row (vec.Dot's order); each row of the result is rotated back (rht.Apply with post sv) and cut
// to Out. Results do not depend on the number of goroutines. Panics (a programmer error) on wrong slice lengths.
func (w *Weights) MatMul(y, x []float32, n int) {
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
	tab := w.Codebook.table()
	vec.ParallelFor(w.TilesN, 1, func(lo, hi int) {
		cols := make([]float32, TileSide*pk) // the tile column's 16 output features, each a run of PadIn weights
		var tile [TileSize]float32
		for nb := lo; nb < hi; nb++ {
			for kb := range w.TilesK {
				w.decodeTile(tile[:], w.Tile(w.Tiles, kb, nb), tab)
				for r := range TileSide {
					for c := range TileSide {
						cols[c*pk+kb*TileSide+r] = tile[r*TileSide+c]
					}
				}
			}
			for c := range TileSide {
				col := cols[c*pk : (c+1)*pk]
				o := nb*TileSide + c
				for m := range n {
					yr[m*pn+o] = vec.Dot(xr[m*pk:(m+1)*pk], col)
				}
			}
		}
	})
	for m := range n {
		row := yr[m*pn : (m+1)*pn]
		rht.Apply(row, row, nil, w.SV, Block)
		copy(y[m*w.Out:(m+1)*w.Out], row)
	}
}
