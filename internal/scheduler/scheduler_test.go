// Tests of the scheduler on the CPU: batched generations equal model.Generate's one at a time (greedy, prompts of
// different lengths joining at different steps, with and without drafts, across slot counts); a prefix held by a
// slot or the prompt cache is reused and reported; a hybrid model reuses a state kept at a chunk boundary and
// still generates what it generates from scratch; cancellation frees the slot.
package scheduler

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

type greedy struct{}

func (greedy) Pick(l []float32, _ []int) (int, error) {
	return sample.GreedyNormalizedArgmax(l, sample.F32), nil
}

func load(t *testing.T, fixture string) *model.Model {
	t.Helper()
	dir := testutil.Fixture(t, fixture)
	b := cpu.New()
	t.Cleanup(func() { b.Close() })
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func bytesOf(s string) []int {
	var ids []int
	for _, c := range []byte(s) {
		ids = append(ids, int(c))
	}
	return ids
}

func reference(t *testing.T, m *model.Model, prompt []int, n int) []int {
	t.Helper()
	res, err := m.Generate(prompt, model.GenOptions{MaxTokens: n, Picker: greedy{}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Generated
}

func run(t *testing.T, s *Scheduler, prompt []int, n int) *Result {
	t.Helper()
	st, err := s.Submit(&Request{Prompt: prompt, MaxTokens: n, Picker: greedy{}, TopLogprobs: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, res, ok := st.Wait(ctx)
	if !ok {
		t.Fatal("no result in a minute")
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res
}

// runLogprobs is run with the top-3 log-probabilities of every token, and the prompt cache off when noCache.
func runLogprobs(t *testing.T, s *Scheduler, prompt []int, n int, noCache bool) ([]Token, *Result) {
	t.Helper()
	st, err := s.Submit(&Request{Prompt: prompt, MaxTokens: n, Picker: greedy{}, TopLogprobs: 3, NoCache: noCache})
	if err != nil {
		t.Fatal(err)
	}
	toks, _, res, ok := st.Wait(context.Background())
	if !ok || res.Err != nil {
		t.Fatalf("%v %v", ok, res)
	}
	return toks, res
}

func TestBatchedEqualsGenerate(t *testing.T) {
	m := load(t, "trained/pycoder-12m")
	prompts := [][]int{
		bytesOf("def add(a, b):\n    return a + b\n\ndef sub(a, b):\n"),
		bytesOf("import os\n"),
		bytesOf("class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n"),
		bytesOf("for i in range(10):\n    print(i)\nfor j in range(10):\n"),
		bytesOf("x = 1\n"),
	}
	const n = 24
	var want [][]int
	for _, p := range prompts {
		want = append(want, reference(t, m, p, n))
	}
	for _, c := range []Config{{Parallel: 1}, {Parallel: 4, PrefillChunk: 16}, {Parallel: 3, Draft: true, PrefillChunk: 32}, {Parallel: 2, MaxRows: 3, Draft: true}, {Parallel: 3, DraftModel: m, DraftMax: 4}} {
		s, err := New(m, c)
		if err != nil {
			t.Fatal(err)
		}
		var streams []*Stream
		for _, p := range prompts {
			st, err := s.Submit(&Request{Prompt: p, MaxTokens: n, Picker: greedy{}, TopLogprobs: -1})
			if err != nil {
				t.Fatal(err)
			}
			streams = append(streams, st)
		}
		drafted := 0
		for i, st := range streams {
			_, _, res, ok := st.Wait(context.Background())
			if !ok || res.Err != nil {
				t.Fatalf("%+v: request %d: %v", c, i, res)
			}
			if !slices.Equal(res.Generated, want[i]) {
				t.Errorf("%+v: request %d generated %v, alone %v", c, i, res.Generated, want[i])
			}
			drafted += res.Accepted
		}
		if (c.Draft || c.DraftModel != nil) && drafted == 0 {
			t.Errorf("%+v: no draft accepted", c)
		}
		if err := s.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPrefixReuse(t *testing.T) {
	m := load(t, "trained/pycoder-12m")
	s, err := New(m, Config{Parallel: 1, CacheBytes: 64 << 20, PrefillChunk: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	system := bytesOf("# utilities for strings\nimport re\n\ndef strip_all(xs):\n    return [x.strip() for x in xs]\n\n")
	a := append(slices.Clone(system), bytesOf("def upper_all(xs):\n")...)
	b := append(slices.Clone(system), bytesOf("def lower_all(xs):\n")...)
	other := bytesOf("while True:\n    pass\n")
	if r := run(t, s, a, 8); r.CachedTokens != 0 {
		t.Errorf("first request: %d cached tokens, want 0", r.CachedTokens)
	}
	// The one slot still holds a: b shares the system prompt and "def " with it, in place.
	r := run(t, s, b, 8)
	if shared := commonPrefix(a, b); r.CachedTokens != shared {
		t.Errorf("second request: %d cached tokens, want the %d shared", r.CachedTokens, shared)
	}
	if !slices.Equal(r.Generated, reference(t, m, b, 8)) {
		t.Errorf("from the cached prefix %v, from scratch %v", r.Generated, reference(t, m, b, 8))
	}
	// b overwrote what a left past the shared prefix, so a's whole context went to the prompt cache first; other
	// takes the slot (b's context goes there too), and a comes back from the cache: all of its prompt but the
	// last token, which runs for the first logits.
	run(t, s, other, 4)
	r = run(t, s, a, 8)
	if r.CachedTokens != len(a)-1 {
		t.Errorf("after eviction from the slot: %d cached tokens, want %d from the prompt cache", r.CachedTokens, len(a)-1)
	}
	if !slices.Equal(r.Generated, reference(t, m, a, 8)) {
		t.Errorf("from the prompt cache %v, from scratch %v", r.Generated, reference(t, m, a, 8))
	}
	st := s.Stats()
	if st.CacheEntries == 0 || st.CacheHits < 2 {
		t.Errorf("stats %+v: want entries and two hits", st)
	}
}

func TestHybridStateAtChunkBoundary(t *testing.T) {
	m := load(t, "models/tiny-qwen3_5")
	s, err := New(m, Config{Parallel: 1, CacheBytes: 64 << 20, PrefillChunk: 16, CtxSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	system := make([]int, 40)
	for i := range system {
		system[i] = (i*37 + 11) % m.Config.VocabSize
	}
	a := append(slices.Clone(system), 5, 6, 7)
	b := append(slices.Clone(system), 9, 8)
	other := []int{3, 1, 4, 1, 5}
	run(t, s, a, 4)
	run(t, s, other, 4) // a's slot is reused: its chunk-boundary state (32 tokens) is in the prompt cache
	r := run(t, s, b, 6)
	if r.CachedTokens != 32 {
		t.Errorf("hybrid: %d cached tokens, want 32 (the last 16-token boundary inside the shared 40)", r.CachedTokens)
	}
	if want := reference(t, m, b, 6); !slices.Equal(r.Generated, want) {
		t.Errorf("hybrid from a kept state %v, from scratch %v", r.Generated, want)
	}
}

func TestCancelFreesTheSlot(t *testing.T) {
	m := load(t, "trained/pycoder-12m")
	s, err := New(m, Config{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	a0 := s.Stats().Steps
	st, err := s.Submit(&Request{Ctx: ctx, Prompt: bytesOf("def f():\n"), MaxTokens: 1000, Picker: greedy{}, TopLogprobs: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Next(context.Background()); !ok {
		t.Fatal("no first event")
	}
	cancel()
	s0 := s.Stats().Steps // the request has run in steps a0..s0 (one token each); at most the step under way follows
	// The queued request behind it gets the one slot.
	r := run(t, s, bytesOf("x = 2\n"), 4)
	if len(r.Generated) != 4 {
		t.Errorf("after the cancel: %v", r.Generated)
	}
	_, _, res, _ := st.Wait(context.Background())
	if res.Reason != ReasonCancelled || len(res.Generated) > int(s0-a0)+1 {
		t.Errorf("cancelled request ended %q after %d tokens; it had run %d steps when cancelled: want its slot freed at the next step",
			res.Reason, len(res.Generated), s0-a0)
	}
}

// TestRingModelReuse: a model with sliding-window rings (tiny-gemma2, window 8) cannot rewind, so a slot's context
// is reused only whole (a follow-up turn that extends it), the prompt cache copies rings back whole, and both give
// what generating from scratch gives; drafts are off for it.
func TestRingModelReuse(t *testing.T) {
	m := load(t, "models/tiny-gemma2")
	s, err := New(m, Config{Parallel: 1, CtxSize: 96, CacheBytes: 16 << 20, Draft: true, MinCacheTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if s.Config().Draft {
		t.Error("drafts stayed on for a model with rings")
	}
	a := []int{5, 9, 200, 17, 33, 80, 4, 61, 99, 12, 7, 300, 41}
	ra := run(t, s, a, 6)
	follow := append(append(slices.Clone(a), ra.Generated[:5]...), 77, 78, 79) // a's context (its last id never fed) and a new turn
	r := run(t, s, follow, 6)
	if r.CachedTokens != len(a)+5 {
		t.Errorf("follow-up: %d cached tokens, want the %d the slot held", r.CachedTokens, len(a)+5)
	}
	if want := reference(t, m, follow, 6); !slices.Equal(r.Generated, want) {
		t.Errorf("follow-up from the slot %v, from scratch %v", r.Generated, want)
	}
	// A prompt sharing only part of the slot's context cannot use it (that would rewind the rings).
	part := append(slices.Clone(a[:10]), 1, 2, 3)
	if r := run(t, s, part, 4); r.CachedTokens != 0 {
		t.Errorf("partial prefix on a ring model: %d cached tokens, want 0", r.CachedTokens)
	}
	// The slot now holds part; follow's context went to the prompt cache and comes back from there whole.
	fed := append(slices.Clone(follow), r.Generated[:5]...)
	again := append(slices.Clone(fed), 600, 601, 602)
	toks, r := runLogprobs(t, s, again, 6, false)
	fresh, _ := runLogprobs(t, s, again, 6, true)
	for i := range toks { // the tiny model's greedy ids repeat; its log-probabilities show the cached context is right
		if d := toks[i].Logprob - fresh[i].Logprob; d > 1e-4 || d < -1e-4 || toks[i].Top[2].ID != fresh[i].Top[2].ID {
			t.Errorf("token %d from the prompt cache %+v, from scratch %+v", i, toks[i], fresh[i])
		}
	}
	if want := reference(t, m, again, 6); r.CachedTokens != len(fed) || !slices.Equal(r.Generated, want) {
		t.Errorf("from the prompt cache: %d cached (want %d), %v; from scratch %v", r.CachedTokens, len(fed), r.Generated, want)
	}
}
