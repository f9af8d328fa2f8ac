// The hub from the command line: mlxbun download against the mock hub, then --model org/name in generate and
// tokenize (offline from the cache, online fetching what it lacks), and the errors a user sees.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/hub/hubtest"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// fixtureRepo publishes a fixture directory's files on the mock hub as org/name's main branch (safetensors and
// .f32 files as large files behind the CDN, the rest as git files), plus a README a model does not need.
func fixtureRepo(t *testing.T, s *hubtest.Server, name, fixture string) string {
	t.Helper()
	dir := testutil.Fixture(t, fixture)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := []hubtest.File{{Name: "README.md", Data: []byte("# " + name)}}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lfs := strings.HasSuffix(e.Name(), ".safetensors") || strings.HasSuffix(e.Name(), ".f32") || len(b) > 1<<20
		files = append(files, hubtest.File{Name: e.Name(), Data: b, LFS: lfs})
	}
	return s.AddRepo(name).Commit("main", files...)
}

// TestDownloadThenModelByName: `mlxbun download` from the mock hub writes the hub cache, then generate --model
// org/name finds it offline and matches the transformers golden; tokenize --model org/name fetches a model it
// lacks; an unknown model and an uncached one offline are one error line each.
func TestDownloadThenModelByName(t *testing.T) {
	s := hubtest.New()
	defer s.Close()
	commit := fixtureRepo(t, s, "org/tiny-qwen3", "models/tiny-qwen3")
	fixtureRepo(t, s, "org/qwen3-tok", "tokenizers/qwen3")
	cache := t.TempDir()
	t.Setenv("HF_ENDPOINT", s.URL)
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HOME", t.TempDir()) // no token file of the user's
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_HUB_OFFLINE", "")

	r := mlxbun(t, "", "download", "org/tiny-qwen3")
	snap := filepath.Join(cache, "models--org--tiny-qwen3", "snapshots", commit)
	if r.code != 0 || strings.TrimSpace(r.stdout) != snap {
		t.Fatalf("download: exit %d, stdout %q, want %s\n%s", r.code, r.stdout, snap, r.stderr)
	}
	for name, want := range map[string]bool{"config.json": true, "model.safetensors": true, "golden.json": true,
		"prompt_logits.f32": false, "README.md": false} {
		if _, err := os.Lstat(filepath.Join(snap, name)); (err == nil) != want {
			t.Errorf("snapshot has %s: %v, want %v", name, err == nil, want)
		}
	}

	t.Setenv("HF_HUB_OFFLINE", "1")
	s.Reset()
	var g struct {
		PromptIDs []int `json:"prompt_ids"`
		Greedy    []int `json:"greedy_new_ids"`
	}
	b, _ := os.ReadFile(filepath.Join(testutil.Fixture(t, "models/tiny-qwen3"), "golden.json"))
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	ids, _ := json.Marshal(g.PromptIDs)
	r = mlxbun(t, "", "generate", "--model", "org/tiny-qwen3", "--prompt-ids", strings.Trim(string(ids), "[]"),
		"--max-tokens", itoa(len(g.Greedy)), "--json", "--device", "cpu", "--ignore-eos", "--log-level", "info")
	if r.code != 0 {
		t.Fatalf("generate --model org/tiny-qwen3: exit %d\n%s", r.code, r.stderr)
	}
	var rec struct {
		Generated []int `json:"generated_ids"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || !equalInts(rec.Generated, g.Greedy) {
		t.Errorf("generated %v (%v), want %v", rec.Generated, err, g.Greedy)
	}
	if !strings.Contains(r.stderr, "hub cache") || !strings.Contains(r.stderr, snap) {
		t.Errorf("no line saying where the model was found:\n%s", r.stderr)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("offline generate made %d requests", n)
	}
	oneErrorLine(t, mlxbun(t, "", "tokenize", "--model", "org/qwen3-tok", "--text", "hi"), "org/qwen3-tok", "HF_HUB_OFFLINE", cache)

	// Online, --model fetches what the cache lacks.
	t.Setenv("HF_HUB_OFFLINE", "")
	var cases struct {
		Cases []struct {
			Text string `json:"text"`
			IDs  []int  `json:"ids"`
		} `json:"cases"`
	}
	b, _ = os.ReadFile(filepath.Join(testutil.Fixture(t, "tokenizers/qwen3"), "encode_golden.json"))
	if err := json.Unmarshal(b, &cases); err != nil || len(cases.Cases) == 0 {
		t.Fatalf("encode_golden.json: %v", err)
	}
	c := cases.Cases[0]
	r = mlxbun(t, "", "tokenize", "--model", "org/qwen3-tok", "--text", c.Text)
	want, _ := json.Marshal(c.IDs)
	if r.code != 0 || strings.TrimSpace(r.stdout) != string(want) {
		t.Errorf("tokenize --model org/qwen3-tok %q: exit %d, got %s want %s\n%s", c.Text, r.code, r.stdout, want, r.stderr)
	}

	oneErrorLine(t, mlxbun(t, "", "download", "org/missing"), "org/missing", "not found", "HF_TOKEN")
	oneErrorLine(t, mlxbun(t, "", "generate", "--model", "org/missing", "--prompt-ids", "1"), "--model org/missing", "not found")
	oneErrorLine(t, mlxbun(t, "", "download", "org/tiny-qwen3@v1", "--revision", "main"), "v1", "main")
	oneErrorLine(t, mlxbun(t, "", "download", "not-a-name"), "not-a-name", "org/name")
}
