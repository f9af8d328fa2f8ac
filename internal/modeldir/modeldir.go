// Package modeldir reads a model directory once and hands each parsed piece to its user: config.json with
// generation_config.json (config.Model), tokenizer.json with tokenizer_config.json (the tokenizer), the chat
// template (chat_template.jinja, else tokenizer_config.json's chat_template, with its bos/eos tokens), and the
// safetensors weights. The packages it feeds parse bytes or values and never open files of a model directory.
//
// A directory may hold only some of the files: tokenize needs only the tokenizer, generate --prompt-ids only the
// config and weights. Open reads whatever is there; each accessor says which file it lacks.
package modeldir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// File names inside a model directory, besides config.ConfigFile, config.GenerationFile and
// tokenizer.ConfigFile.
const (
	TokenizerFile    = "tokenizer.json"
	ChatTemplateFile = "chat_template.jinja"
)

// Sentinels for what the directory lacks; errors.Is finds them in the errors Open and the accessors return, whose
// text names the directory and the file.
var (
	ErrNoDir          = errors.New("model directory does not exist")
	ErrNoConfig       = errors.New("no " + config.ConfigFile)
	ErrNoTokenizer    = errors.New("no " + TokenizerFile)
	ErrNoChatTemplate = errors.New("no chat template")
)

// missing is an error whose text is msg and which wraps one of the sentinels above without repeating it.
type missing struct {
	msg      string
	sentinel error
}

func (e *missing) Error() string { return e.msg }
func (e *missing) Unwrap() error { return e.sentinel }

func missingf(sentinel error, format string, args ...any) error {
	return &missing{msg: fmt.Sprintf(format, args...), sentinel: sentinel}
}

// Dir is one model directory, read by Open. Its methods are safe for concurrent use.
type Dir struct {
	path string

	config    *config.Model     // nil when config.json is absent
	configRaw []byte            // config.json as read (quantize copies it with a quantization block added)
	tokConfig *tokenizer.Config // empty when tokenizer_config.json is absent
	hasTokCfg bool
	tokJSON   []byte // nil when tokenizer.json is absent
	jinja     []byte // nil when chat_template.jinja is absent

	tokOnce sync.Once
	tok     *tokenizer.Tokenizer
	tokErr  error
}

// Open reads dir's JSON and template files and parses config.json, generation_config.json and
// tokenizer_config.json; tokenizer.json is parsed on the first Tokenizer call and the weights are opened by
// Weights. A missing directory is "model directory DIR does not exist"; a malformed file is an error naming it.
func Open(dir string) (*Dir, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, missingf(ErrNoDir, "model directory %s does not exist", dir)
	case err != nil:
		return nil, fmt.Errorf("model directory: %w", err)
	case !st.IsDir():
		return nil, fmt.Errorf("model directory %s is not a directory", dir)
	}
	d := &Dir{path: dir}
	var cfg, gen, tokCfg []byte
	for _, f := range []struct {
		name string
		kind userfile.Kind
		dst  *[]byte
	}{
		{config.ConfigFile, userfile.JSON, &cfg}, {config.GenerationFile, userfile.JSON, &gen},
		{tokenizer.ConfigFile, userfile.JSON, &tokCfg}, {TokenizerFile, userfile.JSON, &d.tokJSON},
		{ChatTemplateFile, userfile.Template, &d.jinja},
	} {
		// Each file is optional; one that is there must be a regular file within its kind's size cap.
		b, err := userfile.Read(filepath.Join(dir, f.name), f.kind)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			*f.dst = b
		}
	}
	d.configRaw = cfg
	if cfg != nil {
		if d.config, err = config.Parse(cfg, gen); err != nil {
			if ferr := unsupported(cfg); ferr != nil { // GPT-2's n_embd is not a missing hidden_size
				return nil, fmt.Errorf("%s: %w", dir, ferr)
			}
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
	}
	d.hasTokCfg = tokCfg != nil
	if d.tokConfig, err = tokenizer.ParseConfig(tokCfg); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return d, nil
}

