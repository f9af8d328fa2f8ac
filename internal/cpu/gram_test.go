// Test of the CPU's Gram op: overwrite then accumulate give the upper triangle of x1ᵀx1 + x2ᵀx2 within the
// stated f32 bound of f64 sums, and leave the lower triangle as it was.
package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func TestGram(t *testing.T) {
	b := New()
	r := rand.New(rand.NewPCG(1, 9))
	n, rows := 37, []int{11, 5}
	acc, _ := b.Alloc(backend.F32, n, n)
	a := acc.(*Tensor).f
	for i := range a {
		a[i] = -7 // poison: the upper triangle must be overwritten, the lower kept
	}
	want, scale := make([]float64, n*n), make([]float64, n*n)
	for k, m := range rows {
		v := make([]float32, m*n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		x, _ := b.Upload(backend.HostF32("x", v, m, n))
		b.Gram(acc, x, k == 0)
		for row := range m {
			for i := range n {
				for j := i; j < n; j++ {
					p := float64(v[row*n+i]) * float64(v[row*n+j])
					want[i*n+j] += p
					scale[i*n+j] += math.Abs(p)
				}
			}
		}
	}
	bound := float64(rows[0]+rows[1]) * 0x1p-24
	for i := range n {
		for j := range n {
			got := float64(a[i*n+j])
			switch {
			case j < i && got != -7:
				t.Fatalf("lower entry (%d, %d) written: %g", i, j, got)
			case j >= i && math.Abs(got-want[i*n+j]) > bound*scale[i*n+j]:
				t.Fatalf("entry (%d, %d): %g, want %g within %g", i, j, got, want[i*n+j], bound*scale[i*n+j])
			}
		}
	}
}
