package exl3_test

import (
	"math"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

type archive struct{ *safetensors.Archive }

func (a archive) Read(name string) (dtype.DType, []int, []byte, error) {
	h, err := a.Tensor(name)
	return h.DType, h.Shape, h.Data, err
}

// TestFixtureReconstruction reconstructs every EXL3 projection of the converter's fixtures and holds it to the
// bf16 weights it was converted from: the relative squared error must be what K bits buy (measured: K 2 0.141,
// K 3 0.035, K 4 0.0089, the 6-bit head 0.00097; a wrong bit order, tile permutation or Hadamard side gives an
// error of the weights' own size, ≥ 1).
func TestFixtureReconstruction(t *testing.T) {
	orig, err := safetensors.OpenDir(testutil.Fixture(t, "trained/pycoder-12m"))
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	for _, c := range []struct {
		dir   string
		bound map[int]float64 // per K, the largest relative squared error allowed
	}{
		{"exl3/pycoder-12m-exl3-2.0-mul1", map[int]float64{2: 0.16, 6: 0.0015}},
		{"exl3/pycoder-12m-exl3-3.0-mul1", map[int]float64{3: 0.045, 6: 0.0015}},
		{"exl3/pycoder-12m-exl3-4.0-mul1", map[int]float64{4: 0.012, 6: 0.0015}},
		{"exl3/pycoder-12m-exl3-3.0-mcg", map[int]float64{3: 0.045, 6: 0.0015}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			a, err := safetensors.OpenDir(testutil.Fixture(t, c.dir))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			modules := 0
			worst := map[int]float64{}
			for _, name := range a.Names() {
				path, ok := strings.CutSuffix(name, exl3.SuffixTrellis)
				if !ok {
					continue
				}
				ref, err := orig.Tensor(path + ".weight")
				if path == "lm_head" && !orig.Has("lm_head.weight") {
					ref, err = orig.Tensor("model.embed_tokens.weight") // tied: the head is the table
				}
				if err != nil {
					t.Fatal(err)
				}
				want, err := ref.Float32s()
				if err != nil {
					t.Fatal(err)
				}
				w, err := exl3.Read(archive{a}, path, ref.Shape[1], ref.Shape[0])
				if err != nil {
					t.Fatal(err)
				}
				got := w.Dense()
				var num, den float64
				for i, v := range want {
					d := float64(got[i]) - float64(v)
					num += d * d
					den += float64(v) * float64(v)
				}
				rel := num / den
				worst[w.K] = max(worst[w.K], rel)
				modules++
				if b, ok := c.bound[w.K]; !ok || rel > b || math.IsNaN(rel) {
					t.Errorf("%s (K %d, %v): relative squared error %.4g (bound %v)", path, w.K, w.Codebook, rel, c.bound[w.K])
				}
			}
			t.Logf("%d modules; worst relative squared error per K: %v", modules, worst)
			if modules != 4*7+1 {
				t.Errorf("%d EXL3 modules, want 29 (7 per layer and the head)", modules)
			}
		})
	}
}
