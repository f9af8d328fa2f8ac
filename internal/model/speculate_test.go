// Tests of speculative decoding in the generation loop: prompt-lookup drafts verified as extra rows of one step
// leave the output as it is without drafts (greedy and seeded sampling), while drafts are in fact accepted.
package model_test

import (
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/draft"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

type samplerPicker struct{ s *sample.Sampler }

func (p samplerPicker) Pick(l []float32, h []int) (int, error) { return p.s.Sample(l, h, nil) }

func TestDraftsKeepTheOutput(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	b := cpu.New()
	defer b.Close()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Code that repeats itself: the byte-level ids of a few near-identical lines, so lookups find their n-grams.
	src := "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n\ndef mul(a, b):\n    return a * b\n\ndef div(a, b):\n"
	var prompt []int
	for _, c := range []byte(src) {
		prompt = append(prompt, int(c))
	}
	for _, temp := range []float32{0, 0.8} {
		run := func(d model.Drafter) *model.GenResult {
			s, err := sample.New(sample.Params{Temp: temp, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.Generate(prompt, model.GenOptions{MaxTokens: 48, Picker: samplerPicker{s}, Draft: d})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		plain := run(nil)
		spec := run(draft.NewNGram(6, 1, 3))
		if !slices.Equal(plain.Generated, spec.Generated) {
			t.Errorf("temp %v: with drafts %v, without %v", temp, spec.Generated, plain.Generated)
		}
		// The model as its own draft model: its greedy drafts are what greedy decoding picks.
		pool, err := draft.NewModelPool(m, 1, len(prompt)+64, m.Config.VocabSize)
		if err != nil {
			t.Fatal(err)
		}
		self := run(pool.Drafter(0, 5))
		pool.Close()
		if !slices.Equal(plain.Generated, self.Generated) {
			t.Errorf("temp %v: with a draft model %v, without %v", temp, self.Generated, plain.Generated)
		}
		if temp == 0 && self.Accepted < self.Drafted*9/10 {
			t.Errorf("greedy self-drafting accepted %d of %d", self.Accepted, self.Drafted)
		}
		if temp == 0 && (spec.Accepted == 0 || spec.Steps >= plain.Steps) {
			t.Errorf("greedy: %d drafts, %d accepted, %d steps (without drafts %d): the drafts did not shorten the run",
				spec.Drafted, spec.Accepted, spec.Steps, plain.Steps)
		}
		t.Logf("temp %v: %d tokens, %d steps without drafts, %d with (%d drafted, %d accepted)", temp,
			len(plain.Generated), plain.Steps, spec.Steps, spec.Drafted, spec.Accepted)
	}
}
