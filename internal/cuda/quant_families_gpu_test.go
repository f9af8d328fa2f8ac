// The quantize → run round trip of the issue-10 families on CUDA (MLXBUN_CUDA=1): each tiny Gemma and hybrid
// fixture quantized by mlxbun at 3 bits (small trellis L and block, as internal/quantize's round-trip test, for
// speed), run by the CPU and the CUDA backend on the same artifact: mean per-position KL(cpu ‖ cuda) of the
// prompt's next-token distributions within klGate (the default forms), and the greedy continuation identical
// with the CUDA layers loaded in exact mode (the tuning table's exact, SetQuantExact).
package cuda

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
)

// quantFamilies are the fixtures of the issue-10 families.
var quantFamilies = []string{"tiny-gemma2", "tiny-gemma3", "tiny-gemma4", "tiny-qwen3_5", "tiny-qwen3-next-moe"}

func TestQuantizedFamiliesKL(t *testing.T) {
	g, c := bk(t)
	for _, name := range quantFamilies {
		t.Run(name, func(t *testing.T) {
			src := fixture(t, "models/"+name)
			gold, _ := loadGolden(t, src)
			out := filepath.Join(t.TempDir(), "q")
			if _, err := quantize.Run(src, out, quantize.Options{Bits: 3, L: 8, GroupSize: 64}, nil); err != nil {
				t.Fatal(err)
			}
			n := len(gold.PromptIDs)
			ref := promptLogits(t, out, c, gold.PromptIDs)
			got := promptLogits(t, out, g, gold.PromptIDs)
			kl, agree := meanKL(ref, got, n)
			if kl > klGate || math.IsNaN(kl) {
				t.Errorf("MISMATCH %s 3-bit: mean KL %.3g > %g", name, kl, klGate)
			}
			const tokens = 16
			want := greedy(t, out, c, gold.PromptIDs, tokens)
			prev := g.quant.exact
			g.SetQuantExact(true)
			exact := greedy(t, out, g, gold.PromptIDs, tokens)
			g.SetQuantExact(prev)
			if !slices.Equal(exact, want) {
				t.Errorf("MISMATCH %s 3-bit exact mode: greedy %v, the CPU's %v", name, exact, want)
			}
			record("quant-fam   %-20s 3-bit: mean KL %.2e, top-1 equal at %d of %d positions; exact-mode greedy %d tokens equal: %v",
				name, kl, agree, n, tokens, slices.Equal(exact, want))
		})
	}
}

// greedy loads dir on b and returns its argmax continuation of prompt (at most tokens ids).
func greedy(t *testing.T, dir string, b backend.Backend, prompt []int, tokens int) []int {
	t.Helper()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := m.Generate(prompt, model.GenOptions{MaxTokens: tokens, Picker: argmaxPicker{}, EOS: m.Config.EOS})
	if err != nil {
		t.Fatalf("%s on %s: %v", dir, b.Name(), err)
	}
	return res.Generated
}
