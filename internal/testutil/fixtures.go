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
	p := filepath.Join(Root(tb), "..", "shared", "fixtures", rel)
	if q, ok := OptionalFixture(tb, rel); ok {
		return q
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("fixture %s missing: %v", rel, err)
		}
		tb.Skipf("fixture %s missing: %v", rel, err)
	}
	return p
}

// OptionalFixture is Fixture for a caller that can do without it (a fuzz target's seed corpus): the path and
// true when the fixture is here, false otherwise, never skipping or failing.
func OptionalFixture(tb testing.TB, rel string) (string, bool) {
	tb.Helper()
	for _, p := range []string{filepath.Join(Root(tb), ".devdata", rel), filepath.Join(Root(tb), "..", "shared", "fixtures", rel)} {
		if exists(p) {
			return p, true
		}
	}
	return "", false
}

// FixtureBytes reads an optional fixture (see OptionalFixture); nil when it is not here.
func FixtureBytes(tb testing.TB, rel string) []byte {
	tb.Helper()
	p, ok := OptionalFixture(tb, rel)
	if !ok {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatalf("fixture %s: %v", rel, err)
	}
	return b
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
