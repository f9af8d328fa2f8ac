// Tests of the rotation against an independent dense Hadamard matrix, its round trip, the block rule, and the
// matrix helpers the quantizer uses.
package rht

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// denseH is the Sylvester Hadamard matrix of order b from its closed form H[i][j] = (−1)^popcount(i∧j), built
// without any butterfly.
func denseH(b int) [][]float64 {
	h := make([][]float64, b)
	for i := range h {
		h[i] = make([]float64, b)
		for j := range h[i] {
			h[i][j] = 1
			if bits.OnesCount(uint(i&j))%2 == 1 {
				h[i][j] = -1
			}
		}
	}
	return h
}

func randn(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// TestApplyMatchesDenseHadamard: post ⊙ H_b(pre ⊙ x)/√b per block against the dense matrix in float64, for block
// sizes 2..1024 and rows of several blocks.
func TestApplyMatchesDenseHadamard(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, b := range []int{2, 4, 8, 128, 256, 1024} {
		n := 3 * b
		x := randn(r, n)
		pre, post := Signs(uint64(b), n), Signs(uint64(b)+7, n)
		got := make([]float32, n)
		Apply(got, x, pre, post, b)
		H := denseH(b)
		worst := 0.0
		for lo := 0; lo < n; lo += b {
			for i := range b {
				var s float64
				for j := range b {
					s += H[i][j] * float64(pre[lo+j]) * float64(x[lo+j])
				}
				want := s / math.Sqrt(float64(b)) * float64(post[lo+i])
				worst = max(worst, math.Abs(float64(got[lo+i])-want))
			}
		}
		// f32 butterflies: log2(b) roundings of sums of magnitude ≲ √b·|x|, scaled by 1/√b.
		if bound := 1e-6 * math.Log2(float64(b)) * 4; worst > bound {
			t.Errorf("block %d: max |Apply − dense| %g > %g", b, worst, bound)
		}
		got64 := make([]float64, n)
		x64 := make([]float64, n)
		for i, v := range x {
			x64[i] = float64(v)
		}
		Apply64(got64, x64, pre, post, b)
		for i := range got64 {
			if d := math.Abs(got64[i] - float64(got[i])); d > 1e-5 {
				t.Fatalf("block %d: Apply64[%d] %g vs Apply %g", b, i, got64[i], got[i])
			}
		}
	}
}

// TestRoundTrip: Rᵀ·(R·x) = x (signs before, then after), in place, and the norm is kept.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{512, 1536, 5120} {
		b := Block(n)
		x := randn(r, n)
		s := Signs(99, n)
		y := append([]float32(nil), x...)
		Apply(y, y, s, nil, b)
		var nx, ny float64
		for i := range x {
			nx += float64(x[i]) * float64(x[i])
			ny += float64(y[i]) * float64(y[i])
		}
		if math.Abs(nx-ny) > 1e-5*nx {
			t.Errorf("n %d: |Rx|² %g vs |x|² %g", n, ny, nx)
		}
		Apply(y, y, nil, s, b)
		for i := range x {
			if math.Abs(float64(y[i]-x[i])) > 1e-5 {
				t.Fatalf("n %d: round trip [%d] %g, want %g", n, i, y[i], x[i])
			}
		}
	}
}

func TestBlock(t *testing.T) {
	for _, c := range []struct{ n, b int }{{512, 512}, {1536, 512}, {5120, 1024}, {17408, 1024}, {4096, 4096},
		{16384, MaxBlock}, {128, 128}, {384, 128}, {100, 0}, {192, 0}, {0, 0}} {
		if got := Block(c.n); got != c.b {
			t.Errorf("Block(%d) = %d, want %d", c.n, got, c.b)
		}
	}
	s := Signs(5, 4096)
	pos := 0
	for _, v := range s {
		if v != 1 && v != -1 {
			t.Fatalf("sign %g", v)
		}
		if v > 0 {
			pos++
		}
	}
	if pos < 1900 || pos > 2200 {
		t.Errorf("%d of 4096 signs positive", pos)
	}
	if a, b := Signs(5, 16), Signs(6, 16); equal(a, b) {
		t.Error("seeds 5 and 6 give the same signs")
	}
}

func equal(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRotateWeightAndHessian: (R_out·W·R_inᵀ)·(R_in·x) = R_out·(W·x), and x'ᵀ(R·H·Rᵀ)x' = xᵀHx for x' = R·x.
func TestRotateWeightAndHessian(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	out, in := 256, 384
	w := randn(r, out*in)
	rin, rout := &Side{Signs(1, in), Block(in)}, &Side{Signs(2, out), Block(out)}
	wt := RotateWeight(w, out, in, rin, rout)
	x := randn(r, in)
	xr := make([]float32, in)
	Apply(xr, x, rin.Signs, nil, rin.Block)
	y, yr := make([]float32, out), make([]float32, out)
	for o := range out {
		var s, sr float64
		for i := range in {
			s += float64(w[o*in+i]) * float64(x[i])
			sr += float64(wt[o*in+i]) * float64(xr[i])
		}
		y[o], yr[o] = float32(s), float32(sr)
	}
	Apply(yr, yr, nil, rout.Signs, rout.Block) // back to the original output basis
	for o := range out {
		if math.Abs(float64(y[o]-yr[o])) > 1e-3 {
			t.Fatalf("output %d: rotated %g, plain %g", o, yr[o], y[o])
		}
	}
	n := 256
	a := randn(r, n*n)
	h := make([]float64, n*n)
	for i := range n { // H = AᵀA
		for j := range n {
			var s float64
			for k := range n {
				s += float64(a[k*n+i]) * float64(a[k*n+j])
			}
			h[i*n+j] = s
		}
	}
	side := &Side{Signs(3, n), Block(n)}
	hr := RotateHessian(h, n, side)
	v := randn(r, n)
	vr := make([]float32, n)
	Apply(vr, v, side.Signs, nil, side.Block)
	quad := func(h []float64, v []float32) float64 {
		var s float64
		for i := range n {
			for j := range n {
				s += float64(v[i]) * h[i*n+j] * float64(v[j])
			}
		}
		return s
	}
	if q, qr := quad(h, v), quad(hr, vr); math.Abs(q-qr) > 1e-4*q {
		t.Errorf("xᵀHx %g, rotated %g", q, qr)
	}
}
