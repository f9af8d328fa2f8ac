// This file is the CPU forward over trellis codes for any number of activation rows: each coded row is decoded once
// (under a named variant) and applied to every activation row, parallel over GOMAXPROCS. It is the CPU backend's
// kernel and the oracle the GPU kernels are checked against (up to summation order).
package trellis

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/vec"
)

// axpy is y[i] += a·x[i].
func axpy(a float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// MatMul computes y[n, OutFeatures] = x[n, InFeatures]·Wᵀ with W decoded under variant v, for any n ≥ 0, in f32.
// Axis 1: each output is a dot over its coded row (dot's order); Factored multiplies that sum by scale·Rcp1MAD.
// Axis 0: each output accumulates Σ_r x[m, r]·W[r, c] over coded rows r = 0, 1, ... in order; Factored prescales
// x[m, r] by scale_r·Rcp1MAD and accumulates f32(y). Panics (a programmer error) on wrong slice lengths.
func (w *Weights) MatMul(y, x []float32, n int, v Variant) {
	v.check()
	in, out := w.InFeatures(), w.OutFeatures()
	if n < 0 || len(x) < n*in || len(y) < n*out {
		panic(fmt.Sprintf("trellis: MatMul of %d rows: x has %d values (want %d), y %d (want %d)", n, len(x), n*in, len(y), n*out))
	}
	if n == 0 {
		return
	}
	tab := tablesFor(w.L)
	if w.Axis == 1 {
		w.matMulAxis1(y, x, n, v, tab)
		return
	}
	w.matMulAxis0(y, x, n, v, tab)
}

// matMulAxis1: coded row r is output feature r. Rows are split across workers; a decoded row serves all n inputs.
func (w *Weights) matMulAxis1(y, x []float32, n int, v Variant, tab *tables) {
	in, out := w.Cols, w.Rows
	vec.ParallelFor(w.Rows, 1, func(lo, hi int) {
		row := make([]float32, in)
		for r := lo; r < hi; r++ {
			w.decodeBlocks(r, 0, w.Blocks(), v, tab, row)
			f := float32(1)
			if v == Factored {
				f = w.Scales[r] * Rcp1MAD
			}
			for m := range n {
				s := vec.Dot(row, x[m*in:(m+1)*in])
				if v == Factored {
					s *= f
				}
				y[m*out+r] = s
			}
		}
	})
}

// axis0Group is how many coded rows an axis-0 worker decodes before sweeping the activation rows: each output tile
// y[m, block] then stays in L1 while the group's rows accumulate into it.
const axis0Group = 32

// matMulAxis0: coded row r is input feature r, position c output feature c. Blocks (output column ranges) are split
// across workers, so every output has one writer and sums its rows in order.
func (w *Weights) matMulAxis0(y, x []float32, n int, v Variant, tab *tables) {
	in, out, T := w.Rows, w.Cols, w.T
	for m := range n {
		clear(y[m*out : (m+1)*out])
	}
	vec.ParallelFor(w.Blocks(), 1, func(lo, hi int) {
		width := (hi - lo) * T
		buf := make([]float32, axis0Group*width)
		xs := make([]float32, axis0Group)
		for r0 := 0; r0 < in; r0 += axis0Group {
			g := min(axis0Group, in-r0)
			for j := range g {
				w.decodeBlocks(r0+j, lo, hi, v, tab, buf[j*width:(j+1)*width])
			}
			for m := range n {
				dst := y[m*out+lo*T : m*out+hi*T]
				for j := range g {
					a := x[m*in+r0+j]
					if v == Factored {
						a *= w.Scales[r0+j] * Rcp1MAD
					}
					xs[j] = a
				}
				for j := range g {
					axpy(xs[j], buf[j*width:(j+1)*width], dst)
				}
			}
		}
	})
}
