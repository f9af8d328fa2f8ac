package quantize

import (
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// TestGemma4AffineTables: with --embeddings affine8 Gemma 4's per-layer input table is stored affine like the
// embedding table (its projections stay bf16: the family map keeps them), and the model loads, dequantizing
// the table before splitting it per layer.
func TestGemma4AffineTables(t *testing.T) {
	in := testutil.Fixture(t, "models/tiny-gemma4")
	out := filepath.Join(t.TempDir(), "a8")
	rep, err := Run(in, out, Options{Bits: 4, L: 8, GroupSize: 64, Embeddings: EmbeddingsAffine8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	affine := map[string]bool{}
	for _, r := range rep.Tensors {
		if r.Spec == affine8 {
			affine[r.Name] = true
		}
	}
	if !affine["model.embed_tokens"] || !affine["model.embed_tokens_per_layer"] || len(affine) != 2 {
		t.Errorf("affine tensors %v, want the two tables", affine)
	}
	if e := logitsError(t, in, out); e > 0.05 { // measured 0.0145
		t.Errorf("prompt logits off the reference by %.3f (relative RMS)", e)
	}
}
