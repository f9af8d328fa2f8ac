// Attention cases: a cache filled step by step and the output of one step compared, for decode batches (the
// split form, several decode steps in a row), prompt chunks of one sequence at consecutive positions (the prompt form), interleaved sequences
// and head dims only the general form serves (the rows form), GQA groups from 1 to 16, at fixture, Qwen3-14B and
// odd shapes, and wide heads (256: Qwen3.5's full attention, 512: Gemma 4's global layers).
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// Attention tolerances: f32 scores, an online softmax and f32 accumulation; the prompt form of a device may
// round q, K, V and the softmax weights to bf16 (the flash-attention convention), so prompt chunks and bf16
// activations get the looser bound.
const (
	tolAttnDecodeF32 = 1e-3
	tolAttn          = 2e-2
)

// attnStep is one Attention call: row r attends at position pos[r] of sequence seq[r].
type attnStep struct{ seq, pos []int32 }

// run returns the step of n rows of sequence seq at consecutive positions from from.
func run(seq int32, from, n int) attnStep {
	var s attnStep
	for i := 0; i < n; i++ {
		s.seq, s.pos = append(s.seq, seq), append(s.pos, int32(from+i))
	}
	return s
}

type attnConfig struct {
	tag                  string
	heads, kvHeads, hd   int
	seqs, maxLen, layers int
	steps                []attnStep
	heavy                bool
}

