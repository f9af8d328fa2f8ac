// This file finds a model directory's chat template and special tokens the
// way Hugging Face does: chat_template.jinja first, then the chat_template
// entry of tokenizer_config.json.
package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LoadDir loads the chat template of the model in dir. The template comes
// from dir/chat_template.jinja if present (newer Hugging Face exports store
// it there, and it wins over the config), else from the "chat_template" of
// dir/tokenizer_config.json, which is a string or a list of {name, template}
// of which "default" is used. bos_token and eos_token come from
// tokenizer_config.json when it exists.
func LoadDir(dir string) (*Template, error) {
	cfgPath := filepath.Join(dir, "tokenizer_config.json")
	cfg, cfgErr := readConfig(cfgPath)
	if cfgErr != nil && !errors.Is(cfgErr, fs.ErrNotExist) {
		return nil, cfgErr
	}

	jinjaPath := filepath.Join(dir, "chat_template.jinja")
	src, err := os.ReadFile(jinjaPath)
	switch {
	case err == nil:
		return parse(string(src), jinjaPath, cfg.bos, cfg.eos)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("chat template: %w", err)
	}

	if cfgErr != nil {
		return nil, fmt.Errorf("chat template: neither %s nor %s exists", jinjaPath, cfgPath)
	}
	if cfg.template == "" {
		return nil, fmt.Errorf("chat template: %s has no chat_template (and there is no %s)", cfgPath, jinjaPath)
	}
	return parse(cfg.template, cfgPath, cfg.bos, cfg.eos)
}

// tokenizerConfig is what LoadDir needs from tokenizer_config.json.
type tokenizerConfig struct {
	template string
	bos, eos string
}

// readConfig reads path; a missing file is returned as an error wrapping
// fs.ErrNotExist so the caller can fall back.
func readConfig(path string) (tokenizerConfig, error) {
	var cfg tokenizerConfig
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return cfg, err
		}
		return cfg, fmt.Errorf("chat template: %w", err)
	}
	var raw struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOSToken     json.RawMessage `json:"bos_token"`
		EOSToken     json.RawMessage `json:"eos_token"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return cfg, fmt.Errorf("chat template: %s: %w", path, err)
	}
	if cfg.bos, err = specialToken(raw.BOSToken); err != nil {
		return cfg, fmt.Errorf("chat template: %s: bos_token: %w", path, err)
	}
	if cfg.eos, err = specialToken(raw.EOSToken); err != nil {
		return cfg, fmt.Errorf("chat template: %s: eos_token: %w", path, err)
	}
	if cfg.template, err = chatTemplate(raw.ChatTemplate); err != nil {
		return cfg, fmt.Errorf("chat template: %s: chat_template: %w", path, err)
	}
	return cfg, nil
}

// specialToken reads a token written as a string, as an AddedToken object
// {"content": ...}, or as null/absent (unset).
func specialToken(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Content == nil {
		return "", fmt.Errorf("want a string or an object with a string \"content\", got %s", abbreviate(raw))
	}
	return *obj.Content, nil
}

// chatTemplate reads chat_template as a string or a list of named templates,
// picking "default" as Hugging Face does when no name is requested.
func chatTemplate(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var named []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &named); err != nil {
		return "", fmt.Errorf("want a string or a list of {name, template}, got %s", abbreviate(raw))
	}
	names := make([]string, len(named))
	for i, n := range named {
		if n.Name == "default" {
			return n.Template, nil
		}
		names[i] = fmt.Sprintf("%q", n.Name)
	}
	return "", fmt.Errorf("no template named \"default\" among [%s]", strings.Join(names, ", "))
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// abbreviate keeps error messages readable when the offending JSON is long.
func abbreviate(raw json.RawMessage) string {
	const limit = 80
	s := string(raw)
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}
