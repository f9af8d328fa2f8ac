// The verify cases: every op at the fixture shapes and the Qwen3-14B shapes, each with its promise. Tolerances
// are relative to max|ref|: a bf16 device rounds each output to 8 significant bits (≤ 2^-8 relative) and sums in
// a different order, so 1e-2 bounds bf16-output ops; float32 outputs of the same sums get 5e-3.
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// Dims is a transformer's shape as the cases need it.
type Dims struct {
	Name                              string
	Hidden, Inter, Heads, KVHeads, HD int
	Vocab                             int
}

// Shapes are the model shapes verified: the trained fixture's and Qwen3-14B's.
var Shapes = []Dims{
	{Name: "pycoder-12m", Hidden: 512, Inter: 1536, Heads: 8, KVHeads: 2, HD: 64, Vocab: 384},
	{Name: "qwen3-14b", Hidden: 5120, Inter: 17408, Heads: 40, KVHeads: 8, HD: 128, Vocab: 151936},
}

const (
	tolBF16 = 1e-2
	tolF32  = 5e-3
)

// Cases lists every case; quick drops the heavy ones (large prompts at 14B shapes on the CPU reference).
func Cases(quick bool) []Case {
	var cs []Case
	for _, d := range Shapes {
		big := d.Hidden >= 4096
		cs = append(cs,
			embedCase(d),
			rmsCase(d, "row", d.Hidden, d.Hidden),
			rmsCase(d, "head", d.Heads*d.HD, d.HD),
			eltCase(d, "Add"), eltCase(d, "SwiGLU"),
		)
		linears := [][2]int{{d.Hidden, d.Inter}, {d.Inter, d.Hidden}, {d.Hidden, d.Heads * d.HD}, {d.Hidden, d.KVHeads * d.HD}}
		for _, io := range linears {
			for _, n := range []int{1, 2, 4, 8, 512} {
				cs = append(cs, matmulCase(d, io[0], io[1], n, false, backend.Invalid, big && n > 8))
			}
		}
		cs = append(cs, matmulCase(d, d.Hidden, d.KVHeads*d.HD, 3, true, backend.Invalid, false))
		cs = append(cs, matmulCase(d, d.Hidden, min(d.Vocab, 32768), 1, false, backend.F32, false))
		for _, kind := range []string{"default", "llama3", "yarn"} {
			cs = append(cs, ropeCase(d, kind))
		}
		for _, n := range []int{1, 4, 77} {
			cs = append(cs, attentionCase(d, n, 300, big && n > 8))
		}
		cs = append(cs, argmaxCase(d))
	}
	cs = append(cs, quantCases()...) // quant_cases.go
	if quick {
		kept := cs[:0]
		for _, c := range cs {
			if !c.Heavy {
				kept = append(kept, c)
			}
		}
		cs = kept
	}
	return cs
}

func embedCase(d Dims) Case {
	return Case{Op: "Embed", Shape: fmt.Sprintf("%s vocab %d × %d, 9 ids", d.Name, d.Vocab, d.Hidden),
		Promise: "exact copy of the table rows (in the activation dtype)", Tol: tolBF16,
		run: func(h *harness) (float64, error) {
			tab, err := h.upload(h.randn(d.Vocab*d.Hidden, 1), d.Vocab, d.Hidden)
			if err != nil {
				return 0, err
			}
			ids := []int32{0, 1, int32(d.Vocab - 1), 5, 5, 17, 3, int32(d.Vocab / 2), 2}
			idp, err := h.ints(ids)
			if err != nil {
				return 0, err
			}
			out, err := h.out(backend.Invalid, len(ids), d.Hidden)
			if err != nil {
				return 0, err
			}
			defer h.free(tab, idp, out)
			h.ref.Embed(out.ref, tab.ref, idp.ref)
			h.dut.Embed(out.dut, tab.dut, idp.dut)
			return h.compare(out)
		}}
}

func rmsCase(d Dims, kind string, width, group int) Case {
	return Case{Op: "RMSNorm/" + kind, Shape: fmt.Sprintf("%s 7 × %d, groups of %d", d.Name, width, group),
		Promise: "f32 sum of squares, output rounded to the activation dtype", Tol: tolBF16,
		run: func(h *harness) (float64, error) {
			x, err := h.act(h.randn(7*width, 2), 7, width)
			if err != nil {
				return 0, err
			}
			w, err := h.upload(h.randn(group, 1), group)
			if err != nil {
				return 0, err
			}
			out, err := h.out(backend.Invalid, 7, width)
			if err != nil {
				return 0, err
			}
			defer h.free(x, w, out)
			h.ref.RMSNorm(out.ref, x.ref, w.ref, 1e-6)
			h.dut.RMSNorm(out.dut, x.dut, w.dut, 1e-6)
			return h.compare(out)
		}}
}

