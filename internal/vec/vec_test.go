package vec

import (
	"math"
	"sync/atomic"
	"testing"
)

func TestDotMatchesFloat64(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 7, 64, 1001} {
		a, b := make([]float32, n), make([]float32, n+2)
		var want float64
		for i := range a {
			a[i], b[i] = float32(math.Sin(float64(i))), float32(math.Cos(float64(3*i)))
			want += float64(a[i]) * float64(b[i])
		}
		if got := Dot(a, b); math.Abs(float64(got)-want) > 1e-5*(1+math.Abs(want)) {
			t.Errorf("n=%d: Dot %g, float64 %g", n, got, want)
		}
	}
}

func TestParallelForCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 1000, 4097} {
		hits := make([]atomic.Int32, n)
		ParallelFor(n, 3, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
			}
		})
		for i := range hits {
			if h := hits[i].Load(); h != 1 {
				t.Fatalf("n=%d: index %d run %d times", n, i, h)
			}
		}
	}
}
