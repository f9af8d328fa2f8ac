// Tests of the picks forward on the CPU: ForwardPicks gives sample.GreedyNormalizedArgmax of each of Forward's rows,
// through the device Argmax and through the host path of a backend without one; Generate with a plain greedy
// picker takes the picks (the device argmax runs once per forward call) and generates what the logits path does;
// a row picked 0 brings the logits back (a device claiming every row degenerate changes no token), and NaN logits
// still stop generation with the step named.
package model_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/draft"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// countingArgmax is the CPU backend counting its Argmax calls; zero makes it answer token 0 for every row (a
// device calling each row degenerate).
type countingArgmax struct {
	*cpu.Backend
	calls int
	zero  bool
}

func (c *countingArgmax) Argmax(dst, logits backend.Tensor) {
	c.calls++
	c.Backend.Argmax(dst, logits)
	if c.zero {
		if err := c.WriteInt32(dst, make([]int32, dst.Shape()[0])); err != nil {
			panic(err)
		}
	}
}

// hostOnly is the CPU backend without backend.Argmaxer: the field named Argmax hides the promoted method, so the
// model must take the host path.
type hostOnly struct {
	*cpu.Backend
	Argmax struct{}
}

func loadOn(t *testing.T, fixture string, b backend.Backend) *model.Model {
	t.Helper()
	m, err := model.Load(testutil.Fixture(t, fixture), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestForwardPicksEqualsHostArgmax: a prompt of two sequences, then decode steps of two rows (one per sequence)
// and of three (a sequence with two draft-like rows), through ForwardPicks on one cache and Forward on another:
// each pick is GreedyNormalizedArgmax of Forward's row, on the device path and the host path alike.
func TestForwardPicksEqualsHostArgmax(t *testing.T) {
	for _, fixture := range []string{"trained/pycoder-12m", "models/tiny-llama3", "models/tiny-qwen3", "models/tiny-gemma2", "models/tiny-qwen3_5", "models/tiny-qwen3-next-moe"} {
		for _, host := range []bool{false, true} {
			name := fixture + "/device"
			var b backend.Backend = &countingArgmax{Backend: cpu.New()}
			if host {
				name, b = fixture+"/host", hostOnly{Backend: cpu.New()}
			}
			t.Run(name, func(t *testing.T) {
				defer b.Close()
				m := loadOn(t, fixture, b)
				v := m.Config.VocabSize
				ref, _ := m.NewCache(2, 32)
				got, _ := m.NewCache(2, 32)
				defer m.ReleaseCache(ref)
				defer m.ReleaseCache(got)
				tok := func(i int) int32 { return int32((i*7919 + 13) % v) }
				steps := []model.Step{{}}
				for p := range 6 { // a prompt of two sequences in one call: 6 rows, the last 2 out
					steps[0].IDs = append(steps[0].IDs, tok(p))
					steps[0].Seq = append(steps[0].Seq, int32(p/3))
					steps[0].Pos = append(steps[0].Pos, int32(p%3))
				}
				for k := range 4 {
					steps = append(steps, model.Step{IDs: []int32{tok(10 + k), tok(20 + k)}, Seq: []int32{0, 1}, Pos: []int32{int32(3 + k), int32(3 + k)}})
				}
				steps = append(steps, model.Step{IDs: []int32{tok(30), tok(31), tok(32)}, Seq: []int32{0, 0, 0}, Pos: []int32{7, 8, 9}})
				var p model.Picks
				for i, s := range steps {
					out := min(len(s.IDs), 3)
					if i == 0 {
						out = 2
					}
					logits, err := m.Forward(s, ref, out)
					if err != nil {
						t.Fatal(err)
					}
					if err := m.ForwardPicks(s, got, out, &p); err != nil {
						t.Fatal(err)
					}
					var want []int32
					for r := range out {
						want = append(want, int32(sample.GreedyNormalizedArgmax(logits[r*v:(r+1)*v], sample.F32)))
					}
					if !slices.Equal(p.IDs, want) {
						t.Errorf("step %d: picks %v, want %v", i, p.IDs, want)
					}
					if zero := slices.Contains(want, 0); zero != (p.Logits != nil) || zero && !slices.Equal(p.Logits, logits) {
						t.Errorf("step %d: logits returned %v with picks %v (a row picked 0: %v)", i, p.Logits != nil, want, zero)
					}
				}
				if c, ok := b.(*countingArgmax); ok && c.calls != len(steps) {
					t.Errorf("%d device argmax calls for %d picks forwards", c.calls, len(steps))
				}
			})
		}
	}
}

// TestGeneratePicksPath: Generate with model.Greedy (and a greedy sample.Sampler) takes the picks — one device
// argmax per forward call, prompt chunks included — and generates exactly the tokens of the logits path (a greedy
// picker that does not say so), with and without drafts; a sampler that is not plain greedy never takes them.
func TestGeneratePicksPath(t *testing.T) {
	for _, fixture := range []string{"trained/pycoder-12m", "models/tiny-qwen3"} {
		t.Run(fixture, func(t *testing.T) {
			b := &countingArgmax{Backend: cpu.New()}
			defer b.Close()
			m := loadOn(t, fixture, b)
			prompt := []int{10, 11, 12, 13, 10, 11, 12, 13, 10, 11, 12, 13, 10, 11}
			greedySampler, err := sample.New(sample.Params{RepetitionPenalty: 1})
			if err != nil {
				t.Fatal(err)
			}
			penalized, err := sample.New(sample.Params{RepetitionPenalty: 1.3})
			if err != nil {
				t.Fatal(err)
			}
			for _, withDraft := range []bool{false, true} {
				gen := func(p model.Picker) *model.GenResult {
					t.Helper()
					opt := model.GenOptions{MaxTokens: 20, PrefillChunk: 5, Picker: p}
					if withDraft {
						opt.Draft = draft.NewNGram(4, 1, 3)
					}
					res, err := m.Generate(prompt, opt)
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				b.calls = 0
				want := gen(logitsGreedy{})
				if b.calls != 0 {
					t.Errorf("draft %v: the logits path ran the device argmax %d times", withDraft, b.calls)
				}
				for _, p := range []model.Picker{model.Greedy{}, greedySampler} {
					b.calls = 0
					got := gen(p)
					if !slices.Equal(got.Generated, want.Generated) || got.Accepted != want.Accepted {
						t.Errorf("draft %v, %T: picks generated %v (%d accepted), the logits %v (%d)", withDraft, p,
							got.Generated, got.Accepted, want.Generated, want.Accepted)
					}
					if forwards := 3 + got.Steps; b.calls != forwards { // 14 prompt ids in chunks of 5
						t.Errorf("draft %v, %T: %d device argmax calls for %d forward calls", withDraft, p, b.calls, forwards)
					}
				}
				b.calls = 0
				gen(penalized)
				if b.calls != 0 {
					t.Errorf("draft %v: a repetition penalty took the picks (%d argmax calls)", withDraft, b.calls)
				}
			}
		})
	}
}

// logitsGreedy is the greedy choice without saying so (not a model.GreedyPicker): the logits path.
type logitsGreedy struct{}

func (logitsGreedy) Pick(l []float32, _ []int) (int, error) {
	return sample.GreedyNormalizedArgmax(l, sample.F32), nil
}

// TestPicksZeroReadsLogits: a device answering token 0 for every row sends each step the logits' way, so Generate
// picks from the logits and its tokens are the golden greedy continuation all the same.
func TestPicksZeroReadsLogits(t *testing.T) {
	dir := testutil.Fixture(t, "models/tiny-llama3")
	g, _ := readGolden(t, dir)
	b := &countingArgmax{Backend: cpu.New(), zero: true}
	defer b.Close()
	m := loadOn(t, "models/tiny-llama3", b)
	res, err := m.Generate(g.PromptIDs, model.GenOptions{MaxTokens: len(g.GreedyNewIDs), Picker: model.Greedy{}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Generated, g.GreedyNewIDs) || b.calls == 0 {
		t.Errorf("generated %v with %d argmax calls, want %v", res.Generated, b.calls, g.GreedyNewIDs)
	}
}

// TestGenerateNaNLogitsPicks is TestGenerateNaNLogits through the picks: the NaN row picks 0 on the device, its
// logits come back and stop generation at step 3 with the same error.
func TestGenerateNaNLogitsPicks(t *testing.T) {
	g, _ := readGolden(t, testutil.Fixture(t, "models/tiny-llama3"))
	m, _ := loadLlama3(t, g.GreedyNewIDs[1])
	if _, ok := m.Backend().(backend.Argmaxer); !ok {
		t.Fatal("the CPU backend has no Argmax: the picks path is not under test")
	}
	res, err := m.Generate(g.PromptIDs, model.GenOptions{MaxTokens: 8, Picker: model.Greedy{}})
	var nf *model.NonFiniteError
	if res != nil || !errors.As(err, &nf) || err.Error() != "generate: step 3: logits hold NaN (first at id 0)" {
		t.Fatalf("res %v, err %v; want the NonFiniteError of step 3", res, err)
	}
}

// TestPicksGreedily: which pickers take the picks.
func TestPicksGreedily(t *testing.T) {
	mk := func(p sample.Params) model.Picker {
		s, err := sample.New(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name string
		p    model.Picker
		want bool
	}{
		{"model.Greedy", model.Greedy{}, true},
		{"zero Params", mk(sample.Params{}), true},
		{"top-k and seed (unused by greedy)", mk(sample.Params{TopK: 5, TopP: 0.9, Seed: 3}), true},
		{"repetition penalty 1", mk(sample.Params{RepetitionPenalty: 1}), true},
		{"bf16 rounding", mk(sample.Params{LogitsRounding: sample.BF16}), false},
		{"temperature", mk(sample.Params{Temp: 0.7}), false},
		{"repetition penalty", mk(sample.Params{RepetitionPenalty: 1.1}), false},
		{"presence penalty", mk(sample.Params{PresencePenalty: 0.5}), false},
		{"frequency penalty", mk(sample.Params{FrequencyPenalty: 0.5}), false},
		{"logit bias", mk(sample.Params{LogitBias: map[int]float32{3: 1}}), false},
		{"a picker that does not say", logitsGreedy{}, false},
	} {
		if got := model.PicksGreedily(c.p); got != c.want {
			t.Errorf("%s: PicksGreedily %v, want %v", c.name, got, c.want)
		}
	}
}
