// Tests of reading a model directory: which file each piece comes from, what a missing or malformed file says,
// and the chat template's precedence (chat_template.jinja over tokenizer_config.json).
package modeldir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirWith makes a temp directory holding the given files.
func dirWith(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
	return dir
}

const tinyConfig = `{"model_type": "qwen3", "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 1,
	"num_attention_heads": 2, "vocab_size": 32, "eos_token_id": 2}`

func TestMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Open(missing)
	if !errors.Is(err, ErrNoDir) || err.Error() != "model directory "+missing+" does not exist" {
		t.Fatalf("err = %v, want \"model directory %s does not exist\"", err, missing)
	}
	file := filepath.Join(t.TempDir(), "f")
	writeFile(t, file, "x")
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a file: err = %v", err)
	}
}

func TestMissingPieces(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Config(); !errors.Is(err, ErrNoConfig) || !strings.Contains(err.Error(), "no config.json") {
		t.Errorf("Config: err = %v", err)
	}
	if _, err := d.Tokenizer(); !errors.Is(err, ErrNoTokenizer) || !strings.Contains(err.Error(), "no tokenizer.json") {
		t.Errorf("Tokenizer: err = %v", err)
	}
	if d.HasTokenizer() {
		t.Error("HasTokenizer on an empty directory")
	}
	_, err = d.ChatTemplate()
	if !errors.Is(err, ErrNoChatTemplate) || !strings.Contains(err.Error(), "chat_template.jinja") || !strings.Contains(err.Error(), "tokenizer_config.json") {
		t.Errorf("ChatTemplate: err = %v", err)
	}
	if _, err := d.Weights(); err == nil || !strings.Contains(err.Error(), "safetensors") {
		t.Errorf("Weights: err = %v", err)
	}
}

func TestMalformedFilesNameThemselves(t *testing.T) {
	for _, c := range []struct{ file, text, want string }{
		{"config.json", `{"model_type": `, "config.json"},
		{"config.json", `{"model_type": "qwen3"}`, "config.json: missing hidden_size"},
		{"generation_config.json", `[1]`, "generation_config.json"},
		{"tokenizer_config.json", `{"bos_token": 5}`, "tokenizer_config.json: bos_token"},
		{"tokenizer_config.json", `{"chat_template": `, "tokenizer_config.json"},
	} {
		files := map[string]string{"config.json": tinyConfig, c.file: c.text}
		_, err := Open(dirWith(t, files))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want one containing %q", c.file, c.text, err, c.want)
		}
	}
	d, err := Open(dirWith(t, map[string]string{"tokenizer.json": `{"model": {"type": "BPE", "vocab": [`}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Tokenizer(); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("malformed tokenizer.json: err = %v", err)
	}
}

