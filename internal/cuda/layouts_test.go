// Issue 20's published layouts as the CUDA backend sees them before any weight is read, without a GPU (Supports
// reads only the queries and the kernel tables): every directory of internal/model's layout goldens (the wrapped
// multimodal checkpoints in both prefix styles, sharded and text-only; Qwen3-MoE with its experts stored one
// module each and as fused stacks) and the 3-bit trellis quantization of both Qwen3-MoE layouts are served in
// full, so `--device auto` picks CUDA for them rather than passing over to the CPU. The GPU run of the same
// directories is layouts_gpu_test.go.
package cuda

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// layoutCases must match internal/model's layoutCases (layouts_golden_test.go): the cases
// scripts/device/layout_goldens.py writes.
var layoutCases = []string{"gemma3", "gemma4", "qwen3_5", "qwen3_5_moe", "qwen3_moe"}

// layoutQuantCase is the layout case whose directories are also quantized (trellis-coded experts).
const layoutQuantCase = "qwen3_moe"

// layoutQuant is how the tests quantize it: 3 bits at a small L as TestQuantizedFamiliesKL (for speed), in blocks
// of 32, the most that divides the tiny model's expert width (moe_intermediate_size 32; 32·3 bits is whole words).
var layoutQuant = quantize.Options{Bits: 3, L: 8, GroupSize: 32}

// layoutCase is one case of the layout goldens: its directory, the model directories in it (the first is the
// one the golden was saved as) and the golden.
type layoutCase struct {
	name, dir string
	dirs      []string
	gold      testutil.Golden
	ref       []float32 // prompt logits, [positions, vocab]
}

// readLayouts reads internal/model/testdata/layouts from the tree (it travels with the checkout to the device
// machine): every case of layoutCases must be in its manifest, none failed or skipped.
func readLayouts(t *testing.T) []layoutCase {
	t.Helper()
	root := filepath.Join(testutil.Root(t), "internal", "model", "testdata", "layouts")
	raw, err := os.ReadFile(filepath.Join(root, "MANIFEST.json"))
	if err != nil {
		t.Fatalf("layout goldens: %v", err)
	}
	var manifest struct {
		Cases   []string          `json:"cases"`
		Skipped map[string]string `json:"skipped"`
		Failed  map[string]string `json:"failed"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatalf("%s/MANIFEST.json: %v", root, err)
	}
	if len(manifest.Skipped)+len(manifest.Failed) > 0 || !slices.Equal(manifest.Cases, layoutCases) {
		t.Fatalf("%s/MANIFEST.json: cases %v (skipped %v, failed %v), want %v", root, manifest.Cases, manifest.Skipped,
			manifest.Failed, layoutCases)
	}
	var out []layoutCase
	for _, name := range manifest.Cases {
		c := layoutCase{name: name, dir: filepath.Join(root, name)}
		c.gold, c.ref = testutil.ReadGolden(t, c.dir)
		var extra struct {
			Dirs []string `json:"dirs"`
		}
		raw, err := os.ReadFile(filepath.Join(c.dir, "golden.json"))
		if err == nil {
			err = json.Unmarshal(raw, &extra)
		}
		if err != nil || len(extra.Dirs) < 2 {
			t.Fatalf("%s/golden.json: directories %v (%v)", c.dir, extra.Dirs, err)
		}
		c.dirs = extra.Dirs
		out = append(out, c)
	}
	return out
}

// quantizeLayouts quantizes each directory of the qwen3_moe case (layoutQuant, on the CPU) under t's temp dir and
// returns the outputs by directory name.
func quantizeLayouts(t *testing.T, c layoutCase) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range c.dirs {
		q := filepath.Join(t.TempDir(), d+"-3bit")
		if _, err := quantize.Run(filepath.Join(c.dir, d), q, layoutQuant, nil); err != nil {
			t.Fatalf("quantize %s/%s: %v", c.name, d, err)
		}
		out[d] = q
	}
	return out
}

// asked is what queries ask of a device, sorted, their layer names left out: one checkpoint stored in two layouts
// asks the same (Qwen3-MoE's per-expert modules and its fused stacks name their experts differently).
func asked(qs []backend.Query) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		q.Name = ""
		out[i] = q.String()
	}
	slices.Sort(out)
	return out
}

// TestLayoutsServedBeforeLoading: CUDA serves every query of every layout directory and of the 3-bit Qwen3-MoE
// artifacts (whose experts are trellis codes), and the directories of one case ask the same of it.
func TestLayoutsServedBeforeLoading(t *testing.T) {
	serves := func(what, dir string) []backend.Query {
		qs, err := model.Queries(dir)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := backend.SupportsAll(&Backend{}, qs); err != nil {
			t.Errorf("%s: --device auto would pass over cuda: %v", what, err)
		}
		return qs
	}
	for _, c := range readLayouts(t) {
		t.Run(c.name, func(t *testing.T) {
			first := serves(c.name+"/"+c.dirs[0], filepath.Join(c.dir, c.dirs[0]))
			for _, d := range c.dirs[1:] {
				if got, want := asked(serves(c.name+"/"+d, filepath.Join(c.dir, d))), asked(first); !slices.Equal(got, want) {
					t.Errorf("%s/%s asks\n %q\n%s asks\n %q", c.name, d, got, c.dirs[0], want)
				}
			}
			if c.name != layoutQuantCase {
				return
			}
			for d, q := range quantizeLayouts(t, c) {
				coded := 0
				for _, qu := range serves(c.name+"/"+d+" 3-bit", q) {
					if qu.Op == backend.OpMatMul && qu.Weight.Format == backend.FormatTrellis {
						coded++
					}
				}
				if coded == 0 {
					t.Errorf("%s/%s 3-bit: no trellis layer asked about", c.name, d)
				}
			}
		})
	}
}

// TestIssue20PresetsServed: the synthetic presets scripts/device/quant.sh issue20 benches on the GPU —
// qwen3-30b-a3b at 3 bits (trellis expert stacks behind the MoE op), gemma4-31b at bf16 and 3 bits — are served
// whole, so `bench --device cuda` builds them rather than failing before the first weight.
func TestIssue20PresetsServed(t *testing.T) {
	for _, c := range []struct {
		name string
		bits int
	}{{"qwen3-30b-a3b", 3}, {"gemma4-31b", 0}, {"gemma4-31b", 3}} {
		qs, err := model.SyntheticTrellisQueries(c.name, model.SyntheticQuant{Bits: c.bits})
		if c.bits == 0 {
			qs, err = model.SyntheticQueries(c.name)
		}
		if err != nil {
			t.Fatalf("%s %d-bit: %v", c.name, c.bits, err)
		}
		coded := 0
		for _, q := range qs {
			if q.Weight.Format == backend.FormatTrellis {
				coded++
			}
		}
		if c.bits > 0 && coded == 0 {
			t.Errorf("%s %d-bit: no trellis layer asked about", c.name, c.bits)
		}
		if err := backend.SupportsAll(&Backend{}, qs); err != nil {
			t.Errorf("%s %d-bit: %v", c.name, c.bits, err)
		}
	}
}
