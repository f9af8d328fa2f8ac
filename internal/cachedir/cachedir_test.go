package cachedir

import (
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	const env = "MLXBUN_TEST_CACHE_DIR"
	t.Setenv(env, "off")
	if d := Dir(env, "cuda"); d != "" {
		t.Errorf("off: %q", d)
	}
	t.Setenv(env, "/x/y")
	if d := Dir(env, "cuda"); d != "/x/y" {
		t.Errorf("override: %q", d)
	}
	t.Setenv(env, "")
	t.Setenv("XDG_CACHE_HOME", "/c")
	t.Setenv("HOME", "/h")
	if d, want := Dir(env, "metal"), filepath.Join("/c", "mlxbun", "metal"); d != want {
		t.Errorf("default: %q, want %q", d, want)
	}
}

// TestKey: equal fields hash equal, and moving a boundary between fields changes the key (the length prefixes).
func TestKey(t *testing.T) {
	a := Key("ab", "c")
	if len(a) != 64 || a != Key("ab", "c") {
		t.Fatalf("Key not a stable 64-digit hex: %q", a)
	}
	for _, other := range [][]string{{"a", "bc"}, {"abc"}, {"ab", "c", ""}, {"c", "ab"}} {
		if Key(other...) == a {
			t.Errorf("Key(%q) == Key(\"ab\", \"c\")", other)
		}
	}
}
