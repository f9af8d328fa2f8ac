package model_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// EXL3 gates against exllamav3's own forward (fp16 arithmetic): mean KL of the prompt's next-token distributions
// and the share of positions whose top-1 agrees; greedy tokens must agree where the top-2 gap exceeds gapEXL3.
const (
	klEXL3    = 2e-3
	agreeEXL3 = 0.98
	gapEXL3   = 1e-2
)

// logitsOn is the logits of every position of ids, run as one prompt on b.
func logitsOn(t *testing.T, dir string, b backend.Backend, ids []int) []float32 {
	t.Helper()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cache, err := m.NewCache(1, len(ids))
	if err != nil {
		t.Fatal(err)
	}
	s := model.Step{}
	for p, id := range ids {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	out, err := m.Forward(s, cache, len(ids))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEXL3Fixtures runs every model exllamav3's converter made (shared/fixtures/exl3) on the CPU, its EXL3 layers
// decoded on the fly, against exllamav3's logits of the golden prompt. The 16 greedy tokens are checked with
// exllamav3's continuation fed back (each step in exllamav3's context): step 0 where exllamav3's own top-2 gap
// exceeds gapEXL3, the later steps, whose logits exllamav3 did not record, where the CPU's does.
func TestEXL3Fixtures(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	for _, name := range testutil.EXL3Fixtures(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := testutil.Fixture(t, name)
			g, ref := testutil.ReadEXL3Golden(t, dir)
			n, vocab := g.LogitsShape[0], g.LogitsShape[1]
			ids := append(append([]int(nil), g.PromptIDs...), g.GreedyNewIDs...)
			got := logitsOn(t, dir, b, ids)
			kl, agree := testutil.MeanKL(ref, got[:n*vocab], n)
			t.Logf("mean KL(exllamav3 ‖ cpu) %.3g, top-1 equal at %d of %d positions", kl, agree, n)
			if kl > klEXL3 || float64(agree) < agreeEXL3*float64(n) {
				t.Errorf("mean KL %.3g (bound %g), top-1 equal at %d of %d (bound %.0f%%)", kl, klEXL3, agree, n, 100*agreeEXL3)
			}
			checked := 0
			for i, want := range g.GreedyNewIDs {
				row := got[(n-1+i)*vocab : (n+i)*vocab]
				gap := testutil.Top2Gap(row)
				if i == 0 {
					gap = testutil.Top2Gap(ref[(n-1)*vocab:])
				}
				if gap <= gapEXL3 {
					continue
				}
				checked++
				if a := testutil.Argmax(row); a != want {
					t.Errorf("greedy step %d: token %d, exllamav3 %d (top-2 gap %.3g)", i, a, want, gap)
				}
			}
			t.Logf("greedy: %d of %d steps past the gap checked", checked, len(g.GreedyNewIDs))
		})
	}
}

// TestEXL3Expanded: a small model's EXL3 layers expanded once to their reconstructed dense weights (what the
// registered CPU device does below its threshold) give the logits of the on-the-fly forward, which runs in the
// layers' rotated basis, up to f32 rounding.
func TestEXL3Expanded(t *testing.T) {
	dir := testutil.Fixture(t, "exl3/pycoder-12m-exl3-3.0-mcg")
	g, _ := testutil.ReadEXL3Golden(t, dir)
	fly := cpu.New()
	defer fly.Close()
	dense := cpu.New()
	dense.ExpandQuantizedBelow = cpu.DefaultExpandQuantizedBelow
	defer dense.Close()
	a, e := logitsOn(t, dir, fly, g.PromptIDs), logitsOn(t, dir, dense, g.PromptIDs)
	var maxRef, maxErr float64
	for i := range a {
		maxRef = max(maxRef, math.Abs(float64(e[i])))
		maxErr = max(maxErr, math.Abs(float64(a[i]-e[i])))
	}
	t.Logf("on the fly vs expanded: max|err| %.3g of max|logit| %.3g", maxErr, maxRef)
	if maxErr > 1e-4*maxRef {
		t.Errorf("max|err| %.3g > 1e-4·%.3g", maxErr, maxRef)
	}
}
