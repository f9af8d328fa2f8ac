package model_test

import (
	"math"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

func promptLogits(t *testing.T, dir string, ids []int) []float32 {
	t.Helper()
	b := cpu.New()
	defer b.Close()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cache, _ := m.NewCache(1, len(ids))
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

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestPhi3FusedEqualsLlama: Phi-3's fused qkv_proj / gate_up_proj, split by rows, give exactly the Llama
// forward of the unfused weights (the rope and norms being the same).
func TestPhi3FusedEqualsLlama(t *testing.T) {
	v := variant.For(t, "phi3")
	g, ref := readGolden(t, v.Fixture)
	got := promptLogits(t, v.Dir, g.PromptIDs)
	if d := maxDiff(got, ref); d > 1e-4*4 {
		t.Errorf("phi3 (fused) logits differ from the llama golden by %.3g", d)
	}
}

// TestSmolLM3NoPE: with no_rope_layers all 1 SmolLM3 is Llama; marking a layer NoPE changes the logits.
func TestSmolLM3NoPE(t *testing.T) {
	src := testutil.Fixture(t, "models/tiny-llama3")
	g, ref := readGolden(t, src)
	keep := func(ts []backend.Host) []backend.Host { return ts }
	allRope := variant.Rewrite(t, src, func(c map[string]any) { c["model_type"] = "smollm3"; c["no_rope_layers"] = []int{1, 1} }, keep)
	if d := maxDiff(promptLogits(t, allRope, g.PromptIDs), ref); d > 4e-4 {
		t.Errorf("smollm3 with rope on every layer differs from the llama golden by %.3g", d)
	}
	nope := variant.For(t, "smollm3").Dir // no_rope_layers [1, 0]
	if d := maxDiff(promptLogits(t, nope, g.PromptIDs), ref); d < 1e-2 {
		t.Errorf("a NoPE layer left the logits unchanged (max diff %.3g)", d)
	}
}
