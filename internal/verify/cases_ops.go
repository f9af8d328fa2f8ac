// Cases of the row and elementwise ops: Add, SwiGLU, Embed, RMSNorm (warp form for head groups, row form for
// rows), Rope (every rotation kind, partial rotary, prescale) and Argmax, at fixture, Qwen3 and odd shapes, in
// place and on unaligned row views.
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/sample"
)

// Tolerances of the sweeps for f32 activations (f32 math in another order: the sum of squares, expf) and bf16
// ones (docs/kernels.md per kernel).
const (
	tolEltF32  = 1e-6
	tolEltBF16 = 4e-3
	tolRowF32  = 1e-5
	tolRowBF16 = 8e-3
)

// opCases sweeps the elementwise and row ops in activation dtype act.
func opCases(act backend.DType) []Case {
	var cs []Case
	for _, s := range []struct {
		tag string
		n   int
	}{{"odd", 1}, {"odd", 7}, {"fixture", 256}, {"odd", 1001},
		{"qwen3-14b 3 × 5120 =", 3 * 5120}, {"qwen3-14b 8 × 17408 =", 8 * 17408}} {
		for _, op := range []string{"Add", "SwiGLU", "Add/in-place"} {
			cs = append(cs, eltSweep(op, s.tag, s.n, act))
		}
	}
	cs = append(cs, addViewsCase(act))
	for _, e := range []struct {
		tag         string
		vocab, d, n int
	}{{"fixture", 2048, 256, 9}, {"pycoder-12m", 384, 512, 3}, {"qwen3-14b", 4096, 5120, 8}, {"odd", 100, 37, 4}} {
		cs = append(cs, embedSweep(e.tag, e.vocab, e.d, e.n, act))
	}
	for _, r := range []struct {
		tag           string
		rows, cols, g int
	}{{"fixture", 9, 256, 256}, {"qwen3-14b", 8, 5120, 5120}, {"qwen3-14b", 512, 5120, 5120}, {"qwen3-14b heads", 8, 40 * 128, 128},
		{"pycoder-12m heads", 3, 8 * 64, 64}, {"odd", 4, 100, 100}, {"odd", 2, 2048, 1024}} {
		for _, inPlace := range []bool{false, true} {
			cs = append(cs, rmsSweep(r.tag, r.rows, r.cols, r.g, inPlace, act))
		}
	}
	for _, r := range ropeConfigs {
		cs = append(cs, ropeSweep(r, act))
	}
	return cs
}

func eltSweep(op, tag string, n int, act backend.DType) Case {
	return Case{Op: op, Shape: fmt.Sprintf("%s %d%s", tag, n, actName(act)), Act: act,
		Promise: "f32 math in the reference's order, one rounding to the activation dtype", Tol: pick(act, tolEltF32, tolEltBF16),
		run: func(h *harness) float64 {
			a, b := h.act(h.randn(n, 2), n), h.act(h.randn(n, 2), n)
			if op == "Add/in-place" { // dst aliases the first operand
				binary(h, "Add", a, a, b)
				return h.compare(a)
			}
			out := h.out(backend.Invalid, n)
			binary(h, op, out, a, b)
			return h.compare(out)
		}}
}

// addViewsCase adds row views at odd offsets and widths (the scalar paths of the vector kernels).
func addViewsCase(act backend.DType) Case {
	return Case{Op: "Add/views", Shape: "odd rows 1..3 + rows 2..4 of 5 × 33" + actName(act), Act: act,
		Promise: "f32 math, one rounding, on unaligned views", Tol: pick(act, tolEltF32, tolEltBF16),
		run: func(h *harness) float64 {
			x, y := h.act(h.randn(5*33, 2), 5, 33), h.act(h.randn(5*33, 2), 5, 33)
			out := h.out(backend.Invalid, 3, 33)
			h.ref.Add(out.ref, h.ref.Rows(x.ref, 1, 3), h.ref.Rows(y.ref, 2, 3))
			h.dut.Add(out.dut, h.dut.Rows(x.dut, 1, 3), h.dut.Rows(y.dut, 2, 3))
			return h.compare(out)
		}}
}

