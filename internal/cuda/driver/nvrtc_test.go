// Tests of the compile cache that need no GPU: what the key covers, and that writes are atomic and readable.

package driver

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

func TestCacheKey(t *testing.T) {
	opts := compileOptions("sm_90", nil)
	base := cacheKey("k.cu", "src", "sm_90", opts, "13.0")
	if base != cacheKey("k.cu", "src", "sm_90", slices.Clone(opts), "13.0") {
		t.Fatal("key not deterministic")
	}
	if len(base) != 64 {
		t.Fatalf("key %q is not hex sha256", base)
	}
	variants := map[string]string{
		"source":  cacheKey("k.cu", "src ", "sm_90", opts, "13.0"),
		"name":    cacheKey("j.cu", "src", "sm_90", opts, "13.0"),
		"arch":    cacheKey("k.cu", "src", "sm_89", opts, "13.0"),
		"version": cacheKey("k.cu", "src", "sm_90", opts, "12.8"),
		"options": cacheKey("k.cu", "src", "sm_90", compileOptions("sm_90", []string{"-DX=1"}), "13.0"),
		// Field boundaries matter: moving text between fields is a different key.
		"boundary": cacheKey("k.cus", "rc", "sm_90", opts, "13.0"),
	}
	seen := map[string]string{base: "base"}
	for what, k := range variants {
		if prev, dup := seen[k]; dup {
			t.Errorf("changing the %s gives the same key as %s", what, prev)
		}
		seen[k] = what
	}
}

func TestCompileOptions(t *testing.T) {
	got := compileOptions("sm_90", []string{"-DN=4"})
	want := []string{"--gpu-architecture=sm_90", "-default-device", "--std=c++17", "-lineinfo", "-DN=4"}
	if !slices.Equal(got, want) {
		t.Fatalf("options %v, want %v", got, want)
	}
	got = compileOptions("sm_90", []string{"-DN=4", NoLineInfo})
	want = []string{"--gpu-architecture=sm_90", "-default-device", "--std=c++17", "-DN=4"}
	if !slices.Equal(got, want) {
		t.Fatalf("options without line info %v, want %v", got, want)
	}
}

func TestWriteCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "x.cubin")
	if err := writeCache(dir, path, []byte("\x7fELF one")); err != nil {
		t.Fatal(err)
	}
	if err := writeCache(dir, path, []byte("\x7fELF two")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "\x7fELF two" {
		t.Fatalf("read back %q, %v", b, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
	if !isELF(b) || isELF([]byte("junk")) {
		t.Fatal("isELF")
	}
}

func TestCacheDirEnv(t *testing.T) {
	t.Setenv(envCacheDir, "off")
	if cacheDir() != "" {
		t.Fatal("off must disable the cache")
	}
	t.Setenv(envCacheDir, "/tmp/x")
	if cacheDir() != "/tmp/x" {
		t.Fatal("override ignored")
	}
	t.Setenv(envCacheDir, "")
	if d := cacheDir(); d != "" && filepath.Base(d) != "cuda" {
		t.Fatalf("default cache dir %s", d)
	}
}

func TestEmbeddedSources(t *testing.T) {
	src, ok := cudashaders.Sources["elementwise.cu"]
	if !ok || len(src) < 100 {
		t.Fatalf("elementwise.cu not embedded (have %d files)", len(cudashaders.Sources))
	}
}
