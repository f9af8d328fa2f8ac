// Test of decodedBF16, the sequential calibration's stand-in for a quantized layer: rotated back to the
// checkpoint's basis, its distance to W equals the codes' distance to the rotated W̃ (the rotations are
// orthogonal), which a wrong inverse (R instead of Rᵀ, or a side left out) would break by the whole of ‖W‖².
package quantize

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

func TestDecodedBF16RotatesBack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	out, in := 128, 256
	w := make([]float32, out*in)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	it := item{name: "x.weight", text: "x.weight", out: out, in: in,
		rotIn: &rht.Side{Signs: rht.Signs(1, in), Block: 128}, rotOut: &rht.Side{Signs: rht.Signs(2, out), Block: 128}}
	wt := rht.RotateWeight(w, out, in, it.rotIn, it.rotOut)
	q, err := trellis.Quantize(wt, out, in, trellis.Spec{K: 2, L: 8, T: 64, Code: "1mad", Axis: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	var coded, sig float64
	for i, v := range q.Dense(trellis.Exact) {
		d := float64(v) - float64(wt[i])
		coded += d * d
		sig += float64(w[i]) * float64(w[i])
	}
	h := decodedBF16(it, q)
	if h.DType != backend.BF16 || h.Shape[0] != out || h.Shape[1] != in || h.Name != it.text {
		t.Fatalf("decoded tensor %s %v %v", h.Name, h.DType, h.Shape)
	}
	got, err := h.Float32s()
	if err != nil {
		t.Fatal(err)
	}
	var back float64
	for i, v := range got {
		d := float64(v) - float64(w[i])
		back += d * d
	}
	t.Logf("‖Ŵ̃ − W̃‖² %.4g, ‖R_outᵀ·Ŵ̃·R_in − W‖² %.4g, ‖W‖² %.4g", coded, back, sig)
	if back > 1.01*coded || back < 0.99*coded {
		t.Errorf("rotated back, the decoded weight is %.4g from W; the codes are %.4g from W̃", back, coded)
	}
}

// TestAsymTarget: with (almost) no damping, the asymmetric target W' from the accumulated X̃ᵀX̃ and X̃ᵀ(X − X̃)
// satisfies the least-squares normal equations of min ‖X̃·W'ᵀ − X·Wᵀ‖, checked directly on the samples: the
// residual is orthogonal to every column of X̃.
func TestAsymTarget(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	rows, n, out := 300, 24, 5
	x := make([]float32, rows*n)
	xq := make([]float32, rows*n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
		xq[i] = x[i] + 0.3*float32(r.NormFloat64())
	}
	w := make([]float32, out*n)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	hs := newHessian(n)
	hs.cross = make([]float64, n*n)
	hs.addCross(xq[:150*n], x[:150*n], 150) // two windows, as calibration adds them
	hs.add(xq[:150*n], 150)
	hs.addCross(xq[150*n:], x[150*n:], 150)
	hs.add(xq[150*n:], 150)
	wp, err := asymTarget(w, out, n, hs, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	worst, scale := 0.0, 0.0
	for o := range out {
		res := make([]float64, rows) // X̃·W'_oᵀ − X·W_oᵀ
		for s := range rows {
			var a, b float64
			for i := range n {
				a += float64(xq[s*n+i]) * float64(wp[o*n+i])
				b += float64(x[s*n+i]) * float64(w[o*n+i])
			}
			res[s] = a - b
			scale = max(scale, math.Abs(b))
		}
		for i := range n {
			var g float64
			for s := range rows {
				g += float64(xq[s*n+i]) * res[s]
			}
			worst = max(worst, math.Abs(g))
		}
	}
	t.Logf("largest |X̃ᵀ·residual| %.3g (outputs up to %.3g, %d samples)", worst, scale, rows)
	if worst > 1e-3*scale {
		t.Errorf("the asymmetric target leaves X̃ᵀ·residual up to %.3g", worst)
	}
}
