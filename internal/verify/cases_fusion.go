// Cases of the fused ops (internal/backend/fused.go) and of graph recording: the fused ops are issued as model code
// issues them (through backend.AddRMSNorm and the other helpers) and compared with the reference running their
// plain sequences. Each states what a backend that fuses and records as internal/cuda does launches for it
// (Case.Launches), which that backend's test holds it to:
//
//   - AddRMSNorm(x, y, x, p, w): one add_rmsnorm launch;
//   - NormRope of q and of k: two rmsnorm_rope launches;
//   - NormRopeQK of q and k: one rmsnorm_rope_qk launch (with internal/cuda's tuning key norm_rope_qk on);
//   - NormRopeAttention of a decode step: two launches, the split form norming q and k itself and its combine
//     (tuning key norm_rope_attn on);
//   - MatMulGroup of three decode MatMuls of the same activations (q, k, v): one multi-segment GEMV launch;
//   - a prompt GEMM on f32 activations reading the bf16 copy written by the launch producing its input (RMSNorm,
//     Add + RMSNorm, SwiGLU, prompt Attention), and three prompt GEMMs sharing that copy: no conversion launch;
//   - Record of Embed, Add, MatMul replayed with new ids: one graph launch, no single launches.
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// tolFusedBF16 bounds a fused bf16 launch that rounds twice (the sum, then the norm).
const tolFusedBF16 = 1.2e-2

// fusionCases sweeps the fusable sequences in activation dtype act.
func fusionCases(act backend.DType) []Case {
	var cs []Case
	for _, s := range []struct {
		tag        string
		rows, cols int
	}{{"qwen3-14b", 1, 5120}, {"qwen3-0.6b", 3, 1024}, {"fixture", 2, 256}, {"odd", 2, 100}, {"qwen3-14b", 512, 5120}} {
		for _, norm := range []bool{false, true} {
			cs = append(cs, addNormCase(s.tag, s.rows, s.cols, norm, act))
		}
	}
	for _, s := range []struct {
		tag                   string
		n, heads, kvHeads, hd int
	}{{"qwen3-14b", 1, 40, 8, 128}, {"qwen3-1.7b", 8, 16, 8, 128}, {"fixture", 300, 4, 2, 64}, {"tiny-llama3", 2, 8, 2, 32}} {
		for _, k := range []bool{false, true} {
			cs = append(cs, normRopeCase(s.tag, s.n, s.heads, s.kvHeads, s.hd, k, act))
		}
	}
	for _, s := range []struct {
		tag                         string
		n, heads, kvHeads, hd, dims int
	}{{"qwen3-14b", 1, 40, 8, 128, 128}, {"qwen3-14b", 8, 40, 8, 128, 128}, {"fixture tiny-qwen3", 1, 4, 2, 64, 64},
		{"fixture tiny-qwen3", 8, 4, 2, 64, 64}, {"fixture tiny-qwen3_5 partial rotary", 8, 4, 2, 64, 16},
		{"odd q and k heads in one block", 3, 6, 3, 64, 64}, {"fixture prompt", 300, 4, 2, 64, 64}} {
		for _, k := range []bool{false, true} {
			cs = append(cs, normRopeQKCase(s.tag, s.n, s.heads, s.kvHeads, s.hd, s.dims, k, act))
		}
	}
	for _, s := range normRopeAttnConfigs {
		cs = append(cs, normRopeAttnCase(s, act))
	}
	for _, n := range []int{1, 4} {
		for seg := range 3 {
			cs = append(cs, groupedCase(n, seg, act))
		}
	}
	for _, first := range []string{"RMSNorm", "Add+RMSNorm", "SwiGLU"} {
		cs = append(cs, shadowCase(first, act))
	}
	cs = append(cs, attnShadowCase(act))
	for seg := range 3 {
		cs = append(cs, sharedInputCase(seg, act))
	}
	return cs
}

func addNormCase(tag string, rows, cols int, norm bool, act backend.DType) Case {
	c := Case{Op: "Fused/Add+RMSNorm/sum", Shape: fmt.Sprintf("%s %d × %d%s", tag, rows, cols, actName(act)), Act: act,
		Promise: "the Add's sum, rounded once", Tol: pick(act, tolEltF32, tolEltBF16), Launches: &Launches{Kernels: 1}}
	if norm {
		c.Op, c.Promise, c.Tol = "Fused/Add+RMSNorm/norm", "the norm of the rounded sum", pick(act, tolRowF32, tolFusedBF16)
	}
	c.run = func(h *harness) float64 {
		x, p := h.act(h.randn(rows*cols, 2), rows, cols), h.act(h.randn(rows*cols, 2), rows, cols)
		w := h.upload(h.randn(cols, 0.3), cols)
		y := h.out(backend.Invalid, rows, cols)
		for _, b := range h.sides() {
			backend.AddRMSNorm(b.Backend, b.of(x), b.of(y), b.of(x), b.of(p), b.of(w), 1e-6)
		}
		if norm {
			return h.compare(y)
		}
		return h.compare(x)
	}
	return c
}

