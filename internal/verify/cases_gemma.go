// Cases of what the Gemma families add (docs/gemma.md): the pointwise ops Scale, Softcap (the final logit cap)
// and GeGLU, and AttentionWith over caches with per-layer geometry: sliding windows kept in a ring of Window
// slots (prompt chunks longer than the window, decode batches, interleaved sequences, deferred stores of
// KV-sharing layers), a window over a full cache, the attention-logit softcap with query_pre_attn_scalar's
// scale, GQA groups 2 to 8, head dims 64 to 512, windows past the kernels' 1024-position source tile.
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// gemmaCases are the Gemma cases in activation dtype act.
func gemmaCases(act backend.DType) []Case {
	var cs []Case
	for _, s := range []struct {
		tag string
		n   int
	}{{"odd", 7}, {"tiny-gemma 4 × 256 =", 4 * 256}, {"odd", 1001}, {"tiny-gemma logits 9 × 3000 =", 9 * 3000}} {
		for _, op := range []string{"Scale", "Softcap", "GeGLU"} {
			for _, inPlace := range []bool{false, true} {
				cs = append(cs, pointwiseSweep(op, s.tag, s.n, inPlace, act))
			}
		}
	}
	for _, c := range winConfigs {
		for si := range c.steps {
			n := len(c.steps[si].pos)
			tol, promise := tolAttn, "f32 scores (capped), softmax over the row's window; bf16 rounding of the output"
			// A prompt chunk of a layer without window or softcap takes Attention's forms, whose prompt forms round
			// q, K, V and P to bf16 (~1e-3 of max|out|, the attention cases' tolAttn); the f32 bound holds elsewhere.
			// (Seeds follow case indices: the 400-row hd-512 global prompt measured 1.08e-3 on the H200 once cases
			// were added before it, 2026-12-02.)
			plainPrompt := n > backend.MaxDecodeRows && c.window == 0 && c.softcap == 0
			if act == backend.F32 && !plainPrompt {
				tol, promise = tolAttnDecodeF32, "f32 scores, tanh cap in f64 rounded to f32, f32 softmax and accumulation over the row's window"
			} else if act == backend.F32 {
				promise = "a plain layer's prompt: Attention's forms, which may round operands to bf16"
			}
			st := c.steps[si]
			defer_ := ""
			if st.defer_ {
				defer_ = ", deferred store"
			}
			cs = append(cs, Case{Op: "AttentionWith", Act: act, Heavy: c.heavy, Tol: tol, Promise: promise,
				Shape: fmt.Sprintf("%s %d/%d heads × %d, window %d (%s), softcap %g, step %d of %d (%d rows at %d%s)%s", c.tag, c.heads,
					c.layer.KVHeads, c.layer.HeadDim, c.window, c.kind(), c.softcap, si+1, len(c.steps), n, st.pos[0], defer_, actName(act)),
				run: func(h *harness) float64 {
					// layer 1 is the one attended; layer 0 (a global layer) and 2 (no slots) exercise the per-layer layout
					cfg := backend.KVConfig{Layers: 3, Seqs: c.seqs, MaxLen: c.maxLen,
						PerLayer: []backend.KVLayer{{KVHeads: 1, HeadDim: 32}, c.layer, {}}}
					caches := h.caches(cfg)
					var m float64
					for _, s := range c.steps[:si+1] {
						m = h.attendWith(caches, c, s)
					}
					return m
				}})
		}
	}
	return cs
}

