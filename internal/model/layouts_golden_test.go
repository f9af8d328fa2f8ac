// The published layouts against HF transformers: testdata/layouts holds what scripts/device/layout_goldens.py
// writes (tiny random models saved by the ForConditionalGeneration classes and Qwen3MoeForCausalLM, with
// transformers' float32 logits and greedy tokens). Until that directory is committed the test has nothing to
// read and skips; once it is, every case the manifest names must be there.
package model_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// layoutCases are the cases the script knows; its manifest says which it wrote and why it skipped any.
var layoutCases = []string{"gemma3", "gemma4", "qwen3_5", "qwen3_5_moe", "qwen3_moe"}

// TestLayoutGoldens: every directory of each case (a wrapped model in both prefix styles, the first sharded as
// transformers saved it, and its text-only class; Qwen3-MoE with its experts stored both ways) gives the golden's
// prompt logits within 1e-4 of max|ref| and its greedy tokens, and each the same logits as the case's first.
func TestLayoutGoldens(t *testing.T) {
	root := filepath.Join("testdata", "layouts")
	raw, err := os.ReadFile(filepath.Join(root, "MANIFEST.json"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("no layout goldens under internal/model/testdata/layouts yet (scripts/device/layout_goldens.py writes them)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Cases   []string          `json:"cases"`
		Skipped map[string]string `json:"skipped"` // a class the transformers that ran it lacks
		Failed  map[string]string `json:"failed"`  // a case whose golden could not be trusted
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatalf("MANIFEST.json: %v", err)
	}
	for c, why := range manifest.Failed {
		t.Errorf("%s: the script could not make its golden: %s", c, why)
	}
	for _, c := range layoutCases {
		if why, skipped := manifest.Skipped[c]; skipped {
			t.Logf("%s: not written: %s", c, why)
		} else if !slices.Contains(manifest.Cases, c) {
			t.Errorf("%s: neither written nor skipped by the manifest", c)
		}
	}
	for _, c := range manifest.Cases {
		t.Run(c, func(t *testing.T) {
			dir := filepath.Join(root, c)
			g, ref := testutil.ReadGolden(t, dir)
			var extra struct {
				Dirs []string `json:"dirs"`
			}
			raw, err := os.ReadFile(filepath.Join(dir, "golden.json"))
			if err == nil {
				err = json.Unmarshal(raw, &extra)
			}
			if err != nil || len(extra.Dirs) < 2 {
				t.Fatalf("%s/golden.json: directories %v (%v)", dir, extra.Dirs, err)
			}
			var maxRef float64
			for _, r := range ref {
				maxRef = max(maxRef, math.Abs(float64(r)))
			}
			var first []float32
			for _, d := range extra.Dirs {
				got := promptLogits(t, filepath.Join(dir, d), g.PromptIDs)
				e := maxDiff(got, ref)
				t.Logf("%s: max|err| %.3g, max|ref| %.3g", d, e, maxRef)
				if e > 1e-4*maxRef {
					t.Errorf("%s: max|err| %.4g > 1e-4·max|ref| = %.4g", d, e, 1e-4*maxRef)
				}
				if first == nil {
					first = got
				} else if !slices.Equal(got, first) {
					t.Errorf("%s: logits differ from %s's by up to %.3g", d, extra.Dirs[0], maxDiff(got, first))
				}
				if gen := greedy(t, filepath.Join(dir, d), g.PromptIDs, len(g.GreedyNewIDs)); !slices.Equal(gen, g.GreedyNewIDs) {
					t.Errorf("%s: greedy %v, golden %v", d, gen, g.GreedyNewIDs)
				}
			}
		})
	}
}
