// tokenizer_config.json, parsed once for everyone who needs it: the named special tokens and added_tokens_decoder
// (this package) and the chat template with its bos/eos tokens (package chat, through package modeldir).
package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ConfigFile is the name of the file Config is read from; errors start with it.
const ConfigFile = "tokenizer_config.json"

// Config is what tokenizer_config.json says. A token field is "" when the file leaves it unset.
type Config struct {
	BOS, EOS, PAD, UNK string
	// AddedTokensDecoder is added_tokens_decoder keyed by id as written ("151643"); tokens listed only here are
	// added to the vocabulary, as transformers does.
	AddedTokensDecoder map[string]AddedToken
	chatTemplate       json.RawMessage
}

// ParseConfig reads tokenizer_config.json's bytes; nil or empty data (no file) gives the empty Config. Each
// special token is written as "text", as an AddedToken object {"content": "text", ...}, or as null. The
// chat_template entry is checked only when asked for (ChatTemplate), so a tokenizer loads whatever it holds.
func ParseConfig(data []byte) (*Config, error) {
	cfg := &Config{}
	if len(strings.TrimSpace(string(data))) == 0 {
		return cfg, nil
	}
	var raw struct {
		BOS                json.RawMessage       `json:"bos_token"`
		EOS                json.RawMessage       `json:"eos_token"`
		PAD                json.RawMessage       `json:"pad_token"`
		UNK                json.RawMessage       `json:"unk_token"`
		AddedTokensDecoder map[string]AddedToken `json:"added_tokens_decoder"`
		ChatTemplate       json.RawMessage       `json:"chat_template"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	for _, s := range []struct {
		raw  json.RawMessage
		text *string
		name string
	}{
		{raw.BOS, &cfg.BOS, "bos_token"},
		{raw.EOS, &cfg.EOS, "eos_token"},
		{raw.PAD, &cfg.PAD, "pad_token"},
		{raw.UNK, &cfg.UNK, "unk_token"},
	} {
		text, err := specialToken(s.raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", ConfigFile, s.name, err)
		}
		*s.text = text
	}
	cfg.AddedTokensDecoder = raw.AddedTokensDecoder
	cfg.chatTemplate = raw.ChatTemplate
	return cfg, nil
}

// ChatTemplate returns the chat_template entry: a string, or from a list of {name, template} the one named
// "default" as Hugging Face picks when no name is requested. It is "" when the entry is absent or null.
func (c *Config) ChatTemplate() (string, error) {
	raw := c.chatTemplate
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
		return "", fmt.Errorf("%s: chat_template: want a string or a list of {name, template}, got %s", ConfigFile, abbreviate(raw))
	}
	names := make([]string, len(named))
	for i, n := range named {
		if n.Name == "default" {
			return n.Template, nil
		}
		names[i] = fmt.Sprintf("%q", n.Name)
	}
	return "", fmt.Errorf("%s: chat_template: no template named \"default\" among [%s]", ConfigFile, strings.Join(names, ", "))
}

// specialToken reads a token written as a string, as an AddedToken object {"content": ...}, or as null/absent
// (unset, "").
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

// abbreviate keeps error messages readable when the offending JSON is long.
func abbreviate(raw json.RawMessage) string {
	const limit = 80
	s := string(raw)
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}
