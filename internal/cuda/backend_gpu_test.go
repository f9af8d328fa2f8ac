// Conformance tests of the CUDA backend against the CPU backend (the reference arithmetic), run only with
// MLXBUN_CUDA=1 (scripts/device/remote.sh). Every op gets fresh random inputs rounded to bf16 (so both backends
// see the same values), a NaN-poisoned output, and a tolerance stated beside it; the shapes are the fixtures'
// and Qwen3-14B's. Timings go to the measurement table printed after the tests (record).

package cuda

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/sample"
)

var (
	bkOnce sync.Once
	bkDev  *Backend
	bkErr  error
	bkCPU  *cpu.Backend
)

// bk opens the CUDA backend once for every backend test (and a CPU backend beside it).
func bk(t *testing.T) (*Backend, *cpu.Backend) {
	t.Helper()
	if os.Getenv("MLXBUN_CUDA") != "1" {
		t.Skip("GPU test: set MLXBUN_CUDA=1")
	}
	bkOnce.Do(func() {
		bkDev, bkErr = New(0)
		bkCPU = cpu.New()
	})
	if bkErr != nil {
		t.Fatalf("cuda backend: %v", bkErr)
	}
	if err := bkDev.Sync(); err != nil {
		t.Logf("cleared an error left by an earlier test: %v", err)
	}
	return bkDev, bkCPU
}

// pair is one tensor on both backends.
type pair struct {
	g backend.Tensor // cuda
	c backend.Tensor // cpu
}

type harness struct {
	t   *testing.T
	g   *Backend
	c   *cpu.Backend
	dt  backend.DType // the GPU activations' dtype
	rng *rand.Rand
	all []pair
}

// worst keeps, per op, the largest error ratio compare saw in the running test (reported in the table).
var (
	worstMu sync.Mutex
	worst   = map[string][3]float64{} // op -> max|err|/max|ref|, tolerance, comparisons
)

// forActs runs fn once per activation dtype the kernels serve (F32, the backend's ActDType, and BF16), each with a
// harness placing its activations in that dtype.
func forActs(t *testing.T, fn func(t *testing.T, h *harness)) {
	for _, dt := range actTypes {
		t.Run(dtName(dt), func(t *testing.T) {
			h := newHarness(t)
			h.dt = dt
			fn(t, h)
		})
	}
}

func newHarness(t *testing.T) *harness {
	g, c := bk(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	h := &harness{t: t, g: g, c: c, dt: g.ActDType(), rng: rand.New(rand.NewPCG(seed, 77))}
	t.Cleanup(func() {
		worstMu.Lock()
		ops := slices.Sorted(maps.Keys(worst))
		for _, op := range ops {
			w := worst[op]
			record("check       %-12s %-4s %4.0f comparisons, worst max|err| %.2e·max|ref| (tolerance %.0e)", op, dtName(h.dt), w[2], w[0], w[1])
		}
		clear(worst)
		worstMu.Unlock()
	})
	t.Cleanup(func() {
		for _, p := range h.all {
			if p.g != nil {
				h.g.Free(p.g)
			}
		}
	})
	return h
}

// uniform returns n bf16-representable values uniform in [lo, hi).
func (h *harness) uniform(n int, lo, hi float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = backend.BF16ToF32(backend.F32ToBF16(lo + (hi-lo)*h.rng.Float32()))
	}
	return v
}

// act places activations: h.dt on the GPU, F32 on the CPU, the same (bf16) values on both.
func (h *harness) act(v []float32, shape ...int) pair {
	h.t.Helper()
	var p pair
	var err error
	if p.g, err = h.g.Alloc(h.dt, shape...); err != nil {
		h.t.Fatal(err)
	}
	if err := h.g.WriteFloat32(p.g, v); err != nil {
		h.t.Fatal(err)
	}
	if p.c, err = h.c.Alloc(backend.F32, shape...); err != nil {
		h.t.Fatal(err)
	}
	if err := h.c.WriteFloat32(p.c, v); err != nil {
		h.t.Fatal(err)
	}
	h.all = append(h.all, p)
	return p
}