var attnConfigs = []attnConfig{
	{"fixture qwen3", 4, 2, 64, 1, 80, 2, []attnStep{run(0, 0, 70), run(0, 70, 1), run(0, 71, 1)}, false},
	{"tiny-llama3 hd 32", 8, 2, 32, 1, 40, 1, []attnStep{run(0, 0, 9), run(0, 9, 1)}, false},
	{"qwen3-14b", 40, 8, 128, 1, 700, 1, []attnStep{run(0, 0, 512), run(0, 512, 1), run(0, 513, 8), run(0, 521, 150)}, true},
	{"batched decode", 16, 8, 128, 3, 300, 2, []attnStep{run(0, 0, 37), run(1, 0, 5), run(2, 0, 260),
		{seq: []int32{0, 1, 2}, pos: []int32{37, 5, 260}}, {seq: []int32{2, 0}, pos: []int32{261, 38}}}, false},
	// Decode steps in a row (CUDA's attn_store folds kv_store into the split form: a step reads what the folded
	// store of an earlier one wrote, and rows of one launch read the positions other rows store): single rows, 8
	// rows of one sequence, then rows after them; rows of three sequences, two rows per sequence interleaved.
	{"qwen3-14b decode steps", 40, 8, 128, 1, 200, 1, []attnStep{run(0, 0, 40), run(0, 40, 1), run(0, 41, 1), run(0, 42, 1),
		run(0, 43, 8), run(0, 51, 1), run(0, 52, 3)}, false},
	{"fixture batched decode steps", 4, 2, 64, 3, 96, 2, []attnStep{run(0, 0, 20), run(1, 0, 9), run(2, 0, 33),
		{seq: []int32{0, 1, 2}, pos: []int32{20, 9, 33}}, {seq: []int32{2, 0, 1}, pos: []int32{34, 21, 10}},
		{seq: []int32{1, 1, 0, 0}, pos: []int32{11, 12, 22, 23}}, {seq: []int32{0, 1, 2}, pos: []int32{24, 13, 35}},
		run(1, 14, 1)}, false},
	{"fixture interleaved seqs", 4, 2, 64, 2, 64, 1, []attnStep{{seq: []int32{0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
		pos: []int32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}}}, false},
	{"odd hd 80", 4, 2, 80, 1, 40, 1, []attnStep{run(0, 0, 20), run(0, 20, 1)}, false},
	{"odd GQA group 16", 32, 2, 64, 1, 64, 1, []attnStep{run(0, 0, 33), run(0, 33, 1)}, false},
	// Wide heads: a prompt of 380 rows from 0 has more work than tuning.attnRowsMax, so it takes the prompt form
	// (on CUDA the wide one at 256 and 512), then decode steps of 1 and 3 rows (the split form).
	{"wide hd 256", 4, 2, 256, 1, 400, 1, []attnStep{run(0, 0, 380), run(0, 380, 1), run(0, 381, 3)}, false},
	{"wide hd 512", 4, 2, 512, 1, 400, 1, []attnStep{run(0, 0, 380), run(0, 380, 1), run(0, 381, 3)}, false},
	{"qwen3.5-27b full attention", 24, 4, 256, 1, 1100, 1, []attnStep{run(0, 0, 600), run(0, 600, 1), run(0, 601, 8), run(0, 609, 400)}, true},
	{"gemma4-31b global", 32, 4, 512, 1, 1100, 1, []attnStep{run(0, 0, 600), run(0, 600, 1), run(0, 601, 8), run(0, 609, 400)}, true},
	// Follow-ups of a cached prompt: chunks of few rows deep in a context (on CUDA the chunk form past
	// tuning.attnChunkMin's work: one block per position slice and kv head for every row and query head), then a
	// decode step over what the chunk stored; 40 rows of a 16-head group fill five blocks of eight warps per slice.
	{"cached follow-up qwen3-14b", 40, 8, 128, 1, 1200, 1, []attnStep{run(0, 0, 1100), run(0, 1100, 16), run(0, 1116, 1)}, true},
	{"cached follow-up GQA 16", 32, 2, 64, 1, 200, 1, []attnStep{run(0, 0, 100), run(0, 100, 40), run(0, 140, 1)}, false},
	{"cached follow-up hd 96", 12, 4, 96, 1, 200, 1, []attnStep{run(0, 0, 150), run(0, 150, 9)}, false},
	// and at the wide head dims (CUDA: attn_chunk_wide_hd*): groups of 4 and 3 (160 and 69 query rows of a kv head:
	// three and two blocks of 64, a row's heads split across blocks), then Qwen3.5-27B's and Gemma 4's global shapes
	// (a 16-row follow-up after 1,100 positions)
	{"cached follow-up wide hd 256", 8, 2, 256, 1, 200, 1, []attnStep{run(0, 0, 100), run(0, 100, 40), run(0, 140, 1)}, false},
	{"cached follow-up wide hd 512", 3, 1, 512, 1, 300, 1, []attnStep{run(0, 0, 200), run(0, 200, 23), run(0, 223, 1)}, false},
	{"cached follow-up qwen3.5-27b", 24, 4, 256, 1, 1200, 1, []attnStep{run(0, 0, 1100), run(0, 1100, 16), run(0, 1116, 1)}, true},
	{"cached follow-up gemma4-31b global", 32, 4, 512, 1, 1200, 1, []attnStep{run(0, 0, 1100), run(0, 1100, 16), run(0, 1116, 1)}, true},
}

// attentionCases has one case per (config, step, layer): the case runs the config's steps up to its own on its
// layer, each with fresh q, k, v, and compares the last output.
func attentionCases(act backend.DType) []Case {
	var cs []Case
	for _, c := range attnConfigs {
		for si, st := range c.steps {
			for layer := 0; layer < c.layers; layer++ {
				n := len(st.pos)
				tol, promise := tolAttn, "softmax in f32 over the row's own sequence; prompt forms may round operands to bf16"
				if act == backend.F32 && n <= backend.MaxDecodeRows {
					tol, promise = tolAttnDecodeF32, "f32 scores, softmax and accumulation over the row's own sequence"
				}
				cs = append(cs, Case{Op: "Attention", Act: act, Heavy: c.heavy, Tol: tol, Promise: promise,
					Shape: fmt.Sprintf("%s %d/%d heads × %d, step %d of %d (%d rows at %d), layer %d%s", c.tag, c.heads, c.kvHeads,
						c.hd, si+1, len(c.steps), n, st.pos[0], layer, actName(act)),
					run: func(h *harness) float64 {
						cfg := backend.KVConfig{Layers: c.layers, Seqs: c.seqs, MaxLen: c.maxLen, KVHeads: c.kvHeads, HeadDim: c.hd}
						caches := h.caches(cfg)
						var m float64
						for _, s := range c.steps[:si+1] {
							m = h.attend(caches, cfg, c.heads, layer, s)
						}
						return m
					}})
			}
		}
	}
	return cs
}