// side is one backend of a case, with its half of the case's tensors and linears: sequences are written once
// and run on both.
type side struct {
	backend.Backend
	ref bool
}

func (s side) of(p pair) backend.Tensor {
	if s.ref {
		return p.ref
	}
	return p.dut
}

func (s side) lin(l linearPair) backend.Linear {
	if s.ref {
		return l.ref
	}
	return l.dut
}

// sides are the reference, then the device under test.
func (h *harness) sides() [2]side { return [2]side{{h.ref, true}, {h.dut, false}} }

// normRopeCase is Qwen3's q/k head norms and ropes (NormRope of q, then of k), comparing q or k.
func normRopeCase(tag string, n, heads, kvHeads, hd int, k bool, act backend.DType) Case {
	which := "q"
	if k {
		which = "k"
	}
	shape := fmt.Sprintf("%s %d rows, %d/%d heads × %d, %s%s", tag, n, heads, kvHeads, hd, which, actName(act))
	return Case{Op: "Fused/RMSNorm+Rope", Shape: shape,
		Act: act, Promise: "the head norm rounded, then rotated as rope.Table.Apply", Tol: pick(act, tolRowF32, tolFusedBF16),
		Launches: &Launches{Kernels: 2},
		run: func(h *harness) float64 {
			tab, err := rope.New(hd, 1e6, false, nil, 40960)
			h.check(err)
			q := h.act(h.randn(n*heads*hd, 2), n, heads*hd)
			kk := h.act(h.randn(n*kvHeads*hd, 2), n, kvHeads*hd)
			qw, kw := h.upload(h.randn(hd, 0.3), hd), h.upload(h.randn(hd, 0.3), hd)
			pos := make([]int32, n)
			for i := range pos {
				pos[i] = int32(100 + 3*i)
			}
			pp := h.ints(pos)
			for _, b := range h.sides() {
				backend.NormRope(b.Backend, b.of(q), b.of(pp), b.of(qw), heads, 1e-6, tab)
				backend.NormRope(b.Backend, b.of(kk), b.of(pp), b.of(kw), kvHeads, 1e-6, tab)
			}
			if k {
				return h.compare(kk)
			}
			return h.compare(q)
		}}
}

// normRopeQKCase is Qwen3's q/k head norms and ropes as one op (NormRopeQK; rotating the first dims of each head),
// comparing q or k.
func normRopeQKCase(tag string, n, heads, kvHeads, hd, dims int, k bool, act backend.DType) Case {
	which := "q"
	if k {
		which = "k"
	}
	shape := fmt.Sprintf("%s %d rows, %d/%d heads × %d, rope %d, %s%s", tag, n, heads, kvHeads, hd, dims, which, actName(act))
	return Case{Op: "Fused/NormRopeQK", Shape: shape,
		Act: act, Promise: "each head norm rounded, then rotated as rope.Table.Apply: the two NormRopes", Tol: pick(act, tolRowF32, tolFusedBF16),
		Launches: &Launches{Kernels: 1, Tuned: "norm_rope_qk"},
		run: func(h *harness) float64 {
			tab, err := rope.New(dims, 1e6, false, nil, 40960)
			h.check(err)
			q := h.act(h.randn(n*heads*hd, 2), n, heads*hd)
			kk := h.act(h.randn(n*kvHeads*hd, 2), n, kvHeads*hd)
			qw, kw := h.upload(h.randn(hd, 0.3), hd), h.upload(h.randn(hd, 0.3), hd)
			pos := make([]int32, n)
			for i := range pos {
				pos[i] = int32(100 + 3*i)
			}
			pp := h.ints(pos)
			for _, b := range h.sides() {
				backend.NormRopeQK(b.Backend, b.of(q), b.of(kk), b.of(pp), b.of(qw), b.of(kw), heads, kvHeads, 1e-6, tab)
			}
			if k {
				return h.compare(kk)
			}
			return h.compare(q)
		}}
}

