// Temperature sampling behind mlx-lm's top-k, top-p and min-p filters, without sorting the vocabulary. The kept
// tokens are always a prefix of the vocabulary ranked by logit, so the filters need only partial selection: a
// bounded heap for a small top-k, a threshold scan for the rest, and quickselect steps (by rank for top-k, by
// probability mass for top-p) that never order more than a handful of tokens.
package sample

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// cand is one candidate token of the filtered path: its logit, id and temperature-1 weight e = exp(l − l_max)
// (filled in only where top-p needs it).
type cand struct {
	l  float32
	id int32
	e  float64
}

// usesTopP is whether top-p filters (0 < TopP < 1); keep then fills each candidate's e.
func (p Params) usesTopP() bool { return p.TopP > 0 && p.TopP < 1 }

// better is the strict total order the filters rank by: higher logit first, lower id first among equal logits.
func better(a, b cand) bool { return a.l > b.l || (a.l == b.l && a.id < b.id) }

func cmpCand(a, b cand) int {
	if c := cmp.Compare(b.l, a.l); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

const (
	// heapTopK: up to this top-k, one pass keeps the k best in a heap. Most tokens lose a single comparison with
	// the heap's worst, so the pass costs about a comparison per token; past it the threshold scan plus
	// quickselect is cheaper than k-sized heap updates.
	heapTopK = 1024
	// The threshold scan starts with the tokens within firstGap nats of the top logit and widens by gapGrowth
	// until the kept prefix is surely inside; past lastGap it takes every token. e^-8 ≈ 3·10⁻⁴ relative
	// probability is already below what top-p 0.9–0.95 usually reaches on a language model's logits.
	firstGap  = 8.0
	gapGrowth = 4.0
	lastGap   = 600.0
	// selectMass orders at most this many tokens at its end; above it, a quickselect step is cheaper.
	smallSort = 16
	// minLogWeight: a token whose scaled log-weight (l − l_max)·invT is below this weighs exactly 0 (expWeight).
	// Each such weight is below e^-64 < 2^-92 of the top token's, which is 1; a row has fewer than 2^31 tokens
	// (ids are int32), so together they are below 2^-61 of any partition sum or draw total (both ≥ 1). Dropping
	// them moves such a float64 sum by less than a quarter of its rounding unit (2^-52 relative), so the sums and
	// the draws are as before unless a sum, or u·total in pick, falls within 2^-61 relative of a rounding or a
	// bucket boundary; and the dropped tokens themselves could only be drawn with probability below 2^-61.
	minLogWeight = -64.0
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
// ranks, by inverse CDF from one Float64 of the seeded PCG generator, walking the kept tokens in the order the
// selection left them (deterministic, not rank order). When some logit is +Inf the row is the limit of that
// softmax: the +Inf tokens, equally likely.
//
// Applying the temperature after the filters is mlx-lm's order (categorical_sampling scales the filtered
// log-probabilities); Hugging Face and llama.cpp scale first, which changes what top-p and min-p keep.
func (s *Sampler) sampleFiltered(logits []float32) (int, error) {
	kept, mf, all, err := s.keep(logits)
	if err != nil {
		return 0, err
	}
	invT := 1 / float64(s.p.Temp)
	if all {
		return s.drawAll(logits, mf, invT), nil
	}
	return s.drawKept(kept, mf, invT, invT == 1 && s.p.usesTopP()), nil
}

// keep applies the filters. It returns the kept candidates (in no particular order) and the top logit, or
// all = true when no filter is active and every token stays (then nothing was gathered). It rewrites NaN logits
// to -Inf and, when some logit is +Inf, the row to 0 (the +Inf tokens) and -Inf (the rest).
func (s *Sampler) keep(logits []float32) (kept []cand, mf float64, all bool, err error) {
	ninf := float32(math.Inf(-1))
	m := ninf
	for i, l := range logits {
		if l != l {
			logits[i] = ninf // NaN: no probability
			continue
		}
		if l > m { // not the builtin max, whose NaN and ±0 handling made this loop ~5× slower
			m = l
		}
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
	k := s.p.TopK
	useK := k > 0 && k < v
	useP := s.p.usesTopP()
	useMin := s.p.MinP > 0
	if !useK && !useP && !useMin {
		return nil, mf, true, nil
	}
	logMinP := math.Inf(-1)
	if useMin {
		logMinP = math.Log(float64(s.p.MinP))
	}

	// Top-p's mass is measured against the temperature-1 partition function of the whole row. The weights stay in
	// s.w so that gathering candidates does not take a second exponential per token.
	var pz float64
	if useP {
		pz = float64(s.p.TopP) * s.weigh(logits, mf, 1)
	}

	var c []cand
	if useK && k <= heapTopK {
		c = s.heapTopK(logits, k, mf, logMinP)
	} else {
		c = s.gather(logits, mf, logMinP, useK, useP, pz)
		if useK && len(c) > k {
			selectTop(c, k)
			c = c[:k]
		}
	}
	if useP {
		for i := range c {
			c[i].e = s.w[c[i].id]
		}
		c = c[:selectMass(c, pz)]
	}
	return c, mf, false, nil
}

// heapTopK returns the k best tokens with l − l_max ≥ cut (fewer if fewer qualify), kept in a heap whose root is
// the worst of them. Ids arrive in increasing order, so a token whose logit only equals the root's loses the tie.
func (s *Sampler) heapTopK(logits []float32, k int, mf, cut float64) []cand {
	h := s.cands[:0]
	for i, l := range logits {
		if len(h) == k && l <= h[0].l {
			continue
		}
		if float64(l)-mf < cut || math.IsInf(float64(l), -1) {
			continue
		}
		x := cand{l: l, id: int32(i)}
		if len(h) < k {
			h = append(h, x)
			siftUp(h, len(h)-1)
		} else {
			h[0] = x
			siftDown(h, 0)
		}
	}
	s.cands = h
	return h
}

// siftUp and siftDown keep h a heap with the worst candidate (under better) at the root.
func siftUp(h []cand, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []cand, i int) {
	for {
		w := i
		if l := 2*i + 1; l < len(h) && better(h[w], h[l]) {
			w = l
		}
		if r := 2*i + 2; r < len(h) && better(h[w], h[r]) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// gather returns C = {tokens with l − l_max ≥ cut}, a prefix of the ranking, widening cut until C surely holds
// the kept prefix: min-p's own cut reached, TopK members, the TopP mass pz inside C, or every finite token.
func (s *Sampler) gather(logits []float32, mf, logMinP float64, useK, useP bool, pz float64) []cand {
	ninf := float32(math.Inf(-1))
	if cap(s.cands) < len(logits) {
		s.cands = make([]cand, 0, len(logits)) // once: C can reach the whole row, and doubling there costs more
	}
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
				c = append(c, cand{l: l, id: int32(i)})
				if useP {
					mass += s.w[i] // filled by keep's partition-function pass
				}
			}
		}
		if every || byMinP || (useK && len(c) >= s.p.TopK) || (useP && mass >= pz) {
			break
		}
	}
	s.cands = c
	return c
}

// drawKept draws one of the kept candidates with weight exp((l − l_max)·invT). haveE: at temperature 1 the
// top-p pass already holds each candidate's weight in e (the same exp of the same argument: (l − l_max)·1 is
// l − l_max), so the draw does not take a second exponential per token (the self-calibration of quantize samples
// a 152k-token row at temperature 1 and top-p 0.95 every step).
func (s *Sampler) drawKept(c []cand, mf, invT float64, haveE bool) int {
	s.w = slices.Grow(s.w[:0], len(c))[:len(c)]
	total := 0.0
	for r, x := range c {
		if haveE {
			s.w[r] = x.e
		} else {
			s.w[r] = expWeight((float64(x.l) - mf) * invT)
		}
		total += s.w[r]
	}
	return int(c[pick(s.w, total, s.rng.Float64())].id)
}

// drawAll draws from the whole row with weight exp((l − l_max)·invT); -Inf logits weigh 0.
func (s *Sampler) drawAll(logits []float32, mf, invT float64) int {
	total := s.weigh(logits, mf, invT)
	return pick(s.w, total, s.rng.Float64())
}

// weigh sets s.w[i] to token i's weight exp((l_i − l_max)·invT) (expWeight: 0 far below the top) for the whole
// row and returns their sum: keep's partition function at invT = 1 (a product with 1 is exact, so the argument is
// l − l_max itself) and drawAll's total otherwise.
func (s *Sampler) weigh(logits []float32, mf, invT float64) float64 {
	s.w = slices.Grow(s.w[:0], len(logits))[:len(logits)]
	w := s.w[:len(logits)]
	total := 0.0
	for i, l := range logits {
		w[i] = expWeight((float64(l) - mf) * invT)
		total += w[i]
	}
	return total
}

// The constants of math/exp.go's exp (ln 2 split in two, log2 e, its polynomial), shared by expWeight and the
// test's transcription of the whole function.
const (
	ln2Hi    = 6.93147180369123816490e-01
	ln2Lo    = 1.90821492927058770002e-10
	log2e    = 1.44269504088896338700e+00
	nearZero = 1.0 / (1 << 28)

	p1 = 1.66666666666666657415e-01
	p2 = -2.77777777770155933842e-03
	p3 = 6.61375632143793436117e-05
	p4 = -1.65339022054652515390e-06
	p5 = 4.13813679705723846039e-08
)

// expWeight is the weight exp(d) of a token at scaled log-weight d = (l − l_max)·invT ≤ 0 (NaN cannot occur: keep
// rewrote NaN logits to -Inf). Below minLogWeight it is exactly 0 and no exponential is evaluated: -Inf (masked
// tokens), huge negative logits, and d in [-745, -708], where math.Exp's result is subnormal and it costs ~100 ns
// on the GPU host instead of ~10 (a denormal branch and a subnormal multiply).
//
// Above it, the exponential is Go's portable algorithm (math/exp.go's exp and expmulti, < 1 ulp), not math.Exp.
// On amd64 math.Exp is assembly that, with FMA, alternates VEX-encoded (VFMADD213SD) and legacy SSE instructions
// about a dozen times a call, and on the GPU host (an AVX-512 Intel Xeon under Firecracker, issue 21) a 152k-token
// loop of it ran at 320–1040 ns a token in most runs and 9–16 in the others, all or nothing per benchmark; in ten
// runs each, never with GODEBUG=asyncpreemptoff=1 or in a build without GOEXPERIMENT=simd (whose asyncPreempt
// restores all 32 ZMM registers with 512-bit loads and no VZEROUPPER). That fits SSE/AVX transition penalties in a dirty upper
// vector state, which VZEROUPPER cannot clear for ZMM16–31; the mechanism is inferred, not measured. This
// function is SSE only (the float64 conversions forbid fusing into FMA, as the Go spec allows for an explicit
// conversion, so GOAMD64=v3 cannot bring VEX back), and there it ran at 9–13 ns a token in every run.
// On [minLogWeight, 0] the scale 2^k has k in [-93, 0] and the result stays normal, so the final Ldexp is one
// exact multiply by a power of two built from its bits: the result is bit for bit math/exp.go's exp(d), within
// 2 ulp of math.Exp's (TestExpWeight), so a seeded draw could only change where u·total lies within a few 2^-52
// relative of a boundary between two tokens' cumulative weights.
func expWeight(d float64) float64 {
	if !(d >= minLogWeight) {
		return 0
	}
	if d > -nearZero { // d ≤ 0: here 1 + d, exactly 1 for the top token
		return 1 + d
	}
	k := int(float64(log2e*d) - 0.5) // rounds to nearest: d < 0
	hi := d - float64(float64(k)*ln2Hi)
	lo := float64(k) * ln2Lo
	r := hi - lo
	t := r * r
	q := float64(t * p5)
	q = float64(t * (p4 + q))
	q = float64(t * (p3 + q))
	q = float64(t * (p2 + q))
	q = float64(t * (p1 + q))
	c := r - q
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return y * math.Float64frombits(uint64(1023+k)<<52)
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

// partition orders c[lo], c[mid], c[hi−1] and uses their median as the pivot of a Lomuto partition of c[lo:hi].
// It returns i with c[lo:i] better than c[i] (the pivot) and c[i+1:hi] worse.
func partition(c []cand, lo, hi int) int {
	last := hi - 1
	mid := lo + (last-lo)/2
	if better(c[mid], c[lo]) {
		c[mid], c[lo] = c[lo], c[mid]
	}
	if better(c[last], c[lo]) {
		c[last], c[lo] = c[lo], c[last]
	}
	if better(c[last], c[mid]) {
		c[last], c[mid] = c[mid], c[last]
	}
	c[mid], c[last] = c[last], c[mid]
	p := c[last]
	i := lo
	for j := lo; j < last; j++ {
		if better(c[j], p) {
			c[i], c[j] = c[j], c[i]
			i++
		}
	}
	c[i], c[last] = c[last], c[i]
	return i
}

// selectTop rearranges c so that c[:k] holds its k best entries under better (in no particular order), by
// quickselect. better is a strict total order (ids are distinct), so the k best are unique whatever the pivots.
func selectTop(c []cand, k int) {
	lo, hi := 0, len(c)
	for hi-lo > 1 {
		i := partition(c, lo, hi)
		switch {
		case i == k-1 || i == k:
			return
		case i < k-1:
			lo = i + 1
		default:
			hi = i
		}
	}
}

// selectMass rearranges c (a prefix of the ranking, weights in e) and returns n such that c[:n] are the ranks
// whose predecessors' mass is below target — top-p's kept set — in no particular order. Each quickselect step
// splits c[lo:hi] at a pivot: if the mass of everything ranked above the pivot already reaches target, the pivot
// and all below it go; otherwise everything above it and the pivot itself stay. The last few are walked in rank
// order. target > 0, so the top token always stays.
func selectMass(c []cand, target float64) int {
	lo, hi := 0, len(c)
	acc := 0.0 // mass of c[:lo], every one of them kept
	for hi-lo > smallSort {
		i := partition(c, lo, hi)
		above := 0.0
		for _, x := range c[lo:i] {
			above += x.e
		}
		if acc+above >= target {
			hi = i
		} else {
			acc += above + c[i].e
			lo = i + 1
		}
	}
	slices.SortFunc(c[lo:hi], cmpCand)
	for r := lo; r < hi; r++ {
		if r > 0 && acc >= target {
			return r
		}
		acc += c[r].e
	}
	return hi
}
