package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/verify"
)

// TestHelpListsWhatExists: every verb's --device help names exactly the registered devices, and verify-kernels'
// help names every op its cases cover.
func TestHelpListsWhatExists(t *testing.T) {
	root := newRoot()
	for _, verb := range []string{"generate", "bench", "perplexity", "verify-kernels"} {
		cmd, _, err := root.Find([]string{verb})
		if err != nil {
			t.Fatal(err)
		}
		usage := cmd.Flags().Lookup("device").Usage
		for _, d := range backend.Devices() {
			if !strings.Contains(usage, d) {
				t.Errorf("%s --device help %q lacks %s", verb, usage, d)
			}
		}
		if strings.Contains(usage, "metal") != strings.Contains(strings.Join(backend.Devices(), " "), "metal") {
			t.Errorf("%s --device help %q names a device this build lacks", verb, usage)
		}
	}
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"verify-kernels", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := strings.ReplaceAll(out.String(), "\n", " ")
	for _, op := range verify.Ops() {
		if !strings.Contains(help, op) {
			t.Errorf("verify-kernels --help lacks %s", op)
		}
	}
}
