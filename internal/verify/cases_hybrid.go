// Cases of what the hybrid models add (backend/hybrid.go): the gated DeltaNet ops (CausalConv and GatedDeltaRule
// over a recurrent state carried from call to call: prompts, decode steps, batches of sequences, interleaved
// rows, a restart at position 0, runs of ≥ 64 rows that the CPU (and CUDA's gated_delta_chunk) compute in the
// chunked form; RMSNormGated),
// the sigmoid gate (elementwise and one gate per row), and the MoE ops (Route with ties and the renormalisation
// on and off; Experts over bf16 and trellis experts), at the fixtures' shapes (tiny-qwen3_5,
// tiny-qwen3-next-moe) and at Qwen3.5-27B's DeltaNet and Qwen3-Next-80B's and Qwen3-30B-A3B's expert shapes.
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// Hybrid tolerances: the conv, the sigmoid gate and the router are the CPU's f32 steps (bit-exact on f32
// activations); the delta rule is the CPU's recurrent form step for step, except where the CPU takes its
// chunked form (runs of ≥ 64 rows: within 2e-6 of the recurrent form, cpu.TestDeltaRuleChunkedEqualsRecurrent),
// as CUDA's chunked kernel does (its transcription within 2e-6 of both, cuda.TestDeltaChunkEmulated); a bf16
// output is rounded once more.
const (
	tolHybridExact = 1e-6
	tolDeltaF32    = 1e-5
	tolDeltaBF16   = 1e-2
	// tolExpertsPrompt: two chained prompt projections (gate/up, then down over their SwiGLU), each of which may
	// round its f32 input (and trellis weights) to bf16 for cuBLASLt: twice tolMatRounded.
	tolExpertsPrompt = 1e-2
)

// deltaConfig is one DeltaNet layer's geometry (the state holds two layers; layer 1 is the one run) and the
// calls that advance it.
type deltaConfig struct {
	tag   string
	cfg   backend.RecurrentConfig
	steps []attnStep
	heavy bool
}

// deltaCfg is a two-layer state of seqs sequences with the given key/value heads and dims and a conv of 4.
func deltaCfg(seqs, kh, vh, dk, dv int) backend.RecurrentConfig {
	return backend.RecurrentConfig{Layers: 2, Seqs: seqs, ConvDim: 2*kh*dk + vh*dv, ConvKernel: 4,
		KeyHeads: kh, ValueHeads: vh, KeyDim: dk, ValueDim: dv}
}

var deltaConfigs = []deltaConfig{
	// tiny-qwen3_5 / tiny-qwen3-next-moe: 2 key heads, 4 value heads, dims 32
	{"tiny-qwen3_5 prompt+decode", deltaCfg(1, 2, 4, 32, 32), []attnStep{run(0, 0, 13), run(0, 13, 1), run(0, 14, 3)}, false},
	{"tiny-qwen3_5 batched", deltaCfg(3, 2, 4, 32, 32), []attnStep{run(0, 0, 5), run(1, 0, 70),
		{seq: []int32{0, 1, 2}, pos: []int32{5, 70, 0}}, {seq: []int32{0, 1, 0, 1}, pos: []int32{6, 71, 7, 72}},
		run(0, 0, 4), {seq: []int32{2, 0}, pos: []int32{1, 4}}}, false},
	// Qwen3.5-27B's linear attention: 16 key heads, 48 value heads, dims 128 (conv channels 10240)
	{"qwen3.5-27b", deltaCfg(2, 16, 48, 128, 128), []attnStep{run(0, 0, 9), {seq: []int32{0, 1}, pos: []int32{9, 0}},
		{seq: []int32{1, 0}, pos: []int32{1, 10}}}, false},
	{"qwen3.5-27b prompt", deltaCfg(1, 16, 48, 128, 128), []attnStep{run(0, 0, 130), run(0, 130, 1)}, true},
	// odd: key dim 48 (a padded register column), value dim 160 (five column blocks), 3 value heads per key head
	{"odd dims", deltaCfg(2, 1, 3, 48, 160), []attnStep{run(1, 0, 6), {seq: []int32{1, 0}, pos: []int32{6, 0}}}, false},
	// the delta rule's parallel pre-pass (norms and gates of every row at once) over prompts: key dim 256 (two dims
	// a pre-pass thread, the widest register bound), a value dim of 72 (a short last column block), then decode;
	// and Qwen3.5-27B's geometry over a 512-row prompt (the CPU's chunked form as the reference)
	{"pre-pass dk 256 prompt", deltaCfg(1, 1, 2, 256, 72), []attnStep{run(0, 0, 80), run(0, 80, 1), run(0, 81, 8)}, false},
	{"qwen3.5-27b long prompt", deltaCfg(1, 16, 48, 128, 128), []attnStep{run(0, 0, 512), run(0, 512, 1)}, true},
	// the chunked form (CUDA: gated_delta_chunk, one-sequence runs of ≥ 64 rows, 16 rows a chunk) on a state other
	// calls advanced: key dim 48 (a padded bound of 64), value dim 160 (five column blocks), 3 value heads per key
	// head; a run of 100 (not a multiple of the chunk) after 3 rows, a decode batch beside another sequence, a
	// run of exactly 64, then a restart at position 0 over the advanced state (80 rows)
	{"chunked odd dims", deltaCfg(2, 1, 3, 48, 160), []attnStep{run(1, 0, 3), run(1, 3, 100),
		{seq: []int32{1, 0}, pos: []int32{103, 0}}, run(1, 104, 64), run(1, 0, 80), run(1, 80, 1)}, false},
}

