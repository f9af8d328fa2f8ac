// Package verify is the conformance harness: it runs every op (kernel form), every fused op sequence and graph
// replay of a backend under test against a reference backend (the CPU oracle) on fresh random inputs with
// poisoned outputs, and checks each result against the op's numerical promise. `mlxbun verify-kernels` prints
// its table; each GPU backend's tests run every case too (internal/cuda: TestConformance); the package's own tests
// run it on fakes. It is written against backend.Backend and the optional interfaces only.
package verify

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// Case is one op (or op sequence) at one shape with its promise.
type Case struct {
	Op      string  // the op, kernel family or fused sequence
	Shape   string  // human-readable shape; it starts with the model whose shape it is ("qwen3-14b ...")
	Promise string  // what the backend promises (docs/kernels.md)
	Tol     float64 // largest allowed Metric
	Heavy   bool    // expensive on the CPU reference; skipped by Quick
	// Act is the activation dtype the device under test computes the case in (Invalid: its ActDType); the
	// reference computes in its own. A device that cannot hold activations of dtype Act skips the case.
	Act backend.DType
	// Launches, when set, is what a backend that fuses op pairs peephole-style and records graphs as
	// internal/cuda does issues for the case's op sequence. verify cannot count launches: a backend's own test
	// compares these with its counters.
	Launches *Launches
	run      func(h *harness) float64
}

// Launches counts device work of one case.
type Launches struct {
	Kernels int64 // kernels (and library calls) launched one by one
	Graphs  int64 // recorded graphs launched, the recording run included
	Nodes   int   // launches inside the graph recorded last (when Graphs > 0)
	// Tuned, when set, names the tuning key (internal/cuda's MLXBUN_CUDA_TUNE) the counts assume on: with it off
	// that backend runs the plain sequence, and its test holds the counts only where the key is on.
	Tuned string
}

// Result is a case's outcome. Metric is max|dut−ref| / max|ref| for float outputs, or the count of mismatches
// for exact ones.
type Result struct {
	Case
	Metric  float64
	Pass    bool
	Skipped bool // the device has no form for the case's activation dtype (Alloc says backend.ErrUnsupported)
	Err     error
}

// errSkip marks a case the device cannot express (an activation dtype it does not hold).
var errSkip = errors.New("skipped")

// Runner runs cases on a device under test against a reference. Cases of one Runner share the weights of each
// linear shape (random, derived from the seed and the shape; backends have no way to free a linear), while every
// other input is drawn fresh per case.
type Runner struct {
	ref, dut backend.Backend
	seed     uint64
	linears  map[linearKey]linearPair
}

// NewRunner prepares runs of cases on dut against ref, seeded with seed.
func NewRunner(ref, dut backend.Backend, seed uint64) *Runner {
	return &Runner{ref: ref, dut: dut, seed: seed, linears: map[linearKey]linearPair{}}
}

// Run runs cases on dut against ref. A case that errors or panics fails.
func Run(ref, dut backend.Backend, cases []Case, seed uint64) []Result {
	r := NewRunner(ref, dut, seed)
	out := make([]Result, 0, len(cases))
	for i, c := range cases {
		out = append(out, r.Run(i, c))
	}
	return out
}

// Run runs c as case number i of the run (i picks its random stream), frees what it allocated and waits for both
// backends. A panic inside the case (an op's shape or dtype check) is its error.
func (r *Runner) Run(i int, c Case) (res Result) {
	h := &harness{r: r, ref: r.ref, dut: r.dut, rng: rand.New(rand.NewPCG(r.seed, uint64(i))), actDT: c.Act}
	if h.actDT == backend.Invalid {
		h.actDT = r.dut.ActDType()
	}
	res = Result{Case: c}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(abort); !ok {
					h.err = fmt.Errorf("panic: %v", p)
				}
			}
		}()
		res.Metric = c.run(h)
	}()
	h.freeAll()
	if err := errors.Join(r.ref.Sync(), r.dut.Sync()); h.err == nil {
		h.err = err
	}
	res.Err = h.err
	res.Skipped = errors.Is(h.err, errSkip)
	res.Pass = h.err == nil && res.Metric <= c.Tol && !math.IsNaN(res.Metric)
	return res
}

// harness holds the two backends and a seeded generator for one case. Its helpers end the case on the first
// error (abort, caught by Run), so cases read as plain lists of ops.
type harness struct {
	r        *Runner
	ref, dut backend.Backend
	rng      *rand.Rand
	actDT    backend.DType     // the device's activation dtype for this case
	all      []pair            // freed after the case
	kv       []backend.KVCache // released after the case
	err      error
}

// abort unwinds a case after h.err was set.
type abort struct{}

