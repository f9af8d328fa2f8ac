// A cache laid out as huggingface_hub lays it out (built here file by file: blobs, relative symlinks, refs,
// .no_exist markers, a lock folder, an older snapshot) read with no network at all.
package hub

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hfCache writes models--org--name as huggingface_hub leaves it after two downloads: main at commit c2 (config.json,
// model.safetensors, sub/vocab.txt), the tag v1 at c1 (config.json only), and a .no_exist marker for
// generation_config.json at c2. It returns the cache directory, c1 and c2.
func hfCache(t *testing.T) (dir, c1, c2 string) {
	t.Helper()
	dir = t.TempDir()
	repo := filepath.Join(dir, "models--org--name")
	c1, c2 = strings.Repeat("1a", 20), strings.Repeat("c2", 20)
	blobs := map[string]string{
		"0e8b5ed3a7b5b1c4f1cfd6b8f1b7b5e1b9d2c3a4":                         `{"model_type":"qwen3","v":2}`,
		"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08": "weights",
		"5d41402abc4b2a76b9719d911017c592abcdef01":                         "vocab",
		"aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d":                         `{"model_type":"qwen3","v":1}`,
	}
	for etag, body := range blobs {
		mustWrite(t, filepath.Join(repo, "blobs", etag), body)
	}
	links := []struct{ commit, file, etag string }{
		{c2, "config.json", "0e8b5ed3a7b5b1c4f1cfd6b8f1b7b5e1b9d2c3a4"},
		{c2, "model.safetensors", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{c2, "sub/vocab.txt", "5d41402abc4b2a76b9719d911017c592abcdef01"},
		{c1, "config.json", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"},
	}
	for _, l := range links {
		p := filepath.Join(repo, "snapshots", l.commit, filepath.FromSlash(l.file))
		os.MkdirAll(filepath.Dir(p), 0o755)
		target := strings.Repeat("../", strings.Count(l.file, "/")+2) + "blobs/" + l.etag
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(repo, "refs", "main"), c2) // huggingface_hub writes the hash without a newline
	mustWrite(t, filepath.Join(repo, "refs", "v1"), c1)
	mustWrite(t, filepath.Join(repo, ".no_exist", c2, "generation_config.json"), "")
	mustWrite(t, filepath.Join(dir, ".locks", "models--org--name", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.lock"), "")
	return dir, c1, c2
}

func mustWrite(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// deadEndpoint is an http URL on loopback where nothing listens (a port just released).
func deadEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestHFCacheWithoutNetwork(t *testing.T) {
	dir, c1, c2 := hfCache(t)
	for _, offline := range []bool{true, false} {
		c, err := New(Config{CacheDir: dir, Endpoint: deadEndpoint(t), Offline: offline, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			rev, commit, config string
		}{
			{"", c2, `{"model_type":"qwen3","v":2}`},
			{"main", c2, `{"model_type":"qwen3","v":2}`},
			{"v1", c1, `{"model_type":"qwen3","v":1}`},
			{c1, c1, `{"model_type":"qwen3","v":1}`},
			{c2[:8], c2, `{"model_type":"qwen3","v":2}`}, // a short hash with no ref: the snapshot it prefixes
		} {
			ref := Ref{Repo: "org/name", Revision: tc.rev}
			s, err := c.Snapshot(context.Background(), ref, nil)
			if err != nil {
				t.Fatalf("offline=%v %s: %v", offline, ref, err)
			}
			if !s.FromCache || s.Commit != tc.commit || s.Dir != filepath.Join(dir, "models--org--name", "snapshots", tc.commit) {
				t.Errorf("offline=%v %s: %+v", offline, ref, s)
			}
			if offline != (s.Unreachable == nil) {
				t.Errorf("offline=%v %s: Unreachable %v", offline, ref, s.Unreachable)
			}
			if b, err := os.ReadFile(filepath.Join(s.Dir, "config.json")); err != nil || string(b) != tc.config {
				t.Errorf("%s: config.json %q, %v", ref, b, err)
			}
		}
	}

	cache := Cache{Dir: dir}
	ref := Ref{Repo: "org/name"}
	if p, err := cache.File(ref, "sub/vocab.txt"); err != nil || mustRead(t, p) != "vocab" {
		t.Errorf("sub/vocab.txt: %s %v", p, err)
	}
	if _, err := cache.File(ref, "generation_config.json"); !errors.Is(err, ErrNoExist) {
		t.Errorf("generation_config.json has a .no_exist marker: got %v", err)
	}
	if _, err := cache.File(Ref{Repo: "org/name", Revision: "v1"}, "generation_config.json"); !errors.Is(err, ErrNotCached) {
		t.Errorf("the marker is for c2 only: got %v", err)
	}
	if _, err := cache.File(ref, "tokenizer.json"); !errors.Is(err, ErrNotCached) {
		t.Errorf("tokenizer.json: got %v", err)
	}
	if _, err := cache.File(ref, "../refs/main"); err == nil {
		t.Error("a file name with .. was looked up")
	}

	// What the cache cannot answer is one error naming the model and the cache.
	c, _ := New(Config{CacheDir: dir, Endpoint: deadEndpoint(t), Offline: true})
	for _, r := range []Ref{{Repo: "org/other"}, {Repo: "org/name", Revision: "v2"}, {Repo: "org/name", Revision: strings.Repeat("e", 40)}} {
		_, err := c.Snapshot(context.Background(), r, nil)
		if !errors.Is(err, ErrNotCached) || !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), r.String()) ||
			!strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s offline: %v", r, err)
		}
	}
	// Two snapshots sharing a prefix make a short hash ambiguous.
	os.MkdirAll(filepath.Join(dir, "models--org--name", "snapshots", c2[:8]+strings.Repeat("0", 32)), 0o755)
	if _, err := c.Snapshot(context.Background(), Ref{Repo: "org/name", Revision: c2[:8]}, nil); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous short hash: %v", err)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