// hybridCases are the hybrid cases in activation dtype act (Route and Experts in f32 only: the router's logits
// are f32 and quantized experts take the backend's f32 activations).
func hybridCases(act backend.DType) []Case {
	var cs []Case
	for _, c := range deltaConfigs {
		for si := range c.steps {
			n := len(c.steps[si].pos)
			shape := fmt.Sprintf("%s %d/%d heads × %d/%d, step %d of %d (%d rows)%s", c.tag, c.cfg.KeyHeads, c.cfg.ValueHeads,
				c.cfg.KeyDim, c.cfg.ValueDim, si+1, len(c.steps), n, actName(act))
			cs = append(cs, Case{Op: "DeltaNet/CausalConv", Act: act, Heavy: c.heavy, Tol: pick(act, tolHybridExact, tolEltBF16),
				Promise: "the CPU's f32 steps (silu's exp in f64), conv tail per sequence; one rounding to the activation dtype",
				Shape:   shape, run: func(h *harness) float64 { return h.deltaSteps(c, si, deltaConv) }})
			cs = append(cs, Case{Op: "DeltaNet/GatedDeltaRule", Act: act, Heavy: c.heavy, Tol: pick(act, tolDeltaF32, tolDeltaBF16),
				Promise: "the recurrent form in f32 per row, in order (the CPU's chunked form for runs ≥ 64 rows within f32 rounding)",
				Shape:   shape, run: func(h *harness) float64 { return h.deltaSteps(c, si, deltaRule) }})
			cs = append(cs, Case{Op: "Fused/GatedDeltaRule+RMSNormGated", Act: act, Heavy: c.heavy, Tol: pick(act, tolDeltaF32, tolDeltaBF16),
				Promise:  "GatedDeltaRule's, then each value head's gated norm (Σx² in f64) of the output as stored",
				Launches: &Launches{Kernels: deltaNormLaunches(c, si)}, Shape: shape, run: func(h *harness) float64 { return h.deltaSteps(c, si, deltaRuleNorm) }})
		}
	}
	for _, s := range []struct {
		tag           string
		rows, heads   int
		group         int
		inPlace, wide bool
	}{{"tiny-qwen3_5", 7, 4, 32, true, false}, {"tiny-qwen3_5", 7, 4, 32, false, false}, {"qwen3.5-27b", 3, 48, 128, true, false}} {
		ip := ""
		if s.inPlace {
			ip = ", in place"
		}
		cs = append(cs, Case{Op: "DeltaNet/RMSNormGated", Act: act, Tol: pick(act, 1e-6, tolEltBF16),
			Promise: "Σx² in f64, the CPU's f32 steps after it; one rounding to the activation dtype",
			Shape:   fmt.Sprintf("%s %d × %d heads × %d%s%s", s.tag, s.rows, s.heads, s.group, ip, actName(act)),
			run: func(h *harness) float64 {
				n := s.rows * s.heads * s.group
				x, z := h.act(h.randn(n, 2), s.rows, s.heads*s.group), h.act(h.randn(n, 2), s.rows, s.heads*s.group)
				w := h.upload(h.randn(s.group, 1), s.group)
				out := x
				if !s.inPlace {
					out = h.out(backend.Invalid, s.rows, s.heads*s.group)
				}
				for _, b := range []struct {
					be         backend.Backend
					o, x, z, w backend.Tensor
				}{{h.ref, out.ref, x.ref, z.ref, w.ref}, {h.dut, out.dut, x.dut, z.dut, w.dut}} {
					la, ok := b.be.(backend.LinearAttention)
					h.checkOp(ok, b.be, "RMSNormGated")
					la.RMSNormGated(b.o, b.x, b.z, b.w, 1e-6)
				}
				return h.compare(out)
			}})
	}
	for _, s := range []struct {
		tag     string
		rows, c int
		perRow  bool
	}{{"tiny-qwen3_5 attention gate", 5, 256, false}, {"tiny-qwen3-next-moe shared expert gate", 5, 256, true},
		{"qwen3.5-27b attention gate", 2, 6144, false}, {"odd per row", 9, 37, true}} {
		cs = append(cs, Case{Op: "SigmoidMul", Act: act, Tol: pick(act, tolHybridExact, tolEltBF16),
			Promise: "x·1/(1+exp(−g)), exp in f64 rounded to f32 (the CPU's steps); one rounding to the activation dtype",
			Shape:   fmt.Sprintf("%s %d × %d%s", s.tag, s.rows, s.c, actName(act)),
			run: func(h *harness) float64 {
				x := h.act(h.randn(s.rows*s.c, 2), s.rows, s.c)
				gc := s.c
				if s.perRow {
					gc = 1
				}
				g := h.act(h.randn(s.rows*gc, 3), s.rows, gc)
				for _, b := range []struct {
					be   backend.Backend
					x, g backend.Tensor
				}{{h.ref, x.ref, g.ref}, {h.dut, x.dut, g.dut}} {
					sg, ok := b.be.(backend.SigmoidGate)
					h.checkOp(ok, b.be, "SigmoidMul")
					sg.SigmoidMul(b.x, b.x, b.g) // in place, as the models call it
				}
				return h.compare(x)
			}})
	}
	if act != backend.F32 {
		return cs
	}
	for _, s := range []struct {
		tag        string
		rows, e, k int
		norm       bool
	}{{"tiny-qwen3-next-moe", 9, 4, 2, true}, {"tiny-qwen3-next-moe", 9, 4, 2, false}, {"qwen3-next-80b", 5, 512, 10, true},
		{"odd", 3, 300, 7, false}} {
		cs = append(cs, Case{Op: "MoE/Route", Act: backend.F32, Tol: tolHybridExact,
			Promise: "the CPU's softmax (exp in f64, Σ in index order), top-k with the lower id among equals: ids equal, weights bit-exact",
			Shape:   fmt.Sprintf("%s %d rows × %d experts, top %d, norm %v (with ties)", s.tag, s.rows, s.e, s.k, s.norm),
			run:     func(h *harness) float64 { return h.route(s.rows, s.e, s.k, s.norm) }})
	}
	for _, s := range []struct {
		tag                 string
		hidden, inter, e, k int
		rows                []int
		heavy               bool
	}{{"tiny-qwen3-next-moe", 256, 128, 4, 2, []int{1, 3, 40}, false}, {"qwen3-next-80b (16 of 512 experts)", 2048, 512, 16, 10, []int{1, 4}, true},
		{"odd widths", 100, 36, 5, 3, []int{2}, false}} {
		for _, n := range s.rows {
			for _, quant := range []bool{false, true} {
				if quant && s.hidden%64 != 0 { // trellis blocks must tile the coded axis
					continue
				}
				op, tol, promise := "MoE/Experts/bf16", tolMatF32, "decode: the routed experts' bf16 GEMVs (f32 sums), prompt: every expert through the Linear kernels; weighted sum in increasing expert order"
				if quant {
					op, promise = "MoE/Experts/trellis", "each expert through the trellis Linear kernels (3-bit, f32 activations), weighted sum in increasing expert order"
				}
				if n > backend.MaxDecodeRows {
					tol = tolExpertsPrompt
				}
				cs = append(cs, Case{Op: op, Act: backend.F32, Tol: tol, Promise: promise, Heavy: s.heavy,
					Shape: fmt.Sprintf("%s %d experts %d→%d→%d, top %d, n=%d", s.tag, s.e, s.hidden, s.inter, s.hidden, s.k, n),
					run:   func(h *harness) float64 { return h.experts(s.hidden, s.inter, s.e, s.k, n, quantCode(quant), false) }})
			}
		}
	}
	// The routed trellis form (CUDA: moe_trellis1 over a device table of the experts' codes, decode batches) at
	// Qwen3-30B-A3B's shape (128 experts, top 8, 2048→768→2048) and scaled down, every expert coded along axis 1
	// as the quantizer codes stacked experts, 2/3/4-bit, the default (Factored) and exact (Reciprocal) decode.
	// Bound: each of the three chained projections keeps the MatMul/trellis decode promise (f32 weights, f32
	// sums in another order: within tolQuantF32 = 1e-5 of its max), SwiGLU and the weighted combine of k ≤ 8
	// slots (weights ≤ 1) are f32 steps of the CPU's; tolMatF32 (1e-4), the bf16 routed form's bound, leaves 10×
	// for the chain's growth.
	for _, s := range []struct {
		tag                       string
		hidden, inter, e, k, bits int
		exact, heavy              bool
		rows                      []int
	}{{"qwen3-30b-a3b", 2048, 768, 128, 8, 3, false, true, []int{1, 8}},
		{"qwen3-30b-a3b exact", 2048, 768, 128, 8, 3, true, true, []int{1}},
		{"scaled 64 experts", 1024, 768, 64, 8, 3, false, false, []int{2, 8}},
		{"scaled 16 experts", 512, 256, 16, 8, 2, false, false, []int{1, 3}},
		{"scaled 16 experts", 512, 256, 16, 8, 4, false, false, []int{1, 8}},
		{"scaled 16 experts exact", 256, 512, 16, 8, 4, true, false, []int{5}}} {
		for _, n := range s.rows {
			promise := "decode: the routed experts' trellis GEMVs (f32 weights, f32 sums; default Factored); weighted sum in increasing expert order"
			if s.exact {
				promise = "decode: the routed experts' trellis GEMVs (the CPU's per-weight Reciprocal, f32 sums); weighted sum in increasing expert order"
			}
			cs = append(cs, Case{Op: "MoE/Experts/trellis/routed", Act: backend.F32, Tol: tolMatF32, Promise: promise, Heavy: s.heavy,
				Shape: fmt.Sprintf("%s %d-bit, %d experts %d→%d→%d, top %d, n=%d", s.tag, s.bits, s.e, s.hidden, s.inter, s.hidden, s.k, n),
				run: func(h *harness) float64 {
					return h.experts(s.hidden, s.inter, s.e, s.k, n, quantLayer{k: s.bits}, s.exact)
				}})
		}
	}
	// The routed form over MLX affine experts (CUDA: moe_affine, the same kernel skeleton with the affine row
	// codec; groups of 64): every weight affine.DecodeRow's, f32 sums — the bound as above.
	for _, s := range []struct {
		tag                       string
		hidden, inter, e, k, bits int
		rows                      []int
	}{{"qwen3-30b-a3b", 2048, 768, 128, 8, 4, []int{1}}, {"scaled 16 experts", 512, 256, 16, 8, 4, []int{1, 8}},
		{"scaled 16 experts", 512, 192, 16, 4, 3, []int{2}}, {"scaled 16 experts", 256, 128, 16, 8, 8, []int{1}}} {
		for _, n := range s.rows {
			cs = append(cs, Case{Op: "MoE/Experts/affine/routed", Act: backend.F32, Tol: tolMatF32, Heavy: s.e > 64,
				Promise: "decode: the routed experts' affine GEMVs (affine.DecodeRow's weights, f32 sums); weighted sum in increasing expert order",
				Shape:   fmt.Sprintf("%s %d-bit g64, %d experts %d→%d→%d, top %d, n=%d", s.tag, s.bits, s.e, s.hidden, s.inter, s.hidden, s.k, n),
				run: func(h *harness) float64 {
					return h.experts(s.hidden, s.inter, s.e, s.k, n, quantLayer{bits: s.bits}, false)
				}})
		}
	}
	return cs
}

