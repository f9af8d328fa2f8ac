package model_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

var hybridFixtures = []string{"models/tiny-qwen3_5", "models/tiny-qwen3-next-moe"}

func promptStep(seq int32, start int, ids []int32) model.Step {
	s := model.Step{}
	for p, id := range ids {
		s.IDs, s.Seq, s.Pos = append(s.IDs, id), append(s.Seq, seq), append(s.Pos, int32(start+p))
	}
	return s
}

// TestHybridChunkedPrompt: the golden prompt through the gated delta rule's recurrent form and its chunked form
// (chunks of 8: three per prompt) both meet the golden bound, and on the same inputs differ from each other by
// no more than their f32 rounding bound (deltaBound).
func TestHybridChunkedPrompt(t *testing.T) {
	for _, name := range hybridFixtures {
		t.Run(name[len("models/"):], func(t *testing.T) {
			dir := testutil.Fixture(t, name)
			g, ref := readGolden(t, dir)
			var ids []int32
			for _, id := range g.PromptIDs {
				ids = append(ids, int32(id))
			}
			var outs [][]float32
			twin := newDeltaTwin(t, 8)
			for _, run := range []struct {
				b     backend.Backend
				chunk int
			}{{&cpu.Backend{DeltaChunk: -1}, -1}, {twin, twin.DeltaChunk}} {
				chunk := run.chunk
				m, err := model.Load(dir, run.b)
				if err != nil {
					t.Fatal(err)
				}
				c, _ := m.NewCache(1, len(ids))
				out, err := m.Forward(promptStep(0, 0, ids), c, len(ids))
				if err != nil {
					t.Fatal(err)
				}
				m.Close()
				var maxRef float64
				for _, r := range ref {
					maxRef = max(maxRef, math.Abs(float64(r)))
				}
				d := maxDiff(out, ref)
				t.Logf("delta chunk %d: max|err| %.3g, %.3g of max|ref|", chunk, d, d/maxRef)
				if d > 1e-4*maxRef {
					t.Errorf("delta chunk %d: max|err| %.3g above 1e-4·max|ref|", chunk, d)
				}
				outs = append(outs, out)
			}
			// The two forms are held to each other where their rounding has a bound: at the delta rule, on the
			// same inputs (deltaTwin, deltaBound). The logits carry that difference through the later layers,
			// whose gain no bound here gives; they are held to the golden above, and their difference logged.
			t.Logf("delta rule, chunked vs recurrent on the same inputs: max|diff| %.3g, at most %.3g of its f32 bound; logits differ by %.3g",
				twin.diff, twin.worst, maxDiff(outs[0], outs[1]))
			if twin.compared == 0 {
				t.Error("the chunked form was never compared")
			}
		})
	}
}

// TestHybridBatchedDecode: two sequences prefilled into one cache (the first in two calls) and decoded together,
// a row per sequence, give each sequence's logits as decoding it alone does: the recurrent state is per sequence.
func TestHybridBatchedDecode(t *testing.T) {
	for _, name := range hybridFixtures {
		t.Run(name[len("models/"):], func(t *testing.T) {
			b := cpu.New()
			m, err := model.Load(testutil.Fixture(t, name), b)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			prompts := [][]int32{{5, 17, 99, 1000, 3, 42, 7}, {8, 640, 2}}
			steps := [][]int32{{11, 12}, {300, 301}, {7, 9}}
			var alone [][]float32 // per sequence, the logits of each decode step
			for i, p := range prompts {
				c, _ := m.NewCache(1, 16)
				// The prompt in the calls it takes below, so its rows meet the same matmul tiles.
				for _, s := range []model.Step{promptStep(0, 0, p[:min(4, len(p))]), promptStep(0, 4, p[min(4, len(p)):])} {
					if len(s.IDs) > 0 {
						if _, err := m.Forward(s, c, 1); err != nil {
							t.Fatal(err)
						}
					}
				}
				for k, s := range steps {
					l, err := m.Forward(promptStep(0, len(p)+k, []int32{s[i]}), c, 1)
					if err != nil {
						t.Fatal(err)
					}
					alone = append(alone, l)
				}
				m.ReleaseCache(c)
			}
			c, _ := m.NewCache(2, 16)
			defer m.ReleaseCache(c)
			for _, s := range []model.Step{promptStep(0, 0, prompts[0][:4]), promptStep(1, 0, prompts[1]), promptStep(0, 4, prompts[0][4:])} {
				if _, err := m.Forward(s, c, 1); err != nil {
					t.Fatal(err)
				}
			}
			v := m.Config.VocabSize
			for k, s := range steps {
				both, err := m.Forward(model.Step{IDs: s, Seq: []int32{0, 1}, Pos: []int32{int32(len(prompts[0]) + k), int32(len(prompts[1]) + k)}}, c, 2)
				if err != nil {
					t.Fatal(err)
				}
				for i := range prompts {
					// Rounding only: two rows take the matmul kernels' 2-row tile where one row takes the dot
					// kernel (measured up to 1.8e-5 on qwen3-next's MoE); a state shared across sequences moves
					// the logits by O(1).
					if d := maxDiff(both[i*v:(i+1)*v], alone[i*len(steps)+k]); d > 5e-5 {
						t.Errorf("step %d sequence %d: batched logits differ from single by %.3g", k, i, d)
					}
				}
			}
		})
	}
}