// normRopeAttnConfig is a run of decode steps through NormRopeAttention from an empty cache.
type normRopeAttnConfig struct {
	tag                      string
	heads, kvHeads, hd, dims int
	seqs                     int
	steps                    []attnStep
}

// normRopeAttnConfigs: Qwen3-14B's heads, the fixture's, a partial rotary (Qwen3.5's full attention at 256, 64
// rotated) and an odd head dim; each with 8 rows of one sequence (rows reading the keys other rows of the step
// store), single rows after them (reading what the earlier steps stored), and rows of several sequences.
var normRopeAttnConfigs = []normRopeAttnConfig{
	{"qwen3-14b", 40, 8, 128, 128, 1, []attnStep{run(0, 0, 8), run(0, 8, 8), run(0, 16, 1), run(0, 17, 1), run(0, 18, 3)}},
	{"fixture tiny-qwen3 batched", 4, 2, 64, 64, 3, []attnStep{run(0, 0, 8), run(1, 0, 5), run(2, 0, 7),
		{seq: []int32{0, 1, 2}, pos: []int32{8, 5, 7}}, {seq: []int32{1, 1, 0, 0}, pos: []int32{6, 7, 9, 10}}}},
	{"qwen3.5-27b full attention partial rotary", 24, 4, 256, 64, 1, []attnStep{run(0, 0, 8), run(0, 8, 1), run(0, 9, 2)}},
	{"odd hd 80", 4, 2, 80, 80, 1, []attnStep{run(0, 0, 7), run(0, 7, 1)}},
}

// normRopeAttnCase runs c's steps with fresh q, k, v (as the projections give them: not normalized) through
// NormRopeAttention on both backends, each on its own cache, and compares every step's output (the later steps
// read the normalized keys the earlier ones stored).
func normRopeAttnCase(c normRopeAttnConfig, act backend.DType) Case {
	shape := fmt.Sprintf("%s %d/%d heads × %d, rope %d, %d decode steps%s", c.tag, c.heads, c.kvHeads, c.hd, c.dims, len(c.steps), actName(act))
	// A fusing backend folds the norms into the split form where it folds the store (f32 activations: two launches
	// a step); bf16 steps run NormRopeQK, kv_store, the split form and its combine.
	tol, promise, per := tolAttn, "the norms and ropes of NormRopeQK, then attention over the normalized keys", 4
	if act == backend.F32 {
		tol, per = tolAttnDecodeF32, 2
	}
	return Case{Op: "Fused/NormRopeAttention", Shape: shape, Act: act, Tol: tol, Promise: promise,
		Launches: &Launches{Kernels: int64(per * len(c.steps)), Tuned: "norm_rope_attn"},
		run: func(h *harness) float64 {
			maxLen := 0
			for _, s := range c.steps {
				for _, p := range s.pos {
					maxLen = max(maxLen, int(p)+1)
				}
			}
			cfg := backend.KVConfig{Layers: 1, Seqs: c.seqs, MaxLen: maxLen, KVHeads: c.kvHeads, HeadDim: c.hd}
			caches := h.caches(cfg)
			tab, err := rope.New(c.dims, 1e6, false, nil, 4096)
			h.check(err)
			qw, kw := h.upload(h.randn(c.hd, 0.3), c.hd), h.upload(h.randn(c.hd, 0.3), c.hd)
			scale := float32(1 / math.Sqrt(float64(c.hd)))
			worst := 0.0
			for _, s := range c.steps {
				rows, width := len(s.pos), c.kvHeads*c.hd
				q := h.act(h.randn(rows*c.heads*c.hd, 2), rows, c.heads*c.hd)
				k, v := h.act(h.randn(rows*width, 2), rows, width), h.act(h.randn(rows*width, 1), rows, width)
				sp, pp := h.ints(s.seq), h.ints(s.pos)
				out := h.out(backend.Invalid, rows, c.heads*c.hd)
				for i, b := range h.sides() {
					backend.NormRopeAttention(b.Backend, b.of(out), b.of(q), b.of(k), b.of(v), caches[i], 0, b.of(sp), b.of(pp),
						b.of(qw), b.of(kw), c.heads, c.kvHeads, 1e-6, tab, scale)
				}
				worst = max(worst, h.compare(out))
			}
			return worst
		}}
}

