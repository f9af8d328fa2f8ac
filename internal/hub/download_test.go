// Downloads against the mock hub (hubtest): the layout written, revisions, redirects, resume, a range answered
// with the whole file, a dropped connection, a wrong size, unknown and gated repositories, offline mode and two
// downloads of one blob at once.
package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/hub/hubtest"
)

// weights is a deterministic blob large enough to drop and resume inside (300 KB).
func weights() []byte {
	b := make([]byte, 300_000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// tinyRepo adds org/tiny to s with main at one commit: files a model needs, files it does not, a nested one.
func tinyRepo(s *hubtest.Server) (commit string, files []hubtest.File) {
	files = []hubtest.File{
		{Name: "config.json", Data: []byte(`{"model_type":"qwen3"}`)},
		{Name: "tokenizer.json", Data: []byte(`{"model":{"type":"BPE"}}`)},
		{Name: "model.safetensors", Data: weights(), LFS: true},
		{Name: "sub/extra.json", Data: []byte(`{"nested":true}`)},
		{Name: "README.md", Data: []byte("# tiny")},
		{Name: ".gitattributes", Data: []byte("*.safetensors filter=lfs")},
		{Name: "modeling_tiny.py", Data: []byte("import os")},
		{Name: "consolidated.safetensors", Data: []byte("second copy"), LFS: true},
	}
	return s.AddRepo("org/tiny").Commit("main", files...), files
}

func testClient(t *testing.T, s *hubtest.Server, cache string, edit ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{CacheDir: cache, Endpoint: s.URL, Backoff: time.Millisecond, StallTimeout: 5 * time.Second, MetadataTimeout: 5 * time.Second}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkSnapshot asserts the layout huggingface_hub would have written for the files a model needs of tinyRepo.
func checkSnapshot(t *testing.T, cache, repoDir, commit string, files []hubtest.File) {
	t.Helper()
	repo := filepath.Join(cache, repoDir)
	snap := filepath.Join(repo, "snapshots", commit)
	for _, f := range files {
		p := filepath.Join(snap, filepath.FromSlash(f.Name))
		if !Match(f.Name, ModelPatterns) {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s was fetched; the patterns skip it", f.Name)
			}
			continue
		}
		target, err := os.Readlink(p)
		if err != nil {
			t.Errorf("%s: not a symlink: %v", f.Name, err)
			continue
		}
		if want := strings.Repeat("../", strings.Count(f.Name, "/")+2) + "blobs/" + hubtest.Etag(f); target != want {
			t.Errorf("%s → %s, want %s", f.Name, target, want)
		}
		if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, f.Data) {
			t.Errorf("%s: %d bytes, want %d (%v)", f.Name, len(b), len(f.Data), err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err != nil || string(b) != commit {
		t.Errorf("refs/main %q, want %s (%v)", b, commit, err)
	}
	if b, err := os.ReadFile(filepath.Join(cache, "CACHEDIR.TAG")); err != nil || !strings.HasPrefix(string(b), "Signature: 8a477f597d28d172789f06886806bc55\n") {
		t.Errorf("CACHEDIR.TAG: %q %v", b, err)
	}
	left, _ := filepath.Glob(filepath.Join(repo, "blobs", "*.incomplete"))
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func count(reqs []hubtest.Request, keep func(hubtest.Request) bool) int {
	n := 0
	for _, r := range reqs {
		if keep(r) {
			n++
		}
	}
	return n
}

func isBlobGet(r hubtest.Request) bool {
	return r.Method == "GET" && (r.CDN || strings.HasPrefix(r.Path, "/cdn/"))
}

func TestSnapshotDownload(t *testing.T) {
	for _, relative := range []bool{false, true} {
		s := hubtest.New()
		defer s.Close()
		s.RelativeCDN = relative
		commit, files := tinyRepo(s)
		cache := t.TempDir()
		c := testClient(t, s, cache)
		snap, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil)
		if err != nil {
			t.Fatalf("relative CDN %v: %v", relative, err)
		}
		if snap.Commit != commit || snap.Dir != filepath.Join(cache, "models--org--tiny", "snapshots", commit) ||
			snap.FromCache || snap.Files != 4 || len(snap.Downloaded) != 4 {
			t.Errorf("relative CDN %v: %+v", relative, snap)
		}
		checkSnapshot(t, cache, "models--org--tiny", commit, files)
		lfs := hubtest.Etag(files[2])
		if _, err := os.Stat(filepath.Join(cache, ".locks", "models--org--tiny", lfs+".lock")); err != nil {
			t.Errorf("no lock file for the blob: %v", err)
		}
		reqs := s.Requests()
		if n := count(reqs, isBlobGet); n != 1 {
			t.Errorf("relative CDN %v: %d GETs of the large file, want 1", relative, n)
		}
		if !relative && count(reqs, func(r hubtest.Request) bool { return r.CDN }) != 1 {
			t.Errorf("the large file did not come from the CDN: %+v", reqs)
		}

		// A second resolution asks the API once and finds every file in the snapshot.
		s.Reset()
		again, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny", Revision: "main"}, nil)
		if err != nil || len(again.Downloaded) != 0 || again.Dir != snap.Dir {
			t.Errorf("second snapshot: %+v %v", again, err)
		}
		if reqs := s.Requests(); len(reqs) != 1 || !strings.HasPrefix(reqs[0].Path, "/api/models/org/tiny/revision/main") {
			t.Errorf("second snapshot asked %+v", reqs)
		}
	}
}

func TestIncludePatterns(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	commit, _ := tinyRepo(s)
	cache := t.TempDir()
	snap, err := testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, []string{"README.md", "sub/"})
	if err != nil || len(snap.Downloaded) != 2 {
		t.Fatalf("%+v %v", snap, err)
	}
	for name, want := range map[string]bool{"README.md": true, "sub/extra.json": true, "config.json": false} {
		_, err := os.Stat(filepath.Join(cache, "models--org--tiny", "snapshots", commit, name))
		if (err == nil) != want {
			t.Errorf("%s present %v, want %v", name, err == nil, want)
		}
	}
	if _, err := testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, []string{"*.gguf"}); err == nil ||
		!strings.Contains(err.Error(), "no file matching") {
		t.Errorf("no match: %v", err)
	}
}

func TestRevisions(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	repo := s.AddRepo("org/tiny")
	c1 := repo.Commit("v1", hubtest.File{Name: "config.json", Data: []byte(`{"v":1}`)})
	c2 := repo.Commit("main", hubtest.File{Name: "config.json", Data: []byte(`{"v":2}`)})
	cache := t.TempDir()
	c := testClient(t, s, cache)
	refs := filepath.Join(cache, "models--org--tiny", "refs")
	for _, tc := range []struct {
		rev, commit, body, ref string // ref: the refs/ file written ("" none)
	}{
		{"", c2, `{"v":2}`, "main"},
		{"v1", c1, `{"v":1}`, "v1"},
		{c1, c1, `{"v":1}`, ""},           // a full hash is its own name: no ref
		{c2[:10], c2, `{"v":2}`, c2[:10]}, // a short hash gets a ref, as huggingface_hub writes it
	} {
		snap, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny", Revision: tc.rev}, nil)
		if err != nil {
			t.Fatalf("@%s: %v", tc.rev, err)
		}
		if snap.Commit != tc.commit || mustRead(t, filepath.Join(snap.Dir, "config.json")) != tc.body {
			t.Errorf("@%s: commit %s, want %s", tc.rev, snap.Commit, tc.commit)
		}
		if tc.ref != "" && mustRead(t, filepath.Join(refs, tc.ref)) != tc.commit {
			t.Errorf("@%s: refs/%s wrong", tc.rev, tc.ref)
		}
	}
	if _, err := os.Stat(filepath.Join(refs, c1)); err == nil {
		t.Error("a ref was written for a full commit hash")
	}
	// The branch moves: online follows it and rewrites the ref; offline keeps the commit last seen.
	c3 := repo.Commit("main", hubtest.File{Name: "config.json", Data: []byte(`{"v":3}`)})
	if snap, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil); err != nil || snap.Commit != c3 {
		t.Errorf("moved main: %+v %v", snap, err)
	}
	off := testClient(t, s, cache, func(c *Config) { c.Offline = true })
	s.Reset()
	for rev, want := range map[string]string{"main": c3, "v1": c1, c2: c2, c2[:10]: c2} {
		if snap, err := off.Snapshot(context.Background(), Ref{Repo: "org/tiny", Revision: rev}, nil); err != nil || snap.Commit != want {
			t.Errorf("offline @%s: %+v %v", rev, snap, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("offline made %d requests", n)
	}
	_, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny", Revision: "nope"}, nil)
	if !errors.Is(err, ErrRevisionNotFound) || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "org/tiny") {
		t.Errorf("unknown revision: %v", err)
	}
}

// TestRenamedRepo: the hub answers an old name with relative redirects; the files land under the name asked for,
// as huggingface_hub stores them.
func TestRenamedRepo(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	commit, files := tinyRepo(s)
	s.Rename("old/tiny", "org/tiny")
	cache := t.TempDir()
	if _, err := testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "old/tiny"}, nil); err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, cache, "models--old--tiny", commit, files)
	heads := count(s.Requests(), func(r hubtest.Request) bool { return r.Method == "HEAD" && strings.HasPrefix(r.Path, "/old/tiny/") })
	if heads != 4 {
		t.Errorf("%d HEADs on the old name, want 4 (one per file, each redirected)", heads)
	}
}

