// Tests of the Sampler's error paths, reproducibility, allocation behaviour, partial selection and a full-size
// vocabulary draw.
package sample

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSampleErrors(t *testing.T) {
	ninf := float32(math.Inf(-1))
	cases := []struct {
		name    string
		p       Params
		logits  []float32
		history []int
		mask    []int32
		want    error
	}{
		{"empty row", Params{}, nil, nil, nil, ErrBadInput},
		{"mask rejects all", Params{}, []float32{1, 2, 3}, nil, []int32{0}, ErrAllRejected},
		{"mask rejects all (sampling)", Params{Temp: 1}, []float32{1, 2, 3}, nil, []int32{}, ErrAllRejected},
		{"mask bits only past the vocabulary", Params{Temp: 1}, []float32{1, 2, 3}, nil, []int32{1 << 3}, ErrAllRejected},
		{"history id past vocabulary", Params{RepetitionPenalty: 1.1}, []float32{1, 2}, []int{0, 2}, nil, ErrBadInput},
		{"negative history id", Params{FrequencyPenalty: 1}, []float32{1, 2}, []int{-1}, nil, ErrBadInput},
		{"bias id past vocabulary", Params{LogitBias: map[int]float32{5: 1}}, []float32{1, 2}, nil, nil, ErrBadInput},
		{"everything -Inf", Params{Temp: 1, TopP: 0.5}, []float32{ninf, ninf}, nil, nil, ErrNoCandidate},
		{"allowed tokens all banned by bias", Params{Temp: 0.5, LogitBias: map[int]float32{1: ninf}},
			[]float32{1, 2, 3}, nil, []int32{0b10}, ErrNoCandidate},
		{"greedy, allowed tokens all banned", Params{LogitBias: map[int]float32{1: ninf}},
			[]float32{1, 2, 3}, nil, []int32{0b10}, ErrNoCandidate},
		{"greedy, NaN row with token 0 masked", Params{}, []float32{1, 2, float32(math.NaN())}, nil, []int32{0b110},
			ErrNoCandidate},
	}
	for _, c := range cases {
		_, err := mustNew(t, c.p).Sample(c.logits, c.history, c.mask)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// Without the mask the NaN row gets the reference's answer, token 0.
	if id, err := mustNew(t, Params{}).Sample([]float32{1, 2, float32(math.NaN())}, nil, nil); err != nil || id != 0 {
		t.Errorf("greedy NaN row: %d, %v; want token 0", id, err)
	}
	// Out-of-window history ids are not looked at: only the last RepetitionContextSize matter.
	if _, err := mustNew(t, Params{RepetitionPenalty: 1.1, RepetitionContextSize: 1}).Sample(
		[]float32{1, 2}, []int{99, 1}, nil); err != nil {
		t.Errorf("an id outside the window was checked: %v", err)
	}
}

func TestGreedySampleRespectsMask(t *testing.T) {
	logits := []float32{9, 1, 8, 3, 7}
	id, err := mustNew(t, Params{}).Sample(logits, nil, []int32{0b11010})
	if err != nil || id != 4 {
		t.Fatalf("got %d, %v; want token 4 (the best allowed)", id, err)
	}
	// One allowed token is always drawn, whatever the temperature.
	s := mustNew(t, Params{Temp: 5, TopP: 0.9, Seed: 9})
	for range 200 {
		id, err := s.Sample([]float32{9, 1, 8, 3, 7}, nil, []int32{0b1000})
		if err != nil || id != 3 {
			t.Fatalf("got %d, %v; want token 3", id, err)
		}
	}
}

func TestReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	rows := make([][]float32, 300)
	for i := range rows {
		rows[i] = make([]float32, 1000)
		for j := range rows[i] {
			rows[i][j] = float32(rng.NormFloat64())
		}
	}
	run := func(seed uint64) []int {
		s := mustNew(t, Params{Temp: 1, TopP: 0.95, TopK: 200, Seed: seed})
		var ids []int
		for _, r := range rows {
			id, err := s.Sample(slices.Clone(r), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	a, b, c := run(42), run(42), run(43)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed drew different tokens")
	}
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	// Each row keeps ~200 tokens, so two independent streams agree on a handful of 300 draws.
	if same > 60 {
		t.Fatalf("seeds 42 and 43 agree on %d of %d draws", same, len(a))
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	base := make([]float32, 50000)
	for i := range base {
		base[i] = float32(3 * rng.NormFloat64())
	}
	history := make([]int, 500)
	for i := range history {
		history[i] = rng.IntN(len(base))
	}
	mask := make([]int32, len(base)/32+1)
	for i := range mask {
		mask[i] = int32(rng.Uint32())
	}
	row := make([]float32, len(base))
	for _, p := range []Params{
		{RepetitionPenalty: 1.1, LogitBias: map[int]float32{3: 2}},
		{Temp: 0.7, TopP: 0.9, TopK: 50, MinP: 0.01, PresencePenalty: 0.5, FrequencyPenalty: 0.1},
		{Temp: 0.7},
	} {
		s := mustNew(t, p)
		allocs := testing.AllocsPerRun(20, func() {
			copy(row, base)
			if _, err := s.Sample(row, history, mask); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%+v: %v allocations per Sample", p, allocs)
		}
	}
}

func TestSelectTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for trial := range 2000 {
		n := 1 + rng.IntN(200)
		c := make([]cand, n)
		for i := range c {
			c[i] = cand{l: float32(rng.IntN(1 + trial%10)), id: int32(i)} // few distinct logits: ids decide
		}
		if trial%3 == 0 {
			slices.SortFunc(c, cmpCand) // already sorted, and reversed, inputs
			if trial%2 == 0 {
				slices.Reverse(c)
			}
		}
		k := 1 + rng.IntN(n)
		want := slices.SortedFunc(slices.Values(c), cmpCand)[:k]
		selectTop(c, k)
		got := slices.SortedFunc(slices.Values(c[:k]), cmpCand)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d n %d k %d: got %v, want %v", trial, n, k, got, want)
		}
	}
}

func TestSelectMass(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 25))
	for trial := range 3000 {
		n := 1 + rng.IntN(300)
		c := make([]cand, n)
		total := 0.0
		for i := range c {
			c[i] = cand{l: float32(rng.IntN(1 + trial%50)), id: int32(i)}
			c[i].e = math.Exp(float64(c[i].l) - 50)
			total += c[i].e
		}
		target := total * rng.Float64()
		if target == 0 {
			continue
		}
		// Reference: rank order, keep rank r while the mass before it is below target.
		ranked := slices.SortedFunc(slices.Values(c), cmpCand)
		want, acc := 0, 0.0
		for r, x := range ranked {
			if r > 0 && acc >= target {
				break
			}
			want++
			acc += x.e
		}
		got := selectMass(c, target)
		gotSet := slices.SortedFunc(slices.Values(c[:got]), cmpCand)
		if !slices.Equal(gotSet, ranked[:want]) {
			// A target within rounding of a partial sum may land either side; accept only that.
			lo, hi := min(got, want), max(got, want)
			part := 0.0
			for _, x := range ranked[:lo] {
				part += x.e
			}
			if hi-lo != 1 || math.Abs(part-target) > 1e-12*total {
				t.Fatalf("trial %d: kept %d, want %d", trial, got, want)
			}
		}
	}
}