// caches makes a KV cache on each backend, released after the case.
func (h *harness) caches(cfg backend.KVConfig) [2]backend.KVCache {
	cr, err := h.ref.NewKVCache(cfg)
	h.check(wrap("reference", err))
	h.kv = append(h.kv, cr)
	cd, err := h.dut.NewKVCache(cfg)
	h.check(wrap(h.dut.Name(), err))
	h.kv = append(h.kv, cd)
	return [2]backend.KVCache{cr, cd}
}

// attend runs one Attention step with fresh q, k, v on both backends and compares the outputs.
func (h *harness) attend(c [2]backend.KVCache, cfg backend.KVConfig, heads, layer int, s attnStep) float64 {
	rows := len(s.pos)
	q := h.act(h.randn(rows*heads*cfg.HeadDim, 1), rows, heads*cfg.HeadDim)
	k := h.act(h.randn(rows*cfg.KVHeads*cfg.HeadDim, 1), rows, cfg.KVHeads*cfg.HeadDim)
	v := h.act(h.randn(rows*cfg.KVHeads*cfg.HeadDim, 1), rows, cfg.KVHeads*cfg.HeadDim)
	sp, pp := h.ints(s.seq), h.ints(s.pos)
	out := h.out(backend.Invalid, rows, heads*cfg.HeadDim)
	scale := float32(1 / math.Sqrt(float64(cfg.HeadDim)))
	h.ref.Attention(out.ref, q.ref, k.ref, v.ref, c[0], layer, sp.ref, pp.ref, scale)
	h.dut.Attention(out.dut, q.dut, k.dut, v.dut, c[1], layer, sp.dut, pp.dut, scale)
	return h.compare(out)
}

// attentionCase fills a cache with a prefix of past positions, then attends n new rows (a decode step when
// n = 1, a prompt chunk otherwise) across two sequences, in the device's activation dtype.
func attentionCase(d Dims, n, past int, heavy bool) Case {
	return Case{Op: "Attention", Shape: fmt.Sprintf("%s %d rows after %d, %d/%d heads × %d", d.Name, n, past, d.Heads, d.KVHeads, d.HD),
		Heavy: heavy, Promise: "softmax in f32, causal over the row's own sequence", Tol: tolBF16,
		run: func(h *harness) float64 {
			cfg := backend.KVConfig{Layers: 2, Seqs: 2, MaxLen: past + n + 8, KVHeads: d.KVHeads, HeadDim: d.HD}
			caches := h.caches(cfg)
			var prefix attnStep
			for s := int32(0); s < 2; s++ {
				p := run(s, 0, past)
				prefix.seq, prefix.pos = append(prefix.seq, p.seq...), append(prefix.pos, p.pos...)
			}
			h.attend(caches, cfg, d.Heads, 1, prefix)
			// n ≤ 8: a decode batch of two sequences with two positions each per step; larger n: a prompt chunk of
			// one sequence at consecutive positions.
			var st attnStep
			for r := 0; r < n; r++ {
				s, p := int32(r%2), int32(past+r/2)
				if n > 8 {
					s, p = 1, int32(past+r)
				}
				st.seq, st.pos = append(st.seq, s), append(st.pos, p)
			}
			return h.attend(caches, cfg, d.Heads, 1, st)
		}}
}
