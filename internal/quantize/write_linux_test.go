// Tests that every file of the output is written under a temporary name and renamed: a write that fails midway
// (here: the file-size limit, RLIMIT_FSIZE, which makes write(2) fail with EFBIG past N bytes, the way a full
// disk or a killed run cuts a file short) leaves no file under its final name and no temporary file behind.
// Linux only, for the limit; the tests do not run in parallel, since the limit holds for the whole process.
package quantize

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
)

// underFileLimit runs fn with files of this process limited to n bytes.
func underFileLimit(t *testing.T, n uint64, fn func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("no RLIMIT_FSIZE: %v", err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: old.Max}); err != nil {
		t.Skipf("cannot lower RLIMIT_FSIZE: %v", err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatalf("restoring RLIMIT_FSIZE: %v", err)
		}
	}()
	fn()
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range entries {
		ns = append(ns, e.Name())
	}
	return ns
}

func TestShardIndexWrittenAtomically(t *testing.T) {
	dir := t.TempDir()
	s := newSink(dir, 64)
	for i := range 3 { // 48 bytes each against a 64-byte limit: three shards, so an index
		name := "model.layers." + string(rune('0'+i)) + ".mlp.down_proj.weight"
		if err := s.add(backend.Host{Name: name, DType: backend.BF16, Shape: []int{4, 6}, Data: make([]byte, 48)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.flush(); err != nil { // the shards written under no limit; only the index is cut short
		t.Fatal(err)
	}
	var err error
	underFileLimit(t, 16, func() { _, _, err = s.finish() })
	if err == nil {
		t.Fatal("finish: no error with the index cut at 16 bytes")
	}
	got := names(t, dir)
	if slices.Contains(got, indexFile) {
		b, _ := os.ReadFile(filepath.Join(dir, indexFile))
		t.Fatalf("a failed index write left %s (%d bytes: %q) where a loader would read it", indexFile, len(b), b)
	}
	for _, n := range got {
		if n[0] == '.' { // the shards are renamed before the index is written; no temporary may be left
			t.Errorf("left behind: %s (all: %v)", n, got)
		}
	}
	// Unlimited, the same sink finishes whole: the shards renamed, the index parses and names every tensor.
	s = newSink(t.TempDir(), 64)
	for i := range 3 {
		s.add(backend.Host{Name: "t" + string(rune('0'+i)), DType: backend.BF16, Shape: []int{24}, Data: make([]byte, 48)})
	}
	files, _, err := s.finish()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(s.dir, indexFile))
	if err != nil {
		t.Fatal(err)
	}
	var index struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(b, &index); err != nil || len(index.WeightMap) != 3 || len(files) != 4 {
		t.Fatalf("index %s (%v), files %v", b, err, files)
	}
}

func TestConfigAndCopiesWrittenAtomically(t *testing.T) {
	in := t.TempDir()
	raw := []byte(`{"model_type": "llama", "hidden_size": 64}`)
	tok := bytes.Repeat([]byte("x"), 4096)
	if err := os.WriteFile(filepath.Join(in, "tokenizer.json"), tok, 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Bits: 3, L: 12, GroupSize: DefaultGroupSize}
	// The config itself cut short.
	out := t.TempDir()
	var err error
	underFileLimit(t, 32, func() { _, err = writeConfig(in, raw, out, o, nil) })
	if err == nil {
		t.Fatal("writeConfig: no error with config.json cut at 32 bytes")
	}
	if got := names(t, out); len(got) != 0 {
		t.Fatalf("a failed config.json write left %v", got)
	}
	// The config whole, the tokenizer copy cut short: config.json stays, tokenizer.json must not appear.
	out = t.TempDir()
	underFileLimit(t, 1024, func() { _, err = writeConfig(in, raw, out, o, nil) })
	if err == nil {
		t.Fatal("writeConfig: no error with tokenizer.json cut at 1024 bytes")
	}
	if got := names(t, out); !slices.Equal(got, []string{config.ConfigFile}) {
		t.Fatalf("after a failed copy of tokenizer.json the folder holds %v, want only %s", got, config.ConfigFile)
	}
	// Unlimited: both whole, shared like any model file.
	out = t.TempDir()
	written, err := writeConfig(in, raw, out, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(written, []string{config.ConfigFile, "tokenizer.json"}) {
		t.Fatalf("written %v", written)
	}
	b, err := os.ReadFile(filepath.Join(out, "tokenizer.json"))
	if err != nil || !bytes.Equal(b, tok) {
		t.Fatalf("tokenizer.json copied as %d bytes (%v), want %d", len(b), err, len(tok))
	}
	for _, n := range written {
		st, err := os.Stat(filepath.Join(out, n))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", n, st.Mode().Perm())
		}
	}
}

func TestOwnerRecordWrittenAtomically(t *testing.T) {
	dir := t.TempDir()
	var err error
	underFileLimit(t, 8, func() { err = writeOwner(dir) })
	if err == nil {
		t.Fatal("writeOwner: no error with the record cut at 8 bytes")
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("a failed owner record write left %v", got)
	}
}
