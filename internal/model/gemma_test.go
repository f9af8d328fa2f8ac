package model_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

// sdpaGemma2 is Gemma 2's config as HF transformers 5.17's default attention computes it: its SDPA path drops
// attn_logit_softcapping without a word (eager and flex apply it), and the tiny-gemma2 golden was made that way.
// TestGemma2AttentionSoftcap checks the model with its cap against the same golden.
func sdpaGemma2(c map[string]any) { c["attn_logit_softcapping"] = nil }

func keepTensors(ts []backend.Host) []backend.Host { return ts }

func maxAbs(v []float32) float64 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	return m
}

// TestGemma2AttentionSoftcap: with its attention softcap (tanh(s/50)·50, as Gemma 2 was trained and HF's eager
// attention computes it) tiny-gemma2 stays near the golden HF made without it and keeps its greedy continuation;
// the cap is applied (the logits move by far more than the uncapped model's error).
func TestGemma2AttentionSoftcap(t *testing.T) {
	dir := testutil.Fixture(t, "models/tiny-gemma2")
	g, ref := readGolden(t, dir)
	capped := promptLogits(t, dir, g.PromptIDs)
	uncapped := promptLogits(t, variant.Rewrite(t, dir, sdpaGemma2, keepTensors), g.PromptIDs)
	maxRef := maxAbs(ref)
	dCap, dOff := maxDiff(capped, ref), maxDiff(uncapped, ref)
	t.Logf("max|err| against the (uncapped) golden: capped %.3g (%.3g of max|ref|), uncapped %.3g (%.3g)", dCap, dCap/maxRef, dOff, dOff/maxRef)
	if dCap < 10*dOff || dCap > 1e-3*maxRef {
		t.Errorf("capped logits differ from the golden by %.3g, uncapped by %.3g: want the cap to show, and stay below 1e-3·max|ref| %.3g", dCap, dOff, 1e-3*maxRef)
	}
	b := cpu.New()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := m.Generate(g.PromptIDs, model.GenOptions{MaxTokens: len(g.GreedyNewIDs), Picker: argmax{}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Generated, g.GreedyNewIDs) {
		t.Errorf("greedy continuation with the cap\n got %v\nwant %v", res.Generated, g.GreedyNewIDs)
	}
}

// gemmaModels are the Gemma directories the cache tests run: the three fixtures and the Gemma 4 variants.
func gemmaModels(t *testing.T) map[string]string {
	return map[string]string{
		"gemma2":        testutil.Fixture(t, "models/tiny-gemma2"),
		"gemma3":        testutil.Fixture(t, "models/tiny-gemma3"),
		"gemma4":        testutil.Fixture(t, "models/tiny-gemma4"),
		"gemma4-shared": variant.Gemma4Shared(t, false),
		"gemma4-k=v":    variant.Gemma4KEqV(t),
	}
}

func step(ids []int, from int) model.Step {
	var s model.Step
	for i, id := range ids {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(from+i))
	}
	return s
}

