// The model-level gate of the EXL3 forms (issue 18): every EXL3 fixture (exllamav3's converter output) run by the
// CUDA backend against the CPU backend (mean per-position KL of the prompt's next-token distributions ≤ klGate,
// top-1 agreement, for a prompt and for one-row decode steps) and against exllamav3's own logits, greedy tokens
// and bits per byte.
package cuda

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/eval"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

func TestEXL3Models(t *testing.T) {
	g, c := bk(t)
	text, err := os.ReadFile(fixture(t, "trained/pycoder-12m/heldout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range testutil.EXL3Fixtures(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := fixture(t, name)
			gold, exl := testutil.ReadEXL3Golden(t, dir)
			n := len(gold.PromptIDs)
			ref, _ := adaptedLogits(t, dir, c, gold.PromptIDs, 0)
			got, gen := adaptedLogits(t, dir, g, gold.PromptIDs, len(gold.GreedyNewIDs))
			kl, agree := testutil.MeanKL(ref, got, n)
			klX, agreeX := testutil.MeanKL(exl, got, n)
			if kl > klGate || klX > 2e-3 || float64(agreeX) < 0.98*float64(n) {
				t.Errorf("MISMATCH %s prompt: KL to the CPU %.3g (bound %g), to exllamav3 %.3g (bound 2e-3), top-1 as exllamav3's at %d of %d",
					name, kl, klGate, klX, agreeX, n)
			}
			steps := stepLogits(t, dir, g, gold.PromptIDs[:32])
			klS, agreeS := testutil.MeanKL(ref[:32*gold.LogitsShape[1]], steps, 32)
			if klS > klGate {
				t.Errorf("MISMATCH %s decode steps: KL to the CPU %.3g (bound %g)", name, klS, klGate)
			}
			m, err := model.Load(dir, g)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			d, err := modeldir.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := d.Tokenizer()
			if err != nil {
				t.Fatal(err)
			}
			res, err := eval.Perplexity(m, tok.Encode(string(text[:65536]), false), 512, func(id int) int { return len(tok.TokenBytes(id)) }, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := res.BitsPerByte - gold.Heldout.BitsPerByte; d > 0.003 || d < -0.003 {
				t.Errorf("MISMATCH %s: %.5f bits/byte, exllamav3 %.5f", name, res.BitsPerByte, gold.Heldout.BitsPerByte)
			}
			record("exl3        %-28s prompt KL cpu %.2e (top-1 %d/%d), exllamav3 %.2e (%d/%d); steps KL %.2e (%d/32); greedy %v (exllamav3 %v); %.5f bits/byte (exllamav3 %.5f)",
				filepath.Base(name), kl, agree, n, klX, agreeX, n, klS, agreeS, gen, gold.GreedyNewIDs, res.BitsPerByte, gold.Heldout.BitsPerByte)
		})
	}
}
