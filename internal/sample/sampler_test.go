// Tests of the Sampler: parameter validation, the processors against a literal transcription of mlx-lm's
// gather/scatter code and hand-computed rows, the kept set of the filters against a full-sort reference, and the
// draw against exact distributions with chi-square bounds (fixed seeds).
package sample

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	good := []Params{
		{},
		{Temp: 0.7, TopP: 0.9, MinP: 0.05, TopK: 40, RepetitionPenalty: 1.1, RepetitionContextSize: 64,
			PresencePenalty: -0.5, FrequencyPenalty: 1, LogitBias: map[int]float32{3: float32(math.Inf(-1))},
			LogitsRounding: F16},
		{Temp: 1, TopP: 1, MinP: 1},
	}
	for i, p := range good {
		if err := p.Validate(); err != nil {
			t.Errorf("good params %d: %v", i, err)
		}
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	bad := []struct {
		p    Params
		word string // a word the message must contain, naming the field
	}{
		{Params{Temp: -1}, "temp"},
		{Params{Temp: inf}, "temp"},
		{Params{Temp: nan}, "temp"},
		{Params{TopP: -0.1}, "top-p"},
		{Params{TopP: 1.5}, "top-p"},
		{Params{TopP: nan}, "top-p"},
		{Params{MinP: 2}, "min-p"},
		{Params{MinP: -0.01}, "min-p"},
		{Params{TopK: -1}, "top-k"},
		{Params{RepetitionPenalty: -1}, "repetition-penalty"},
		{Params{RepetitionContextSize: -5}, "repetition-context-size"},
		{Params{PresencePenalty: nan}, "presence"},
		{Params{FrequencyPenalty: inf}, "frequency"},
		{Params{LogitBias: map[int]float32{-2: 1}}, "token -2"},
		{Params{LogitBias: map[int]float32{4: nan}}, "NaN"},
		{Params{LogitBias: map[int]float32{4: inf}}, "+Inf"},
		{Params{LogitsRounding: 9}, "rounding"},
	}
	for _, c := range bad {
		err := c.p.Validate()
		var pe *ParamError
		if !errors.Is(err, ErrInvalidParams) || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), pe.Param+" ") ||
			!strings.Contains(err.Error(), c.word) {
			t.Errorf("%+v: Validate = %v, want a *ParamError naming %q", c.p, err, c.word)
		}
		if strings.Contains(err.Error(), "sample") {
			t.Errorf("%+v: %q names the package", c.p, err)
		}
		if s, err := New(c.p); s != nil || !errors.Is(err, ErrInvalidParams) {
			t.Errorf("%+v: New = %v, %v", c.p, s, err)
		}
	}
	// Several bad fields are all reported.
	err := Params{Temp: -1, TopK: -3}.Validate()
	if !strings.Contains(err.Error(), "temp") || !strings.Contains(err.Error(), "top-k") {
		t.Errorf("joined error %q misses a field", err)
	}
}