func embedSweep(tag string, vocab, d, n int, act backend.DType) Case {
	return Case{Op: "Embed", Shape: fmt.Sprintf("%s vocab %d × %d, %d ids%s", tag, vocab, d, n, actName(act)), Act: act,
		Promise: "exact copy of bf16 table rows", Tol: 0,
		run: func(h *harness) float64 {
			tab := h.upload(h.randn(vocab*d, 1), vocab, d)
			ids := make([]int32, n)
			for i := range ids {
				ids[i] = int32(h.rng.IntN(vocab))
			}
			ids[0] = int32(vocab - 1)
			idp := h.ints(ids)
			out := h.out(backend.Invalid, n, d)
			h.ref.Embed(out.ref, tab.ref, idp.ref)
			h.dut.Embed(out.dut, tab.dut, idp.dut)
			return h.compare(out)
		}}
}

func rmsSweep(tag string, rows, cols, g int, inPlace bool, act backend.DType) Case {
	op := "RMSNorm/row"
	if g < cols {
		op = "RMSNorm/head"
	}
	if inPlace {
		op += "/in-place"
	}
	return Case{Op: op, Shape: fmt.Sprintf("%s %d × %d, groups of %d%s", tag, rows, cols, g, actName(act)), Act: act,
		Promise: "f32 sum of squares, one rounding to the activation dtype", Tol: pick(act, tolRowF32, tolRowBF16),
		run: func(h *harness) float64 {
			x := h.act(h.randn(rows*cols, 2), rows, cols)
			w := h.upload(h.randn(g, 0.3), g)
			out := x
			if !inPlace {
				out = h.out(backend.Invalid, rows, cols)
			}
			h.ref.RMSNorm(out.ref, x.ref, w.ref, 1e-6)
			h.dut.RMSNorm(out.dut, x.dut, w.dut, 1e-6)
			return h.compare(out)
		}}
}

// ropeConfig is one rotation: rows, heads, head dim, rotated dims, pair layout, prescale and scaling.
type ropeConfig struct {
	tag                string
	n, heads, hd, dims int
	trad               bool
	pre                float32
	scaling            map[string]any
}

var ropeConfigs = []ropeConfig{
	{"fixture", 9, 4, 64, 64, false, 1, nil},
	{"qwen3-14b", 8, 40, 128, 128, false, 1, nil},
	{"tiny-llama3 traditional", 5, 8, 32, 32, true, 1, nil},
	{"odd partial rotary", 3, 4, 64, 32, false, 1, nil},
	{"tiny-qwen2-yarn", 4, 2, 64, 64, false, 1, map[string]any{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32.0}},
	{"odd prescale 1.25", 6, 4, 64, 64, false, 1.25, nil},
}

// ropeSweep: without a prescale the device computes rope.Table.Apply's f32 result bit for bit and rounds it
// once; a prescaled bf16 input is rounded to bf16 before rotating (as mlx does, unlike the reference).
func ropeSweep(r ropeConfig, act backend.DType) Case {
	c := Case{Op: "Rope", Shape: fmt.Sprintf("%s %d rows × %d heads × %d, dims %d%s", r.tag, r.n, r.heads, r.hd, r.dims, actName(act)),
		Act: act, Promise: "bit-exact to rope.Table.Apply, one rounding", Tol: 0}
	exact := true
	if t, err := rope.New(r.dims, 1e6, r.trad, r.scaling, 4096); err == nil && (t.PreScale != 1 || r.pre != 1) {
		exact = false
		c.Promise, c.Tol = "rope.Table.Apply after the prescaled input is rounded to the activation dtype", pick(act, tolRowF32, tolRowBF16)
	}
	c.run = func(h *harness) float64 {
		tab, err := rope.New(r.dims, 1e6, r.trad, r.scaling, 4096)
		h.check(err)
		if r.pre != 1 {
			tab.PreScale = r.pre
		}
		x := h.act(h.randn(r.n*r.heads*r.hd, 1), r.n, r.heads*r.hd)
		pos := make([]int32, r.n)
		for i := range pos {
			pos[i] = int32(h.rng.IntN(40000))
		}
		pos[0] = 0
		pp := h.ints(pos)
		h.ref.Rope(x.ref, pp.ref, r.heads, tab)
		h.dut.Rope(x.dut, pp.dut, r.heads, tab)
		if exact {
			return h.compareRounded(x)
		}
		return h.compare(x)
	}
	return c
}