// groupedCase is three decode MatMuls of the same activations (q 1024→2048, k and v 1024→1024, v with a bias),
// comparing segment seg.
func groupedCase(n, seg int, act backend.DType) Case {
	outs := []int{2048, 1024, 1024}
	return Case{Op: "Fused/MatMul×3", Shape: fmt.Sprintf("qwen3-0.6b q, k, v 1024→%v, n=%d, segment %d%s", outs, n, seg, actName(act)),
		Act: act, Promise: "each MatMul as alone", Tol: pick(act, tolMatF32, tolMatBF16Out), Launches: &Launches{Kernels: 1},
		run: func(h *harness) float64 {
			const in = 1024
			x := h.act(h.randn(n*in, 1), n, in)
			var ys []pair
			var ls []linearPair
			for i, out := range outs {
				ls = append(ls, h.linear(in, out, i == 2, backend.BF16))
				ys = append(ys, h.out(backend.Invalid, n, out))
			}
			for _, b := range h.sides() {
				b.group(ys, x, ls)
			}
			return h.compare(ys[seg])
		}}
}

// group issues MatMulGroup of the linears ls on x into ys, on this side.
func (s side) group(ys []pair, x pair, ls []linearPair) {
	var yt []backend.Tensor
	var ws []backend.Linear
	for i := range ls {
		yt, ws = append(yt, s.of(ys[i])), append(ws, s.lin(ls[i]))
	}
	backend.MatMulGroup(s.Backend, yt, s.of(x), ws)
}

// promptRows is the prompt length of the shadow cases: with 1024 × 1024 weights their GEMMs exceed the size up to
// which internal/cuda splits f32 inputs into two bf16 GEMMs (n·in·out ≤ 2^28) instead of rounding them once.
const promptRows = 300

// shadowCase is first (RMSNorm, Add then RMSNorm, or SwiGLU) producing the input of a 300-row prompt MatMul
// 1024→1024 with f32 output.
func shadowCase(first string, act backend.DType) Case {
	shape := fmt.Sprintf("qwen3-0.6b %d rows, 1024→1024, out f32%s", promptRows, actName(act))
	return Case{Op: "Fused/" + first + "→MatMul", Shape: shape,
		Act: act, Promise: "the prompt GEMM of the first op's output (its bf16 copy written by that launch)", Tol: tolMatRounded,
		Launches: &Launches{Kernels: 2},
		run: func(h *harness) float64 {
			const n, d = promptRows, 1024
			a, p := h.act(h.randn(n*d, 1), n, d), h.act(h.randn(n*d, 1), n, d)
			w := h.upload(h.randn(d, 0.3), d)
			mid := h.out(backend.Invalid, n, d)
			y := h.out(backend.F32, n, d)
			l := h.linear(d, d, false, backend.BF16)
			for _, b := range h.sides() {
				switch first {
				case "RMSNorm":
					b.RMSNorm(b.of(mid), b.of(a), b.of(w), 1e-6)
				case "Add+RMSNorm":
					backend.AddRMSNorm(b.Backend, b.of(a), b.of(mid), b.of(a), b.of(p), b.of(w), 1e-6)
				case "SwiGLU":
					b.SwiGLU(b.of(mid), b.of(a), b.of(p))
				}
				b.MatMul(b.of(y), b.of(mid), b.lin(l))
			}
			return h.compare(y)
		}}
}

// attnShadowCase is a 512-row prompt's Attention (16/4 heads × 64, the prompt form) feeding the o projection
// 1024→1024 with f32 output.
func attnShadowCase(act backend.DType) Case {
	shape := "qwen3-0.6b 512 rows from position 0, 16/4 heads × 64, o 1024→1024" + actName(act)
	return Case{Op: "Fused/Attention→MatMul", Shape: shape,
		Act: act, Promise: "the prompt GEMM of the attention output", Tol: tolAttn, Launches: &Launches{Kernels: 3},
		run: func(h *harness) float64 {
			const n, heads, kvHeads, hd = 512, 16, 4, 64
			cfg := backend.KVConfig{Layers: 1, Seqs: 1, MaxLen: n, KVHeads: kvHeads, HeadDim: hd}
			c := h.caches(cfg)
			q := h.act(h.randn(n*heads*hd, 1), n, heads*hd)
			k := h.act(h.randn(n*kvHeads*hd, 1), n, kvHeads*hd)
			v := h.act(h.randn(n*kvHeads*hd, 1), n, kvHeads*hd)
			st := run(0, 0, n)
			sp, pp := h.ints(st.seq), h.ints(st.pos)
			o := h.out(backend.Invalid, n, heads*hd)
			y := h.out(backend.F32, n, heads*hd)
			l := h.linear(heads*hd, heads*hd, false, backend.BF16)
			scale := float32(1 / math.Sqrt(hd))
			for i, b := range h.sides() {
				b.Attention(b.of(o), b.of(q), b.of(k), b.of(v), c[i], 0, b.of(sp), b.of(pp), scale)
				b.MatMul(b.of(y), b.of(o), b.lin(l))
			}
			return h.compare(y)
		}}
}

