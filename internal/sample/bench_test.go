// Benchmarks of Sample over a Qwen-sized (151936-token) vocabulary. Each iteration copies the row back first (Sample
// uses it as scratch); the copy is ~600 KB and costs tens of microseconds, included in the numbers.
package sample

import (
	"math/rand/v2"
	"testing"
)

const benchVocab = 151936

// benchRows returns two rows: "peaked", shaped like a confident language model (a broad normal background with
// a handful of tokens far above it), and "flat", a plain normal row whose nucleus spans tens of thousands of tokens.
func benchRows() (peaked, flat []float32) {
	rng := rand.New(rand.NewPCG(1, 1))
	peaked = make([]float32, benchVocab)
	flat = make([]float32, benchVocab)
	for i := range peaked {
		x := rng.NormFloat64()
		peaked[i] = float32(2 * x)
		flat[i] = float32(x)
	}
	for j := range 30 {
		peaked[rng.IntN(benchVocab)] = float32(22 - 0.5*float64(j))
	}
	return peaked, flat
}

func benchSample(b *testing.B, p Params, row []float32, history []int) {
	s, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]float32, len(row))
	b.ReportAllocs()
	for b.Loop() {
		copy(buf, row)
		if _, err := s.Sample(buf, history, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	peaked, flat := benchRows()
	history := make([]int, 2048)
	for i := range history {
		history[i] = (i * 7919) % benchVocab
	}
	cases := []struct {
		name    string
		p       Params
		row     []float32
		history []int
	}{
		{"greedy/f32", Params{}, peaked, nil},
		{"greedy/bf16", Params{LogitsRounding: BF16}, peaked, nil},
		{"greedy/penalties", Params{RepetitionPenalty: 1.1, PresencePenalty: 0.5, FrequencyPenalty: 0.1,
			RepetitionContextSize: 2048}, peaked, history},
		{"temp/peaked", Params{Temp: 0.7}, peaked, nil},
		{"topp0.9/peaked", Params{Temp: 0.7, TopP: 0.9}, peaked, nil},
		{"topp0.9/flat", Params{Temp: 0.7, TopP: 0.9}, flat, nil},
		{"topk40/flat", Params{Temp: 0.7, TopK: 40}, flat, nil},
		{"topk20topp0.8/flat", Params{Temp: 0.7, TopK: 20, TopP: 0.8}, flat, nil},
		{"minp0.05/peaked", Params{Temp: 0.7, MinP: 0.05}, peaked, nil},
		{"qwen-defaults/peaked", Params{Temp: 0.6, TopP: 0.95, TopK: 20}, peaked, nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchSample(b, c.p, c.row, c.history) })
	}
}