// TestHybridPositions: a recurrent state cannot rewind or skip: a row that neither continues its sequence nor
// restarts it at 0 is an error naming both positions, and leaves the cache as it was.
func TestHybridPositions(t *testing.T) {
	b := cpu.New()
	m, err := model.Load(testutil.Fixture(t, hybridFixtures[0]), b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, _ := m.NewCache(1, 16)
	if _, err := m.Forward(promptStep(0, 0, []int32{1, 2, 3}), c, 1); err != nil {
		t.Fatal(err)
	}
	for _, pos := range []int{2, 4} {
		_, err := m.Forward(promptStep(0, pos, []int32{9}), c, 1)
		if err == nil || !strings.Contains(err.Error(), "recurrent state is at position 3") {
			t.Errorf("position %d after 3 tokens: %v", pos, err)
		}
	}
	if _, err := m.Forward(promptStep(0, 3, []int32{9}), c, 1); err != nil {
		t.Errorf("continuing after refused rows: %v", err)
	}
	if _, err := m.Forward(promptStep(0, 0, []int32{4, 5}), c, 1); err != nil {
		t.Errorf("restarting at 0: %v", err)
	}
}

// opRefusing is the CPU backend refusing one op.
type opRefusing struct {
	*cpu.Backend
	op backend.Op
}

func (r opRefusing) Supports(q backend.Query) error {
	if q.Op == r.op {
		return &backend.UnsupportedError{Backend: "fake", Query: q, Why: "unknown op"}
	}
	return r.Backend.Supports(q)
}

// TestHybridQueries: a hybrid model asks for its ops beside its matmuls (DeltaNet per linear-attention layer,
// the sigmoid gate per attention layer and shared expert, MoE per sparse block), each fused or interleaved part
// named by its rows; a device refusing an op is passed over before anything is read.
func TestHybridQueries(t *testing.T) {
	dir := testutil.Fixture(t, "models/tiny-qwen3-next-moe")
	qs, err := model.Queries(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	matmuls := 0
	for _, q := range qs {
		if q.Op == backend.OpMatMul {
			matmuls++
			continue
		}
		ops = append(ops, q.String())
	}
	want := "gated_deltanet model.layers.0.linear_attn,moe model.layers.0.mlp,sigmoid_gate model.layers.0.mlp.shared_expert_gate," +
		"gated_deltanet model.layers.1.linear_attn,moe model.layers.1.mlp,sigmoid_gate model.layers.1.mlp.shared_expert_gate," +
		"gated_deltanet model.layers.2.linear_attn,moe model.layers.2.mlp,sigmoid_gate model.layers.2.mlp.shared_expert_gate," +
		"sigmoid_gate model.layers.3.self_attn,moe model.layers.3.mlp,sigmoid_gate model.layers.3.mlp.shared_expert_gate," +
		"attention model.layers.3.self_attn (4/2 heads of 64)" // the full-attention layer's shape (DeltaNet layers ask none)
	if got := strings.Join(ops, ","); got != want {
		t.Errorf("op queries\n got %s\nwant %s", got, want)
	}
	// Per DeltaNet layer 5 (qkvz ×2, ba ×2, out), attention 5 (q ×2, k, v, o), per MoE block 1 + 4·3 + 4, and the head.
	if want := 3*5 + 5 + 4*17 + 1; matmuls != want {
		t.Errorf("%d matmul queries, want %d", matmuls, want)
	}
	if q := qs[0]; q.Name != "model.layers.0.linear_attn.in_proj_qkvz[0:256]" || q.Out != 256 || q.In != 256 {
		t.Errorf("first query %s", q)
	}
	_, err = model.Load(dir, opRefusing{cpu.New(), backend.OpGatedDeltaNet})
	var ue *backend.UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "fake cannot serve gated_deltanet model.layers.0.linear_attn: unknown op") {
		t.Errorf("load on a device without the DeltaNet op: %v", err)
	}
}
