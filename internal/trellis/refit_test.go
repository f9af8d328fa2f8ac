// Tests of the axis-0 scale refit: it lowers LDLQ's proxy loss, and every refit scale sits at the vertex of the
// proxy loss along its own coordinate (the joint optimum's property), the vertex found from three evaluations of
// the test's own proxy loss on decoded weights, independent of the solver.
package trellis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestRefitScalesAxis0(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	out, in := 128, 48
	spec := Spec{K: 2, L: 8, T: 64, Code: "1mad", Axis: 0}
	w := make([]float32, out*in)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	h := correlatedHessian(r, in, 4*in)
	base, err := QuantizeLDLQWith(w, out, in, spec, false, h, LDLQOptions{Rows: 4})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := QuantizeLDLQWith(w, out, in, spec, false, h, LDLQOptions{Rows: 4, RefitScales: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref.Words {
		if ref.Words[i] != base.Words[i] {
			t.Fatal("the refit changed the codes")
		}
	}
	lb, lr := proxyLoss(w, base.Dense(Exact), out, in, h), proxyLoss(w, ref.Dense(Exact), out, in, h)
	t.Logf("proxy loss LDLQ %.5g, with the scale refit %.5g (×%.3f)", lb, lr, lb/lr)
	if !(lr < 0.97*lb) {
		t.Errorf("refit proxy loss %.5g not 3%% below LDLQ's %.5g", lr, lb)
	}
	// coordinate optimality: loss(s_i + d) = loss + g·d + q·d², vertex at −g/(2q)
	probe := func(i int, d float32) float64 {
		old := ref.Scales[i]
		ref.Scales[i] = old + d
		l := proxyLoss(w, ref.Dense(Exact), out, in, h)
		ref.Scales[i] = old
		return l
	}
	for i := range in {
		s := ref.Scales[i]
		d := 0.05 * float32(math.Abs(float64(s)))
		lm, l0, lp := probe(i, -d), probe(i, 0), probe(i, d)
		q := (lp + lm - 2*l0) / (2 * float64(d) * float64(d))
		vertex := float64(s) - (lp-lm)/(2*float64(d))/(2*q)
		if math.Abs(vertex-float64(s)) > 4e-3*math.Abs(float64(s)) {
			t.Errorf("scale %d: %.6g, the loss along it is least at %.6g", i, s, vertex)
		}
	}
}