// sharedInputCase is a row RMSNorm of a prompt feeding q, k and v GEMMs (1024→2048, 1024, 1024 + bias), all f32
// outputs, comparing segment seg: the three share one bf16 copy of the norm.
func sharedInputCase(seg int, act backend.DType) Case {
	outs := []int{2048, 1024, 1024}
	shape := fmt.Sprintf("qwen3-0.6b %d rows, q, k, v 1024→%v, out f32, segment %d%s", promptRows, outs, seg, actName(act))
	return Case{Op: "Fused/RMSNorm→MatMul×3", Shape: shape,
		Act: act, Promise: "each prompt GEMM as alone", Tol: tolMatRounded, Launches: &Launches{Kernels: 5},
		run: func(h *harness) float64 {
			const n, d = promptRows, 1024
			x := h.act(h.randn(n*d, 1), n, d)
			w := h.upload(h.randn(d, 0.3), d)
			xn := h.out(backend.Invalid, n, d)
			var ys []pair
			var ls []linearPair
			for i, out := range outs {
				ls = append(ls, h.linear(d, out, i == 2, backend.BF16))
				ys = append(ys, h.out(backend.F32, n, out))
			}
			for _, b := range h.sides() {
				b.RMSNorm(b.of(xn), b.of(x), b.of(w), 1e-6)
				for i := range outs {
					b.MatMul(b.of(ys[i]), b.of(xn), b.lin(ls[i]))
				}
			}
			return h.compare(ys[seg])
		}}
}

// recordCases records Embed, Add, MatMul under a key and replays them with new token ids, comparing step step
// (0: the recording run) with the reference (replay) or bit for bit with the same ops run plainly afterwards
// (replay=plain). A device without a Recorder runs the ops each time.
func recordCases(act backend.DType) []Case {
	var cs []Case
	for step := range 3 {
		for _, plain := range []bool{false, true} {
			c := Case{Op: "Record/replay", Shape: fmt.Sprintf("fixture Embed, Add, MatMul 256→300, 2 rows, step %d of 3%s", step+1, actName(act)),
				Act: act, Promise: "the ops as the reference computes them", Tol: tolMatF32,
				Launches: &Launches{Graphs: int64(step + 1), Nodes: 3}}
			if plain {
				c.Op, c.Promise, c.Tol = "Record/replay=plain", "bit-identical to the same ops run plainly (count of differing values)", 0
				c.Launches.Kernels = 3
			}
			c.run = func(h *harness) float64 { return recordRun(h, step, plain) }
			cs = append(cs, c)
		}
	}
	return cs
}

func recordRun(h *harness, step int, plain bool) float64 {
	const vocab, d, out = 1000, 256, 300
	x := h.out(backend.Invalid, 2, d)
	y := h.out(backend.F32, 2, out)
	table := h.upload(h.randn(vocab*d, 1), vocab, d)
	l := h.linear(d, out, false, backend.BF16)
	ids := h.ints([]int32{1, 2})
	ops := func(b side) func() {
		return func() {
			b.Embed(b.of(x), b.of(table), b.of(ids))
			b.Add(b.of(x), b.of(x), b.of(x))
			b.MatMul(b.of(y), b.of(x), b.lin(l))
		}
	}
	sides := h.sides()
	refOps, dutOps := ops(sides[0]), ops(sides[1])
	key := new(byte) // unique per run
	rec, recorder := h.dut.(backend.Recorder)
	if recorder {
		defer rec.Forget(key)
	}
	inputs := [][]int32{{5, 6}, {7, 999}, {0, 5}}
	for i := 0; i <= step; i++ {
		h.writeInts(ids, inputs[i])
		refOps()
		if recorder {
			h.check(wrap(h.dut.Name(), rec.Record(key, dutOps)))
		} else {
			dutOps()
		}
	}
	if !plain {
		return h.compare(y)
	}
	_, replay := h.read(y)
	h.writeInts(ids, inputs[step])
	dutOps()
	_, direct := h.read(y)
	bad := 0
	for i := range replay {
		if math.Float32bits(replay[i]) != math.Float32bits(direct[i]) {
			bad++
		}
	}
	return float64(bad)
}
