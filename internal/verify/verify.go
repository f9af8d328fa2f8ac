// Package verify is the conformance harness: it runs every op (kernel form) of a backend under test against a
// reference backend (the CPU oracle) on fresh random inputs with poisoned outputs, and checks each result
// against the op's numerical promise. `mlxbun verify-kernels` prints its table; tests run it on fakes.
package verify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// Case is one op at one shape with its promise.
type Case struct {
	Op      string  // the op or kernel family
	Shape   string  // human-readable shape
	Promise string  // what the backend promises (docs/kernels.md)
	Tol     float64 // largest allowed Metric
	Heavy   bool    // expensive on the CPU reference; skipped by Quick
	run     func(h *harness) (float64, error)
}

// Result is a case's outcome. Metric is max|dut−ref| / max|ref| for float outputs, or the count of mismatches
// for exact ones.
type Result struct {
	Case
	Metric float64
	Pass   bool
	Err    error
}

// harness holds the two backends and a seeded generator for one case.
type harness struct {
	ref, dut backend.Backend
	rng      *rand.Rand
}

// Run runs cases on dut against ref. A case that errors fails.
func Run(ref, dut backend.Backend, cases []Case, seed uint64) []Result {
	out := make([]Result, 0, len(cases))
	for i, c := range cases {
		h := &harness{ref: ref, dut: dut, rng: rand.New(rand.NewPCG(seed, uint64(i)))}
		m, err := c.run(h)
		if err == nil {
			err = dut.Sync()
		}
		out = append(out, Result{Case: c, Metric: m, Err: err, Pass: err == nil && m <= c.Tol && !math.IsNaN(m)})
	}
	return out
}

// randn returns n normal values with standard deviation std, rounded to bf16 so both backends see the same
// inputs whatever their storage dtype.
func (h *harness) randn(n int, std float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = backend.BF16ToF32(backend.F32ToBF16(float32(h.rng.NormFloat64() * std)))
	}
	return v
}

// pair is one logical tensor on both backends.
type pair struct{ ref, dut backend.Tensor }

// act places activation values on both backends in their activation dtype.
func (h *harness) act(v []float32, shape ...int) (pair, error) {
	var p pair
	var err error
	if p.ref, err = place(h.ref, h.ref.ActDType(), v, shape); err != nil {
		return p, fmt.Errorf("reference: %w", err)
	}
	if p.dut, err = place(h.dut, h.dut.ActDType(), v, shape); err != nil {
		return p, fmt.Errorf("%s: %w", h.dut.Name(), err)
	}
	return p, nil
}

// out allocates an output of dtype dt (activation dtype when Invalid) on both, poisoned with NaN where the
// backend can write floats.
func (h *harness) out(dt backend.DType, shape ...int) (pair, error) {
	n := 1
	for _, s := range shape {
		n *= s
	}
	nan := make([]float32, n)
	for i := range nan {
		nan[i] = float32(math.NaN())
	}
	var p pair
	var err error
	rdt, ddt := dt, dt
	if dt == backend.Invalid {
		rdt, ddt = h.ref.ActDType(), h.dut.ActDType()
	}
	if p.ref, err = place(h.ref, rdt, nan, shape); err != nil {
		return p, err
	}
	p.dut, err = place(h.dut, ddt, nan, shape)
	return p, err
}

func place(b backend.Backend, dt backend.DType, v []float32, shape []int) (backend.Tensor, error) {
	t, err := b.Alloc(dt, shape...)
	if err != nil {
		return nil, err
	}
	if w, ok := b.(backend.FloatWriter); ok {
		return t, w.WriteFloat32(t, v)
	}
	b.Free(t)
	return b.Upload(backend.HostF32("input", v, shape...))
}

// ints places int32 values on both backends.
func (h *harness) ints(v []int32) (pair, error) {
	var p pair
	for _, side := range []struct {
		b   backend.Backend
		dst *backend.Tensor
	}{{h.ref, &p.ref}, {h.dut, &p.dut}} {
		t, err := side.b.Alloc(backend.I32, len(v))
		if err != nil {
			return p, err
		}
		if err := side.b.WriteInt32(t, v); err != nil {
			return p, err
		}
		*side.dst = t
	}
	return p, nil
}

// upload places a weight on both backends.
func (h *harness) upload(v []float32, shape ...int) (pair, error) {
	var p pair
	var err error
	if p.ref, err = h.ref.Upload(backend.HostF32("weight", v, shape...)); err != nil {
		return p, err
	}
	p.dut, err = h.dut.Upload(backend.HostF32("weight", v, shape...))
	return p, err
}

// compare reads both outputs and returns max|dut−ref| / max|ref| (NaN anywhere in dut gives +Inf).
func (h *harness) compare(p pair) (float64, error) {
	n := 1
	for _, s := range p.ref.Shape() {
		n *= s
	}
	ref, dut := make([]float32, n), make([]float32, n)
	if err := h.ref.ReadFloat32(p.ref, ref); err != nil {
		return 0, err
	}
	if err := h.dut.ReadFloat32(p.dut, dut); err != nil {
		return 0, err
	}
	return relMaxErr(ref, dut), nil
}

func relMaxErr(ref, dut []float32) float64 {
	var maxRef, maxErr float64
	for i := range ref {
		if math.IsNaN(float64(dut[i])) || math.IsInf(float64(dut[i]), 0) {
			return math.Inf(1)
		}
		maxRef = max(maxRef, math.Abs(float64(ref[i])))
		maxErr = max(maxErr, math.Abs(float64(dut[i])-float64(ref[i])))
	}
	if maxRef == 0 {
		return maxErr
	}
	return maxErr / maxRef
}

func (h *harness) free(ps ...pair) {
	for _, p := range ps {
		if p.ref != nil {
			h.ref.Free(p.ref)
		}
		if p.dut != nil {
			h.dut.Free(p.dut)
		}
	}
}