// TestUnknownArchitectureNamed: a config.json of an architecture no family reads says so, not that a key the
// architecture spells its own way is missing (GPT-2's config used to fail "config.json: missing hidden_size").
func TestUnknownArchitectureNamed(t *testing.T) {
	for _, c := range []struct{ name, config, want string }{
		{"gpt2", `{"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257}`,
			`config.json: model_type "gpt2" is not a supported architecture (known: gemma2,`},
		{"mamba", `{"model_type": "mamba", "hidden_size": 768, "num_hidden_layers": 24, "vocab_size": 50280}`,
			`model_type "mamba" is not a supported architecture`},
		{"known type, missing key", `{"model_type": "qwen3"}`, "config.json: missing hidden_size"},
		{"no model_type, missing key", `{"n_embd": 768}`, "config.json: missing hidden_size"},
		{"model_type not a string", `{"model_type": 5}`, "config.json: model_type must be a string"},
		{"a wrapper's own error", `{"model_type": "gemma3", "text_config": 5}`, "text_config must be an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(dirWith(t, map[string]string{"config.json": c.config}))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestGenerationConfigWins(t *testing.T) {
	d, err := Open(dirWith(t, map[string]string{"config.json": tinyConfig, "generation_config.json": `{"eos_token_id": [5, 7]}`}))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := d.Config()
	if err != nil || len(cfg.EOS) != 2 || cfg.EOS[0] != 5 || cfg.EOS[1] != 7 {
		t.Fatalf("EOS = %v, %v; want [5 7]", cfg.EOS, err)
	}
}

// TestTokenizerOnlyDirectory: the qwen3 tokenizer fixture (no config.json, no weights) gives a tokenizer whose
// special tokens come from its tokenizer_config.json, and its chat template.
func TestTokenizerOnlyDirectory(t *testing.T) {
	dir := filepath.Dir(testutil.Fixture(t, "tokenizers/qwen3/tokenizer.json"))
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := d.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	if sp := tok.Specials(); sp.EOS != 151645 || sp.EOSText != "<|im_end|>" || sp.PAD != 151643 {
		t.Errorf("specials %+v", sp)
	}
	if again, _ := d.Tokenizer(); again != tok {
		t.Error("the tokenizer was parsed twice")
	}
	tmpl, err := d.ChatTemplate()
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.EOSToken() != "<|im_end|>" || tmpl.BOSToken() != "" {
		t.Errorf("template tokens: bos %q eos %q", tmpl.BOSToken(), tmpl.EOSToken())
	}
	if _, err := d.Config(); !errors.Is(err, ErrNoConfig) {
		t.Errorf("Config: err = %v", err)
	}
}

func TestChatTemplate(t *testing.T) {
	render := func(t *testing.T, tmpl *chat.Template, msgs []chat.Message) string {
		t.Helper()
		got, err := tmpl.Render(msgs, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	t.Run("named list picks default, AddedToken objects", func(t *testing.T) {
		d, err := Open(dirWith(t, map[string]string{"tokenizer_config.json": `{
			"bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": false},
			"eos_token": "</s>",
			"chat_template": [
				{"name": "tool_use", "template": "tools"},
				{"name": "default", "template": "{{ bos_token }}{{ messages[0].content }}{{ eos_token }}"}
			]}`}))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := d.ChatTemplate()
		if err != nil {
			t.Fatal(err)
		}
		if got := render(t, tmpl, []chat.Message{{Role: "user", Content: "hi"}}); got != "<s>hi</s>" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("chat_template.jinja wins", func(t *testing.T) {
		d, err := Open(dirWith(t, map[string]string{
			"tokenizer_config.json": `{"eos_token": "E", "chat_template": "config"}`,
			"chat_template.jinja":   "jinja{{ eos_token }}",
		}))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := d.ChatTemplate()
		if err != nil {
			t.Fatal(err)
		}
		if got := render(t, tmpl, nil); got != "jinjaE" {
			t.Errorf("got %q", got)
		}
	})
	for _, c := range []struct {
		name, config, want string
	}{
		{"no default", `{"chat_template": [{"name": "tool_use", "template": "x"}]}`, `no template named "default" among ["tool_use"]`},
		{"not a template", `{"chat_template": 5}`, "want a string or a list"},
		{"no template", `{"eos_token": "</s>"}`, "has no chat_template"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Open(dirWith(t, map[string]string{"tokenizer_config.json": c.config}))
			if err != nil {
				t.Fatal(err) // the chat template is checked only when asked for
			}
			_, err = d.ChatTemplate()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "tokenizer_config.json") {
				t.Errorf("err = %v, want one naming tokenizer_config.json and containing %q", err, c.want)
			}
		})
	}
	t.Run("malformed template names its file", func(t *testing.T) {
		dir := dirWith(t, map[string]string{"chat_template.jinja": "{% for m in messages %}{{ m.content }}"})
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.ChatTemplate()
		if path := filepath.Join(dir, "chat_template.jinja"); err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("err = %v, want one naming %s", err, path)
		}
	})
	// The llama2 fixture's tokenizer_config.json has "chat_template": null, which is reported against that file.
	t.Run("llama2 has none", func(t *testing.T) {
		cfg := testutil.Fixture(t, "tokenizers/llama2/tokenizer_config.json")
		d, err := Open(filepath.Dir(cfg))
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.ChatTemplate()
		if !errors.Is(err, ErrNoChatTemplate) || !strings.Contains(err.Error(), cfg+" has no chat_template") {
			t.Fatalf("err = %v, want one saying %s has no chat_template", err, cfg)
		}
	})
}

// TestModelDirectory: a fixture model's config and weights come through one Open.
func TestModelDirectory(t *testing.T) {
	d, err := Open(testutil.Fixture(t, "models/tiny-qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := d.Config()
	if err != nil || cfg.ModelType != "qwen3" {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	a, err := d.Weights()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if !a.Has("model.embed_tokens.weight") {
		t.Error("no embedding in the archive")
	}
}
