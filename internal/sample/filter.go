// Temperature sampling behind mlx-lm's top-k, top-p and min-p filters, without sorting the vocabulary: the kept
// tokens are always a prefix of the vocabulary sorted by logit, so only a thresholded candidate set is selected
// and sorted.
package sample

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// cand is one candidate token of the filtered path.
type cand struct {
	l  float32
	id int32
}

// better is the strict total order the filters rank by: higher logit first, lower id first among equal logits.
func better(a, b cand) bool { return a.l > b.l || (a.l == b.l && a.id < b.id) }

func cmpCand(a, b cand) int {
	if c := cmp.Compare(b.l, a.l); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// Candidate gathering starts with the tokens within firstGap nats of the top logit and widens by gapGrowth until
// the kept prefix is surely inside; past lastGap it takes every token. e^-8 ≈ 3·10⁻⁴ relative probability is
// already below what top-p 0.9–0.95 usually reaches on a language model's logits.
const (
	firstGap  = 8.0
	gapGrowth = 4.0
	lastGap   = 600.0
)

// sampleFiltered draws a token from logits (the processed, masked row; NaN logits count as -Inf).
//
// Semantics (mlx-lm's make_sampler): every filter is measured on the temperature-1 distribution p_i ∝ exp(l_i) of
// the whole row, none renormalizes for another, so they commute (mlx-lm runs top-p, min-p, top-k; the result is
// the same prefix in any order). Rank tokens by logit, lowest id first among equal logits; then keep rank r iff
//   - top-k (0 < TopK < vocab): r < TopK;
//   - top-p (0 < TopP < 1): the mass of ranks before r is < TopP (so the token that reaches TopP is kept; mlx-lm
//     writes this as "ascending cumulative sum > 1 − TopP");
//   - min-p (MinP > 0): l_r − l_max ≥ log MinP;
//
// and the top token always. The draw then takes token r with probability ∝ exp((l_r − l_max)/Temp) over the kept
// ranks, by inverse CDF from one Float64 of the seeded PCG generator. When some logit is +Inf the row is the
// limit of that softmax: the +Inf tokens, equally likely.
func (s *Sampler) sampleFiltered(logits []float32) (int, error) {
	kept, mf, all, err := s.keep(logits)
	if err != nil {
		return 0, err
	}
	invT := 1 / float64(s.p.Temp)
	if all {
		return s.drawAll(logits, mf, invT), nil
	}
	return s.drawRanked(kept, mf, invT), nil
}

// keep applies the filters. It returns the kept candidates sorted by rank and the top logit, or all = true when
// no filter is active and every token stays (then nothing was gathered or sorted). It rewrites NaN logits to -Inf
// and, when some logit is +Inf, the row to 0 (the +Inf tokens) and -Inf (the rest).
func (s *Sampler) keep(logits []float32) (kept []cand, mf float64, all bool, err error) {
	ninf := float32(math.Inf(-1))
	m := ninf
	for i, l := range logits {
		if l != l {
			logits[i] = ninf // NaN: no probability
			continue
		}
		m = max(m, l)
	}
	if m == ninf {
		return nil, 0, false, fmt.Errorf("%w (%d tokens, all -Inf or NaN after processing)", ErrNoCandidate, len(logits))
	}
	if math.IsInf(float64(m), 1) {
		for i, l := range logits {
			if math.IsInf(float64(l), 1) {
				logits[i] = 0
			} else {
				logits[i] = ninf
			}
		}
		m = 0
	}
	mf = float64(m)
	v := len(logits)
	useK := s.p.TopK > 0 && s.p.TopK < v
	useP := s.p.TopP > 0 && s.p.TopP < 1
	useMin := s.p.MinP > 0
	if !useK && !useP && !useMin {
		return nil, mf, true, nil
	}

	// z1: the temperature-1 partition function, which top-p's mass is measured against.
	var pz float64
	if useP {
		z1 := 0.0
		for _, l := range logits {
			z1 += math.Exp(float64(l) - mf)
		}
		pz = float64(s.p.TopP) * z1
	}
	logMinP := math.Inf(-1)
	if useMin {
		logMinP = math.Log(float64(s.p.MinP))
	}

	// Gather C = {l − l_max ≥ cut}, a prefix of the ranking. It holds the kept prefix once one active filter ends
	// inside it: min-p's own cut, TopK members, or mass reaching TopP (or when C is every finite token).
	c := s.cands[:0]
	for gap := firstGap; ; gap *= gapGrowth {
		cut := -gap
		every := gap > lastGap
		if every {
			cut = math.Inf(-1)
		}
		byMinP := logMinP >= cut
		if byMinP {
			cut = logMinP
		}
		c = c[:0]
		mass := 0.0
		for i, l := range logits {
			d := float64(l) - mf
			if d >= cut && l != ninf {
				c = append(c, cand{l, int32(i)})
				if useP {
					mass += math.Exp(d)
				}
			}
		}
		if every || byMinP || (useK && len(c) >= s.p.TopK) || (useP && mass >= pz) {
			break
		}
	}
	s.cands = c

	if useK && len(c) > s.p.TopK {
		selectTop(c, s.p.TopK)
		c = c[:s.p.TopK]
	}
	slices.SortFunc(c, cmpCand)
	n := len(c)
	if useP {
		// Stop at the first rank whose predecessors already hold TopP of the mass. If rounding (C's mass was summed
		// in id order, this in rank order) leaves the sum a hair short at C's end, C is kept whole.
		cum := 0.0
		for r, x := range c {
			if r > 0 && cum >= pz {
				n = r
				break
			}
			cum += math.Exp(float64(x.l) - mf)
		}
	}
	return c[:n], mf, false, nil
}

// drawRanked draws one of the kept candidates with weight exp((l − l_max)·invT).
func (s *Sampler) drawRanked(c []cand, mf, invT float64) int {
	s.w = slices.Grow(s.w[:0], len(c))[:len(c)]
	total := 0.0
	for r, x := range c {
		s.w[r] = math.Exp((float64(x.l) - mf) * invT)
		total += s.w[r]
	}
	return int(c[pick(s.w, total, s.rng.Float64())].id)
}

// drawAll draws from the whole row with weight exp((l − l_max)·invT); -Inf logits weigh 0.
func (s *Sampler) drawAll(logits []float32, mf, invT float64) int {
	s.w = slices.Grow(s.w[:0], len(logits))[:len(logits)]
	total := 0.0
	for i, l := range logits {
		s.w[i] = math.Exp((float64(l) - mf) * invT)
		total += s.w[i]
	}
	return pick(s.w, total, s.rng.Float64())
}

// pick returns the index where the running sum of w first exceeds u·total (u in [0, 1)). If rounding leaves the
// running sum short of that, the last positive weight is taken, so a zero-weight index is never returned.
func pick(w []float64, total, u float64) int {
	target := u * total
	acc := 0.0
	last := 0
	for i, x := range w {
		if x == 0 {
			continue
		}
		acc += x
		last = i
		if acc > target {
			return i
		}
	}
	return last
}

// selectTop rearranges c so that c[:k] holds its k best entries under better (in no particular order), by
// quickselect with a median-of-three pivot. better is a strict total order (ids are distinct), so the k best are
// unique whatever the pivots.
func selectTop(c []cand, k int) {
	lo, hi := 0, len(c)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Order c[lo], c[mid], c[hi] best to worst, then park the median at hi as the pivot.
		if better(c[mid], c[lo]) {
			c[mid], c[lo] = c[lo], c[mid]
		}
		if better(c[hi], c[lo]) {
			c[hi], c[lo] = c[lo], c[hi]
		}
		if better(c[hi], c[mid]) {
			c[hi], c[mid] = c[mid], c[hi]
		}
		c[mid], c[hi] = c[hi], c[mid]
		p := c[hi]
		i := lo
		for j := lo; j < hi; j++ {
			if better(c[j], p) {
				c[i], c[j] = c[j], c[i]
				i++
			}
		}
		c[i], c[hi] = c[hi], c[i]
		// c[lo:i] beat the pivot, c[i] is the pivot, c[i+1:hi+1] lose to it.
		switch {
		case i == k-1 || i == k:
			return
		case i < k-1:
			lo = i + 1
		default:
			hi = i - 1
		}
	}
}