// out places an output poisoned with NaN on the GPU (dt BF16 or F32) and zeros on the CPU.
func (h *harness) out(dt backend.DType, shape ...int) pair {
	h.t.Helper()
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
	if p.g, err = h.g.Alloc(dt, shape...); err != nil {
		h.t.Fatal(err)
	}
	if err := h.g.WriteFloat32(p.g, nan); err != nil {
		h.t.Fatal(err)
	}
	if p.c, err = h.c.Alloc(backend.F32, shape...); err != nil {
		h.t.Fatal(err)
	}
	h.all = append(h.all, p)
	return p
}

func (h *harness) ints(v []int32) pair {
	h.t.Helper()
	var p pair
	var err error
	if p.g, err = h.g.Alloc(backend.I32, len(v)); err != nil {
		h.t.Fatal(err)
	}
	if err := h.g.WriteInt32(p.g, v); err != nil {
		h.t.Fatal(err)
	}
	if p.c, err = h.c.Alloc(backend.I32, len(v)); err != nil {
		h.t.Fatal(err)
	}
	if err := h.c.WriteInt32(p.c, v); err != nil {
		h.t.Fatal(err)
	}
	h.all = append(h.all, p)
	return p
}

// upload places a host tensor (weights) on both.
func (h *harness) upload(v []float32, shape ...int) pair {
	h.t.Helper()
	host := backend.HostF32("w", v, shape...)
	var p pair
	var err error
	if p.g, err = h.g.Upload(host); err != nil {
		h.t.Fatal(err)
	}
	if p.c, err = h.c.Upload(host); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func hostBF16(name string, v []float32, shape ...int) backend.Host {
	b := make([]byte, 2*len(v))
	for i, f := range v {
		u := backend.F32ToBF16(f)
		b[2*i], b[2*i+1] = byte(u), byte(u>>8)
	}
	return backend.Host{Name: name, DType: backend.BF16, Shape: shape, Data: b}
}

// results reads both sides (the GPU after Sync, failing on its error).
func (h *harness) results(p pair) (got, ref []float32) {
	h.t.Helper()
	n := 1
	for _, s := range p.g.Shape() {
		n *= s
	}
	got = make([]float32, n)
	if err := h.g.ReadFloat32(p.g, got); err != nil {
		h.g.Sync()
		h.t.Fatal(err)
	}
	if err := h.g.Sync(); err != nil {
		h.t.Fatal(err)
	}
	ref = make([]float32, n)
	if err := h.c.ReadFloat32(p.c, ref); err != nil {
		h.t.Fatal(err)
	}
	return got, ref
}

// compare fails when any value is NaN where the reference is not, or max|got−ref| > tol·max|ref|.
func compare(t *testing.T, what string, got, ref []float32, tol float64) (maxErr, maxRef float64) {
	t.Helper()
	bad := -1
	var se, sr float64
	for i := range ref {
		g, r := float64(got[i]), float64(ref[i])
		if math.IsNaN(g) != math.IsNaN(r) {
			bad = i
			break
		}
		maxRef = max(maxRef, math.Abs(r))
		maxErr = max(maxErr, math.Abs(g-r))
		se += (g - r) * (g - r)
		sr += r * r
	}
	if bad >= 0 {
		t.Errorf("MISMATCH %s: element %d is %v, reference %v (unwritten or NaN output)", what, bad, got[bad], ref[bad])
		return
	}
	rel := math.Sqrt(se / max(sr, 1e-300))
	op, _, _ := strings.Cut(what, " ")
	worstMu.Lock()
	w := worst[op]
	worst[op] = [3]float64{max(w[0], maxErr/max(maxRef, 1e-300)), max(w[1], tol), w[2] + 1}
	worstMu.Unlock()
	if maxErr > tol*maxRef || math.IsNaN(maxErr) {
		t.Errorf("MISMATCH %s: max|err| %.3g > %.1e·max|ref| (%.3g); rel L2 %.2e", what, maxErr, tol, maxRef, rel)
	} else {
		t.Logf("%s: max|err| %.3g = %.2e·max|ref|, rel L2 %.2e", what, maxErr, maxErr/max(maxRef, 1e-300), rel)
	}
	return
}

// bf16Tol is the tolerance of an op whose only difference from the reference is rounding its f32 result to bf16
// (half an ulp: 2^-9 relative, checked against max|ref|, with room for f32 ordering).
const bf16Tol = 1.0 / 256

func TestBackendOpsElementwise(t *testing.T) {
	forActs(t, func(t *testing.T, h *harness) {
		for _, n := range []int{1, 7, 256, 1001, 5120 * 3, 17408 * 8} {
			a, b := h.act(h.uniform(n, -4, 4), n), h.act(h.uniform(n, -4, 4), n)
			d := h.out(h.dt, n)
			h.g.Add(d.g, a.g, b.g)
			h.c.Add(d.c, a.c, b.c)
			got, ref := h.results(d)
			compare(t, fmt.Sprintf("Add n=%d", n), got, ref, bf16Tol)
			s := h.out(h.dt, n)
			h.g.SwiGLU(s.g, a.g, b.g)
			h.c.SwiGLU(s.c, a.c, b.c)
			got, ref = h.results(s)
			compare(t, fmt.Sprintf("SwiGLU n=%d", n), got, ref, bf16Tol)
			// in place: dst aliases the first operand
			h.g.Add(a.g, a.g, b.g)
			h.c.Add(a.c, a.c, b.c)
			got, ref = h.results(a)
			compare(t, fmt.Sprintf("Add in place n=%d", n), got, ref, bf16Tol)
		}
		// Unaligned row views (odd widths) take the scalar paths.
		x, y := h.act(h.uniform(5*33, -2, 2), 5, 33), h.act(h.uniform(5*33, -2, 2), 5, 33)
		d := h.out(h.dt, 3, 33)
		h.g.Add(d.g, h.g.Rows(x.g, 1, 3), h.g.Rows(y.g, 2, 3))
		h.c.Add(d.c, h.c.Rows(x.c, 1, 3), h.c.Rows(y.c, 2, 3))
		got, ref := h.results(d)
		compare(t, "Add unaligned views", got, ref, bf16Tol)
	})
}

func TestBackendOpsEmbedNorm(t *testing.T) {
	forActs(t, func(t *testing.T, h *harness) {
		for _, c := range []struct{ vocab, d, n int }{{2048, 256, 9}, {384, 512, 3}, {4096, 5120, 8}, {100, 37, 4}} {
			tab := h.uniform(c.vocab*c.d, -1, 1)
			table := h.upload(tab, c.vocab, c.d)
			ids := make([]int32, c.n)
			for i := range ids {
				ids[i] = int32(h.rng.IntN(c.vocab))
			}
			ids[0] = int32(c.vocab - 1)
			idp := h.ints(ids)
			d := h.out(h.dt, c.n, c.d)
			h.g.Embed(d.g, table.g, idp.g)
			h.c.Embed(d.c, table.c, idp.c)
			got, ref := h.results(d)
			compare(t, fmt.Sprintf("Embed %dx%d n=%d (exact)", c.vocab, c.d, c.n), got, ref, 0)
			h.g.Free(table.g)
		}
		// RMSNorm over whole rows (block form above 1024 columns) and per head (warp form), in place too.
		for _, c := range []struct{ rows, cols, g int }{{9, 256, 256}, {8, 5120, 5120}, {512, 5120, 5120}, {8, 40 * 128, 128},
			{3, 8 * 64, 64}, {4, 100, 100}, {2, 2048, 1024}} {
			x := h.act(h.uniform(c.rows*c.cols, -3, 3), c.rows, c.cols)
			w := h.upload(h.uniform(c.g, 0.5, 1.5), c.g)
			d := h.out(h.dt, c.rows, c.cols)
			h.g.RMSNorm(d.g, x.g, w.g, 1e-6)
			h.c.RMSNorm(d.c, x.c, w.c, 1e-6)
			got, ref := h.results(d)
			compare(t, fmt.Sprintf("RMSNorm %dx%d groups of %d", c.rows, c.cols, c.g), got, ref, 2*bf16Tol)
			h.g.RMSNorm(x.g, x.g, w.g, 1e-6)
			h.c.RMSNorm(x.c, x.c, w.c, 1e-6)
			got, ref = h.results(x)
			compare(t, fmt.Sprintf("RMSNorm in place %dx%d/%d", c.rows, c.cols, c.g), got, ref, 2*bf16Tol)
			h.g.Free(w.g)
		}
	})
}

func TestBackendOpsRope(t *testing.T) {
	forActs(t, func(t *testing.T, h *harness) {
		type rc struct {
			n, heads, hd, dims int
			trad               bool
			pre                float32
			scaling            map[string]any
		}
		for _, c := range []rc{
			{9, 4, 64, 64, false, 1, nil},
			{8, 40, 128, 128, false, 1, nil},
			{5, 8, 32, 32, true, 1, nil},
			{3, 4, 64, 32, false, 1, nil}, // partial rotary
			{4, 2, 64, 64, false, 1, map[string]any{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32}},
			{6, 4, 64, 64, false, 1.25, nil}, // prescale: the GPU rounds the scaled input to bf16, the CPU does not
		} {
			tab, err := rope.New(c.dims, 1e6, c.trad, c.scaling, 4096)
			if err != nil {
				t.Fatal(err)
			}
			if c.pre != 1 {
				tab.PreScale = c.pre
			}
			x := h.act(h.uniform(c.n*c.heads*c.hd, -2, 2), c.n, c.heads*c.hd)
			pos := make([]int32, c.n)
			for i := range pos {
				pos[i] = int32(h.rng.IntN(40000))
			}
			pos[0] = 0
			pp := h.ints(pos)
			h.g.Rope(x.g, pp.g, c.heads, tab)
			h.c.Rope(x.c, pp.c, c.heads, tab)
			got, ref := h.results(x)
			what := fmt.Sprintf("Rope n=%d heads=%d hd=%d dims=%d trad=%v pre=%v %s", c.n, c.heads, c.hd, c.dims, c.trad, c.pre, tab.Type)
			if tab.PreScale == 1 {
				// bit-exact promise: the GPU result is the CPU's f32 result (rounded once to bf16 for bf16 activations)
				for i := range ref {
					w := ref[i]
					if h.dt == backend.BF16 {
						w = backend.BF16ToF32(backend.F32ToBF16(w))
					}
					if got[i] != w {
						t.Errorf("MISMATCH %s: element %d = %v, want bf16(%v) = %v", what, i, got[i], ref[i], w)
						break
					}
				}
			}
			compare(t, what, got, ref, 2*bf16Tol)
		}
	})
}

func TestBackendArgmax(t *testing.T) {
	h := newHarness(t)
	const vocab = 151936
	rows := 5
	v := h.uniform(rows*vocab, -10, 10)
	r := v[0:vocab]
	r[123] = 30 // clear winner
	r = v[vocab : 2*vocab]
	r[77], r[5000] = 25, 25 // tie: lowest id wins
	r = v[2*vocab : 3*vocab]
	r[9] = float32(math.NaN()) // non-finite: token 0
	r = v[3*vocab : 4*vocab]
	for i := range r {
		r[i] = float32(math.Inf(-1)) // all -Inf: token 0
	}
	r = v[4*vocab : 5*vocab]
	r[vocab-1] = 12
	r[vocab-2] = math.Nextafter32(12, 0) // within an ulp: the f32 scores may tie after subtracting L
	l, err := h.g.Alloc(backend.F32, rows, vocab)
	if err != nil {
		t.Fatal(err)
	}
	defer h.g.Free(l)
	if err := h.g.WriteFloat32(l, v); err != nil {
		t.Fatal(err)
	}
	ids, err := h.g.Alloc(backend.I32, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer h.g.Free(ids)
	h.g.Argmax(ids, l)
	got := make([]int32, rows)
	if err := h.g.ReadInt32(ids, got); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		want := sample.GreedyNormalizedArgmax(v[i*vocab:(i+1)*vocab], sample.F32)
		if int(got[i]) != want {
			t.Errorf("MISMATCH Argmax row %d = %d, want %d", i, got[i], want)
		}
	}
	t.Logf("Argmax rows %v", got)
}

// gemmRef64 computes rows of y = x·Wᵀ in float64 for the listed output rows of x.
func gemmRef64(x, w []float32, in, out int, rows []int) [][]float64 {
	res := make([][]float64, len(rows))
	var wg sync.WaitGroup
	for k, r := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			y := make([]float64, out)
			xr := x[r*in : (r+1)*in]
			for o := 0; o < out; o++ {
				wr := w[o*in : (o+1)*in]
				var s float64
				for i, xv := range xr {
					s += float64(xv) * float64(wr[i])
				}
				y[o] = s
			}
			res[k] = y
		}()
	}
	wg.Wait()
	return res
}

