// Package testutil finds the shared fixtures (../shared/fixtures beside the repository) for tests.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// Root is the repository root: the nearest directory above the working directory holding go.mod.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Fixture returns the path of rel under .devdata/ (the copy a device run carries, scripts/device) or else under
// ../shared/fixtures. A missing fixture fails the test under CI=true and skips it elsewhere.
func Fixture(tb testing.TB, rel string) string {
	tb.Helper()
	if p := filepath.Join(Root(tb), ".devdata", rel); exists(p) {
		return p
	}
	p := filepath.Join(Root(tb), "..", "shared", "fixtures", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("fixture %s missing: %v", rel, err)
		}
		tb.Skipf("fixture %s missing: %v", rel, err)
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
