// Package rht is the random Hadamard transform of incoherence processing (QuIP#, QTIP): the block size a
// dimension gets, the seeded sign vectors, and the reference arithmetic of the rotation every backend reproduces
// (internal/cpu calls Apply; the CUDA kernel performs the same butterflies in the same order, so it is bit-exact).
//
// A rotation of a dimension n with signs s (±1, len n) and block b is R = blockdiag(H_b)/√b · diag(s), with H_b the
// Sylvester Hadamard matrix of order b applied to each run of b consecutive elements. R is orthogonal. The
// quantizer codes W̃ = R_out · W · R_inᵀ; a layer then computes y = x·Wᵀ as x' = R_in·x (Apply with pre = s_in),
// y' = x'·W̃ᵀ, y = R_outᵀ·y' (Apply with post = s_out). docs/trellis-format.md, section 11.
package rht

import (
	"fmt"
	"math"
)

// MinBlock and MaxBlock bound the Hadamard block: a dimension gets the largest power of two dividing it, at most
// MaxBlock (one block's f32 values fit 32 KiB of GPU shared memory); below MinBlock the side stays unrotated (too
// short a block spreads an outlier over too few weights to help).
const (
	MinBlock = 128
	MaxBlock = 8192
)

// Block is the Hadamard block of a dimension n: the largest power of two dividing n, capped at MaxBlock, or 0
// when that is below MinBlock (the dimension is not rotated).
func Block(n int) int {
	if n <= 0 {
		return 0
	}
	b := n & -n // the largest power of two dividing n
	b = min(b, MaxBlock)
	if b < MinBlock {
		return 0
	}
	return b
}

// Signs returns n signs (±1) drawn from seed by splitmix64: the same (seed, n) always gives the same vector.
func Signs(seed uint64, n int) []float32 {
	s := make([]float32, n)
	z := seed
	for i := range s {
		z += 0x9e3779b97f4a7c15
		x := z
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		x = (x ^ (x >> 27)) * 0x94d049bb133111eb
		x ^= x >> 31
		s[i] = 1
		if x>>63 != 0 {
			s[i] = -1
		}
	}
	return s
}

// Scale is f32(1/√b), the factor every output of a block is multiplied by.
func Scale(b int) float32 { return float32(1 / math.Sqrt(float64(b))) }

// Check reports whether a rotation of a row of n values with block b and the given sign vectors (nil: all +1)
// is well formed.
func Check(n, b int, pre, post []float32) error {
	switch {
	case b < 2 || b&(b-1) != 0:
		return fmt.Errorf("rht: block %d is not a power of two ≥ 2", b)
	case n%b != 0:
		return fmt.Errorf("rht: %d values are not whole blocks of %d", n, b)
	case pre != nil && len(pre) != n, post != nil && len(post) != n:
		return fmt.Errorf("rht: sign vectors of %d and %d for rows of %d", len(pre), len(post), n)
	}
	return nil
}

// Apply is the reference rotation of one row: dst = post ⊙ H_b(pre ⊙ x)·f32(1/√b) per block of b, pre and post
// sign vectors (nil: all +1) of len(x). The arithmetic every backend promises bit for bit: t = pre·x (exact);
// butterfly stages h = 1, 2, 4, ..., b/2, each pair (j, j+h) of a run of 2h becoming (t_j + t_{j+h}, t_j − t_{j+h})
// rounded to f32; then t·scale rounded once, and the sign of post applied (exact). dst may alias x. EXL3 layers
// (internal/exl3) pass vectors of signed scales as pre and post: each product is then one f32 rounding.
func Apply(dst, x, pre, post []float32, b int) {
	if err := Check(len(x), b, pre, post); err != nil || len(dst) != len(x) {
		panic(fmt.Sprintf("rht: Apply of %d values into %d with block %d: %v", len(x), len(dst), b, err))
	}
	scale := Scale(b)
	for lo := 0; lo < len(x); lo += b {
		t := dst[lo : lo+b]
		for i := range t {
			v := x[lo+i]
			if pre != nil {
				v *= pre[lo+i]
			}
			t[i] = v
		}
		fwht(t)
		for i := range t {
			v := t[i] * scale
			if post != nil {
				v *= post[lo+i]
			}
			t[i] = v
		}
	}
}

// fwht is the unnormalised in-place Walsh–Hadamard butterfly of a power-of-two run, stages h = 1, 2, 4, ...
func fwht(t []float32) {
	n := len(t)
	for h := 1; h < n; h *= 2 {
		for j := 0; j < n; j += 2 * h {
			a, c := t[j:j+h], t[j+h:j+2*h]
			for i := range a {
				u, v := a[i], c[i]
				a[i], c[i] = u+v, u-v
			}
		}
	}
}

// Apply64 is Apply in float64 (the quantizer's Hessians): dst = post ⊙ H_b(pre ⊙ x)/√b per block. dst may alias x.
func Apply64(dst, x []float64, pre, post []float32, b int) {
	if err := Check(len(x), b, pre, post); err != nil || len(dst) != len(x) {
		panic(fmt.Sprintf("rht: Apply64 of %d values into %d with block %d: %v", len(x), len(dst), b, err))
	}
	scale := 1 / math.Sqrt(float64(b))
	for lo := 0; lo < len(x); lo += b {
		t := dst[lo : lo+b]
		for i := range t {
			v := x[lo+i]
			if pre != nil {
				v *= float64(pre[lo+i])
			}
			t[i] = v
		}
		for h := 1; h < b; h *= 2 {
			for j := 0; j < b; j += 2 * h {
				a, c := t[j:j+h], t[j+h:j+2*h]
				for i := range a {
					u, v := a[i], c[i]
					a[i], c[i] = u+v, u-v
				}
			}
		}
		for i := range t {
			v := t[i] * scale
			if post != nil {
				v *= float64(post[lo+i])
			}
			t[i] = v
		}
	}
}

// Side is one side's rotation of a matrix: its signs and block (nil Side: that side is not rotated).
type Side struct {
	Signs []float32
	Block int
}

// RotateWeight returns W̃ = R_out·W·R_inᵀ for W [out, in] (row-major): each row rotated by in (x ↦ R_in·x), then
// each column by out. Computed in float64, rounded once to f32. A nil side is left as it is.
func RotateWeight(w []float32, out, in int, rin, rout *Side) []float32 {
	m := make([]float64, len(w))
	for i, v := range w {
		m[i] = float64(v)
	}
	rotateRows(m, out, in, rin)
	if rout != nil {
		t := transpose(m, out, in)
		rotateRows(t, in, out, rout)
		m = transpose(t, in, out)
	}
	res := make([]float32, len(m))
	for i, v := range m {
		res[i] = float32(v)
	}
	return res
}

// RotateHessian returns R·H·Rᵀ for a symmetric H [n, n] (row-major float64): the Hessian of the rotated inputs
// x' = R·x.
func RotateHessian(h []float64, n int, r *Side) []float64 {
	m := append([]float64(nil), h...)
	if r == nil {
		return m
	}
	rotateRows(m, n, n, r) // H·Rᵀ
	t := transpose(m, n, n)
	rotateRows(t, n, n, r) // R·H·Rᵀ
	return t
}

func rotateRows(m []float64, rows, cols int, r *Side) {
	if r == nil {
		return
	}
	for i := range rows {
		row := m[i*cols : (i+1)*cols]
		Apply64(row, row, r.Signs, nil, r.Block)
	}
}

func transpose(m []float64, rows, cols int) []float64 {
	t := make([]float64, len(m))
	for i := range rows {
		for j := range cols {
			t[j*rows+i] = m[i*cols+j]
		}
	}
	return t
}
