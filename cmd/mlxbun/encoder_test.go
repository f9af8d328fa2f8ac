// Tests of quantize --device: an unknown device is one error line naming it; auto runs, logging which device
// searches (the CPU, at debug level, on a machine without CUDA), and writes the artifact --device cpu writes.
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

func TestQuantizeDevice(t *testing.T) {
	src := variant.For(t, "qwen3").Dir
	dir := t.TempDir()
	oneErrorLine(t, mlxbun(t, "", "quantize", "--model", src, "--out", filepath.Join(dir, "x"), "--bits", "2", "--device", "nope"),
		"--device nope", "unknown device")
	var files [][]byte
	for _, dev := range []string{"cpu", "auto"} {
		out := filepath.Join(dir, dev)
		r := mlxbun(t, "", "quantize", "--model", src, "--out", out, "--bits", "2", "--L", "8", "--group-size", "64", "--fast",
			"--quiet", "--log-format", "json", "--log-level", "debug", "--device", dev)
		if r.code != 0 {
			t.Fatalf("--device %s: exit %d: %s", dev, r.code, r.stderr)
		}
		if dev == "auto" {
			found := false
			for _, line := range strings.Split(r.stderr, "\n") {
				var rec struct{ Message, Device string }
				if json.Unmarshal([]byte(line), &rec) == nil && strings.HasPrefix(rec.Message, "trellis search") && rec.Device != "" {
					found = true
				}
			}
			if !found {
				t.Errorf("--device auto logged no trellis search device:\n%s", r.stderr)
			}
		}
		b, err := os.ReadFile(filepath.Join(out, "model.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("--device auto wrote another model.safetensors than --device cpu")
	}
}
