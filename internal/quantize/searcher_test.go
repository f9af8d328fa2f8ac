// Test that the encoder hook leaves the artifact as it was: tiny-qwen3 quantized plain (axis 1 and the axis-0
// down projections) and with RHT + LDLQ (both axes, the scale refit) gives the model.safetensors whose sha256 was
// recorded before the hook existed (main at 5a912e4), with the default encoder and through a Searcher that
// re-batches every call into odd pieces on the CPU.
package quantize_test

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// rebatch is a Searcher that hands trellis.CPU pieces of at most 3 blocks, counting the calls it gets.
type rebatch struct{ calls, blocks int }

func (r *rebatch) SearchBlocks(spec trellis.Spec, x []float32, states []uint32) error {
	r.calls++
	r.blocks += len(x) / spec.T
	for lo := 0; lo < len(x); lo += 3 * spec.T {
		hi := min(len(x), lo+3*spec.T)
		if err := trellis.CPU.SearchBlocks(spec, x[lo:hi], states[lo:hi]); err != nil {
			return err
		}
	}
	return nil
}

func TestSearcherKeepsOutput(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	ids := make([]int, 256)
	rng := rand.New(rand.NewPCG(21, 21))
	for i := range ids {
		ids[i] = rng.IntN(2048)
	}
	for _, c := range []struct {
		name, sha string
		o         quantize.Options
	}{
		{"plain", "25a0cf41d4ca8272252242a5e28753f6ed340e798cd827a4b0e5978cb42364ee", quantize.Options{Bits: 2, L: 8, GroupSize: 64}},
		{"ldlq", "5982a8ba40f0430665a2a3330808afaedb98eaf6a2a1be43c67d237789a6b1b7", quantize.Options{Bits: 3, L: 8, GroupSize: 64,
			RHT: true, CalibIDs: ids, CalibTokens: 256, CalibCtx: 64, RefitScales: true, LDLQRows: 4}},
	} {
		var rb rebatch
		for _, s := range []trellis.Searcher{nil, &rb} {
			o := c.o
			o.Searcher = s
			out := filepath.Join(t.TempDir(), c.name)
			rep, err := quantize.Run(in, out, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(out, "model.safetensors"))
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.Sum256(b)
			if got := hex.EncodeToString(h[:]); got != c.sha {
				t.Errorf("%s (searcher %T): model.safetensors sha256 %s, recorded %s", c.name, s, got, c.sha)
			}
			if s != nil && int64(rb.blocks*c.o.GroupSize) != rep.CodedWeights {
				t.Errorf("%s: the searcher saw %d blocks of %d in %d calls, the report codes %d weights",
					c.name, rb.blocks, c.o.GroupSize, rb.calls, rep.CodedWeights)
			}
		}
	}
}