// check ends the case with err unless it is nil.
func (h *harness) check(err error) {
	if err != nil {
		h.err = err
		panic(abort{})
	}
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

// act places activation values on both backends: the reference's ActDType, the case's dtype on the device.
func (h *harness) act(v []float32, shape ...int) pair {
	return h.place(v, shape, h.ref.ActDType(), h.actDT)
}

// out allocates an output on both, poisoned with NaN: dt on the device (Invalid: the case's activation dtype),
// the reference's F32 or ActDType.
func (h *harness) out(dt backend.DType, shape ...int) pair {
	n := 1
	for _, s := range shape {
		n *= s
	}
	nan := make([]float32, n)
	for i := range nan {
		nan[i] = float32(math.NaN())
	}
	if dt == backend.Invalid {
		dt = h.actDT
	}
	rdt := h.ref.ActDType()
	if dt == backend.F32 {
		rdt = backend.F32
	}
	return h.place(nan, shape, rdt, dt)
}

// place puts v on the reference in rdt and on the device in ddt.
func (h *harness) place(v []float32, shape []int, rdt, ddt backend.DType) pair {
	var p pair
	var err error
	p.ref, err = place(h.ref, rdt, v, shape)
	h.check(wrap("reference", err))
	h.all = append(h.all, pair{ref: p.ref})
	p.dut, err = place(h.dut, ddt, v, shape)
	if errors.Is(err, backend.ErrUnsupported) {
		err = fmt.Errorf("%w: %s holds no %s tensors (%w)", errSkip, h.dut.Name(), ddt, err)
	}
	h.check(wrap(h.dut.Name(), err))
	h.all = append(h.all, pair{dut: p.dut})
	return p
}

func wrap(who string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", who, err)
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
func (h *harness) ints(v []int32) pair {
	var p pair
	for _, side := range []struct {
		b   backend.Backend
		dst *backend.Tensor
	}{{h.ref, &p.ref}, {h.dut, &p.dut}} {
		t, err := side.b.Alloc(backend.I32, len(v))
		h.check(wrap(side.b.Name(), err))
		*side.dst = t
		h.check(wrap(side.b.Name(), side.b.WriteInt32(t, v)))
	}
	h.all = append(h.all, p)
	return p
}

// writeInts overwrites an int32 pair on both backends.
func (h *harness) writeInts(p pair, v []int32) {
	h.check(wrap("reference", h.ref.WriteInt32(p.ref, v)))
	h.check(wrap(h.dut.Name(), h.dut.WriteInt32(p.dut, v)))
}

// upload places a weight (norm vector, embedding table) on both backends.
func (h *harness) upload(v []float32, shape ...int) pair {
	var p pair
	var err error
	p.ref, err = h.ref.Upload(backend.HostF32("weight", v, shape...))
	h.check(wrap("reference", err))
	p.dut, err = h.dut.Upload(backend.HostF32("weight", v, shape...))
	h.check(wrap(h.dut.Name(), err))
	h.all = append(h.all, p)
	return p
}

// linearKey names a shared weight: a linear layer's shape, whether it has a bias, and its host dtype.
type linearKey struct {
	in, out int
	bias    bool
	dt      backend.DType
}

type linearPair struct{ ref, dut backend.Linear }

// linear returns a dense linear [out, in] (bf16 or f32 on the host, std 1/√in, bias std 1) on both backends,
// loaded once per Runner.
func (h *harness) linear(in, out int, bias bool, dt backend.DType) linearPair {
	k := linearKey{in, out, bias, dt}
	if l, ok := h.r.linears[k]; ok {
		return l
	}
	rng := rand.New(rand.NewPCG(h.r.seed, uint64(in)<<40^uint64(out)<<8^uint64(dt)<<1^b2u(bias)))
	g := &harness{rng: rng}
	spec := backend.LinearSpec{Name: fmt.Sprintf("verify.%dx%d", out, in), Out: out, In: in}
	wv := g.randn(out*in, 1/math.Sqrt(float64(in)))
	wh := backend.HostF32(spec.Name+".weight", wv, out, in)
	if dt == backend.BF16 {
		wh = hostBF16(spec.Name+".weight", wv, out, in)
	}
	spec.Dense = &wh
	if bias {
		bh := backend.HostF32(spec.Name+".bias", g.randn(out, 1), out)
		spec.Bias = &bh
	}
	l := h.loadPair(spec)
	h.r.linears[k] = l
	return l
}

// loadPair loads one linear layer on both backends.
func (h *harness) loadPair(spec backend.LinearSpec) linearPair {
	var l linearPair
	var err error
	l.ref, err = h.ref.LoadLinear(spec)
	h.check(wrap("reference", err))
	l.dut, err = h.dut.LoadLinear(spec)
	h.check(wrap(h.dut.Name(), err))
	return l
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// hostBF16 is a bf16 host tensor of bf16-valued v (as checkpoints store weights).
func hostBF16(name string, v []float32, shape ...int) backend.Host {
	b := make([]byte, 2*len(v))
	for i, f := range v {
		u := backend.F32ToBF16(f)
		b[2*i], b[2*i+1] = byte(u), byte(u>>8)
	}
	return backend.Host{Name: name, DType: backend.BF16, Shape: shape, Data: b}
}

// read returns both sides' values of p.
func (h *harness) read(p pair) (ref, dut []float32) {
	n := 1
	for _, s := range p.ref.Shape() {
		n *= s
	}
	ref, dut = make([]float32, n), make([]float32, n)
	h.check(wrap("reference", h.ref.ReadFloat32(p.ref, ref)))
	h.check(wrap(h.dut.Name(), h.dut.ReadFloat32(p.dut, dut)))
	return ref, dut
}

// compare reads both outputs and returns max|dut−ref| / max|ref| (NaN or Inf anywhere in dut gives +Inf).
func (h *harness) compare(p pair) float64 {
	ref, dut := h.read(p)
	return relMaxErr(ref, dut)
}

// compareRounded is compare against the reference rounded to the device tensor's dtype (bf16): the metric of a
// bit-exact promise, zero when the device computes the reference's f32 result and rounds it once.
func (h *harness) compareRounded(p pair) float64 {
	ref, dut := h.read(p)
	if p.dut.DType() == backend.BF16 {
		for i, v := range ref {
			ref[i] = backend.BF16ToF32(backend.F32ToBF16(v))
		}
	}
	return relMaxErr(ref, dut)
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

// freeAll frees every tensor the case placed.
func (h *harness) freeAll() {
	for _, p := range h.all {
		if p.ref != nil {
			h.ref.Free(p.ref)
		}
		if p.dut != nil {
			h.dut.Free(p.dut)
		}
	}
	h.all = nil
	for _, c := range h.kv {
		c.Release()
	}
	h.kv = nil
}
