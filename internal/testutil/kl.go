package testutil

import "math"

// MeanKL is the mean over rows of KL(softmax(p) ‖ softmax(q)) in float64 for logits p, q [rows, vocab], and how
// many rows share their argmax (first index wins ties).
func MeanKL(p, q []float32, rows int) (float64, int) {
	vocab := len(p) / rows
	var sum float64
	agree := 0
	for r := range rows {
		pr, qr := p[r*vocab:(r+1)*vocab], q[r*vocab:(r+1)*vocab]
		lp, lq := LogSoftmax(pr), LogSoftmax(qr)
		var kl float64
		for i := range lp {
			kl += math.Exp(lp[i]) * (lp[i] - lq[i])
		}
		sum += kl
		if Argmax(pr) == Argmax(qr) {
			agree++
		}
	}
	return sum / float64(rows), agree
}

// LogSoftmax is log(softmax(x)) in float64.
func LogSoftmax(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - m)
	}
	lse := m + math.Log(s)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v) - lse
	}
	return out
}

// Argmax is the index of the largest value (the first of equals).
func Argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// Top2Gap is the difference between the largest and the second largest value.
func Top2Gap(x []float32) float32 {
	a, b := float32(math.Inf(-1)), float32(math.Inf(-1))
	for _, v := range x {
		switch {
		case v > a:
			a, b = v, a
		case v > b:
			b = v
		}
	}
	return a - b
}