// primeIncomplete writes blobs/<etag>.incomplete of org/tiny's weights holding data.
func primeIncomplete(t *testing.T, cache string, files []hubtest.File, data []byte) string {
	t.Helper()
	p := filepath.Join(cache, "models--org--tiny", "blobs", hubtest.Etag(files[2])+".incomplete")
	mustWrite(t, p, string(data))
	return p
}

func TestResumeIncomplete(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	commit, files := tinyRepo(s)
	cache := t.TempDir()
	primeIncomplete(t, cache, files, files[2].Data[:123_456])
	if _, err := testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil); err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, cache, "models--org--tiny", commit, files)
	var got []string
	for _, r := range s.Requests() {
		if isBlobGet(r) {
			got = append(got, r.Range)
		}
	}
	if len(got) != 1 || got[0] != "bytes=123456-" {
		t.Errorf("blob GETs with ranges %q, want one from byte 123456", got)
	}
}

// TestRangeAnsweredWhole: a server that answers a range with 200 and the whole file; the partial download (here
// garbage, so a wrong append would show) is discarded and the file starts over.
func TestRangeAnsweredWhole(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	s.IgnoreRange = true
	commit, files := tinyRepo(s)
	cache := t.TempDir()
	primeIncomplete(t, cache, files, bytes.Repeat([]byte{0xEE}, 100_000))
	var restarted bool
	c := testClient(t, s, cache, func(c *Config) {
		c.Progress = func(file string, done, total int64) {
			if file == "model.safetensors" && done == 0 && total == 300_000 {
				restarted = true
			}
		}
	})
	if _, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil); err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, cache, "models--org--tiny", commit, files)
	if !restarted {
		t.Error("the progress did not fall back to 0 when the server restarted the file")
	}
}

