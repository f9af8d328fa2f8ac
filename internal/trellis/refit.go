// This file is the post-rounding scale refit of axis-0 codes: LDLQ chooses each coded row's (input feature's)
// states against a target that carries the earlier rows' fed-back errors and gives the row Encode's least-squares
// scale for that target, so the scales are fitted one row at a time against the identity. With the states fixed,
// the proxy loss tr(ΔW·H·ΔWᵀ) is a quadratic in the vector of scales; solving it jointly moves every scale to the
// one the layer's inputs see least error with (the axis-1 rows already get the per-row form of this in ldlqAxis1).
package trellis

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// refitScalesAxis0 replaces w's scales (axis 0, not interleaved: coded row i is input feature i, Cols = out) by
// the s minimising Σ_o (W_o − c_o∘s)·H·(W_o − c_o∘s)ᵀ, c_o[i] the unit code of coded row i at position o and W
// [out, in] the target weight (row-major). Setting the gradient to zero gives (H ∘ C·Cᵀ)·s = diag(C·(H·Wᵀ)ᵀ)
// with C [in, out] the unit codes: an [in, in] symmetric positive definite system (H is, and C·Cᵀ has a positive
// diagonal for every row with a nonzero code), solved by Cholesky. A row whose codes are all zero keeps scale 0.
// The scales are rounded to fp16 as stored; a solution that does not improve the proxy loss over the current
// scales (it always should, but for the fp16 rounding) is not applied. Returns the proxy loss before and after.
func refitScalesAxis0(w *Weights, dense []float32, out, in int, h []float64) (before, after float64, err error) {
	if w.Axis != 0 || w.Interleaved || w.Rows != in || w.Cols != out || len(dense) != out*in || len(h) != in*in {
		return 0, 0, fmt.Errorf("trellis refit: %w: want axis-0 row-major codes of a %d×%d weight", ErrFormat, out, in)
	}
	cb := tablesFor(w.L).value
	c := make([]float32, in*out) // unit codes, coded rows
	st := make([]uint32, out)
	for i := range in {
		w.RowStates(i, st)
		row := c[i*out : (i+1)*out]
		for o, s := range st {
			row[o] = cb[s]
		}
	}
	wt := make([]float64, in*out) // Wᵀ: coded rows of the target
	for o := range out {
		for i, x := range dense[o*in : (o+1)*in] {
			wt[i*out+o] = float64(x)
		}
	}
	// a[i][j] = H_ij·(c_i·c_j), b[i] = Σ_o c_i[o]·(H·Wᵀ)[i][o]
	a := make([]float64, in*in)
	b := make([]float64, in)
	vec.ParallelFor(in, 1, func(lo, hi int) {
		hw := make([]float64, out)
		for i := lo; i < hi; i++ {
			ci := c[i*out : (i+1)*out]
			for j := range in {
				a[i*in+j] = h[i*in+j] * float64(vec.Dot(ci, c[j*out:(j+1)*out]))
			}
			clear(hw)
			for j, hij := range h[i*in : (i+1)*in] {
				if hij == 0 {
					continue
				}
				for o, x := range wt[j*out : (j+1)*out] {
					hw[o] += hij * x
				}
			}
			var t float64
			for o, x := range ci {
				t += float64(x) * hw[o]
			}
			b[i] = t
		}
	})
	// proxy(s) = Σ_o W_o·H·W_oᵀ − 2·b·s + sᵀ·A·s; the constant cancels in the comparison
	quad := func(s []float64) float64 {
		var q float64
		for i := range in {
			var t float64
			for j := range in {
				t += a[i*in+j] * s[j]
			}
			q += s[i]*t - 2*b[i]*s[i]
		}
		return q
	}
	old := make([]float64, in)
	for i, s := range w.Scales {
		old[i] = float64(s)
	}
	// rows without a nonzero code: fixed at 0 (an identity row keeps the system definite)
	for i := range in {
		if a[i*in+i] == 0 {
			for j := range in {
				a[i*in+j], a[j*in+i] = 0, 0
			}
			a[i*in+i], b[i] = 1, 0
		}
	}
	s, err := solveSPD(a, b, in)
	if err != nil {
		return 0, 0, fmt.Errorf("trellis refit: %w", err)
	}
	next := make([]float32, in)
	fs := make([]float64, in)
	for i, x := range s {
		f := dtype.RoundF16(float32(x))
		if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
			return 0, 0, fmt.Errorf("trellis refit: input %d scale %g overflows fp16", i, x)
		}
		next[i], fs[i] = f, float64(f)
	}
	before, after = quad(old), quad(fs)
	if after < before {
		copy(w.Scales, next)
		return before, after, nil
	}
	return before, before, nil
}

// solveSPD solves A·x = b for a symmetric positive definite a [n, n] (row-major, overwritten by its Cholesky
// factor).
func solveSPD(a, b []float64, n int) ([]float64, error) {
	if err := CholeskyFactor(a, n); err != nil {
		return nil, err
	}
	return CholeskySolve(a, b, n), nil
}

// CholeskyFactor overwrites the lower triangle of a symmetric positive definite a [n, n] (row-major) with L,
// A = L·Lᵀ (the upper triangle is left as it was); ErrNotPositiveDefinite names the failing pivot.
func CholeskyFactor(a []float64, n int) error {
	for j := range n {
		rj := a[j*n : (j+1)*n]
		s := rj[j]
		for k := range j {
			s -= rj[k] * rj[k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("pivot %d is %g: %w", j, s, ErrNotPositiveDefinite)
		}
		d := math.Sqrt(s)
		rj[j] = d
		vec.ParallelFor(n-j-1, 64, func(lo, hi int) {
			for i := j + 1 + lo; i < j+1+hi; i++ {
				ri := a[i*n : (i+1)*n]
				t := ri[j]
				for k := range j {
					t -= ri[k] * rj[k]
				}
				ri[j] = t / d
			}
		})
	}
	return nil
}

// CholeskySolve returns x with L·Lᵀ·x = b, l holding CholeskyFactor's L in its lower triangle.
func CholeskySolve(l, b []float64, n int) []float64 {
	x := append([]float64(nil), b...)
	for i := range n { // L·y = b
		ri := l[i*n : (i+1)*n]
		t := x[i]
		for k := range i {
			t -= ri[k] * x[k]
		}
		x[i] = t / ri[i]
	}
	for i := n - 1; i >= 0; i-- { // Lᵀ·x = y
		t := x[i]
		for k := i + 1; k < n; k++ {
			t -= l[k*n+i] * x[k]
		}
		x[i] = t / l[i*n+i]
	}
	return x
}
