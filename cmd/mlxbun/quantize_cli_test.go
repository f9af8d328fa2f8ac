// Tests of quantize's defaults: without options it rotates, codes along axis 0, calibrates on tokens the model
// samples itself and refits the scales, recording every setting in the config's quantization block, with a
// time-left estimate in each layer's line; --fast writes exactly what the plain coder (the default before
// calibration was) wrote, byte for byte, against hashes recorded from that version.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestQuantizeFastIsThePlainCoder: `quantize --bits 3 --L 8 --fast` on tiny-qwen3 writes the files that
// `quantize --bits 3 --L 8` wrote before the defaults changed (main at d0e86e7), and those of the library's zero
// Options.
func TestQuantizeFastIsThePlainCoder(t *testing.T) {
	src := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	dir := t.TempDir()
	out := filepath.Join(dir, "fast")
	if r := mlxbun(t, "", "quantize", "--model", src, "--out", out, "--bits", "3", "--L", "8", "--fast", "--quiet"); r.code != 0 {
		t.Fatalf("quantize --fast: exit %d: %s", r.code, r.stderr)
	}
	recorded := map[string]string{
		"config.json":       "ed9f6dc30af69509bfe09214bd21abdac2e6272c00b6b782c336b530340a8ea9",
		"model.safetensors": "b438567ec56ca0e013bd50db1e213533257285a84206d3ec1e60039c08c80727",
	}
	lib := filepath.Join(dir, "lib")
	if _, err := quantize.Run(src, lib, quantize.Options{Bits: 3, L: 8}, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != len(recorded) {
		t.Errorf("--fast wrote %d files, the plain coder %d", len(entries), len(recorded))
	}
	for name, want := range recorded {
		if got := fileSHA(t, filepath.Join(out, name)); got != want {
			t.Errorf("--fast %s: sha256 %s, the plain coder's %s", name, got, want)
		}
		if got := fileSHA(t, filepath.Join(lib, name)); got != want {
			t.Errorf("library zero Options %s: sha256 %s, the plain coder's %s", name, got, want)
		}
	}
}

// TestQuantizeDefaults: plain `quantize --bits 3` (made cheap with --L, --group-size and --calib-tokens) rotates,
// self-calibrates and refits, says so in the summary and the config, and logs each layer's time and the run's
// time left; --calib none keeps the rotation and drops calibration.
func TestQuantizeDefaults(t *testing.T) {
	src := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	dir := t.TempDir()
	out := filepath.Join(dir, "q")
	r := mlxbun(t, "", "quantize", "--model", src, "--out", out, "--bits", "3", "--L", "6", "--group-size", "64",
		"--calib-tokens", "1024", "--quiet", "--verbose", "--log-format", "json")
	if r.code != 0 {
		t.Fatalf("quantize: exit %d: %s", r.code, r.stderr)
	}
	layers := 0
	for _, line := range strings.Split(r.stderr, "\n") {
		var rec struct{ Message, Layer, Took, ETA string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Message == "layer quantized" && strings.HasPrefix(rec.Layer, "model.layers.") {
			layers++
			if rec.Took == "" || rec.ETA == "" {
				t.Errorf("layer line without its time or the time left: %s", line)
			}
		}
	}
	if layers != 2 || !strings.Contains(r.stderr, "calibration: sequences sampled from the model") {
		t.Errorf("%d layer lines for 2 layers, or no sampling line:\n%s", layers, r.stderr)
	}
	for _, want := range []string{"H = calibration XᵀX", "rht(in,out) ldlq"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	quantizer := func(dir string) map[string]any {
		var c struct {
			Quantization struct {
				Quantizer map[string]any `json:"quantizer"`
			} `json:"quantization"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "config.json"))
		if err != nil || json.Unmarshal(b, &c) != nil {
			t.Fatalf("config: %v", err)
		}
		return c.Quantization.Quantizer
	}
	q := quantizer(out)
	for k, v := range map[string]any{"rht": true, "axis0": true, "calibration": "auto", "calib_tokens": 1024.0,
		"damp": quantize.DefaultDamp, "ldlq_rows": float64(quantize.BestLDLQRows), "refit_scales": true,
		"calib_seed": float64(quantize.DefaultCalibSeed)} {
		if q[k] != v {
			t.Errorf("quantizer.%s = %v, want %v", k, q[k], v)
		}
	}

	plain := filepath.Join(dir, "none")
	if r := mlxbun(t, "", "quantize", "--model", src, "--out", plain, "--bits", "3", "--L", "6", "--group-size", "64",
		"--calib", "none", "--quiet"); r.code != 0 || !strings.Contains(r.stdout, "H = I (no calibration)") {
		t.Fatalf("--calib none: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if q := quantizer(plain); q["calibration"] != "none" || q["rht"] != true || q["refit_scales"] != nil {
		t.Errorf("--calib none: quantizer %v", q)
	}
}