// quantCode is the weight code of the Experts cases: 3-bit trellis when quantized, bf16 (the zero layer) otherwise.
func quantCode(quant bool) quantLayer {
	if quant {
		return quantLayer{k: 3}
	}
	return quantLayer{}
}

// deltaNormLaunches is what internal/cuda launches for c's DeltaRuleNormGated calls up to step si: one
// gated_delta_norm a call where its recurrent form serves the geometry (key dim ≤ 128, a value head of ≤ 128
// columns) and the call is not a chunked prompt run (one sequence at consecutive positions, ≥ 64 rows); else the
// pre-pass, the delta rule and the norm.
func deltaNormLaunches(c deltaConfig, si int) int64 {
	var k int64
	for _, s := range c.steps[:si+1] {
		one := len(s.seq) > 0
		for r := range s.seq {
			one = one && s.seq[r] == s.seq[0] && s.pos[r] == s.pos[0]+int32(r)
		}
		switch {
		case c.cfg.KeyDim > 128 || c.cfg.ValueDim > 128 || (one && len(s.seq) >= 64):
			k += 3
		default:
			k++
		}
	}
	return k
}

// The op a deltaSteps case runs.
const (
	deltaConv     = iota // CausalConv
	deltaRule            // GatedDeltaRule
	deltaRuleNorm        // backend.DeltaRuleNormGated: GatedDeltaRule, then RMSNormGated over each value head
)

