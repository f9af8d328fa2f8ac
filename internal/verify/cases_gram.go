// Cases of the Gram accumulation (backend.Grammer, the quantizer's calibration Hessians H = XᵀX): one product
// that overwrites the poisoned accumulator, then one that adds to it, at the pycoder-12m and Qwen3-14B linear
// input widths, an odd width and a window of a few rows, checked against an f64 sum of the same products. The
// metric is per upper-triangle entry, the error over Σ_r |x_ri·x_rj| (the scale of the f32 bound), and the
// tolerance the promise itself: m·2^-24 for m rows summed in all.
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// gramCases lists the shapes: rows of the first and second product, and the width.
func gramCases() []Case {
	var cs []Case
	for _, s := range []struct {
		tag       string
		r1, r2, n int
		heavy     bool
	}{
		{"odd", 7, 5, 33, false},
		{"pycoder-12m q/k/v input", 64, 64, 512, false},
		{"pycoder-12m down input", 128, 32, 1536, false},
		{"qwen3-14b hidden, window 512", 512, 512, 5120, true},
		{"qwen3-14b hidden, one row", 1, 3, 5120, false},
	} {
		m := s.r1 + s.r2
		cs = append(cs, Case{Op: "Gram", Act: backend.F32, Heavy: s.heavy,
			Shape:   fmt.Sprintf("%s: %d then %d rows × %d", s.tag, s.r1, s.r2, s.n),
			Promise: "f32 sums in any order: |error| ≤ m·2^-24·Σ|x_i·x_j| over the m rows (upper triangle)",
			Tol:     float64(m) * 0x1p-24,
			run:     func(h *harness) float64 { return gramRun(h, s.r1, s.r2, s.n) }})
	}
	return cs
}

// gramRun runs Gram(acc, x1, overwrite) then Gram(acc, x2, accumulate) on the device and compares the upper
// triangle with the f64 sums.
func gramRun(h *harness, r1, r2, n int) float64 {
	g, ok := h.dut.(backend.Grammer)
	if !ok {
		h.check(fmt.Errorf("%w: %s has no Gram op", errSkip, h.dut.Name()))
	}
	v1, v2 := h.randn(r1*n, 1), h.randn(r2*n, 1)
	x1 := h.place(v1, []int{r1, n}, backend.F32, backend.F32)
	x2 := h.place(v2, []int{r2, n}, backend.F32, backend.F32)
	acc := h.out(backend.F32, n, n)
	g.Gram(acc.dut, x1.dut, true)
	g.Gram(acc.dut, x2.dut, false)
	got := make([]float32, n*n)
	h.check(wrap(h.dut.Name(), h.dut.ReadFloat32(acc.dut, got)))
	want, scale := make([]float64, n*n), make([]float64, n*n)
	for _, x := range []struct {
		v    []float32
		rows int
	}{{v1, r1}, {v2, r2}} {
		for r := range x.rows {
			row := x.v[r*n : (r+1)*n]
			for i := range n {
				a := float64(row[i])
				for j := i; j < n; j++ {
					p := a * float64(row[j])
					want[i*n+j] += p
					scale[i*n+j] += math.Abs(p)
				}
			}
		}
	}
	var worst float64
	for i := range n {
		for j := i; j < n; j++ {
			d := float64(got[i*n+j])
			if math.IsNaN(d) || math.IsInf(d, 0) {
				return math.Inf(1)
			}
			if s := scale[i*n+j]; s > 0 {
				worst = max(worst, math.Abs(d-want[i*n+j])/s)
			} else if d != 0 {
				return math.Inf(1)
			}
		}
	}
	return worst
}
