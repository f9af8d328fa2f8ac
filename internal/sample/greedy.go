// Greedy selection as the seed's normalized-argmax.ts computes it: argmax over log-softmax scores held in the
// logits' own dtype, so that ties a narrow dtype creates resolve exactly as MLX's argmax(logprobs) resolves them.
package sample

import (
	"math"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// GreedyNormalizedArgmax returns argmax_i score_i for one row of logits, where, with T the dtype r names and
// T(·) round-to-nearest-even into T,
//
//	x_i     = T(logits[i])                      (the logits as the model's dtype holds them)
//	L       = T(f32(log Σ_j exp(x_j)))          (MLX's logsumexp: an f32 result cast to the input dtype)
//	score_i = T(x_i − L)                        (f32: one f32 subtraction; bf16: f32 subtraction then rounding,
//	                                             as Metal's bfloat arithmetic does; f16: the exact difference
//	                                             rounded once, as native half arithmetic does)
//
// and the reference's reduction rules: the lowest token id wins every tie (rounding to bf16/f16 turns nearby logits
// into equal scores, which is the point of rounding); a NaN score counts as -Inf and so never beats a number; a
// row whose logsumexp is not finite (any NaN or +Inf logit, every logit -Inf, or an L that overflows T) has only
// NaN/-Inf scores and selects token 0. An empty row returns 0.
//
// Differences from MLX: the sum is taken in float64, while MLX reduces in float32 in its own order, so when L lies
// within an f32 ulp of a rounding boundary the scores may tie differently; the largest logit always scores highest.
//
// Because every T(·) above is monotone, the winner is the lowest id whose score equals the score of the largest x.
// When no token of lower id lies close enough below the largest x to tie with it whatever L is, that token is the
// answer and L is never computed (greedyWithoutL): the usual case, which skips a vocabulary of exponentials.
func GreedyNormalizedArgmax(logits []float32, r Rounding) int {
	if len(logits) == 0 {
		return 0
	}
	ninf := float32(math.Inf(-1))
	// Rounding is monotone, so the largest x is the largest raw logit rounded, and one loop over raw floats finds
	// it. !(l ≤ MaxFloat32) is true for NaN and +Inf alike: then L is NaN or +Inf and every score NaN or -Inf.
	mr, wr := ninf, 0
	for i, l := range logits {
		if !(l <= math.MaxFloat32) {
			return 0
		}
		if l > mr {
			mr, wr = l, i
		}
	}
	m, w := round32(mr, r), wr // the largest x and its lowest id
	if !(m <= math.MaxFloat32) {
		return 0 // the largest logit overflows f16: x is +Inf
	}
	if m == ninf {
		return 0 // L = -Inf; -Inf − -Inf is NaN everywhere
	}
	if r != F32 {
		// An earlier, slightly smaller logit may round to the same x.
		low := rawBelow(m, r)
		for i, l := range logits[:wr] {
			if l >= low && round32(l, r) == m {
				w = i
				break
			}
		}
	}
	if id, ok := greedyWithoutL(logits, r, m, w); ok {
		return id
	}
	s := 0.0
	mf := float64(m)
	for _, l := range logits {
		s += math.Exp(float64(round32(l, r)) - mf)
	}
	lse := round32(float32(mf+math.Log(s)), r) // f32 first, then T: MLX's f32 logsumexp cast to T
	if lse > math.MaxFloat32 {
		return 0 // f16 overflow of L: scores are -Inf or NaN
	}
	best := normalizedScore(m, lse, r)
	// Scores are monotone in x, so best is the largest; checking ids in order finds the lowest id reaching it.
	for i, l := range logits {
		if normalizedScore(round32(l, r), lse, r) == best {
			return i
		}
	}
	panic("sample: the largest logit's score was not found again") // round32 and normalizedScore are pure
}

// greedyWithoutL settles the argmax without the logsumexp when no token could tie with w, the first token holding
// the largest x = m: every token of lower id must lie more than δ below m, where δ exceeds one ulp of T at any
// score such a token can have. Tokens above w's id cannot beat w: their score is at most w's and ties go to the
// lower id.
//
// The bound: with 1 ≤ s = Σexp(x − m) ≤ V, L = m + log s before rounding. Rounding never takes a value at or above
// m below m (m is representable), and rounds it up only by less than half an ulp, which happens only when it lies
// at least half an ulp above a representable value — so by at most its own distance above m. The f32 step gives
// L − m ≤ log s + ulp32/2 and the step to T at most doubles that: m ≤ L ≤ m + 2 log V + 2^-22·|m| (generously,
// ulp32 ≤ 2^-23·|L|). A score at distance d = m − x thus has magnitude at most d + 2 log V + 2^-22·|m|. Two exact
// values more than an ulp apart round apart, which needs d > 2^-p·(d + 2 log V + 2^-22·|m|) for p fraction bits;
// δ = 2^(1-p)·(2 log V + 2 + 2^-22·|m|) satisfies it with room to spare for the f32 step inside bf16 arithmetic.
// Near the top of f16's range L can overflow and turn the answer into token 0, so that case takes the exact path.
func greedyWithoutL(logits []float32, r Rounding, m float32, w int) (int, bool) {
	frac := 23
	switch r {
	case BF16:
		frac = 7
	case F16:
		frac = 10
	}
	logV := math.Log(float64(len(logits)))
	if r == F16 && float64(m)+logV+1 > 65504 || r != F16 && float64(m) > 1e37 {
		return 0, false
	}
	delta := math.Ldexp(2*logV+2+math.Ldexp(math.Abs(float64(m)), -22), 1-frac)
	// x ≥ m − δ, tested on float32s: the limit rounded down (so a token at the exact limit trips it), and a raw
	// prefilter so that only logits near the limit get rounded.
	limit := float32(float64(m) - delta)
	if float64(limit) > float64(m)-delta {
		limit = math.Nextafter32(limit, float32(math.Inf(-1)))
	}
	low := rawBelow(limit, r)
	for _, l := range logits[:w] {
		if l >= low && round32(l, r) >= limit {
			return 0, false
		}
	}
	return w, true
}

// rawBelow returns a float32 at or below every raw value that rounds (in dtype r) to y or above: y less a quantum of
// T at y's magnitude and f16's subnormal quantum (more than the half-ulp a value can round up by), rounded down.
// For f32, y itself.
func rawBelow(y float32, r Rounding) float32 {
	var frac int
	switch r {
	case BF16:
		frac = 7
	case F16:
		frac = 10
	default:
		return y
	}
	b := float64(y) - math.Ldexp(math.Abs(float64(y)), -frac) - 1.0/(1<<24)
	f := float32(b)
	if float64(f) > b {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// normalizedScore is T(x − L) with the arithmetic the reference kernel uses for dtype r; x and L are already in T.
func normalizedScore(x, lse float32, r Rounding) float32 {
	switch r {
	case BF16:
		return round32(x-lse, BF16) // Metal's bfloat arithmetic: an f32 operation, then rounding
	case F16:
		// Native half arithmetic rounds the exact difference once; two halves' difference is exact in float64.
		return dtype.RoundF16F64(float64(x) - float64(lse))
	default:
		return x - lse
	}
}

// round32 rounds f to the nearest value of dtype r, ties to even, overflowing to ±Inf as a conversion does; NaN
// and ±Inf pass through.
func round32(f float32, r Rounding) float32 {
	switch r {
	case BF16:
		return dtype.RoundBF16(f)
	case F16:
		return dtype.RoundF16(f)
	}
	return f
}