// deltaSteps runs c's calls up to step si on fresh states of both backends (the op named by mode) and compares
// the last call's output.
func (h *harness) deltaSteps(c deltaConfig, si int, mode int) float64 {
	cfg := c.cfg
	var las [2]backend.LinearAttention
	var sts [2]backend.RecurrentState
	for i, be := range []backend.Backend{h.ref, h.dut} {
		la, ok := be.(backend.LinearAttention)
		h.checkOp(ok, be, "LinearAttention")
		st, err := la.NewRecurrentState(cfg)
		h.check(wrap(be.Name(), err))
		defer st.Release()
		las[i], sts[i] = la, st
	}
	C, vh, vw := cfg.ConvDim, cfg.ValueHeads, cfg.ValueHeads*cfg.ValueDim
	w := h.upload(h.randn(C*cfg.ConvKernel, 0.5), C, cfg.ConvKernel)
	aLog, dtBias := h.upload(h.randn(vh, 0.5), vh), h.upload(h.randn(vh, 0.5), vh)
	normW := h.upload(h.randn(cfg.ValueDim, 1), cfg.ValueDim)
	var m float64
	for _, s := range c.steps[:si+1] {
		n := len(s.pos)
		sp, pp := h.ints(s.seq), h.ints(s.pos)
		x := h.act(h.randn(n*C, 1), n, C)
		if mode == deltaConv {
			for i, b := range []struct{ x, w, sq, ps backend.Tensor }{{x.ref, w.ref, sp.ref, pp.ref}, {x.dut, w.dut, sp.dut, pp.dut}} {
				las[i].CausalConv(b.x, b.x, b.w, sts[i], 1, b.sq, b.ps) // in place, as the model calls it
			}
			m = h.compare(x)
			continue
		}
		a, bt := h.act(h.randn(n*vh, 1.5), n, vh), h.act(h.randn(n*vh, 1.5), n, vh)
		z := h.act(h.randn(n*vw, 2), n, vw)
		out := h.out(backend.Invalid, n, vw)
		for i, b := range []struct{ o, x, a, b, al, db, sq, ps, z, nw backend.Tensor }{
			{out.ref, x.ref, a.ref, bt.ref, aLog.ref, dtBias.ref, sp.ref, pp.ref, z.ref, normW.ref},
			{out.dut, x.dut, a.dut, bt.dut, aLog.dut, dtBias.dut, sp.dut, pp.dut, z.dut, normW.dut}} {
			if mode == deltaRuleNorm {
				backend.DeltaRuleNormGated(las[i], b.o, b.x, b.z, b.a, b.b, b.al, b.db, b.nw, 1e-6, sts[i], 1, b.sq, b.ps)
				continue
			}
			las[i].GatedDeltaRule(b.o, b.x, b.a, b.b, b.al, b.db, sts[i], 1, b.sq, b.ps)
		}
		m = h.compare(out)
	}
	return m
}