// unsupported is, for a config.json that failed to parse, the family's error when its model_type names an
// architecture no family (nor multimodal wrapper) reads: that, not the keys another architecture spells its own way
// (GPT-2's n_embd, Mamba's missing num_attention_heads), is what the user needs to hear. Nil when the JSON does not
// parse, model_type is absent or not a string, or it names a known architecture (then the parse error stands).
func unsupported(configJSON []byte) error {
	var top struct {
		ModelType any `json:"model_type"`
	}
	if json.Unmarshal(configJSON, &top) != nil {
		return nil
	}
	mt, ok := top.ModelType.(string)
	if !ok || mt == "" || slices.Contains(config.WrapperTypes(), mt) {
		return nil
	}
	return family.Supported(mt)
}

// Path is the directory as given to Open.
func (d *Dir) Path() string { return d.path }

// Config is config.json with generation_config.json's bos/eos ids, when it has them, taking precedence; the
// error wraps ErrNoConfig when config.json is absent.
func (d *Dir) Config() (*config.Model, error) {
	if d.config == nil {
		return nil, missingf(ErrNoConfig, "%s: no %s", d.path, config.ConfigFile)
	}
	return d.config, nil
}

// ConfigJSON is config.json's bytes as read (nil when absent).
func (d *Dir) ConfigJSON() []byte { return d.configRaw }

// HasTokenizer reports whether the directory holds tokenizer.json.
func (d *Dir) HasTokenizer() bool { return d.tokJSON != nil }

// Tokenizer is tokenizer.json with tokenizer_config.json's special tokens and added_tokens_decoder, parsed on
// the first call; the error wraps ErrNoTokenizer when tokenizer.json is absent.
func (d *Dir) Tokenizer() (*tokenizer.Tokenizer, error) {
	if d.tokJSON == nil {
		return nil, missingf(ErrNoTokenizer, "%s: no %s", d.path, TokenizerFile)
	}
	d.tokOnce.Do(func() {
		d.tok, d.tokErr = tokenizer.FromJSON(d.tokJSON, d.tokConfig)
		if d.tokErr != nil {
			d.tokErr = fmt.Errorf("%s: %w", d.path, d.tokErr)
		}
	})
	return d.tok, d.tokErr
}

// TokenizerConfig is tokenizer_config.json as parsed (empty when the file is absent).
func (d *Dir) TokenizerConfig() *tokenizer.Config { return d.tokConfig }

// ChatTemplate compiles the model's chat template the way Hugging Face finds it: chat_template.jinja when
// present (newer exports store it there, and it wins), else tokenizer_config.json's chat_template (a string, or
// the "default" of a named list). bos_token and eos_token come from tokenizer_config.json. The error wraps
// ErrNoChatTemplate when neither file gives a template.
func (d *Dir) ChatTemplate() (*chat.Template, error) {
	bos, eos := d.tokConfig.BOS, d.tokConfig.EOS
	if d.jinja != nil {
		return chat.ParseFrom(filepath.Join(d.path, ChatTemplateFile), string(d.jinja), bos, eos)
	}
	cfgPath, jinjaPath := filepath.Join(d.path, tokenizer.ConfigFile), filepath.Join(d.path, ChatTemplateFile)
	if !d.hasTokCfg {
		return nil, missingf(ErrNoChatTemplate, "chat template: neither %s nor %s exists", jinjaPath, cfgPath)
	}
	src, err := d.tokConfig.ChatTemplate()
	if err != nil {
		return nil, fmt.Errorf("chat template: %s: %w", d.path, err)
	}
	if src == "" {
		return nil, missingf(ErrNoChatTemplate, "chat template: %s has no chat_template (and there is no %s)", cfgPath, jinjaPath)
	}
	return chat.ParseFrom(cfgPath, src, bos, eos)
}

// Weights opens the directory's safetensors (model.safetensors, else the shards its index lists, else every
// *.safetensors file); the caller closes the archive. A wrapped multimodal checkpoint's archive is its language
// model's: tensors named as the text model names them (config.Model.TextName), the vision and audio towers',
// projectors' and other heads' left out (Archive.LeftOut lists them).
func (d *Dir) Weights() (*safetensors.Archive, error) {
	a, err := safetensors.OpenDir(d.path)
	if err != nil || d.config == nil || d.config.Wrapper == nil {
		return a, err
	}
	if err := a.Rename(d.config.TextName); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}
