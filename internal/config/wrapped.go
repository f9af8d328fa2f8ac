// Multimodal checkpoints as transformers publishes them (Gemma3ForConditionalGeneration, Gemma4…, Qwen3_5…): the
// language model's config nested under text_config beside vision_config (and audio_config), its tensors under a
// prefix beside the vision and audio towers' and the projector's. This file reads the nested config as the text
// model's own and holds the one rule that names a wrapped checkpoint's tensors as the text model names them.
package config

import (
	"fmt"
	"strings"
)

// Wrapper is the outer config of a wrapped multimodal checkpoint; Model holds its text model.
type Wrapper struct {
	ModelType string         // the outer model_type: "gemma3", "gemma4", "qwen3_5", "qwen3_5_moe"
	Raw       map[string]any // the whole config.json (the text model's merged keys are Model.Raw)
}

// wrapped is an outer model_type this engine reads: its text model's model_type, and the defaults of that text
// config class for the keys the engine would otherwise default differently. transformers builds the text config
// class from the text_config dict whatever model_type it names, and writes a sub-config as its differences from
// the class defaults (google/gemma-3-4b-it's text_config names 6 keys), so a text_config may leave these out.
type wrapped struct {
	text     string
	defaults map[string]any
}

// wrappers are the published layouts, with the text config classes' defaults as transformers 5 defines them
// (Gemma3TextConfig, Gemma4TextConfig, Qwen3_5TextConfig, Qwen3_5MoeTextConfig). Gemma 4's global_head_dim (512)
// is left out: transformers reads it only to build per_layer_config when the config has none, which the
// published configs always have (or global_head_dim itself).
var wrappers = map[string]wrapped{
	"gemma3": {text: "gemma3_text", defaults: map[string]any{
		"vocab_size": 262208.0, "hidden_size": 2304.0, "intermediate_size": 9216.0, "num_hidden_layers": 26.0,
		"num_attention_heads": 8.0, "num_key_value_heads": 4.0, "head_dim": 256.0, "max_position_embeddings": 131072.0,
		"rope_theta": 1e6, "rope_local_base_freq": 10000.0, "query_pre_attn_scalar": 256.0, "sliding_window": 4096.0,
		"sliding_window_pattern": 6.0, "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": true,
		"bos_token_id": 2.0, "eos_token_id": 1.0, "pad_token_id": 0.0}},
	"gemma4": {text: "gemma4_text", defaults: map[string]any{
		"vocab_size": 262144.0, "hidden_size": 2304.0, "intermediate_size": 9216.0, "num_hidden_layers": 30.0,
		"num_attention_heads": 8.0, "num_key_value_heads": 4.0, "head_dim": 256.0,
		"max_position_embeddings": 131072.0, "sliding_window": 512.0, "vocab_size_per_layer_input": 262144.0,
		"hidden_size_per_layer_input": 256.0, "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": true,
		"rope_parameters": map[string]any{
			"sliding_attention": map[string]any{"rope_type": "default", "rope_theta": 10000.0},
			"full_attention":    map[string]any{"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1e6},
		},
		"bos_token_id": 2.0, "eos_token_id": 1.0, "pad_token_id": 0.0}},
	"qwen3_5": {text: "qwen3_5_text", defaults: map[string]any{
		"vocab_size": 248320.0, "hidden_size": 4096.0, "intermediate_size": 12288.0, "num_hidden_layers": 32.0,
		"num_attention_heads": 16.0, "num_key_value_heads": 4.0, "head_dim": 256.0, "max_position_embeddings": 32768.0,
		"partial_rotary_factor": 0.25, "tie_word_embeddings": false}},
	"qwen3_5_moe": {text: "qwen3_5_moe_text", defaults: map[string]any{
		"vocab_size": 248320.0, "hidden_size": 2048.0, "num_hidden_layers": 40.0, "num_attention_heads": 16.0,
		"num_key_value_heads": 2.0, "head_dim": 256.0, "max_position_embeddings": 32768.0, "partial_rotary_factor": 0.25,
		"num_experts": 256.0, "num_experts_per_tok": 8.0, "moe_intermediate_size": 512.0,
		"shared_expert_intermediate_size": 512.0, "tie_word_embeddings": false}},
}

// WrapperTypes lists the outer model_type values read, sorted.
func WrapperTypes() []string { return sortedKeys(wrappers) }

// TextType is the text model's model_type of the outer model_type outer, and whether outer is one read.
func TextType(outer string) (string, bool) {
	w, ok := wrappers[outer]
	return w.text, ok
}

// inherited are the top-level keys a text config takes when it lacks them, as the wrapped model reads them: the
// outer config's dtype and special-token ids; tie_word_embeddings is the wrapped model's own (transformers ties
// the ForConditionalGeneration's head by the outer config's flag), so the outer value wins when present.
var inherited = []string{"torch_dtype", "dtype", "bos_token_id", "eos_token_id", "pad_token_id"}

// unwrap returns the text model's keys of a wrapped config (raw holds text_config): text_config's, then the
// outer config's inherited keys, then the text config class's defaults, for the keys absent so far.
func unwrap(raw map[string]any) (map[string]any, *Wrapper, error) {
	tc, ok := raw["text_config"].(map[string]any)
	if !ok {
		return nil, nil, invalid(ConfigFile, "text_config must be an object, got %s", show(raw["text_config"]))
	}
	outer, _ := raw["model_type"].(string)
	w, known := wrappers[outer]
	if !known {
		return nil, nil, invalid(ConfigFile, "model_type %q nests its language model under text_config, and is not a "+
			"multimodal layout this engine reads (known: %s)", outer, strings.Join(WrapperTypes(), ", "))
	}
	if t, ok := tc["model_type"]; ok && t != w.text {
		return nil, nil, invalid(ConfigFile, "text_config.model_type is %s; a %s checkpoint's language model is %q",
			show(t), outer, w.text)
	}
	for _, k := range []string{"quantization", "quantization_config"} {
		if tc[k] != nil {
			return nil, nil, invalid(ConfigFile, "text_config.%s: the quantization block of a %s checkpoint belongs at the top level", k, outer)
		}
	}
	text := make(map[string]any, len(tc)+len(w.defaults)+len(inherited))
	for k, v := range tc {
		text[k] = v
	}
	text["model_type"] = w.text
	if v, ok := raw["tie_word_embeddings"]; ok && v != nil {
		text["tie_word_embeddings"] = v
	}
	for _, k := range inherited {
		if _, has := text[k]; !has && raw[k] != nil {
			text[k] = raw[k]
		}
	}
	for k, v := range w.defaults {
		if _, has := text[k]; !has {
			text[k] = v
		}
	}
	return text, &Wrapper{ModelType: outer, Raw: raw}, nil
}

// textPrefixes are a wrapped checkpoint's language-model prefixes in both spellings transformers has written
// (model.language_model.* and lm_head.* since 4.52; language_model.model.* and language_model.lm_head.* before),
// each with the text model's own prefix. A prefix matches whole dot-separated components.
var textPrefixes = [][2]string{
	{"model.language_model", "model"},
	{"language_model.model", "model"},
	{"language_model.lm_head", "lm_head"},
	{"lm_head", "lm_head"},
}

// TextName is the text model's name for the tensor (or module path) name of this model's checkpoint: name itself
// for a text-only checkpoint; for a wrapped one, name with its language-model prefix replaced (textPrefixes), and
// false for every other tensor (vision and audio towers, projectors, multi-token-prediction heads).
func (m *Model) TextName(name string) (string, bool) {
	if m.Wrapper == nil {
		return name, true
	}
	for _, p := range textPrefixes {
		if rest, ok := strings.CutPrefix(name, p[0]); ok && (rest == "" || rest[0] == '.') {
			return p[1] + rest, true
		}
	}
	return "", false
}

// renamed is q with its module paths as rename names them (Model.TextName), the paths it refuses left out: a
// wrapped checkpoint's block keys its modules by their stored names.
func (q *Quantization) renamed(rename func(string) (string, bool)) (*Quantization, error) {
	if q == nil {
		return nil, nil
	}
	out := &Quantization{Default: q.Default, Rotation: q.Rotation, PerPath: map[string]QuantSpec{}, Skip: map[string]bool{}}
	from := map[string]string{}
	add := func(path string) (string, bool, error) {
		n, ok := rename(path)
		if !ok {
			return "", false, nil
		}
		if prev, dup := from[n]; dup {
			return "", false, fmt.Errorf("quantization block: %s and %s are both the language model's %s", prev, path, n)
		}
		from[n] = path
		return n, true, nil
	}
	for _, p := range sortedKeys(q.PerPath) {
		n, ok, err := add(p)
		if err != nil {
			return nil, err
		}
		if ok {
			out.PerPath[n] = q.PerPath[p]
		}
	}
	for _, p := range sortedKeys(q.Skip) {
		n, ok, err := add(p)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Skip[n] = true
		}
	}
	return out, nil
}
