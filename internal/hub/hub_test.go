// Tests of the pieces with no network: model names, the file patterns, the environment.
package hub

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseRef(t *testing.T) {
	good := map[string]Ref{
		"Qwen/Qwen3-0.6B":                    {Repo: "Qwen/Qwen3-0.6B"},
		"mlx-community/Qwen3-4B-4bit@v1":     {Repo: "mlx-community/Qwen3-4B-4bit", Revision: "v1"},
		"a/b@refs/pr/1":                      {Repo: "a/b", Revision: "refs/pr/1"},
		"turboderp/Llama-3.1-8B-exl3@4.0bpw": {Repo: "turboderp/Llama-3.1-8B-exl3", Revision: "4.0bpw"},
		"org_1/x.y@0123abc":                  {Repo: "org_1/x.y", Revision: "0123abc"},
	}
	for s, want := range good {
		got, err := ParseRef(s)
		if err != nil || got != want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", s, got, err, want)
		}
		if got.String() != s {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), s)
		}
	}
	for _, s := range []string{"", "name", "./a/b", "/a/b", "a/b/c", "a//b", "-a/b", "a/b-", "a/.b", "a--x/b", "a/b..c",
		"a/b.git", "a b/c", "a/b@", "a/b@../x", "a/b@x//y", "a/b@x\\y", "../a/b"} {
		if _, err := ParseRef(s); err == nil {
			t.Errorf("ParseRef(%q) accepted", s)
		}
	}
	if r := (Ref{Repo: "a/b"}); r.Rev() != "main" {
		t.Errorf("default revision %q", r.Rev())
	}
}

// TestMatch checks the matcher against what Python's fnmatch.fnmatchcase answers for the same pairs (worked out by
// its rules: '*' crosses '/', sets with ranges and '!', an unclosed '[' literal).
func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*.json", "config.json", true},
		{"*.json", "sub/dir/config.json", true},
		{"*.json", "config.json.bak", false},
		{"model*.safetensors", "model-00001-of-00004.safetensors", true},
		{"model*.safetensors", "consolidated.safetensors", false},
		{"model*.safetensors", "model.safetensors.index.json", false},
		{"tokenizer.model", "tokenizer.model", true},
		{"tokenizer.model", "sub/tokenizer.model", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"[a-c]x", "bx", true},
		{"[a-c]x", "dx", false},
		{"[!a-c]x", "dx", true},
		{"[!a-c]x", "ax", false},
		{"[]]x", "]x", true},
		{"[x", "[x", true},
		{"*a*b*", "xxaxxbxx", true},
		{"*a*b", "xxaxxbxx", false},
		{"onnx/", "onnx/model.onnx", true},
		{"onnx\\", "onnx/model.onnx", true},
		{"*", "", true},
		{"", "", true},
		{"", "a", false},
	}
	for _, c := range cases {
		if got := Match(c.name, []string{c.pattern}); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.name, c.pattern, got, c.want)
		}
	}
	// What ModelPatterns take from a typical repository and what they leave.
	for name, want := range map[string]bool{
		"config.json": true, "generation_config.json": true, "model.safetensors.index.json": true,
		"model-00001-of-00002.safetensors": true, "tokenizer.json": true, "tokenizer_config.json": true,
		"tokenizer.model": true, "merges.txt": true, "chat_template.jinja": true, "qwen.tiktoken": true,
		"README.md": false, ".gitattributes": false, "modeling_custom.py": false, "pytorch_model.bin": false,
		"consolidated.safetensors": false, "original/consolidated.00.pth": false, "onnx/model.onnx": false,
	} {
		if got := Match(name, ModelPatterns); got != want {
			t.Errorf("ModelPatterns on %s: %v, want %v", name, got, want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	home := t.TempDir()
	for _, k := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_ENDPOINT", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
		"HF_TOKEN_PATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "XDG_CACHE_HOME", "HF_HUB_ETAG_TIMEOUT", "HF_HUB_DOWNLOAD_TIMEOUT"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("HF_HOME", "")
	c := FromEnv()
	if want := filepath.Join(home, ".cache", "huggingface", "hub"); c.CacheDir != want {
		t.Errorf("default cache %s, want %s", c.CacheDir, want)
	}
	if c.Endpoint != DefaultEndpoint || c.Token != "" || c.Offline {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	if want := filepath.Join(home, "xdg", "huggingface", "hub"); FromEnv().CacheDir != want {
		t.Errorf("XDG cache %s, want %s", FromEnv().CacheDir, want)
	}
	t.Setenv("HF_HOME", "~/hf")
	if err := os.MkdirAll(filepath.Join(home, "hf"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, "hf", "token"), []byte("hf_fromfile\r\n"), 0o600)
	t.Setenv("HF_ENDPOINT", "http://mirror.example:8080//")
	t.Setenv("HF_HUB_OFFLINE", "yes")
	c = FromEnv()
	if want := filepath.Join(home, "hf", "hub"); c.CacheDir != want {
		t.Errorf("HF_HOME cache %s, want %s", c.CacheDir, want)
	}
	if c.Token != "hf_fromfile" || c.Endpoint != "http://mirror.example:8080" || !c.Offline {
		t.Errorf("token %q endpoint %q offline %v", c.Token, c.Endpoint, c.Offline)
	}
	t.Setenv("HF_TOKEN", " hf_env ")
	t.Setenv("HF_HUB_CACHE", "$HOME/elsewhere")
	t.Setenv("HF_HUB_OFFLINE", "0")
	c = FromEnv()
	if c.Token != "hf_env" || c.CacheDir != filepath.Join(home, "elsewhere") || c.Offline {
		t.Errorf("token %q cache %s offline %v", c.Token, c.CacheDir, c.Offline)
	}
	t.Setenv("TRANSFORMERS_OFFLINE", "1")
	if !FromEnv().Offline {
		t.Error("TRANSFORMERS_OFFLINE=1 is offline in huggingface_hub")
	}
}