func eltCase(d Dims, op string) Case {
	return Case{Op: op, Shape: fmt.Sprintf("%s 5 × %d", d.Name, d.Inter), Promise: "f32 math, output rounded to the activation dtype",
		Tol: tolBF16, run: func(h *harness) (float64, error) {
			a, err := h.act(h.randn(5*d.Inter, 2), 5, d.Inter)
			if err != nil {
				return 0, err
			}
			b, err := h.act(h.randn(5*d.Inter, 2), 5, d.Inter)
			if err != nil {
				return 0, err
			}
			out, err := h.out(backend.Invalid, 5, d.Inter)
			if err != nil {
				return 0, err
			}
			defer h.free(a, b, out)
			if op == "Add" {
				h.ref.Add(out.ref, a.ref, b.ref)
				h.dut.Add(out.dut, a.dut, b.dut)
			} else {
				h.ref.SwiGLU(out.ref, a.ref, b.ref)
				h.dut.SwiGLU(out.dut, a.dut, b.dut)
			}
			return h.compare(out)
		}}
}

func matmulCase(d Dims, in, out, n int, bias bool, dst backend.DType, heavy bool) Case {
	name := "MatMul/dense"
	if bias {
		name += "+bias"
	}
	tol := tolBF16
	if dst == backend.F32 {
		name += "/f32-out"
		tol = tolF32
	}
	return Case{Op: name, Shape: fmt.Sprintf("%s %d→%d, n=%d", d.Name, in, out, n), Heavy: heavy,
		Promise: "f32 accumulation over bf16 weights", Tol: tol,
		run: func(h *harness) (float64, error) {
			w := h.randn(out*in, 1/math.Sqrt(float64(in)))
			spec := backend.LinearSpec{Name: "verify", Out: out, In: in}
			wh := backend.HostF32("verify.weight", w, out, in)
			spec.Dense = &wh
			if bias {
				bh := backend.HostF32("verify.bias", h.randn(out, 1), out)
				spec.Bias = &bh
			}
			lr, err := h.ref.LoadLinear(spec)
			if err != nil {
				return 0, err
			}
			ld, err := h.dut.LoadLinear(spec)
			if err != nil {
				return 0, err
			}
			x, err := h.act(h.randn(n*in, 1), n, in)
			if err != nil {
				return 0, err
			}
			y, err := h.out(dst, n, out)
			if err != nil {
				return 0, err
			}
			defer h.free(x, y)
			h.ref.MatMul(y.ref, x.ref, lr)
			h.dut.MatMul(y.dut, x.dut, ld)
			return h.compare(y)
		}}
}

func ropeCase(d Dims, kind string) Case {
	scaling := map[string]map[string]any{
		"default": nil,
		"llama3":  {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192.0},
		"yarn":    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768.0},
	}[kind]
	return Case{Op: "Rope/" + kind, Shape: fmt.Sprintf("%s 6 rows × %d heads × %d", d.Name, d.Heads, d.HD),
		Promise: "angles p·inv_freq in f32 as rope.Table.Apply", Tol: tolBF16,
		run: func(h *harness) (float64, error) {
			t, err := rope.New(d.HD, 1e6, false, scaling, 131072)
			if err != nil {
				return 0, err
			}
			x, err := h.act(h.randn(6*d.Heads*d.HD, 1), 6, d.Heads*d.HD)
			if err != nil {
				return 0, err
			}
			pos, err := h.ints([]int32{0, 1, 7, 300, 4095, 40000})
			if err != nil {
				return 0, err
			}
			defer h.free(x, pos)
			h.ref.Rope(x.ref, pos.ref, d.Heads, t)
			h.dut.Rope(x.dut, pos.dut, d.Heads, t)
			return h.compare(x)
		}}
}