func TestBackendMatMul(t *testing.T) {
	forActs(t, func(t *testing.T, h *harness) {
		type shape struct {
			name    string
			in, out int
			bias    bool
		}
		shapes := []shape{
			{"fixture q", 256, 256, false}, {"fixture gate", 256, 768, false}, {"fixture down", 768, 256, true},
			{"pycoder lm_head", 512, 384, false}, {"odd width (scalar form)", 100, 37, true},
			{"14b gate/up", 5120, 17408, false}, {"14b down", 17408, 5120, false}, {"14b q/o", 5120, 5120, false},
			{"14b k/v", 5120, 1024, true},
			{"0.6b down", 3072, 1024, false}, {"0.6b gate+up", 1024, 6144, false}, {"0.6b o", 2048, 1024, true},
		}
		for _, s := range shapes {
			wv := h.uniform(s.out*s.in, -0.05, 0.05)
			spec := backend.LinearSpec{Name: s.name, Out: s.out, In: s.in}
			host := hostBF16(s.name, wv, s.out, s.in)
			spec.Dense = &host
			if s.bias {
				bh := backend.HostF32("bias", h.uniform(s.out, -1, 1), s.out)
				spec.Bias = &bh
			}
			lg, err := h.g.LoadLinear(spec)
			if err != nil {
				t.Fatal(err)
			}
			big := s.in*s.out > 1<<22
			var lc backend.Linear
			if !big {
				if lc, err = h.c.LoadLinear(spec); err != nil {
					t.Fatal(err)
				}
			}
			var bias []float32
			if s.bias {
				bias, _ = spec.Bias.Float32s()
			}
			for _, n := range []int{1, 2, 3, 4, 8, 9, 512} {
				if n == 512 && !big && s.in != 100 {
					continue
				}
				xv := h.uniform(n*s.in, -1, 1)
				x := h.act(xv, n, s.in)
				for _, dt := range []backend.DType{backend.F32, backend.BF16} {
					d := h.out(dt, n, s.out)
					h.g.MatMul(d.g, x.g, lg)
					tol := 1e-4 // f32 output: f32 sums of exact products
					if dt == backend.BF16 {
						tol = 2 * bf16Tol
					}
					what := fmt.Sprintf("MatMul %s %d->%d n=%d out=%s", s.name, s.in, s.out, n, dt)
					if !big {
						h.c.MatMul(d.c, x.c, lc)
						got, ref := h.results(d)
						compare(t, what, got, ref, tol)
						continue
					}
					// Large shapes: a float64 reference on a few rows.
					got := make([]float32, n*s.out)
					if err := h.g.ReadFloat32(d.g, got); err != nil {
						t.Fatal(err)
					}
					rows := []int{0, n - 1, n / 2}
					if n > 8 {
						rows = append(rows, 1, n/3, n-2)
					}
					rows = slices.Compact(slices.Sorted(slices.Values(rows)))
					ref64 := gemmRef64(xv, wv, s.in, s.out, rows)
					var g, r []float32
					for k, row := range rows {
						for o := 0; o < s.out; o++ {
							v := ref64[k][o]
							if bias != nil {
								v += float64(bias[o])
							}
							r = append(r, float32(v))
							g = append(g, got[row*s.out+o])
						}
					}
					compare(t, what+" (f64 reference, sampled rows)", g, r, tol)
				}
			}
		}
	})
}

