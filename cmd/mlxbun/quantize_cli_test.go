// Tests of quantize's defaults: without options it rotates, codes along axis 0, calibrates on tokens the model
// samples itself and refits the scales, recording every setting in the config's quantization block, with a
// time-left estimate in each layer's line; --fast writes exactly what the plain coder (the default before
// calibration was) wrote, byte for byte, against hashes recorded from that version.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
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
	prof := filepath.Join(dir, "cpu.pprof")
	r := mlxbun(t, "", "quantize", "--model", src, "--out", out, "--bits", "3", "--L", "6", "--group-size", "64",
		"--calib-tokens", "1024", "--quiet", "--verbose", "--log-format", "json", "--cpu-profile", prof)
	if r.code != 0 {
		t.Fatalf("quantize: exit %d: %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(prof); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof's gzip
		t.Errorf("--cpu-profile: %v, %d bytes, want a gzipped profile", err, len(b))
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

// TestQuantizeAutoL: --L and --device default to auto; on this machine (no GPU) auto is the CPU at L 12, logged as
// one info line and named in the summary and the config, with no warning or error; an explicit --L is named as
// given; a malformed --L is one error line. (The GPU side of the choice: internal/quantize's TestResolveL.)
func TestQuantizeAutoL(t *testing.T) {
	r := mlxbun(t, "", "quantize", "--help")
	for _, want := range []string{
		`--L string               trellis state bits: auto (16 when the trellis search runs on a GPU, 12 on the CPU) or bits..16`,
		`auto (cuda when it opens, else the CPU), cpu or cuda`, `(default "auto")`, `--L auto (the default) codes at L 16`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("quantize --help lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, `(default "auto")`); n != 3 { // --L, --device, --calib
		t.Errorf("%d flags default to auto, want 3 (--L, --device, --calib)", n)
	}
	// tiny-qwen3's first layer's attention projections alone: L 12 stays cheap (196,608 weights).
	src := variant.Rewrite(t, filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json")),
		func(c map[string]any) { c["num_hidden_layers"] = 1; c["layer_types"] = []any{"full_attention"} },
		func(ts []backend.Host) []backend.Host {
			var keep []backend.Host
			for _, h := range ts {
				if !strings.Contains(h.Name, "layers.1.") && !strings.Contains(h.Name, "mlp.") {
					keep = append(keep, h)
				}
			}
			return keep
		})
	dir := t.TempDir()
	for _, bad := range []string{"x", "0", "-3"} {
		oneErrorLine(t, mlxbun(t, "", "quantize", "--model", src, "--out", filepath.Join(dir, "bad"), "--bits", "2", "--L", bad),
			"--L "+bad+":", "want auto or a number")
	}
	for _, c := range []struct {
		args []string
		L    int
		why  string
	}{
		{nil, quantize.DefaultL, "auto: the trellis search runs on the CPU"},
		{[]string{"--L", "8"}, 8, "given by --L"},
	} {
		out := filepath.Join(dir, fmt.Sprint(c.L))
		args := append([]string{"quantize", "--model", src, "--out", out, "--bits", "2", "--group-size", "64", "--fast",
			"--quiet", "--log-format", "json", "--log-level", "info"}, c.args...)
		r := mlxbun(t, "", args...)
		if r.code != 0 {
			t.Fatalf("quantize %v: exit %d: %s", c.args, r.code, r.stderr)
		}
		if want := fmt.Sprintf("  trellis      L %d (%s)\n", c.L, c.why); !strings.Contains(r.stdout, want) {
			t.Errorf("quantize %v: summary lacks %q:\n%s", c.args, want, r.stdout)
		}
		lines := 0
		for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
			var rec struct {
				Level, Message, Why string
				L                   int
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("quantize %v: stderr line not JSON: %q", c.args, line)
				continue
			}
			if rec.Level == "warn" || rec.Level == "error" {
				t.Errorf("quantize %v: %s line: %s", c.args, rec.Level, line)
			}
			if rec.Message == "trellis state bits" {
				lines++
				if rec.L != c.L || rec.Why != c.why {
					t.Errorf("quantize %v: %s, want L %d (%s)", c.args, line, c.L, c.why)
				}
			}
		}
		if lines != 1 {
			t.Errorf("quantize %v: %d lines naming the trellis L, want 1:\n%s", c.args, lines, r.stderr)
		}
		var cfg struct {
			Quantization struct {
				Trellis struct{ L int } `json:"trellis"`
			} `json:"quantization"`
		}
		if b, err := os.ReadFile(filepath.Join(out, "config.json")); err != nil || json.Unmarshal(b, &cfg) != nil {
			t.Fatalf("config: %v", err)
		}
		if cfg.Quantization.Trellis.L != c.L {
			t.Errorf("quantize %v: config's trellis L %d, want %d", c.args, cfg.Quantization.Trellis.L, c.L)
		}
	}
}