func mustNew(t testing.TB, p Params) *Sampler {
	t.Helper()
	s, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProcessorsHandCase(t *testing.T) {
	p := Params{RepetitionPenalty: 2, PresencePenalty: 0.5, FrequencyPenalty: 0.25,
		LogitBias: map[int]float32{4: -1, 2: 0.5}}
	history := []int{0, 1, 1, 3, 4, 4, 4}
	// token 0: 2 /2 −0.5 −0.25 = 0.25; token 1: −2 ·2 −0.5 −2·0.25 = −5; token 2: 1 +0.5 = 1.5 (not seen);
	// token 3: 0.5 /2 −0.5 −0.25 = −0.5; token 4: 3 −1 = 2, /2 −0.5 −3·0.25 = −0.25.
	logits := []float32{2, -2, 1, 0.5, 3}
	id, err := mustNew(t, p).Sample(logits, history, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{0.25, -5, 1.5, -0.5, -0.25}; !slices.Equal(logits, want) || id != 2 {
		t.Fatalf("processed %v id %d, want %v id 2", logits, id, want)
	}
	// A window of 3 sees only the three 4s: token 4 becomes (3−1)/2 −0.5 −0.75 = −0.25, the rest keep their bias.
	p.RepetitionContextSize = 3
	logits = []float32{2, -2, 1, 0.5, 3}
	id, err = mustNew(t, p).Sample(logits, history, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{2, -2, 1.5, 0.5, -0.25}; !slices.Equal(logits, want) || id != 0 {
		t.Fatalf("window 3: processed %v id %d, want %v id 0", logits, id, want)
	}
}

// refProcess transcribes mlx-lm's processors: the bias add over the row, then per penalty a gather of the window's
// logits, the update, and a scatter back (duplicates write the same value), except the frequency penalty's
// accumulating .at[].subtract, one subtraction per occurrence.
func refProcess(logits []float32, history []int, p Params) []float32 {
	out := slices.Clone(logits)
	for id, b := range p.LogitBias {
		out[id] += b
	}
	ctx := p.RepetitionContextSize
	if ctx == 0 {
		ctx = 20
	}
	tokens := history[max(0, len(history)-ctx):]
	if len(tokens) == 0 {
		return out
	}
	gatherScatter := func(f func(float32) float32) {
		sel := make([]float32, len(tokens))
		for k, t := range tokens {
			sel[k] = f(out[t])
		}
		for k, t := range tokens {
			out[t] = sel[k]
		}
	}
	if p.RepetitionPenalty != 0 {
		gatherScatter(func(l float32) float32 {
			if l < 0 {
				return l * p.RepetitionPenalty
			}
			return l / p.RepetitionPenalty
		})
	}
	if p.PresencePenalty != 0 {
		gatherScatter(func(l float32) float32 { return l - p.PresencePenalty })
	}
	if p.FrequencyPenalty != 0 {
		for _, t := range tokens {
			out[t] -= p.FrequencyPenalty
		}
	}
	return out
}

func TestProcessorsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 400 {
		v := 1 + rng.IntN(64)
		p := Params{RepetitionContextSize: rng.IntN(30)}
		if rng.IntN(3) > 0 {
			p.RepetitionPenalty = float32(rng.Float64() * 2)
		}
		if rng.IntN(2) > 0 {
			p.PresencePenalty = float32(rng.NormFloat64())
		}
		if rng.IntN(2) > 0 {
			p.FrequencyPenalty = float32(rng.NormFloat64())
		}
		if rng.IntN(2) > 0 {
			p.LogitBias = map[int]float32{}
			for range 1 + rng.IntN(5) {
				p.LogitBias[rng.IntN(v)] = float32(rng.NormFloat64() * 3)
			}
		}
		history := make([]int, rng.IntN(60))
		for i := range history {
			history[i] = rng.IntN(min(v, 8)) // small range: plenty of repeats
		}
		logits := make([]float32, v)
		for i := range logits {
			logits[i] = float32(rng.NormFloat64() * 4)
		}
		want := refProcess(logits, history, p)
		if _, err := mustNew(t, p).Sample(logits, history, nil); err != nil {
			t.Fatal(err)
		}
		for i := range logits {
			if math.Float32bits(logits[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d %+v history %v: token %d = %g, want %g", trial, p, history, i, logits[i], want[i])
			}
		}
	}
}

// refKeep is the kept set by full sort and mlx-lm's own formulas: top-k by rank, top-p as "ascending cumulative
// probability > 1 − TopP", min-p as "logprob ≥ max logprob + log MinP". NaN logits count as -Inf; -Inf tokens
// are never kept.
func refKeep(logits []float32, p Params) map[int]bool {
	v := len(logits)
	ls := make([]float64, v)
	ids := make([]int, 0, v)
	for i, l := range logits {
		ls[i] = float64(l)
		if l != l {
			ls[i] = math.Inf(-1)
		}
		if !math.IsInf(ls[i], -1) {
			ids = append(ids, i)
		}
	}
	sort.Slice(ids, func(a, b int) bool {
		if ls[ids[a]] != ls[ids[b]] {
			return ls[ids[a]] > ls[ids[b]]
		}
		return ids[a] < ids[b]
	})
	keep := map[int]bool{}
	if len(ids) == 0 {
		return keep
	}
	m := ls[ids[0]]
	z := 0.0
	for _, i := range ids {
		z += math.Exp(ls[i] - m)
	}
	for r, i := range ids {
		keep[i] = true
		if p.TopK > 0 && r >= p.TopK {
			keep[i] = false
		}
		if p.MinP > 0 && ls[i] < m+math.Log(float64(p.MinP)) {
			keep[i] = false
		}
	}
	if p.TopP > 0 && p.TopP < 1 {
		cum := 0.0
		for r := len(ids) - 1; r >= 0; r-- { // ascending probability
			cum += math.Exp(ls[ids[r]]-m) / z
			if !(cum > 1-float64(p.TopP)) {
				keep[ids[r]] = false
			}
		}
	}
	for i, k := range keep {
		if !k {
			delete(keep, i)
		}
	}
	return keep
}

func TestKeptSetMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := map[int]int{} // kept-set sizes seen, to show the sweep is not trivial
	for trial := range 1500 {
		v := 1 + rng.IntN(3000)
		if trial%7 == 0 {
			v = 1 + rng.IntN(12) // short rows: fewer finite tokens than top-k
		}
		scale := []float64{0.001, 0.3, 1, 3, 20}[rng.IntN(5)]
		logits := make([]float32, v)
		for i := range logits {
			logits[i] = float32(scale * rng.NormFloat64())
			if trial%4 == 0 {
				logits[i] = float32(math.Round(float64(logits[i])*2) / 2) // many equal logits: rank by id
			}
		}
		if trial%5 == 0 || trial%7 == 0 {
			for range 1 + rng.IntN(20) {
				logits[rng.IntN(v)] = float32([]float64{math.Inf(-1), math.NaN()}[rng.IntN(2)])
			}
		}
		p := Params{Temp: 0.8}
		for p.TopK == 0 && p.TopP == 0 && p.MinP == 0 {
			if rng.IntN(2) == 0 {
				p.TopK = 1 + rng.IntN([]int{100, 3000}[rng.IntN(2)]) // heap (≤ 1024) and gather+quickselect paths
			}
			if rng.IntN(2) == 0 {
				p.TopP = float32(rng.Float64())
			}
			if rng.IntN(3) == 0 {
				p.MinP = float32(math.Pow(10, -4*rng.Float64()))
			}
		}
		want := refKeep(logits, p)
		if len(want) == 0 {
			continue // all -Inf/NaN: covered by the error test
		}
		s := mustNew(t, p)
		row := slices.Clone(logits)
		kept, _, all, err := s.keep(row)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]bool{}
		if all {
			for i, l := range row {
				if !math.IsInf(float64(l), -1) {
					got[i] = true
				}
			}
		}
		for _, c := range kept {
			if got[int(c.id)] {
				t.Fatalf("trial %d: token %d kept twice", trial, c.id)
			}
			got[int(c.id)] = true
		}
		if len(got) != len(want) {
			t.Fatalf("trial %d (%+v, vocab %d, scale %g): kept %d tokens, want %d", trial, p, v, scale, len(got), len(want))
		}
		for i := range want {
			if !got[i] {
				t.Fatalf("trial %d (%+v): token %d should be kept", trial, p, i)
			}
		}
		sizes[min(len(want), 100)/10]++
	}
	if len(sizes) < 5 {
		t.Fatalf("kept-set sizes cover only buckets %v", sizes)
	}
}

// chi2 is Pearson's statistic of counts against probabilities probs (which sum to 1 over the counted ids). An id
// counted but absent from probs is an immediate failure.
func chi2(t *testing.T, counts map[int]int, probs map[int]float64, n int) float64 {
	t.Helper()
	for id := range counts {
		if probs[id] == 0 {
			t.Fatalf("drew token %d, which has probability 0", id)
		}
	}
	stat := 0.0
	for id, p := range probs {
		e := p * float64(n)
		d := float64(counts[id]) - e
		stat += d * d / e
	}
	return stat
}

// chi2Bound is a generous acceptance bound for df degrees of freedom: about seven standard deviations above the
// mean, far beyond chance at a fixed seed, and far below what a wrong distribution scores at these draw counts.
func chi2Bound(df int) float64 { return float64(df) + 7*math.Sqrt(2*float64(df)) + 10 }

func draw(t *testing.T, p Params, logits []float32, mask []int32, n int) map[int]int {
	t.Helper()
	s := mustNew(t, p)
	counts := map[int]int{}
	row := make([]float32, len(logits))
	for range n {
		copy(row, logits)
		id, err := s.Sample(row, nil, mask)
		if err != nil {
			t.Fatal(err)
		}
		counts[id]++
	}
	return counts
}

func TestDrawHandDistributions(t *testing.T) {
	ln := func(x float64) float32 { return float32(math.Log(x)) }
	const n = 100000
	cases := []struct {
		name  string
		p     Params
		row   []float32
		mask  []int32
		want  map[int]float64
		wrong map[int]float64 // a plausible wrong answer the test must reject
	}{
		{
			// p = .5/.3/.2. Top-p 0.6 on the temperature-1 distribution keeps {0, 1}; temperature 0.5 then squares
			// the weights: .25 : .09. Applying the temperature first would give .658/.237/.105 and keep {0} only.
			name: "top-p before temperature",
			p:    Params{Temp: 0.5, TopP: 0.6, Seed: 1},
			row:  []float32{ln(.5), ln(.3), ln(.2)},
			want: map[int]float64{0: .25 / .34, 1: .09 / .34},
			// The temperature-1 weights of the same two tokens: .5 : .3.
			wrong: map[int]float64{0: .625, 1: .375},
		},
		{
			name:  "min-p",
			p:     Params{Temp: 1, MinP: 0.5, Seed: 2},
			row:   []float32{ln(.2), ln(.5), ln(.3), ln(.01)}, // keeps p ≥ .25: tokens 1 and 2
			want:  map[int]float64{1: .625, 2: .375},
			wrong: map[int]float64{0: .2, 1: .5, 2: .3},
		},
		{
			name:  "top-k among equal logits keeps the lowest ids",
			p:     Params{Temp: 3, TopK: 3, Seed: 3},
			row:   []float32{-1, 4, 4, 0, 4, 4, 4},
			want:  map[int]float64{1: 1. / 3, 2: 1. / 3, 4: 1. / 3},
			wrong: map[int]float64{1: .2, 2: .2, 4: .2, 5: .2, 6: .2},
		},
		{
			name:  "no filter, temperature 2",
			p:     Params{Temp: 2, Seed: 4},
			row:   []float32{ln(.64), ln(.16), ln(.04), ln(.16)}, // square roots: .8 .4 .2 .4 over 1.8
			want:  map[int]float64{0: .8 / 1.8, 1: .4 / 1.8, 2: .2 / 1.8, 3: .4 / 1.8},
			wrong: map[int]float64{0: .64, 1: .16, 2: .04, 3: .16},
		},
		{
			name: "mask then top-p: the mask's -Inf tokens have no mass",
			// Token 0 rejected leaves .3/.2/.1, i.e. 1/2, 1/3, 1/6. Top-p 0.6: the mass before token 2 is 1/2 < 0.6,
			// before token 3 it is 5/6, so {1, 2} stay with weights .3 : .2. Measuring the mass against the unmasked
			// total (or skipping top-p) would keep token 3 too.
			p:     Params{Temp: 1, TopP: 0.6, Seed: 5},
			row:   []float32{ln(.4), ln(.3), ln(.2), ln(.1)},
			mask:  []int32{0b1110},
			want:  map[int]float64{1: .6, 2: .4},
			wrong: map[int]float64{1: .3 / .6, 2: .2 / .6, 3: .1 / .6},
		},
		{
			name:  "+Inf logits share the draw",
			p:     Params{Temp: 0.9, TopK: 3, Seed: 6}, // the finite 7 no longer counts
			row:   []float32{5, float32(math.Inf(1)), 7, float32(math.Inf(1)), float32(math.NaN())},
			want:  map[int]float64{1: .5, 3: .5},
			wrong: map[int]float64{1: .6, 3: .4},
		},
	}
	for _, c := range cases {
		counts := draw(t, c.p, c.row, c.mask, n)
		df := len(c.want) - 1
		if stat := chi2(t, counts, c.want, n); stat > chi2Bound(df) {
			t.Errorf("%s: chi² %.1f > %.1f for counts %v", c.name, stat, chi2Bound(df), counts)
		}
		// The same counts must reject the wrong distribution, or this check could not fail.
		stat := 0.0
		for id, p := range c.wrong {
			e := p * n
			d := float64(counts[id]) - e
			stat += d * d / e
		}
		if stat < 10*chi2Bound(len(c.wrong)-1) {
			t.Errorf("%s: the wrong distribution scores only chi² %.1f", c.name, stat)
		}
	}
}