func TestDroppedConnection(t *testing.T) {
	for _, ignoreRange := range []bool{false, true} {
		s := hubtest.New()
		defer s.Close()
		s.DropAfter, s.DropTimes, s.IgnoreRange = 50_000, 2, ignoreRange
		commit, files := tinyRepo(s)
		cache := t.TempDir()
		var retries []int
		c := testClient(t, s, cache, func(c *Config) {
			c.Retry = func(file string, attempt int, wait time.Duration, err error) {
				if file == "model.safetensors" {
					retries = append(retries, attempt)
				}
			}
		})
		if _, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil); err != nil {
			t.Fatalf("ignore range %v: %v", ignoreRange, err)
		}
		checkSnapshot(t, cache, "models--org--tiny", commit, files)
		var ranges []string
		for _, r := range s.Requests() {
			if isBlobGet(r) {
				ranges = append(ranges, r.Range)
			}
		}
		want := []string{"", "bytes=50000-", "bytes=100000-"}
		if ignoreRange {
			want = []string{"", "bytes=50000-", "bytes=50000-"} // each drop restarts from 0
		}
		if strings.Join(ranges, ",") != strings.Join(want, ",") {
			t.Errorf("ignore range %v: GET ranges %q, want %q", ignoreRange, ranges, want)
		}
		// With ranges each drop comes after new bytes, so each failure is the first of its run; restarted from 0,
		// the second drop got no further than the first.
		wantRetries := "[1 1]"
		if ignoreRange {
			wantRetries = "[1 2]"
		}
		if fmt.Sprint(retries) != wantRetries {
			t.Errorf("ignore range %v: retries %v", ignoreRange, retries)
		}
	}
}