// TestFullVocabularyTopK draws from a 151936-token row with top-k 20 and checks the draw against the exact
// temperature-scaled softmax of the 20 largest logits.
func TestFullVocabularyTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	const v, k, n = 151936, 20, 10000
	logits := make([]float32, v)
	for i := range logits {
		logits[i] = float32(2 * rng.NormFloat64())
	}
	order := make([]int, v)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if logits[a] != logits[b] {
			if logits[a] > logits[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	const temp = 0.5
	probs := map[int]float64{}
	z := 0.0
	for _, id := range order[:k] {
		probs[id] = math.Exp((float64(logits[id]) - float64(logits[order[0]])) / temp)
		z += probs[id]
	}
	for id := range probs {
		probs[id] /= z
	}
	counts := draw(t, Params{Temp: temp, TopK: k, Seed: 21}, logits, nil, n)
	if stat := chi2(t, counts, probs, n); stat > chi2Bound(k-1) {
		t.Fatalf("chi² %.1f > %.1f", stat, chi2Bound(k-1))
	}
}

// TestGreedyReport: Greedy says true exactly for the parameters under which Pick is GreedyNormalizedArgmax in
// LogitsRounding, and when it says so Pick agrees with it on rows with ties, near-ties and a history that
// repeats the top tokens (which a real penalty would push down); the parameters it refuses change some pick.
func TestGreedyReport(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	const v = 300
	rows := make([][]float32, 40)
	for i := range rows {
		r := make([]float32, v)
		for j := range r {
			r[j] = float32(rng.NormFloat64())
		}
		top := rng.IntN(v)
		r[top] = 4
		r[(top+1)%v] = 4                      // a tie: the lower id wins
		r[(top+2)%v] = math.Nextafter32(4, 0) // an f32 ulp below: ties after bf16 rounding
		rows[i] = r
	}
	history := func(r []float32) []int { // the row's top ids, repeated
		best := GreedyNormalizedArgmax(r, F32)
		return []int{best, best, (best + 1) % v, (best + 2) % v, best}
	}
	for _, c := range []struct {
		name   string
		p      Params
		greedy bool
	}{
		{"zero", Params{}, true},
		{"filters and seed", Params{TopK: 3, TopP: 0.5, MinP: 0.1, Seed: 5}, true},
		{"repetition penalty 1", Params{RepetitionPenalty: 1, RepetitionContextSize: 4}, true},
		{"bf16", Params{LogitsRounding: BF16}, true},
		{"temperature", Params{Temp: 0.8, Seed: 1}, false},
		{"repetition penalty", Params{RepetitionPenalty: 3}, false},
		{"presence", Params{PresencePenalty: 5}, false},
		{"frequency", Params{FrequencyPenalty: 5}, false},
		{"bias", Params{LogitBias: map[int]float32{0: 100}}, false},
	} {
		s, err := New(c.p)
		if err != nil {
			t.Fatal(err)
		}
		r, greedy := s.Greedy()
		if greedy != c.greedy || r != c.p.LogitsRounding {
			t.Errorf("%s: Greedy() = %v, %v; want %v, %v", c.name, r, greedy, c.p.LogitsRounding, c.greedy)
			continue
		}
		same := true
		for _, row := range rows {
			want := GreedyNormalizedArgmax(row, c.p.LogitsRounding)
			got, err := s.Pick(slices.Clone(row), history(row))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			same = same && got == want
		}
		if same != greedy {
			t.Errorf("%s: Greedy %v, but Pick agreed with the greedy argmax on every row: %v", c.name, greedy, same)
		}
	}
}

// TestDrawKeptReusesTopPWeights: at temperature 1 the draw takes top-p's weights instead of a second exponential;
// two samplers on the same seed, one drawing from the reused weights and one from recomputed ones, pick the same
// token at every step of peaked and flat rows.
func TestDrawKeptReusesTopPWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := Params{Temp: 1, TopP: 0.9, Seed: 42}
	a, errA := New(p)
	b, errB := New(p)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	for step := range 200 {
		row := make([]float32, 4096)
		for i := range row {
			row[i] = float32(rng.NormFloat64() * float64(1+step%3))
		}
		ka, mfa, alla, err := a.keep(slices.Clone(row))
		if err != nil || alla {
			t.Fatalf("step %d: keep: %v (all %v)", step, err, alla)
		}
		kb, mfb, _, _ := b.keep(slices.Clone(row))
		got, want := a.drawKept(ka, mfa, 1, true), b.drawKept(kb, mfb, 1, false)
		if got != want {
			t.Fatalf("step %d: drew %d from top-p's weights, %d from recomputed ones", step, got, want)
		}
	}
}