func ropeCase(d Dims, kind string) Case {
	scaling := map[string]map[string]any{
		"default": nil,
		"llama3":  {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192.0},
		"yarn":    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768.0},
	}[kind]
	return Case{Op: "Rope/" + kind, Shape: fmt.Sprintf("%s 6 rows × %d heads × %d", d.Name, d.Heads, d.HD),
		Promise: "angles p·inv_freq in f32 as rope.Table.Apply", Tol: tolBF16,
		run: func(h *harness) float64 {
			t, err := rope.New(d.HD, 1e6, false, scaling, 131072)
			h.check(err)
			x := h.act(h.randn(6*d.Heads*d.HD, 1), 6, d.Heads*d.HD)
			pos := h.ints([]int32{0, 1, 7, 300, 4095, 40000})
			h.ref.Rope(x.ref, pos.ref, d.Heads, t)
			h.dut.Rope(x.dut, pos.dut, d.Heads, t)
			return h.compare(x)
		}}
}

func argmaxCase(d Dims) Case {
	return Case{Op: "Argmax", Shape: fmt.Sprintf("%s 4 rows × %d", d.Name, d.Vocab),
		Promise: "bit-exact: normalized argmax, lowest id wins ties, NaN row picks 0", Tol: 0,
		run: func(h *harness) float64 {
			v := h.randn(4*d.Vocab, 3)
			v[d.Vocab+10], v[d.Vocab+20] = 50, 50 // a tie: id 10 wins
			v[2*d.Vocab+d.Vocab-1] = 60           // the last id
			v[3*d.Vocab+5] = float32(math.NaN())  // a NaN row
			return argmaxMismatches(h, v, 4, d.Vocab)
		}}
}

// argmaxSweep: a clear winner, a tie, a NaN row, an all −Inf row, and two logits an ulp apart at the top (the f32
// scores may tie after subtracting the normalizer) at Qwen3's vocabulary.
func argmaxSweep() Case {
	const vocab, rows = 151936, 5
	return Case{Op: "Argmax", Shape: "qwen3-14b 5 rows × 151936: tie, NaN, all −Inf, an ulp apart",
		Promise: "sample.GreedyNormalizedArgmax (F32) on every row", Tol: 0,
		run: func(h *harness) float64 {
			v := h.randn(rows*vocab, 5)
			r := v[0:vocab]
			r[123] = 30
			r = v[vocab : 2*vocab]
			r[77], r[5000] = 25, 25
			r = v[2*vocab : 3*vocab]
			r[9] = float32(math.NaN())
			r = v[3*vocab : 4*vocab]
			for i := range r {
				r[i] = float32(math.Inf(-1))
			}
			r = v[4*vocab : 5*vocab]
			r[vocab-1] = 12
			r[vocab-2] = math.Nextafter32(12, 0)
			return argmaxMismatches(h, v, rows, vocab)
		}}
}

// argmaxMismatches runs the device's Argmax over rows of v and counts the rows where it differs from
// sample.GreedyNormalizedArgmax with F32 rounding.
func argmaxMismatches(h *harness, v []float32, rows, vocab int) float64 {
	a, ok := h.dut.(backend.Argmaxer)
	if !ok {
		h.check(fmt.Errorf("%s has no device argmax: %w", h.dut.Name(), backend.ErrUnsupported))
	}
	logits, err := place(h.dut, backend.F32, v, []int{rows, vocab})
	h.check(err)
	h.all = append(h.all, pair{dut: logits})
	ids, err := h.dut.Alloc(backend.I32, rows)
	h.check(err)
	h.all = append(h.all, pair{dut: ids})
	a.Argmax(ids, logits)
	got := make([]int32, rows)
	h.check(a.ReadInt32(ids, got))
	bad := 0
	for i := range got {
		if int(got[i]) != sample.GreedyNormalizedArgmax(v[i*vocab:(i+1)*vocab], sample.F32) {
			bad++
		}
	}
	return float64(bad)
}