// route runs Route over random logits with ties (in every other row two experts share the largest logit and
// two others the third largest) and compares: +Inf when any id differs, else the weights' metric.
func (h *harness) route(rows, e, k int, norm bool) float64 {
	v := h.randn(rows*e, 2)
	for r := 0; r < rows; r += 2 {
		row := v[r*e : (r+1)*e]
		row[e-1], row[1] = 9, 9 // a tie for first: the lower id (1) first
		if e > 3 {
			row[2], row[0] = 5, 5
		}
	}
	logits := h.place(v, []int{rows, e}, backend.F32, backend.F32)
	ids := h.ints2(make([]int32, rows*k), rows, k)
	wts := h.out(backend.F32, rows, k)
	for _, b := range []struct {
		be      backend.Backend
		i, w, l backend.Tensor
	}{{h.ref, ids.ref, wts.ref, logits.ref}, {h.dut, ids.dut, wts.dut, logits.dut}} {
		mo, ok := b.be.(backend.MoE)
		h.checkOp(ok, b.be, "Route")
		mo.Route(b.i, b.w, b.l, k, norm)
	}
	ri, di := make([]int32, rows*k), make([]int32, rows*k)
	for _, side := range []struct {
		be  backend.Backend
		t   backend.Tensor
		dst []int32
	}{{h.ref, ids.ref, ri}, {h.dut, ids.dut, di}} {
		rd, ok := side.be.(int32Reader)
		h.checkOp(ok, side.be, "ReadInt32")
		h.check(wrap(side.be.Name(), rd.ReadInt32(side.t, side.dst)))
	}
	for i := range ri {
		if ri[i] != di[i] {
			h.check(fmt.Errorf("row %d choice %d: expert %d, the reference's %d", i/k, i%k, di[i], ri[i]))
		}
	}
	return h.compare(wts)
}