// attnSeq drives Attention on both backends over a sequence of steps and compares every output.
func TestBackendAttention(t *testing.T) {
	forActs(t, func(t *testing.T, h *harness) {
		type step struct {
			seq, pos []int32
		}
		consecutive := func(seq int32, from, n int) step {
			s := step{}
			for i := 0; i < n; i++ {
				s.seq, s.pos = append(s.seq, seq), append(s.pos, int32(from+i))
			}
			return s
		}
		type ac struct {
			name                 string
			heads, kvHeads, hd   int
			seqs, maxLen, layers int
			steps                []step
		}
		cases := []ac{
			{"fixture qwen3", 4, 2, 64, 1, 80, 2, []step{consecutive(0, 0, 70), consecutive(0, 70, 1), consecutive(0, 71, 1)}},
			{"tiny-llama hd32", 8, 2, 32, 1, 40, 1, []step{consecutive(0, 0, 9), consecutive(0, 9, 1)}},
			{"14b shape", 40, 8, 128, 1, 700, 1, []step{consecutive(0, 0, 512), consecutive(0, 512, 1), consecutive(0, 513, 8),
				consecutive(0, 521, 150)}},
			{"batched decode", 16, 8, 128, 3, 300, 2, []step{consecutive(0, 0, 37), consecutive(1, 0, 5), consecutive(2, 0, 260),
				{seq: []int32{0, 1, 2}, pos: []int32{37, 5, 260}}, {seq: []int32{2, 0}, pos: []int32{261, 38}}}},
			{"rows form (interleaved seqs)", 4, 2, 64, 2, 64, 1, []step{{seq: []int32{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, pos: []int32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}}}},
			{"hd80 (rows for prompts)", 4, 2, 80, 1, 40, 1, []step{consecutive(0, 0, 20), consecutive(0, 20, 1)}},
			{"gqa group 16", 32, 2, 64, 1, 64, 1, []step{consecutive(0, 0, 33), consecutive(0, 33, 1)}},
		}
		for _, c := range cases {
			cfg := backend.KVConfig{Layers: c.layers, Seqs: c.seqs, MaxLen: c.maxLen, KVHeads: c.kvHeads, HeadDim: c.hd}
			gc, err := h.g.NewKVCache(cfg)
			if err != nil {
				t.Fatal(err)
			}
			cc, err := h.c.NewKVCache(cfg)
			if err != nil {
				t.Fatal(err)
			}
			scale := float32(1 / math.Sqrt(float64(c.hd)))
			for si, st := range c.steps {
				n := len(st.pos)
				for layer := 0; layer < c.layers; layer++ {
					q := h.act(h.uniform(n*c.heads*c.hd, -2, 2), n, c.heads*c.hd)
					k := h.act(h.uniform(n*c.kvHeads*c.hd, -2, 2), n, c.kvHeads*c.hd)
					v := h.act(h.uniform(n*c.kvHeads*c.hd, -2, 2), n, c.kvHeads*c.hd)
					sq, ps := h.ints(st.seq), h.ints(st.pos)
					d := h.out(h.dt, n, c.heads*c.hd)
					h.g.Attention(d.g, q.g, k.g, v.g, gc, layer, sq.g, ps.g, scale)
					h.c.Attention(d.c, q.c, k.c, v.c, cc, layer, sq.c, ps.c, scale)
					got, ref := h.results(d)
					compare(t, fmt.Sprintf("Attention %s step %d (n=%d) layer %d", c.name, si, n, layer), got, ref, 2e-2)
				}
			}
			gc.Release()
			cc.Release()
		}
	})
}