// attentionCase fills a cache with a prefix of past positions, then attends n new rows (a decode step when
// n = 1, a prompt chunk otherwise) across two sequences.
func attentionCase(d Dims, n, past int, heavy bool) Case {
	return Case{Op: "Attention", Shape: fmt.Sprintf("%s %d rows after %d, %d/%d heads × %d", d.Name, n, past, d.Heads, d.KVHeads, d.HD),
		Heavy: heavy, Promise: "softmax in f32, causal over the row's own sequence", Tol: tolBF16,
		run: func(h *harness) (float64, error) {
			cfg := backend.KVConfig{Layers: 2, Seqs: 2, MaxLen: past + n + 8, KVHeads: d.KVHeads, HeadDim: d.HD}
			cr, err := h.ref.NewKVCache(cfg)
			if err != nil {
				return 0, err
			}
			cd, err := h.dut.NewKVCache(cfg)
			if err != nil {
				return 0, err
			}
			defer cr.Release()
			defer cd.Release()
			step := func(seqs, poss []int32, layer int, keep bool) (float64, error) {
				rows := len(poss)
				q, err := h.act(h.randn(rows*d.Heads*d.HD, 1), rows, d.Heads*d.HD)
				if err != nil {
					return 0, err
				}
				k, err := h.act(h.randn(rows*d.KVHeads*d.HD, 1), rows, d.KVHeads*d.HD)
				if err != nil {
					return 0, err
				}
				v, err := h.act(h.randn(rows*d.KVHeads*d.HD, 1), rows, d.KVHeads*d.HD)
				if err != nil {
					return 0, err
				}
				sp, err := h.ints(seqs)
				if err != nil {
					return 0, err
				}
				pp, err := h.ints(poss)
				if err != nil {
					return 0, err
				}
				out, err := h.out(backend.Invalid, rows, d.Heads*d.HD)
				if err != nil {
					return 0, err
				}
				defer h.free(q, k, v, sp, pp, out)
				scale := float32(1 / math.Sqrt(float64(d.HD)))
				h.ref.Attention(out.ref, q.ref, k.ref, v.ref, cr, layer, sp.ref, pp.ref, scale)
				h.dut.Attention(out.dut, q.dut, k.dut, v.dut, cd, layer, sp.dut, pp.dut, scale)
				if !keep {
					return 0, nil
				}
				return h.compare(out)
			}
			var seqs, poss []int32
			for s := int32(0); s < 2; s++ {
				for p := 0; p < past; p++ {
					seqs, poss = append(seqs, s), append(poss, int32(p))
				}
			}
			if _, err := step(seqs, poss, 1, false); err != nil {
				return 0, err
			}
			// n ≤ 8: a decode batch of two sequences with two positions each per step; larger n: a prompt chunk of
			// one sequence at consecutive positions.
			seqs, poss = nil, nil
			for r := 0; r < n; r++ {
				s, p := int32(r%2), int32(past+r/2)
				if n > 8 {
					s, p = 1, int32(past+r)
				}
				seqs, poss = append(seqs, s), append(poss, p)
			}
			return step(seqs, poss, 1, true)
		}}
}

func argmaxCase(d Dims) Case {
	return Case{Op: "Argmax", Shape: fmt.Sprintf("%s 4 rows × %d", d.Name, d.Vocab),
		Promise: "bit-exact: normalized argmax, lowest id wins ties, NaN row picks 0", Tol: 0,
		run: func(h *harness) (float64, error) {
			a, ok := h.dut.(backend.Argmaxer)
			if !ok {
				return 0, fmt.Errorf("%s has no device argmax: %w", h.dut.Name(), backend.ErrUnsupported)
			}
			rows := 4
			v := h.randn(rows*d.Vocab, 3)
			v[d.Vocab+10], v[d.Vocab+20] = 50, 50 // a tie: id 10 wins
			v[2*d.Vocab+d.Vocab-1] = 60           // the last id
			v[3*d.Vocab+5] = float32(math.NaN())  // a NaN row
			want := []int32{argmaxRef(v[:d.Vocab]), 10, int32(d.Vocab - 1), 0}
			logits, err := place(h.dut, backend.F32, v, []int{rows, d.Vocab})
			if err != nil {
				return 0, err
			}
			ids, err := h.dut.Alloc(backend.I32, rows)
			if err != nil {
				return 0, err
			}
			defer h.dut.Free(logits)
			defer h.dut.Free(ids)
			a.Argmax(ids, logits)
			got := make([]int32, rows)
			if err := a.ReadInt32(ids, got); err != nil {
				return 0, err
			}
			bad := 0
			for i := range got {
				if got[i] != want[i] {
					bad++
				}
			}
			return float64(bad), nil
		}}
}

func argmaxRef(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}
