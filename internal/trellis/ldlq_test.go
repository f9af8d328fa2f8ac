// Tests of LDLQ: the block factorisation reproduces H, and on a small problem with correlated inputs the
// feedback rounding lowers the proxy loss tr(ΔW·H·ΔWᵀ) well below plain rounding's, on both axes.
package trellis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// correlatedHessian is H = XᵀX/N + λ·I for N rows of inputs with strongly correlated features (a random
// mixing of a few latent factors plus noise), the shape of real activations' Hessians.
func correlatedHessian(r *rand.Rand, n, rows int) []float64 {
	const factors = 8
	mix := make([]float64, factors*n)
	for i := range mix {
		mix[i] = r.NormFloat64()
	}
	h := make([]float64, n*n)
	x := make([]float64, n)
	for range rows {
		var z [factors]float64
		for f := range z {
			z[f] = r.NormFloat64()
		}
		for i := range x {
			x[i] = 0.1 * r.NormFloat64()
			for f := range z {
				x[i] += z[f] * mix[f*n+i]
			}
		}
		for i := range n {
			for j := range n {
				h[i*n+j] += x[i] * x[j] / float64(rows)
			}
		}
	}
	var tr float64
	for i := range n {
		tr += h[i*n+i]
	}
	for i := range n {
		h[i*n+i] += 0.01 * tr / float64(n)
	}
	return h
}

func proxyLoss(w, q []float32, out, in int, h []float64) float64 {
	var loss float64
	d := make([]float64, in)
	for o := range out {
		for i := range in {
			d[i] = float64(q[o*in+i]) - float64(w[o*in+i])
		}
		for i := range in {
			var t float64
			for j := range in {
				t += h[i*in+j] * d[j]
			}
			loss += d[i] * t
		}
	}
	return loss
}

// TestBlockFeedbackFactorsH: H = M·D·Mᵀ with M block upper unit triangular and D block diagonal, checked as
// M⁻¹·H·M⁻ᵀ having no entries outside the diagonal blocks (M⁻¹ by back substitution, independent of the solver).
func TestBlockFeedbackFactorsH(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	n, g := 24, 4
	h := correlatedHessian(r, n, 200)
	m, err := blockFeedback(h, n, g)
	if err != nil {
		t.Fatal(err)
	}
	// full M: identity diagonal blocks plus the returned strictly-upper blocks
	full := append([]float64(nil), m...)
	for i := range n {
		full[i*n+i] = 1
	}
	// A = M⁻¹ by back substitution (M upper unit triangular), then D = A·H·Aᵀ must be block diagonal.
	a := make([]float64, n*n)
	for c := range n {
		for i := n - 1; i >= 0; i-- {
			v := 0.0
			if i == c {
				v = 1
			}
			for k := i + 1; k < n; k++ {
				v -= full[i*n+k] * a[k*n+c]
			}
			a[i*n+c] = v
		}
	}
	worst, scale := 0.0, 0.0
	for i := range n {
		for j := range n {
			var d float64
			for k := range n {
				for l := range n {
					d += a[i*n+k] * h[k*n+l] * a[j*n+l]
				}
			}
			scale = max(scale, math.Abs(d))
			if i/g != j/g {
				worst = max(worst, math.Abs(d))
			}
		}
	}
	if worst > 1e-9*scale {
		t.Errorf("M⁻¹·H·M⁻ᵀ has off-block-diagonal entries up to %g (scale %g)", worst, scale)
	}
	for i := range n {
		for j := range n {
			if i/g >= j/g && m[i*n+j] != 0 {
				t.Fatalf("M[%d][%d] = %g outside the strictly upper blocks", i, j, m[i*n+j])
			}
		}
	}
}

// TestLDLQLowersProxyLoss: LDLQ against a correlated Hessian beats plain rounding's proxy loss on both axes
// (measured ×4.6 on axis 1, ×3.2 on axis 0), and without a Hessian it is plain Quantize, word for word.
func TestLDLQLowersProxyLoss(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, c := range []struct {
		axis, out, in int
		gain          float64 // required ratio plain/LDLQ
	}{{1, 32, 512, 3.5}, {0, 256, 64, 2.5}} {
		spec := Spec{K: 2, L: 8, T: 64, Code: "1mad", Axis: c.axis}
		if c.axis == 1 {
			spec.T = 128
		}
		w := make([]float32, c.out*c.in)
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		h := correlatedHessian(r, c.in, 4*c.in)
		plain, err := Quantize(w, c.out, c.in, spec, false)
		if err != nil {
			t.Fatal(err)
		}
		lq, err := QuantizeLDLQ(w, c.out, c.in, spec, false, h)
		if err != nil {
			t.Fatal(err)
		}
		lp, ll := proxyLoss(w, plain.Dense(Exact), c.out, c.in, h), proxyLoss(w, lq.Dense(Exact), c.out, c.in, h)
		t.Logf("axis %d %d×%d: proxy loss plain %.4g, LDLQ %.4g (×%.2f)", c.axis, c.out, c.in, lp, ll, lp/ll)
		if lp/ll < c.gain {
			t.Errorf("axis %d: LDLQ proxy loss %.4g vs plain %.4g: gain ×%.2f < ×%.2f", c.axis, ll, lp, lp/ll, c.gain)
		}
		same, err := QuantizeLDLQ(w, c.out, c.in, spec, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range same.Words {
			if same.Words[i] != plain.Words[i] {
				t.Fatal("QuantizeLDLQ without a Hessian differs from Quantize")
			}
		}
	}
}