// TestBackendRecord checks that a recorded graph replays with new inputs exactly as the plain ops compute.
func TestBackendRecord(t *testing.T) {
	forActs(t, func(t *testing.T, h *harness) {
		const vocab, d, out = 1000, 256, 300
		table := h.upload(h.uniform(vocab*d, -1, 1), vocab, d)
		defer h.g.Free(table.g)
		wh := hostBF16("w", h.uniform(out*d, -0.1, 0.1), out, d)
		lin, err := h.g.LoadLinear(backend.LinearSpec{Name: "w", Out: out, In: d, Dense: &wh})
		if err != nil {
			t.Fatal(err)
		}
		ids := h.ints([]int32{1, 2})
		x := h.out(h.dt, 2, d)
		y := h.out(backend.F32, 2, out)
		ops := func() {
			h.g.Embed(x.g, table.g, ids.g)
			h.g.Add(x.g, x.g, x.g)
			h.g.MatMul(y.g, x.g, lin)
		}
		read := func() []float32 {
			v := make([]float32, 2*out)
			if err := h.g.ReadFloat32(y.g, v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		before := h.g.Stats()
		for i, in := range [][]int32{{5, 6}, {7, 999}, {0, 5}} {
			if err := h.g.WriteInt32(ids.g, in); err != nil {
				t.Fatal(err)
			}
			if err := h.g.Record("test-key", ops); err != nil {
				t.Fatal(err)
			}
			replay := read()
			if err := h.g.WriteInt32(ids.g, in); err != nil {
				t.Fatal(err)
			}
			ops()
			plain := read()
			if !slices.Equal(replay, plain) {
				t.Errorf("MISMATCH step %d: replay differs from the plain ops", i)
			}
		}
		after := h.g.Stats()
		if after.GraphLaunches-before.GraphLaunches != 3 || after.LastGraph != 3 {
			t.Errorf("MISMATCH graph launches %d, nodes %d; want 3 and 3", after.GraphLaunches-before.GraphLaunches, after.LastGraph)
		}
		h.g.Forget("test-key")
		if err := h.g.Sync(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBackendFusion checks the peephole fusions against the CPU running the same ops one by one, and that they
// fused (launch counts).
func TestBackendFusion(t *testing.T) {
	forActs(t, func(t *testing.T, h *harness) {
		launches := func() int64 { h.g.Sync(); return h.g.Stats().Launches }

		// Add then RMSNorm of the sum.
		for _, c := range []struct{ rows, cols int }{{1, 5120}, {3, 1024}, {2, 256}, {2, 100}, {512, 5120}} {
			x, p := h.act(h.uniform(c.rows*c.cols, -2, 2), c.rows, c.cols), h.act(h.uniform(c.rows*c.cols, -2, 2), c.rows, c.cols)
			w := h.upload(h.uniform(c.cols, 0.5, 1.5), c.cols)
			xn := h.out(h.dt, c.rows, c.cols)
			before := launches()
			h.g.Add(x.g, x.g, p.g)
			h.g.RMSNorm(xn.g, x.g, w.g, 1e-6)
			if n := launches() - before; n != 1 {
				t.Errorf("MISMATCH Add+RMSNorm %dx%d: %d launches, want 1 (fused)", c.rows, c.cols, n)
			}
			h.c.Add(x.c, x.c, p.c)
			h.c.RMSNorm(xn.c, x.c, w.c, 1e-6)
			got, ref := h.results(x)
			compare(t, fmt.Sprintf("AddNorm sum %dx%d", c.rows, c.cols), got, ref, bf16Tol)
			got, ref = h.results(xn)
			compare(t, fmt.Sprintf("AddNorm norm %dx%d", c.rows, c.cols), got, ref, 3*bf16Tol)
			h.g.Free(w.g)
		}

		// Qwen3's q/k head norms and ropes: norm q, norm k, rope q, rope k.
		for _, c := range []struct{ n, heads, kvHeads, hd int }{{1, 40, 8, 128}, {8, 16, 8, 128}, {300, 4, 2, 64}, {2, 8, 2, 32}} {
			tab, err := rope.New(c.hd, 1e6, false, nil, 40960)
			if err != nil {
				t.Fatal(err)
			}
			q := h.act(h.uniform(c.n*c.heads*c.hd, -2, 2), c.n, c.heads*c.hd)
			k := h.act(h.uniform(c.n*c.kvHeads*c.hd, -2, 2), c.n, c.kvHeads*c.hd)
			qw, kw := h.upload(h.uniform(c.hd, 0.5, 1.5), c.hd), h.upload(h.uniform(c.hd, 0.5, 1.5), c.hd)
			pos := make([]int32, c.n)
			for i := range pos {
				pos[i] = int32(100 + 3*i)
			}
			pp := h.ints(pos)
			before := launches()
			h.g.RMSNorm(q.g, q.g, qw.g, 1e-6)
			h.g.RMSNorm(k.g, k.g, kw.g, 1e-6)
			h.g.Rope(q.g, pp.g, c.heads, tab)
			h.g.Rope(k.g, pp.g, c.kvHeads, tab)
			if n := launches() - before; n != 2 {
				t.Errorf("MISMATCH norm+rope n=%d: %d launches, want 2 (fused)", c.n, n)
			}
			h.c.RMSNorm(q.c, q.c, qw.c, 1e-6)
			h.c.RMSNorm(k.c, k.c, kw.c, 1e-6)
			h.c.Rope(q.c, pp.c, c.heads, tab)
			h.c.Rope(k.c, pp.c, c.kvHeads, tab)
			for _, x := range []pair{q, k} {
				got, ref := h.results(x)
				compare(t, fmt.Sprintf("NormRope n=%d heads=%d hd=%d", c.n, x.g.Shape()[1]/c.hd, c.hd), got, ref, 3*bf16Tol)
			}
		}

		// q, k, v projections of the same activations: one GEMV launch.
		for _, n := range []int{1, 4} {
			const in = 1024
			outs := []int{2048, 1024, 1024}
			x := h.act(h.uniform(n*in, -1, 1), n, in)
			var ys []pair
			var lgs, lcs []backend.Linear
			for i, out := range outs {
				wh := hostBF16("w", h.uniform(out*in, -0.05, 0.05), out, in)
				spec := backend.LinearSpec{Name: fmt.Sprint("proj", i), Out: out, In: in, Dense: &wh}
				if i == 2 {
					bh := backend.HostF32("bias", h.uniform(out, -1, 1), out)
					spec.Bias = &bh
				}
				lg, err := h.g.LoadLinear(spec)
				if err != nil {
					t.Fatal(err)
				}
				lc, err := h.c.LoadLinear(spec)
				if err != nil {
					t.Fatal(err)
				}
				ys = append(ys, h.out(h.dt, n, out))
				lgs, lcs = append(lgs, lg), append(lcs, lc)
			}
			before := launches()
			for i, y := range ys {
				h.g.MatMul(y.g, x.g, lgs[i])
				h.c.MatMul(y.c, x.c, lcs[i])
			}
			if got := launches() - before; got != 1 {
				t.Errorf("MISMATCH three MatMuls n=%d: %d launches, want 1 (grouped)", n, got)
			}
			for i, y := range ys {
				got, ref := h.results(y)
				compare(t, fmt.Sprintf("GroupedMatMul n=%d segment %d", n, i), got, ref, 2*bf16Tol)
			}
		}
	})
}
