// Tests of the picks path on the CPU: the same greedy requests with the device picks on and off (Config.NoPicks)
// give identical tokens and drafts, on the trained fixture and tiny random ones, across slot counts, drafts and a
// draft model; a call takes the picks (one device argmax each, counted by a wrapper backend) exactly when none of
// its rows needs the logits, and never for log-probabilities, a sampler that is not plain greedy or a picker that
// does not say it is greedy.
package scheduler

import (
	"context"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// countingArgmax is the CPU backend counting its Argmax calls.
type countingArgmax struct {
	*cpu.Backend
	calls int
}

func (c *countingArgmax) Argmax(dst, logits backend.Tensor) {
	c.calls++
	c.Backend.Argmax(dst, logits)
}

func loadCounting(t *testing.T, fixture string) (*model.Model, *countingArgmax) {
	t.Helper()
	b := &countingArgmax{Backend: cpu.New()}
	t.Cleanup(func() { b.Close() })
	m, err := model.Load(testutil.Fixture(t, fixture), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, b
}

// submitAll submits every request at once and waits for all of them.
func submitAll(t *testing.T, s *Scheduler, reqs []*Request) []*Result {
	t.Helper()
	var sts []*Stream
	for _, r := range reqs {
		st, err := s.Submit(r)
		if err != nil {
			t.Fatal(err)
		}
		sts = append(sts, st)
	}
	var out []*Result
	for i, st := range sts {
		_, _, res, ok := st.Wait(context.Background())
		if !ok || res.Err != nil {
			t.Fatalf("request %d: %v", i, res)
		}
		out = append(out, res)
	}
	return out
}

func TestPicksEqualLogits(t *testing.T) {
	for _, fixture := range []string{"trained/pycoder-12m", "models/tiny-qwen3", "models/tiny-llama3"} {
		t.Run(fixture, func(t *testing.T) {
			m, b := loadCounting(t, fixture)
			v := m.Config.VocabSize
			var prompts [][]int
			for k, n := range []int{40, 7, 23, 2, 60} {
				p := make([]int, n)
				for i := range p {
					p[i] = (i%9*131 + k*17 + 5) % v // repeating runs: prompt lookup finds drafts
				}
				prompts = append(prompts, p)
			}
			if fixture == "trained/pycoder-12m" {
				prompts[0] = bytesOf("def add(a, b):\n    return a + b\n\ndef sub(a, b):\n")
				prompts[2] = bytesOf("for i in range(10):\n    print(i)\nfor j in range(10):\n")
			}
			for _, c := range []Config{{Parallel: 1}, {Parallel: 4, PrefillChunk: 16}, {Parallel: 3, Draft: true, PrefillChunk: 32},
				{Parallel: 2, MaxRows: 3, Draft: true}, {Parallel: 3, DraftModel: m, DraftMax: 4}} {
				var results [2][]*Result
				var stats [2]Stats
				for i, noPicks := range []bool{true, false} {
					cfg := c
					cfg.NoPicks = noPicks
					s, err := New(m, cfg)
					if err != nil {
						t.Fatal(err)
					}
					var reqs []*Request
					for _, p := range prompts {
						reqs = append(reqs, &Request{Prompt: p, MaxTokens: 20, Picker: model.Greedy{}, TopLogprobs: -1, NoCache: true})
					}
					b.calls = 0
					results[i] = submitAll(t, s, reqs)
					if err := s.Close(context.Background()); err != nil {
						t.Fatal(err)
					}
					stats[i] = s.Stats()
					// Every Argmax is a picks call of the target's, or one of the draft model's (always picks).
					if c.DraftModel == nil && int64(b.calls) != stats[i].PickSteps {
						t.Errorf("%+v NoPicks %v: %d device argmax calls, %d picks steps", c, noPicks, b.calls, stats[i].PickSteps)
					}
				}
				if stats[0].PickSteps != 0 || stats[1].PickSteps == 0 || stats[1].PickSteps > stats[1].Steps {
					t.Errorf("%+v: picks steps %d of %d with NoPicks, %d of %d without", c, stats[0].PickSteps, stats[0].Steps,
						stats[1].PickSteps, stats[1].Steps)
				}
				accepted := 0
				for k := range prompts {
					off, on := results[0][k], results[1][k]
					if !slices.Equal(off.Generated, on.Generated) || off.Drafted != on.Drafted || off.Accepted != on.Accepted || off.Reason != on.Reason {
						t.Errorf("%+v: request %d: logits %v (%s, %d/%d drafts), picks %v (%s, %d/%d)", c, k, off.Generated, off.Reason,
							off.Accepted, off.Drafted, on.Generated, on.Reason, on.Accepted, on.Drafted)
					}
					if want := reference(t, m, prompts[k], 20); !slices.Equal(on.Generated, want[:len(on.Generated)]) {
						t.Errorf("%+v: request %d: picks %v, Generate alone %v", c, k, on.Generated, want)
					}
					accepted += on.Accepted
				}
				if (c.Draft || c.DraftModel != nil) && accepted == 0 {
					t.Errorf("%+v: no draft accepted: the draft rows' picks are not under test", c)
				}
			}
		})
	}
}

// TestPicksOnlyWhenEligible: the picks are taken for a batch of plain greedy requests and for none that needs
// the logits; with a greedy request beside one asking for log-probabilities, only the calls without the latter's
// rows take them, and both requests still generate what they generate alone.
func TestPicksOnlyWhenEligible(t *testing.T) {
	m, b := loadCounting(t, "trained/pycoder-12m")
	prompts := [][]int{bytesOf("import os\n"), bytesOf("class Stack:\n    def __init__(self):\n")}
	mk := func(p sample.Params) model.Picker {
		s, err := sample.New(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	type req struct {
		picker model.Picker
		top    int
		n      int
	}
	for _, c := range []struct {
		name string
		reqs []req
		all  bool // every call takes the picks; otherwise none does
	}{
		{"model.Greedy", []req{{model.Greedy{}, -1, 12}, {model.Greedy{}, -1, 12}}, true},
		{"greedy sampler", []req{{mk(sample.Params{}), -1, 12}, {mk(sample.Params{RepetitionPenalty: 1}), -1, 12}}, true},
		{"log-probabilities", []req{{model.Greedy{}, 0, 12}, {model.Greedy{}, 2, 12}}, false},
		{"temperature", []req{{mk(sample.Params{Temp: 0.8, Seed: 3}), -1, 12}, {mk(sample.Params{Temp: 0.8, Seed: 4}), -1, 12}}, false},
		{"penalty", []req{{mk(sample.Params{FrequencyPenalty: 0.5}), -1, 12}, {mk(sample.Params{PresencePenalty: 0.5}), -1, 12}}, false},
		{"bias", []req{{mk(sample.Params{LogitBias: map[int]float32{32: 1}}), -1, 12}, {mk(sample.Params{LogitBias: map[int]float32{32: 1}}), -1, 12}}, false},
		{"a picker that does not say", []req{{greedy{}, -1, 12}, {greedy{}, -1, 12}}, false},
		{"mixed", []req{{model.Greedy{}, -1, 16}, {model.Greedy{}, 1, 4}}, false},
	} {
		s, err := New(m, Config{Parallel: 2, Draft: true})
		if err != nil {
			t.Fatal(err)
		}
		var reqs []*Request
		for k, r := range c.reqs {
			reqs = append(reqs, &Request{Prompt: prompts[k], MaxTokens: r.n, Picker: r.picker, TopLogprobs: r.top, NoCache: true})
		}
		b.calls = 0
		res := submitAll(t, s, reqs)
		if err := s.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		switch {
		case int64(b.calls) != st.PickSteps:
			t.Errorf("%s: %d device argmax calls, %d picks steps", c.name, b.calls, st.PickSteps)
		case c.all && st.PickSteps != st.Steps, !c.all && c.name != "mixed" && st.PickSteps != 0:
			t.Errorf("%s: %d of %d steps took the picks", c.name, st.PickSteps, st.Steps)
		case c.name == "mixed" && (st.PickSteps == 0 || st.PickSteps == st.Steps):
			t.Errorf("mixed: %d of %d steps took the picks; want the greedy request's steps alone to", st.PickSteps, st.Steps)
		}
		if c.name == "mixed" || c.all {
			for k, r := range c.reqs {
				if want := reference(t, m, prompts[k], r.n); !slices.Equal(res[k].Generated, want) {
					t.Errorf("%s: request %d generated %v, alone %v", c.name, k, res[k].Generated, want)
				}
			}
		}
	}
}