// pointwiseSweep: one of the pointwise ops over n values spread past the caps' knees (std 20 for Softcap, whose
// cap is 30; 3 for GeGLU's gelu), in place or not.
func pointwiseSweep(op, tag string, n int, inPlace bool, act backend.DType) Case {
	name := op
	if inPlace {
		name += "/in-place"
	}
	std := map[string]float64{"Scale": 2, "Softcap": 20, "GeGLU": 3}[op]
	return Case{Op: name, Shape: fmt.Sprintf("%s %d%s", tag, n, actName(act)), Act: act,
		Promise: "f32 arithmetic, tanh in f64 rounded to f32 (the CPU's steps), one rounding to the activation dtype",
		Tol:     pick(act, tolEltF32, tolEltBF16),
		run: func(h *harness) float64 {
			x, y := h.act(h.randn(n, std), n), h.act(h.randn(n, 2), n)
			out := x
			if !inPlace {
				out = h.out(backend.Invalid, n)
			}
			for _, b := range []struct {
				be       backend.Backend
				o, a, a2 backend.Tensor
			}{{h.ref, out.ref, x.ref, y.ref}, {h.dut, out.dut, x.dut, y.dut}} {
				switch op {
				case "Scale":
					s, ok := b.be.(backend.Scaler)
					h.checkOp(ok, b.be, op)
					s.Scale(b.o, b.a, 0.125)
				case "Softcap":
					s, ok := b.be.(backend.Softcapper)
					h.checkOp(ok, b.be, op)
					s.Softcap(b.o, b.a, 30)
				case "GeGLU":
					s, ok := b.be.(backend.GeGLUer)
					h.checkOp(ok, b.be, op)
					s.GeGLU(b.o, b.a, b.a2)
				}
			}
			return h.compare(out)
		}}
}

// checkOp ends the case as skipped when backend b lacks op (an interface it does not implement).
func (h *harness) checkOp(ok bool, b backend.Backend, op string) {
	if !ok {
		h.check(fmt.Errorf("%s has no %s: %w", b.Name(), op, errSkip))
	}
}

// winStep is one AttentionWith call; defer_ asks the call not to store its rows (a KV-sharing layer's reader).
type winStep struct {
	attnStep
	defer_ bool
}

func steps(ss ...attnStep) []winStep {
	out := make([]winStep, len(ss))
	for i, s := range ss {
		out[i] = winStep{attnStep: s}
	}
	return out
}

// winConfig is one attended layer's geometry and options and the calls that fill it.
type winConfig struct {
	tag          string
	heads        int
	layer        backend.KVLayer // the cache's geometry of the attended layer (Window > 0 and < maxLen: a ring)
	window       int             // AttentionWith's window
	softcap      float32
	scalar       float64 // query_pre_attn_scalar: scale = scalar^−½
	seqs, maxLen int
	steps        []winStep
	heavy        bool
}

func (c winConfig) kind() string {
	if c.layer.Slots(c.maxLen) < c.maxLen {
		return fmt.Sprintf("ring of %d", c.layer.Slots(c.maxLen))
	}
	return "full cache"
}