func TestDropsExhaustRetries(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	s.DropAfter, s.DropTimes, s.IgnoreRange = 10, 100, true // never gets past byte 10
	tinyRepo(s)
	cache := t.TempDir()
	_, err := testClient(t, s, cache, func(c *Config) { c.Retries = 3 }).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, []string{"model*"})
	if err == nil || !strings.Contains(err.Error(), "model.safetensors: giving up after 4 attempts at byte 10 of 300000: unexpected EOF") {
		t.Fatalf("got %v", err)
	}
	// The partial download stays for the next attempt to resume.
	left, _ := filepath.Glob(filepath.Join(cache, "models--org--tiny", "blobs", "*.incomplete"))
	if len(left) != 1 {
		t.Errorf("incomplete files %v", left)
	}
}

func TestWrongSize(t *testing.T) {
	for _, delta := range []int64{7, -7} {
		s := hubtest.New()
		defer s.Close()
		s.SizeDelta = delta
		tinyRepo(s)
		cache := t.TempDir()
		_, err := testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil)
		if !errors.Is(err, ErrSize) || !strings.Contains(err.Error(), "org/tiny") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("size off by %d: %v", delta, err)
		}
		blobs, _ := os.ReadDir(filepath.Join(cache, "models--org--tiny", "blobs"))
		if len(blobs) != 0 {
			t.Errorf("size off by %d: blobs written: %v", delta, blobs)
		}
		links, _ := filepath.Glob(filepath.Join(cache, "models--org--tiny", "snapshots", "*", "*"))
		if len(links) != 0 {
			t.Errorf("size off by %d: snapshot files %v", delta, links)
		}
	}
}

func TestUnknownRepo(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	_, err := testClient(t, s, t.TempDir()).Snapshot(context.Background(), Ref{Repo: "org/missing"}, nil)
	if !errors.Is(err, ErrRepoNotFound) {
		t.Fatalf("got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"org/missing", "not found", s.URL, "RepoNotFound", "HF_TOKEN"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("more than one line: %q", msg)
	}
}

func TestGatedRepo(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	s.Token = "hf_secret"
	repo := s.AddRepo("org/gated")
	repo.Gated = true
	commit := repo.Commit("main", hubtest.File{Name: "config.json", Data: []byte(`{}`)},
		hubtest.File{Name: "model.safetensors", Data: weights(), LFS: true})

	_, err := testClient(t, s, t.TempDir()).Snapshot(context.Background(), Ref{Repo: "org/gated"}, nil)
	if !errors.Is(err, ErrGated) || !strings.Contains(err.Error(), "HF_TOKEN") || !strings.Contains(err.Error(), "org/gated") {
		t.Fatalf("no token: %v", err)
	}
	_, err = testClient(t, s, t.TempDir(), func(c *Config) { c.Token = "hf_wrong" }).Snapshot(context.Background(), Ref{Repo: "org/gated"}, nil)
	if !errors.Is(err, ErrGated) || !strings.Contains(err.Error(), "no access") {
		t.Fatalf("wrong token: %v", err)
	}

	// The token file under HF_HOME opens it; the token goes to the hub, never to the CDN.
	home := t.TempDir()
	mustWrite(t, filepath.Join(home, "token"), "hf_secret\n")
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", "")
	cfg := FromEnv()
	s.Reset()
	cache := t.TempDir()
	snap, err := testClient(t, s, cache, func(c *Config) { c.Token = cfg.Token }).Snapshot(context.Background(), Ref{Repo: "org/gated"}, nil)
	if err != nil || snap.Commit != commit {
		t.Fatalf("with the token file: %+v %v", snap, err)
	}
	for _, r := range s.Requests() {
		if r.CDN && r.Auth != "" || !r.CDN && r.Auth != "Bearer hf_secret" {
			t.Errorf("%s %s (CDN %v) sent Authorization %q", r.Method, r.Path, r.CDN, r.Auth)
		}
	}
}

func TestOffline(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	commit, _ := tinyRepo(s)
	cache := t.TempDir()
	off := testClient(t, s, cache, func(c *Config) { c.Offline = true })
	_, err := off.Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil)
	if !errors.Is(err, ErrOffline) || !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), "org/tiny") {
		t.Errorf("offline, not cached: %v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("offline made %d requests", n)
	}
	if _, err := testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil); err != nil {
		t.Fatal(err)
	}
	s.Reset()
	snap, err := off.Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil)
	if err != nil || !snap.FromCache || snap.Commit != commit {
		t.Errorf("offline, cached: %+v %v", snap, err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("offline made %d requests", n)
	}
}