// TestGemmaPrefillChunksAndDecode: the golden prompt's logits are the same whether the prompt goes in one call
// (24 rows, three windows: the rings read most keys from the call's own rows), in chunks of 5 or 11 (keys from
// the ring and the call), or one token at a time (all from the ring), on every Gemma model.
func TestGemmaPrefillChunksAndDecode(t *testing.T) {
	b := cpu.New()
	for name, dir := range gemmaModels(t) {
		t.Run(name, func(t *testing.T) {
			g, _ := readGolden(t, testutil.Fixture(t, "models/tiny-gemma2"))
			ids := g.PromptIDs
			m, err := model.Load(dir, b)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			n, v := len(ids), m.Config.VocabSize
			c, _ := m.NewCache(1, n)
			whole, err := m.Forward(step(ids, 0), c, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{1, 5, 11} {
				c, _ := m.NewCache(1, n)
				for at := 0; at < n; at += chunk {
					end := min(at+chunk, n)
					got, err := m.Forward(step(ids[at:end], at), c, end-at)
					if err != nil {
						t.Fatal(err)
					}
					if d := maxDiff(got, whole[at*v:end*v]); d > 1e-5*maxAbs(whole) {
						t.Errorf("chunks of %d: rows %d..%d differ from the one-call prefill by %.3g", chunk, at, end-1, d)
					}
				}
			}
		})
	}
}

// TestSlidingWindowRing: decoding far past the window, a model whose sliding layers keep a ring of Window slots
// computes exactly what the same model keeping every position computes, and its cache is the size the window
// implies: for tiny-gemma3 at a 32k context, 8 slots on each sliding layer and 32768 on the global one.
func TestSlidingWindowRing(t *testing.T) {
	const steps = 600
	b := cpu.New()
	for _, name := range []string{"gemma3", "gemma4-shared"} {
		dir := gemmaModels(t)[name]
		t.Run(name, func(t *testing.T) {
			ring, err := model.Load(dir, b)
			if err != nil {
				t.Fatal(err)
			}
			defer ring.Close()
			full, err := model.Load(dir, b)
			if err != nil {
				t.Fatal(err)
			}
			defer full.Close()
			model.FullKV(full)
			g, _ := readGolden(t, testutil.Fixture(t, "models/tiny-gemma3"))
			ctx := len(g.PromptIDs) + steps
			rc, _ := ring.NewCache(1, ctx)
			fc, _ := full.NewCache(1, ctx)
			rb, fb := cacheBytes(t, rc), cacheBytes(t, fc)
			var rl, fl []float32
			for at := 0; at < len(g.PromptIDs); at += 20 { // chunks of 20 rows: past the window of 8 within a call
				end := min(at+20, len(g.PromptIDs))
				if rl, err = ring.Forward(step(g.PromptIDs[at:end], at), rc, 1); err != nil {
					t.Fatal(err)
				}
				if fl, err = full.Forward(step(g.PromptIDs[at:end], at), fc, 1); err != nil {
					t.Fatal(err)
				}
			}
			for p := len(g.PromptIDs); p < ctx; p++ {
				if d := maxDiff(rl, fl); d != 0 {
					t.Fatalf("position %d: the ring's logits differ from the full cache's by %.3g", p-1, d)
				}
				id := top(rl)
				if rl, err = ring.Forward(step([]int{id}, p), rc, 1); err != nil {
					t.Fatal(err)
				}
				if fl, err = full.Forward(step([]int{id}, p), fc, 1); err != nil {
					t.Fatal(err)
				}
			}
			if got := cacheBytes(t, rc); got != rb {
				t.Errorf("the ring cache grew from %d to %d bytes while decoding", rb, got)
			}
			t.Logf("%d positions: ring cache %d bytes, full cache %d bytes", ctx, rb, fb)
		})
	}
	// The bound at a long context, where it matters: 5 sliding layers of 8 slots, 1 global layer of 32768.
	m, err := model.Load(gemmaModels(t)["gemma3"], b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := m.NewCache(1, 32768)
	if err != nil {
		t.Fatal(err)
	}
	width := int64(2 * 64 * 4 * 2) // kv heads · head dim · float32 · (k and v)
	if got, want := cacheBytes(t, c), width*(5*8+32768); got != want {
		t.Errorf("tiny-gemma3 cache at 32k positions: %d bytes, want %d (5 rings of 8 slots and one layer of 32768)", got, want)
	}
}

func cacheBytes(t *testing.T, c backend.KVCache) int64 {
	bc, ok := c.(interface{ Bytes() int64 })
	if !ok {
		t.Fatalf("%T does not report its size", c)
	}
	return bc.Bytes()
}

func top(l []float32) int {
	best := 0
	for i, x := range l {
		if x > l[best] {
			best = i
		}
	}
	return best
}

// TestGemma4DoubleWideMLP: the KV-sharing layers' double-wide MLPs (use_double_wide_mlp) are bound at twice the
// width: holding each narrow row twice (down halved) they compute what the narrow model computes.
func TestGemma4DoubleWideMLP(t *testing.T) {
	g, _ := readGolden(t, testutil.Fixture(t, "models/tiny-gemma4"))
	narrow := promptLogits(t, variant.Gemma4Shared(t, false), g.PromptIDs)
	wide := promptLogits(t, variant.Gemma4Shared(t, true), g.PromptIDs)
	if d := maxDiff(narrow, wide); d > 1e-5*maxAbs(narrow) {
		t.Errorf("double-wide MLP logits differ from the narrow model's by %.3g", d)
	}
}

// TestGemmaQueries: a Gemma model asks its device for the ops beyond the Backend interface it needs, which the
// CPU serves; a backend that says yes but lacks one fails the load naming it.
func TestGemmaQueries(t *testing.T) {
	for name, want := range map[string][]backend.Op{
		// each asks OpAttention once per attention shape: the sliding layers' and the global layers'
		"models/tiny-gemma2": {backend.OpAttention, backend.OpAttention, backend.OpWindowAttention, backend.OpSoftcapAttention, backend.OpKVLayers, backend.OpGeGLU, backend.OpScale, backend.OpSoftcap},
		"models/tiny-gemma3": {backend.OpAttention, backend.OpAttention, backend.OpWindowAttention, backend.OpKVLayers, backend.OpGeGLU, backend.OpScale},
		"models/tiny-gemma4": {backend.OpAttention, backend.OpAttention, backend.OpWindowAttention, backend.OpKVLayers, backend.OpGeGLU, backend.OpScale, backend.OpSoftcap},
		"models/tiny-llama3": {backend.OpAttention},
	} {
		dir := testutil.Fixture(t, name)
		qs, err := model.Queries(dir)
		if err != nil {
			t.Fatal(err)
		}
		var ops []backend.Op
		for _, q := range qs {
			if q.Op != backend.OpMatMul {
				ops = append(ops, q.Op)
			}
			if err := cpu.New().Supports(q); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		slices.Sort(ops)
		slices.Sort(want)
		if !slices.Equal(ops, want) {
			t.Errorf("%s asks for %v, want %v", name, ops, want)
		}
	}
	_, err := model.Load(testutil.Fixture(t, "models/tiny-gemma2"), plain{cpu.New()})
	if !errors.Is(err, backend.ErrUnsupported) || !strings.Contains(fmt.Sprint(err), "sliding-window attention") {
		t.Errorf("a backend without the windowed attention loaded tiny-gemma2: %v", err)
	}
}

// plain is a CPU backend seen only through the Backend interface: it answers Supports as the CPU does but has
// none of the optional ops.
type plain struct{ backend.Backend }

// TestGemmaBatchedDecode: two sequences decoding together past the window (prompts of 12 and 19 tokens, each
// ring holding its own sequence's last 8 positions) give each sequence's logits as decoding it alone does.
func TestGemmaBatchedDecode(t *testing.T) {
	b := cpu.New()
	for _, name := range []string{"gemma2", "gemma4-shared"} {
		t.Run(name, func(t *testing.T) {
			m, err := model.Load(gemmaModels(t)[name], b)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			prompts := [][]int{{5, 17, 99, 1000, 3, 42, 7, 8, 9, 10, 11, 12}, {8, 640, 2, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46}}
			const steps = 12
			next := func(s, k int) int { return (s*37 + k*101) % 1000 }
			v := m.Config.VocabSize
			var alone [][]float32
			for s, p := range prompts {
				c, _ := m.NewCache(1, 64)
				if _, err := m.Forward(step(p, 0), c, 1); err != nil {
					t.Fatal(err)
				}
				var out []float32
				for k := range steps {
					l, err := m.Forward(step([]int{next(s, k)}, len(p)+k), c, 1)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, l...)
				}
				alone = append(alone, out)
			}
			c, _ := m.NewCache(2, 64)
			for s, p := range prompts {
				st := step(p, 0)
				for r := range st.Seq {
					st.Seq[r] = int32(s)
				}
				if _, err := m.Forward(st, c, 1); err != nil {
					t.Fatal(err)
				}
			}
			for k := range steps {
				st := model.Step{IDs: []int32{int32(next(0, k)), int32(next(1, k))}, Seq: []int32{0, 1},
					Pos: []int32{int32(len(prompts[0]) + k), int32(len(prompts[1]) + k)}}
				both, err := m.Forward(st, c, 2)
				if err != nil {
					t.Fatal(err)
				}
				for s := range prompts {
					if d := maxDiff(both[s*v:(s+1)*v], alone[s][k*v:(k+1)*v]); d > 1e-5*maxAbs(alone[s]) {
						t.Errorf("step %d, sequence %d: batched logits differ from single by %.3g", k, s, d)
					}
				}
			}
		})
	}
}