// ints2 places int32 values of shape [rows, cols] on both backends.
func (h *harness) ints2(v []int32, rows, cols int) pair {
	var p pair
	for _, side := range []struct {
		b   backend.Backend
		dst *backend.Tensor
	}{{h.ref, &p.ref}, {h.dut, &p.dut}} {
		t, err := side.b.Alloc(backend.I32, rows, cols)
		h.check(wrap(side.b.Name(), err))
		*side.dst = t
		h.check(wrap(side.b.Name(), side.b.WriteInt32(t, v)))
	}
	h.all = append(h.all, p)
	return p
}

// int32Reader reads an int32 tensor back (the CPU and CUDA backends; backend.Argmaxer names the method).
type int32Reader interface {
	ReadInt32(t backend.Tensor, dst []int32) error
}

// experts runs Experts over e SwiGLU experts — bf16 weights for a zero code, else trellis codes of code.k bits or
// affine weights of code.bits (loaded in exact mode when exact) — with random distinct routed ids and weights
// per row.
func (h *harness) experts(hidden, inter, e, k, n int, code quantLayer, exact bool) float64 {
	var gate, up, down [2][]backend.Linear
	for x := 0; x < e; x++ {
		for _, l := range []struct {
			in, out int
			dst     *[2][]backend.Linear
		}{{hidden, inter, &gate}, {hidden, inter, &up}, {inter, hidden, &down}} {
			var lp linearPair
			if code.k > 0 || code.bits > 0 {
				// trellis coded along the input, as the quantizer codes projections; along the output where the input
				// is no multiple of the 256-weight block (the fixture's down projection, 128 wide)
				q := quantLayer{in: l.in, out: l.out, k: code.k, axis: 1, bits: code.bits}
				if code.k > 0 && l.in%256 != 0 {
					q.axis = 0
				}
				lp = h.quantLinear(q, exact, false, false)
			} else {
				lp = h.denseLinear(l.in, l.out)
			}
			l.dst[0], l.dst[1] = append(l.dst[0], lp.ref), append(l.dst[1], lp.dut)
		}
	}
	ids := make([]int32, n*k)
	for r := range n {
		perm := h.rng.Perm(e)
		for j := range k {
			ids[r*k+j] = int32(perm[j])
		}
	}
	wv := make([]float32, n*k)
	for i := range wv {
		wv[i] = float32(h.rng.Float64())
	}
	x := h.act(h.randn(n*hidden, 1), n, hidden)
	ip, wp := h.ints2(ids, n, k), h.place(wv, []int{n, k}, backend.F32, backend.F32)
	out := h.out(backend.F32, n, hidden)
	for i, be := range []backend.Backend{h.ref, h.dut} {
		mo, ok := be.(backend.MoE)
		h.checkOp(ok, be, "Experts")
		o, xx, ii, ww := out.ref, x.ref, ip.ref, wp.ref
		if i == 1 {
			o, xx, ii, ww = out.dut, x.dut, ip.dut, wp.dut
		}
		mo.Experts(o, xx, ii, ww, gate[i], up[i], down[i])
	}
	return h.compare(out)
}

// denseLinear loads a fresh bf16 linear [out, in] (std 1/√in) on both backends: each expert its own weights
// (h.linear shares one per shape).
func (h *harness) denseLinear(in, out int) linearPair {
	spec := backend.LinearSpec{Name: fmt.Sprintf("verify.expert.%dx%d", out, in), Out: out, In: in}
	wh := hostBF16(spec.Name+".weight", h.randn(out*in, 1/math.Sqrt(float64(in))), out, in)
	spec.Dense = &wh
	return h.loadPair(spec)
}