// TestHubDownAfterDownload: with the hub gone, a cached model still resolves, saying why the hub was not used.
func TestHubDownAfterDownload(t *testing.T) {
	s := hubtest.New()
	commit, _ := tinyRepo(s)
	cache := t.TempDir()
	if _, err := testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil); err != nil {
		t.Fatal(err)
	}
	url := s.URL
	s.Close()
	c, _ := New(Config{CacheDir: cache, Endpoint: url, Backoff: time.Millisecond})
	snap, err := c.Snapshot(context.Background(), Ref{Repo: "org/tiny"}, nil)
	if err != nil || !snap.FromCache || snap.Unreachable == nil || snap.Commit != commit {
		t.Errorf("%+v %v", snap, err)
	}
	_, err = c.Snapshot(context.Background(), Ref{Repo: "org/other"}, nil)
	if err == nil || !strings.Contains(err.Error(), "org/other is not in the hub cache") {
		t.Errorf("uncached with the hub down: %v", err)
	}
}

// TestEntryNotFoundMarker: a file the hub says is not at a commit leaves .no_exist/<commit>/<file>, and the next
// look-up answers from it without the network.
func TestEntryNotFoundMarker(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	commit, _ := tinyRepo(s)
	cache := t.TempDir()
	c := testClient(t, s, cache)
	at := Ref{Repo: "org/tiny", Revision: commit}
	_, _, err := c.file(context.Background(), at, "generation_config.json")
	if !errors.Is(err, ErrEntryNotFound) || !strings.Contains(err.Error(), "generation_config.json") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "models--org--tiny", ".no_exist", commit, "generation_config.json")); err != nil {
		t.Fatalf("no marker: %v", err)
	}
	s.Reset()
	if _, _, err := c.file(context.Background(), at, "generation_config.json"); !errors.Is(err, ErrNoExist) {
		t.Errorf("second look-up: %v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the marker did not spare the network: %d requests", n)
	}
}

// TestConcurrentBlob: two clients (two lock holders, as two processes would be) fetch the same model at once; the
// blob lock makes one download it and the other find it.
func TestConcurrentBlob(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	s.Delay = 150 * time.Millisecond // the first GET is still running when the second client reaches the lock
	commit, files := tinyRepo(s)
	cache := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = testClient(t, s, cache).Snapshot(context.Background(), Ref{Repo: "org/tiny"}, []string{"model*.safetensors"})
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if n := count(s.Requests(), isBlobGet); n != 1 {
		t.Errorf("%d GETs of the blob, want 1", n)
	}
	p := filepath.Join(cache, "models--org--tiny", "snapshots", commit, "model.safetensors")
	if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, files[2].Data) {
		t.Errorf("blob corrupt: %d bytes, %v", len(b), err)
	}
}
