// The compile-ane verb as a user runs it: the program list on any machine, and the one-line failure where no
// Neural Engine is present.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// TestCompileANE: --list works on any machine for every fixture config (one row per program, the header naming
// the count); on a machine without a Neural Engine a compile lists the programs and fails with exactly one line.
func TestCompileANE(t *testing.T) {
	entries, err := os.ReadDir(testutil.Fixture(t, "models"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(testutil.Fixture(t, "models"), e.Name())
		r := mlxbun(t, "", "compile-ane", "--model", dir, "--list")
		if r.code != 0 {
			t.Errorf("%s: --list exit %d: %s", e.Name(), r.code, r.stderr)
			continue
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		var count int
		if _, err := fmt.Sscanf(lines[0], "%d Neural Engine programs", &count); err != nil || count < 1 || len(lines) != count+2 ||
			!strings.HasPrefix(lines[1], "KEY") {
			t.Errorf("%s: --list output:\n%s", e.Name(), r.stdout)
		}
		for _, l := range lines[2:] {
			if f := strings.Fields(l); len(f) < 4 || len(f[0]) != 16 || !strings.Contains(l, "layer") {
				t.Errorf("%s: row %q lacks a key, kind, shapes or layers", e.Name(), l)
			}
		}
	}
	if n == 0 {
		t.Fatal("no fixture models")
	}
	dir := testutil.Fixture(t, "models/tiny-qwen3")
	if runtime.GOOS != "darwin" {
		for _, args := range [][]string{{}, {"--status"}} {
			r := mlxbun(t, "", append([]string{"compile-ane", "--model", dir}, args...)...)
			if r.code == 0 || !strings.Contains(r.stdout, "mlp.gate_proj+mlp.up_proj") {
				t.Errorf("compile-ane %v without a Neural Engine: exit %d, stdout %q", args, r.code, r.stdout)
			}
			oneErrorLine(t, r, "no Neural Engine")
			if strings.Contains(r.stdout+r.stderr, "compiled 1") || strings.Contains(r.stdout, "cached") {
				t.Errorf("compile-ane %v claims Neural Engine work: %s%s", args, r.stdout, r.stderr)
			}
		}
	}
	mil := t.TempDir()
	if r := mlxbun(t, "", "compile-ane", "--model", dir, "--list", "--mil", mil); r.code != 0 {
		t.Fatalf("--mil: %s", r.stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(mil, "*.mil")); len(files) != 4 {
		t.Errorf("--mil wrote %d files for tiny-qwen3's 4 programs", len(files))
	}
	oneErrorLine(t, mlxbun(t, "", "compile-ane", "--model", t.TempDir(), "--list"), "config.json")
	oneErrorLine(t, mlxbun(t, "", "compile-ane", "--list"), "--model is required")
}
