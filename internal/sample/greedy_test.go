// Tests of GreedyNormalizedArgmax against references built another way: rounding by nearest-value search over
// every f16 and bf16 value (package dtype tests the rounding itself), and a literal emulation of the seed's kernel
// loop.
package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype/dtypetest"
)

// refRound rounds a logit to r with the reference rounders.
func refRound(x float64, r Rounding) float64 {
	switch r {
	case BF16:
		return dtypetest.NearestBF16(x)
	case F16:
		return dtypetest.NearestF16(x)
	}
	return float64(float32(x))
}

// refGreedy emulates the seed's normalized-argmax literally: logsumexp (summed here smallest term first) as an f32
// rounded to the dtype, one subtraction per token in the dtype's arithmetic, NaN → -Inf, and the better() reduction from
// best = -Inf, id = 2^32−1. Degenerate rows fall out of IEEE arithmetic instead of being special-cased.
func refGreedy(logits []float32, r Rounding) int {
	xs := make([]float64, len(logits))
	m := math.Inf(-1)
	nan := false
	for i, l := range logits {
		xs[i] = refRound(float64(l), r)
		nan = nan || math.IsNaN(xs[i])
		m = max(m, xs[i])
	}
	var lse float64
	switch {
	case nan:
		lse = math.NaN()
	case math.IsInf(m, 0):
		lse = m
	default:
		terms := make([]float64, len(xs))
		for i, x := range xs {
			terms[i] = math.Exp(x - m)
		}
		slices.Sort(terms)
		s := 0.0
		for _, e := range terms {
			s += e
		}
		lse = refRound(float64(float32(m+math.Log(s))), r)
	}
	best, bestID := math.Inf(-1), uint32(math.MaxUint32)
	for i, x := range xs {
		var v float64
		switch r {
		case BF16:
			v = dtypetest.NearestBF16(float64(float32(x) - float32(lse)))
		case F16:
			v = dtypetest.NearestF16(x - lse)
		default:
			v = float64(float32(x) - float32(lse))
		}
		if math.IsNaN(v) {
			v = math.Inf(-1)
		}
		if v > best || (v == best && uint32(i) < bestID) {
			best, bestID = v, uint32(i)
		}
	}
	return int(bestID)
}

func TestGreedyHandCases(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	// A tie that only bf16 creates: 150000 zero logits put the logsumexp near 11.918. In bf16 it is 11.9375 and
	// 0.9921875 − 11.9375 = −10.9453125 rounds to −10.9375 = 1 − 11.9375: tokens 0 and 1 tie, the lower id wins.
	// In f16 the logsumexp is 11.921875 and the scores −10.9296875 and −10.921875 stay apart; f32 keeps them apart.
	wide := make([]float32, 150002)
	wide[0], wide[1] = 0.9921875, 1
	cases := []struct {
		name   string
		logits []float32
		r      Rounding
		want   int
	}{
		{"bf16 tie", wide, BF16, 0},
		{"f16 no tie", wide, F16, 1},
		{"f32 no tie", wide, F32, 1},
		{"plain max", []float32{0.1, 2, -3, 1.5}, F32, 1},
		{"equal logits lowest id", []float32{-1, 5, 5, 5}, F32, 1},
		{"NaN row picks 0", []float32{1, 2, nan, 9}, F32, 0},
		{"+Inf row picks 0", []float32{1, 2, inf, 9}, BF16, 0},
		{"all -Inf picks 0", []float32{-inf, -inf, -inf}, F16, 0},
		{"-Inf entries lose", []float32{-inf, -inf, -7, -inf}, F32, 2},
		{"a logit past f16's range is +Inf in f16", []float32{1, 70000, 2}, F16, 0},
		{"the same row in f32", []float32{1, 70000, 2}, F32, 1},
		{"f16 fits", []float32{60000, 65504}, F16, 1},
		{"empty", nil, F32, 0},
	}
	for _, c := range cases {
		if got := GreedyNormalizedArgmax(c.logits, c.r); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
		if c.logits != nil {
			if ref := refGreedy(c.logits, c.r); ref != c.want {
				t.Errorf("%s: the reference says %d, the hand value %d", c.name, ref, c.want)
			}
		}
	}
}

func TestGreedyMatchesKernelEmulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	differ := 0   // rows where rounding changed the winner: proves the sweep reaches rounding ties
	shortcut := 0 // rows settled without the logsumexp: both paths must be exercised
	for trial := range 1500 {
		v := 1 + rng.IntN(2000)
		logits := make([]float32, v)
		scale := []float64{0.01, 1, 3, 30, 300}[rng.IntN(5)]
		shift := rng.NormFloat64() * 20
		for i := range logits {
			logits[i] = float32(shift + scale*rng.NormFloat64())
		}
		if trial%3 == 0 {
			// Crowd the top: several logits a few bf16 ulps apart at random ids.
			top := float32(shift + 4*scale)
			for range 1 + rng.IntN(6) {
				logits[rng.IntN(v)] = top - float32(rng.IntN(4))*top/128
			}
		}
		if trial%17 == 0 {
			logits[rng.IntN(v)] = float32([]float64{math.Inf(-1), math.Inf(1), math.NaN()}[rng.IntN(3)])
		}
		for _, r := range []Rounding{F32, BF16, F16} {
			if w, ok := greedyCandidate(logits, r); ok {
				if _, ok := greedyWithoutL(logits, r, round32(logits[w], r), w); ok {
					shortcut++
				}
			}
			got, want := GreedyNormalizedArgmax(logits, r), refGreedy(logits, r)
			if got != want {
				t.Fatalf("trial %d (%v, vocab %d, scale %g): got %d (logit %g), want %d (logit %g)",
					trial, r, v, scale, got, logits[got], want, logits[want])
			}
		}
		if GreedyNormalizedArgmax(logits, BF16) != GreedyNormalizedArgmax(logits, F32) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("no row had a bf16 winner different from the f32 one; the sweep does not reach rounding ties")
	}
	if shortcut == 0 || shortcut == 3*1500 {
		t.Fatalf("%d of %d rows took the shortcut; both paths must be exercised", shortcut, 3*1500)
	}
	t.Logf("%d rows where bf16 rounding changed the winner, %d of %d settled without the logsumexp",
		differ, shortcut, 3*1500)
}

// greedyCandidate is the first id holding the largest rounded logit, if the row is finite.
func greedyCandidate(logits []float32, r Rounding) (int, bool) {
	w, m := 0, math.Inf(-1)
	for i, l := range logits {
		x := float64(round32(l, r))
		if math.IsNaN(x) || math.IsInf(x, 1) {
			return 0, false
		}
		if x > m {
			w, m = i, x
		}
	}
	return w, !math.IsInf(m, -1)
}

// TestGreedyNearTheShortcutBound puts a lower-id token at a sweep of distances below the top one, through the
// region where rounding makes them tie, at magnitudes where L's own ulp is large.
func TestGreedyNearTheShortcutBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 23))
	for _, r := range []Rounding{F32, BF16, F16} {
		for _, top := range []float64{0.5, 7, -300, 1000, 30000, 65000} {
			for _, v := range []int{2, 100, 5000} {
				for step := range 60 {
					logits := make([]float32, v)
					for i := range logits {
						logits[i] = float32(top - 20 - 10*rng.Float64())
					}
					w := 1 + rng.IntN(v-1)
					logits[w] = float32(top)
					// Distances from 0 to ~3 bf16 ulps at |top|, plus log V's share.
					logits[rng.IntN(w)] = float32(top - float64(step)/20*math.Max(1, math.Abs(top))/128)
					if got, want := GreedyNormalizedArgmax(logits, r), refGreedy(logits, r); got != want {
						t.Fatalf("%v top %g vocab %d step %d: got %d, want %d", r, top, v, step, got, want)
					}
				}
			}
		}
	}
}