var winConfigs = []winConfig{
	{"tiny-gemma2 sliding", 4, backend.KVLayer{KVHeads: 2, HeadDim: 64, Window: 8}, 8, 50, 64, 1, 40,
		steps(run(0, 0, 13), run(0, 13, 1), run(0, 14, 1), run(0, 15, 3), run(0, 18, 12)), false},
	{"tiny-gemma2 global", 4, backend.KVLayer{KVHeads: 2, HeadDim: 64}, 0, 50, 64, 1, 40,
		steps(run(0, 0, 13), run(0, 13, 1), run(0, 14, 2)), false},
	{"gemma3 sliding batched", 8, backend.KVLayer{KVHeads: 4, HeadDim: 256, Window: 16}, 16, 0, 256, 3, 64,
		steps(run(0, 0, 20), run(1, 0, 5), run(2, 0, 30), attnStep{seq: []int32{0, 1, 2}, pos: []int32{20, 5, 30}},
			attnStep{seq: []int32{2, 0}, pos: []int32{31, 21}}), false},
	{"odd interleaved seqs", 4, backend.KVLayer{KVHeads: 2, HeadDim: 80, Window: 4}, 4, 20, 80, 2, 32,
		steps(attnStep{seq: []int32{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, pos: []int32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}},
			attnStep{seq: []int32{1, 0, 1, 0}, pos: []int32{6, 6, 7, 7}}), false},
	{"odd window over a full cache", 16, backend.KVLayer{KVHeads: 2, HeadDim: 128}, 8, 0, 128, 1, 40,
		steps(run(0, 0, 21), run(0, 21, 1), run(0, 22, 9)), false},
	{"tiny-gemma4 kv-shared sliding", 4, backend.KVLayer{KVHeads: 1, HeadDim: 128, Window: 8}, 8, 0, 1, 1, 48,
		[]winStep{{run(0, 0, 13), true}, {run(0, 0, 13), false}, {run(0, 13, 1), true}, {run(0, 13, 1), false},
			{run(0, 14, 1), false}}, false},
	{"gemma2-9b sliding past a tile", 16, backend.KVLayer{KVHeads: 8, HeadDim: 256, Window: 1500}, 1500, 50, 256, 1, 4096,
		steps(run(0, 0, 1300), run(0, 1300, 1), run(0, 1301, 700), run(0, 2001, 8)), true},
	// Wide heads, windowed and not: prompts past the window (a ring) and decode steps of 1 and 8 rows; a global
	// layer without window or softcap takes Attention's forms (the prompt form past tuning.attnRowsMax's work).
	{"wide hd 256 sliding", 8, backend.KVLayer{KVHeads: 4, HeadDim: 256, Window: 16}, 16, 0, 256, 1, 64,
		steps(run(0, 0, 40), run(0, 40, 1), run(0, 41, 8)), false},
	{"wide hd 512 sliding", 4, backend.KVLayer{KVHeads: 2, HeadDim: 512, Window: 16}, 16, 0, 512, 1, 64,
		steps(run(0, 0, 40), run(0, 40, 1), run(0, 41, 8)), false},
	{"wide hd 512 softcapped", 4, backend.KVLayer{KVHeads: 2, HeadDim: 512}, 0, 50, 512, 1, 64,
		steps(run(0, 0, 30), run(0, 30, 1), run(0, 31, 8)), false},
	{"wide hd 512 global", 8, backend.KVLayer{KVHeads: 2, HeadDim: 512}, 0, 0, 512, 1, 420,
		steps(run(0, 0, 400), run(0, 400, 1), run(0, 401, 8)), false},
	{"gemma4-31b sliding", 32, backend.KVLayer{KVHeads: 16, HeadDim: 256, Window: 1024}, 1024, 0, 256, 1, 2048,
		steps(run(0, 0, 1100), run(0, 1100, 1), run(0, 1101, 8)), true},
}

// attendWith runs one AttentionWith step with fresh q, k, v on both backends and compares the outputs.
func (h *harness) attendWith(caches [2]backend.KVCache, c winConfig, s winStep) float64 {
	rows, hd, kv := len(s.pos), c.layer.HeadDim, c.layer.KVHeads
	q := h.act(h.randn(rows*c.heads*hd, 1), rows, c.heads*hd)
	k := h.act(h.randn(rows*kv*hd, 1), rows, kv*hd)
	v := h.act(h.randn(rows*kv*hd, 1), rows, kv*hd)
	sp, pp := h.ints(s.seq), h.ints(s.pos)
	out := h.out(backend.Invalid, rows, c.heads*hd)
	o := backend.AttnOptions{Scale: float32(1 / math.Sqrt(c.scalar)), Softcap: c.softcap, Window: c.window, DeferStore: s.defer_}
	for i, b := range []struct {
		be                 backend.Backend
		d, q, k, v, sq, ps backend.Tensor
	}{{h.ref, out.ref, q.ref, k.ref, v.ref, sp.ref, pp.ref}, {h.dut, out.dut, q.dut, k.dut, v.dut, sp.dut, pp.dut}} {
		w, ok := b.be.(backend.WindowedAttention)
		h.checkOp(ok, b.be, "AttentionWith")
		w.AttentionWith(b.d, b.q, b.k, b.v, caches[i], 1, b.sq, b.ps, o)
	}
	return h.compare(out)
}
