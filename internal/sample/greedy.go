// Greedy selection as the seed's normalized-argmax.ts computes it: argmax over log-softmax scores held in the
// logits' own dtype, so that ties a narrow dtype creates resolve exactly as MLX's argmax(logprobs) resolves them.
package sample

import "math"

// GreedyNormalizedArgmax returns argmax_i score_i for one row of logits, where, with T the dtype r names and
// T(·) round-to-nearest-even into T,
//
//	x_i     = T(logits[i])                      (the logits as the model's dtype holds them)
//	L       = T(log Σ_j exp(x_j))               (MLX's logsumexp returns the input dtype)
//	score_i = T(x_i − L)                        (f32: one f32 subtraction; bf16: f32 subtraction then rounding,
//	                                             as Metal's bfloat arithmetic does; f16: the exact difference
//	                                             rounded once, as native half arithmetic does)
//
// and the reference's reduction rules: the lowest token id wins every tie (rounding to bf16/f16 turns nearby logits
// into equal scores, which is the point of rounding); a NaN score counts as -Inf and so never beats a number; a
// row whose logsumexp is not finite (any NaN or +Inf logit, every logit -Inf, or an L that overflows T) has only
// NaN/-Inf scores and selects token 0. An empty row returns 0.
//
// Differences from MLX: L is summed in float64 and then rounded to T, while MLX reduces in float32 in its own
// order, so a score within an ulp of a rounding boundary may tie differently; the maximum itself is the same.
//
// Because every T(·) above is monotone, the winner is the lowest id whose score equals the score of the largest x;
// the function finds that score first and then the first id that reaches it.
func GreedyNormalizedArgmax(logits []float32, r Rounding) int {
	if len(logits) == 0 {
		return 0
	}
	m := math.Inf(-1)
	for _, l := range logits {
		x := roundTo(float64(l), r)
		if math.IsNaN(x) || math.IsInf(x, 1) {
			return 0 // L is NaN or +Inf: every score is NaN or -Inf
		}
		m = max(m, x)
	}
	if math.IsInf(m, -1) {
		return 0 // L = -Inf; -Inf − -Inf is NaN everywhere
	}
	s := 0.0
	for _, l := range logits {
		s += math.Exp(roundTo(float64(l), r) - m)
	}
	lse := roundTo(m+math.Log(s), r)
	if math.IsInf(lse, 0) {
		return 0 // f16 overflow of L: scores are -Inf or NaN
	}
	best := normalizedScore(m, lse, r)
	// Scores only equal best where x ≥ (something ≤ m); checking every id in order finds the lowest one.
	for i, l := range logits {
		if normalizedScore(roundTo(float64(l), r), lse, r) == best {
			return i
		}
	}
	panic("sample: the largest logit's score was not found again") // roundTo and normalizedScore are pure
}

// normalizedScore is T(x − L) with the arithmetic the reference kernel uses for dtype r; x and L are already in T.
func normalizedScore(x, lse float64, r Rounding) float64 {
	switch r {
	case BF16:
		return roundTo(float64(float32(x)-float32(lse)), BF16)
	case F16:
		// Two halves differ by at most 2^40 in magnitude, so their float64 difference is exact.
		return roundTo(x-lse, F16)
	default:
		return float64(float32(x) - float32(lse))
	}
}

// roundTo rounds x to the nearest value of dtype r (ties to even), overflowing to ±Inf as a conversion would.
// NaN and ±Inf pass through.
func roundTo(x float64, r Rounding) float64 {
	switch r {
	case BF16:
		return roundBinary(x, 7, -126, 127)
	case F16:
		return roundBinary(x, 10, -14, 15)
	default:
		return float64(float32(x))
	}
}

// roundBinary rounds x to a binary format with `frac` stored fraction bits, smallest normal exponent emin and
// largest exponent emax (subnormals included). The quantum at x's exponent is a power of two, so x/q is exact and
// RoundToEven does the only rounding.
func roundBinary(x float64, frac, emin, emax int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	_, e := math.Frexp(x) // |x| = f·2^e with f in [0.5, 1): the unbiased exponent is e−1
	e = max(e-1, emin)
	q := math.Ldexp(1, e-frac)
	y := math.RoundToEven(x/q) * q
	maxFinite := math.Ldexp(2-math.Ldexp(1, -frac), emax)
	if math.Abs(y) > maxFinite {
		return math.Copysign(math.Inf(1), x)
	}
	return y
}
