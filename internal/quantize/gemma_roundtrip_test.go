package quantize_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

// TestQuantizeGemma4KVSharing: a Gemma 4 checkpoint whose KV-sharing layers still hold the k_proj and v_proj HF
// ignores quantizes at 3 bits with those dropped, and the quantized model computes what its decoded-dense twin
// computes (the sharing layers read the right layer's keys and values, double-wide MLPs bound at their width).
func TestQuantizeGemma4KVSharing(t *testing.T) {
	src := variant.Gemma4Shared(t, true)
	// Put layer 4's k_proj back, as an original checkpoint holds it (the copy of layer 3's: any shape-right tensor).
	withK := variant.Rewrite(t, src, func(map[string]any) {}, func(ts []backend.Host) []backend.Host {
		for _, h := range ts {
			if h.Name == "model.layers.3.self_attn.k_proj.weight" {
				h.Name = "model.layers.4.self_attn.k_proj.weight"
				return append(ts, h)
			}
		}
		t.Fatal("no layer 3 k_proj")
		return nil
	})
	g, _ := testutil.ReadGolden(t, testutil.Fixture(t, "models/tiny-gemma4"))
	out := filepath.Join(t.TempDir(), "q")
	rep, err := quantize.Run(withK, out, quantize.Options{Bits: 3, L: 8, GroupSize: 64}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Dropped, []string{"model.layers.4.self_attn.k_proj.weight"}) {
		t.Errorf("dropped %v", rep.Dropped)
	}
	b := cpu.New()
	ref, _ := run(t, b, src, g.PromptIDs)
	got, _ := run(t, b, out, g.PromptIDs)
	dense, _ := run(t, b, decoded(t, out), g.PromptIDs)
	twin, _ := compare(dense, got, len(g.PromptIDs))
	rel, agree := compare(ref, got, len(g.PromptIDs))
	t.Logf("3-bit: relative RMS error %.3f, decoded-dense twin %.1e, top-1 agreement %d/%d", rel, twin, agree, len(g.PromptIDs))
	if twin > 1e-5 || rel > 0.65 {
		t.Errorf("twin %.3g, error %.3f", twin, rel)
	}
}
