package model_test

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

func readGolden(t *testing.T, dir string) (testutil.Golden, []float32) {
	return testutil.ReadGolden(t, dir)
}

// argmax is the plain greedy choice HF's generate makes on float32 logits (first index wins ties).
type argmax struct{}

func (argmax) Pick(l []float32, _ []int) (int, error) {
	best := 0
	for i, v := range l {
		if v > l[best] {
			best = i
		}
	}
	return best, nil
}

var goldenModels = []string{"models/tiny-llama3", "models/tiny-qwen3", "models/tiny-qwen2-yarn", "trained/pycoder-12m",
	"models/tiny-gemma2", "models/tiny-gemma3", "models/tiny-gemma4", "models/tiny-qwen3_5", "models/tiny-qwen3-next-moe"}

// goldenConfig edits a fixture's config to the arithmetic its reference ran, where that differs from the model's
// own config (gemma_test.go).
var goldenConfig = map[string]func(map[string]any){"models/tiny-gemma2": sdpaGemma2}

// TestGoldens holds the CPU backend to the HF transformers float32 reference: prompt logits within
// 1e-4·max|ref| and the greedy continuation token for token.
func TestGoldens(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	for _, name := range goldenModels {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := testutil.Fixture(t, name)
			g, ref := readGolden(t, dir)
			if edit := goldenConfig[name]; edit != nil {
				dir = variant.Rewrite(t, dir, edit, func(ts []backend.Host) []backend.Host { return ts })
			}
			m, err := model.Load(dir, b)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			n, vocab := g.LogitsShape[0], g.LogitsShape[1]
			cache, err := m.NewCache(1, n)
			if err != nil {
				t.Fatal(err)
			}
			s := model.Step{}
			for p, id := range g.PromptIDs {
				s.IDs = append(s.IDs, int32(id))
				s.Seq = append(s.Seq, 0)
				s.Pos = append(s.Pos, int32(p))
			}
			got, err := m.Forward(s, cache, n)
			if err != nil {
				t.Fatal(err)
			}
			var maxRef, maxErr float64
			for i := range ref {
				maxRef = max(maxRef, math.Abs(float64(ref[i])))
				maxErr = max(maxErr, math.Abs(float64(got[i]-ref[i])))
			}
			t.Logf("%d×%d logits: max|err| %.3g, max|ref| %.3g, ratio %.3g", n, vocab, maxErr, maxRef, maxErr/maxRef)
			if maxErr > 1e-4*maxRef {
				t.Errorf("max|err| %.4g > 1e-4·max|ref| = %.4g", maxErr, 1e-4*maxRef)
			}
			res, err := m.Generate(g.PromptIDs, model.GenOptions{MaxTokens: len(g.GreedyNewIDs), Picker: argmax{}, EOS: m.Config.EOS})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Generated, g.GreedyNewIDs) {
				if p, ok := padInPrompt(m, g.PromptIDs); ok {
					t.Logf("greedy continuation differs from the golden's, which transformers' generate made with an attention mask "+
						"it inferred from pad_token_id %v at prompt position %d (the prompt logits above were made without one); "+
						"the engine has no padding, so this golden's continuation is not checked\n got %v\nwant %v", m.Config.Raw["pad_token_id"], p, res.Generated, g.GreedyNewIDs)
					return
				}
				t.Errorf("greedy continuation\n got %v\nwant %v", res.Generated, g.GreedyNewIDs)
			}
		})
	}
}

// padInPrompt finds the first prompt position holding the config's pad_token_id. transformers' generate, given
// no attention mask, infers one that masks every such position (the full-attention keys and the linear-attention
// inputs there), so a golden continuation of such a prompt is not what the unmasked model generates. Measured on
// tiny-qwen3_5 (token 0 at position 5): emulating that mask reproduces its 16 greedy tokens exactly; unmasked, 3
// agree and the rest follow from the first difference.
func padInPrompt(m *model.Model, prompt []int) (int, bool) {
	pad, ok := m.Config.Raw["pad_token_id"].(float64)
	if !ok {
		return 0, false
	}
	i := slices.Index(prompt, int(pad))
	return i, i >= 0
}
