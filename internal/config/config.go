// Package config parses a Hugging Face / MLX model directory's config.json and generation_config.json (read by
// package modeldir) into the numbers the model code needs, with HF's defaults applied and both spellings of rope
// settings unified. It does not judge whether the model family is supported; package family does that from
// ModelType.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// File names inside a model directory; every error names the one it is about.
const (
	ConfigFile     = "config.json"
	GenerationFile = "generation_config.json"
)

// ErrInvalid is wrapped by every error about a malformed or inconsistent config.
var ErrInvalid = errors.New("invalid model config")

// Model is one model's architecture and generation settings.
type Model struct {
	ModelType     string
	Architectures []string

	HiddenSize       int
	IntermediateSize int
	NumLayers        int
	NumHeads         int
	NumKVHeads       int // defaults to NumHeads; NumHeads is a multiple of it
	HeadDim          int // defaults to HiddenSize/NumHeads
	VocabSize        int
	MaxPositions     int // 0 when the config does not say

	RMSNormEps        float64 // rms_norm_eps (or layer_norm_eps); 1e-6 when neither, HF's Llama/Qwen default
	TieWordEmbeddings bool    // absent means false here; a checkpoint without lm_head is tied whatever this says
	AttentionBias     bool    // the attention_bias key only; families with fixed biases (qwen2) ignore it
	MLPBias           bool

	RopeTheta           float64        // rope_theta or rope_parameters.rope_theta; 10000 when absent
	RopeScaling         map[string]any // rope_scaling or rope_parameters without rope_theta, "type" renamed "rope_type"; nil for plain rope
	PartialRotaryFactor float64        // fraction of HeadDim that is rotated; 1 when absent
	NoRopeLayers        []int          // smollm3: per layer 1 = rope, 0 = NoPE; nil when absent

	BOS []int // generation_config.json's bos_token_id when present, else config.json's; may be empty
	EOS []int // likewise for eos_token_id (int or list)

	Quant *Quantization  // MLX quantization block; nil for an unquantized model
	EXL3  *EXL3          // exllamav3's quantization_config (quant_method "exl3"); nil otherwise (exl3.go)
	Raw   map[string]any // the whole config.json (numbers as float64) for family-specific keys; a wrapped model's text keys

	// Wrapper is the outer config of a multimodal checkpoint whose language model is under text_config
	// (wrapped.go); nil for a text-only one. The fields above are then the text model's, Architectures and the
	// quantization block (module paths as TextName names them) the outer config's.
	Wrapper *Wrapper
}

// Upper bounds on sizes, far above any released model (the largest vocabularies are ~262k, the deepest stacks
// ~128 layers), so that a typo or a hostile file fails here: the loader allocates per-layer state before it
// checks a tensor, and multiplies dims (heads·head_dim), which must not overflow an int.
const (
	maxDim    = 1 << 24
	maxLayers = 1 << 12
)

// Parse reads config.json's bytes and generation_config.json's (nil or empty when the file is absent).
func Parse(configJSON, generationJSON []byte) (*Model, error) {
	raw, err := decodeObject(ConfigFile, configJSON)
	if err != nil {
		return nil, err
	}
	top := newReader(ConfigFile, raw)
	c, m := top, &Model{Raw: raw}
	if raw["text_config"] != nil {
		text, w, err := unwrap(raw)
		if err != nil {
			return nil, err
		}
		c, m.Raw, m.Wrapper = top.sub("text_config", text), text, w
	}
	m.ModelType = c.str("model_type")
	m.Architectures = top.strs("architectures")

	// Required dimensions: a model cannot be built without them, so absence or zero is an error.
	for _, d := range []struct {
		key string
		dst *int
		max int
	}{
		{"hidden_size", &m.HiddenSize, maxDim},
		{"num_hidden_layers", &m.NumLayers, maxLayers},
		{"num_attention_heads", &m.NumHeads, maxDim},
		{"vocab_size", &m.VocabSize, maxDim},
	} {
		*d.dst = c.atMost(d.key, c.positiveInt(d.key, true), d.max)
	}
	// A MoE model's MLPs may all be experts (Qwen3.5-MoE has no intermediate_size); its family checks the
	// size when a layer has a dense MLP.
	// A MoE config without dense MLPs may leave intermediate_size out (Qwen3.5-MoE), but then names a valid
	// moe_intermediate_size.
	moe := 0
	if c.m["intermediate_size"] == nil { // else the family checks moe_intermediate_size with its other MoE keys
		moe = c.atMost("moe_intermediate_size", c.positiveInt("moe_intermediate_size", false), maxDim)
	}
	m.IntermediateSize = c.atMost("intermediate_size", c.positiveInt("intermediate_size", moe == 0), maxDim)
	m.NumKVHeads = c.atMost("num_key_value_heads", c.positiveInt("num_key_value_heads", false), maxDim)
	m.HeadDim = c.atMost("head_dim", c.positiveInt("head_dim", false), maxDim)
	m.MaxPositions = c.nonNegInt("max_position_embeddings")
	m.RMSNormEps = c.positiveFloat("rms_norm_eps", 0)
	if m.RMSNormEps == 0 {
		m.RMSNormEps = c.positiveFloat("layer_norm_eps", 1e-6)
	}
	m.TieWordEmbeddings = c.boolean("tie_word_embeddings")
	m.AttentionBias = c.boolean("attention_bias")
	m.MLPBias = c.boolean("mlp_bias")
	m.BOS = c.tokenIDs("bos_token_id")
	m.EOS = c.tokenIDs("eos_token_id")
	c.rope(m)
	m.NoRopeLayers = c.noRopeLayers(m.NumLayers)
	if m.EXL3 = top.exl3(); m.EXL3 == nil {
		m.Quant = top.quantization()
	}
	if err := c.failed(); err != nil {
		return nil, err
	}
	if m.Wrapper != nil {
		if m.Quant, err = m.Quant.renamed(m.TextName); err != nil {
			return nil, invalid(ConfigFile, "%v", err)
		}
	}

	// Defaults and cross-checks between keys.
	if m.NumKVHeads == 0 {
		m.NumKVHeads = m.NumHeads
	}
	if m.NumHeads%m.NumKVHeads != 0 {
		return nil, invalid(ConfigFile, "%s %d is not a multiple of %s %d", c.name("num_attention_heads"), m.NumHeads, c.name("num_key_value_heads"), m.NumKVHeads)
	}
	if m.HeadDim == 0 {
		if m.HiddenSize%m.NumHeads != 0 {
			return nil, invalid(ConfigFile, "no %s, and %s %d is not a multiple of %s %d", c.name("head_dim"), c.name("hidden_size"), m.HiddenSize, c.name("num_attention_heads"), m.NumHeads)
		}
		m.HeadDim = m.HiddenSize / m.NumHeads
	}

	if len(bytes.TrimSpace(generationJSON)) > 0 {
		graw, err := decodeObject(GenerationFile, generationJSON)
		if err != nil {
			return nil, err
		}
		g := newReader(GenerationFile, graw)
		// generation_config.json is what transformers' generate() reads, so its ids win when it names them.
		if graw["bos_token_id"] != nil {
			m.BOS = g.tokenIDs("bos_token_id")
		}
		if graw["eos_token_id"] != nil {
			m.EOS = g.tokenIDs("eos_token_id")
		}
		if err := g.failed(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// decodeObject parses one JSON object, numbers as float64 (the shape Raw promises).
func decodeObject(file string, b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &Error{File: file, Msg: "malformed JSON: " + err.Error()}
	}
	if m == nil {
		return nil, &Error{File: file, Msg: "not a JSON object"}
	}
	return m, nil
}

// Error is one problem in one file. It wraps ErrInvalid without printing it, so the text stays one short line:
// the file, the key path, what is wrong.
type Error struct {
	File string
	Msg  string
}

func (e *Error) Error() string { return e.File + ": " + e.Msg }

// Unwrap makes errors.Is(err, ErrInvalid) hold for every config error.
func (e *Error) Unwrap() error { return ErrInvalid }

func invalid(file, format string, args ...any) error {
	return &Error{File: file, Msg: fmt.Sprintf(format, args...)}
}

// reader pulls typed values out of one decoded JSON object, keeping the first error so that field extraction
// reads as a list rather than an if-ladder. Absent keys and JSON null both mean "use the default". A reader
// made by sub reads a nested object, naming its keys by their dotted path and sharing the first error.
type reader struct {
	file string
	path string // "" at the top, else "outer.key." for nested objects
	m    map[string]any
	err  *error
}

func newReader(file string, m map[string]any) *reader {
	return &reader{file: file, m: m, err: new(error)}
}

// sub reads the nested object m found at key.
func (r *reader) sub(key string, m map[string]any) *reader {
	return &reader{file: r.file, path: r.name(key) + ".", m: m, err: r.err}
}

// name is key's dotted path from the top of the file.
func (r *reader) name(key string) string { return r.path + key }

func (r *reader) failed() error { return *r.err }

func (r *reader) fail(format string, args ...any) {
	if *r.err == nil {
		*r.err = invalid(r.file, format, args...)
	}
}

func (r *reader) str(key string) string {
	v, ok := r.m[key].(string)
	if !ok && r.m[key] != nil {
		r.fail("%s must be a string, got %s", r.name(key), show(r.m[key]))
	}
	return v
}

func (r *reader) strs(key string) []string {
	if r.m[key] == nil {
		return nil
	}
	list, ok := r.m[key].([]any)
	out := make([]string, len(list))
	for i, v := range list {
		s, isStr := v.(string)
		ok = ok && isStr
		out[i] = s
	}
	if !ok {
		r.fail("%s must be a list of strings, got %s", r.name(key), show(r.m[key]))
	}
	return out
}

// asInt converts a JSON number that is an exact integer small enough to be exact in a float64.
func asInt(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func (r *reader) positiveInt(key string, required bool) int {
	v := r.m[key]
	if v == nil {
		if required {
			r.fail("missing %s", r.name(key))
		}
		return 0
	}
	n, ok := asInt(v)
	if !ok || n <= 0 {
		r.fail("%s must be a positive integer, got %s", r.name(key), show(v))
	}
	return n
}

// atMost fails when the size v read from key is above limit.
func (r *reader) atMost(key string, v, limit int) int {
	if v > limit {
		r.fail("%s %d is above %d, beyond any model this engine loads", r.name(key), v, limit)
	}
	return v
}

func (r *reader) nonNegInt(key string) int {
	v := r.m[key]
	if v == nil {
		return 0
	}
	n, ok := asInt(v)
	if !ok || n < 0 {
		r.fail("%s must be a non-negative integer, got %s", r.name(key), show(v))
	}
	return n
}

// positiveFloat returns def when key is absent.
func (r *reader) positiveFloat(key string, def float64) float64 {
	v := r.m[key]
	if v == nil {
		return def
	}
	f, ok := v.(float64)
	if !ok || !(f > 0) {
		r.fail("%s must be a positive number, got %s", r.name(key), show(v))
	}
	return f
}

func (r *reader) boolean(key string) bool {
	v := r.m[key]
	b, ok := v.(bool)
	if !ok && v != nil {
		r.fail("%s must be true or false, got %s", r.name(key), show(v))
	}
	return b
}

// object returns the nested object at key, nil when absent.
func (r *reader) object(key string) map[string]any {
	v := r.m[key]
	o, ok := v.(map[string]any)
	if !ok && v != nil {
		r.fail("%s must be an object, got %s", r.name(key), show(v))
	}
	return o
}

// tokenIDs reads an id given as one integer, a list of integers, or null (none).
func (r *reader) tokenIDs(key string) []int {
	v := r.m[key]
	list, isList := v.([]any)
	if !isList {
		if v == nil {
			return nil
		}
		list = []any{v}
	}
	ids := make([]int, 0, len(list))
	for _, x := range list {
		n, ok := asInt(x)
		if !ok || n < 0 {
			r.fail("%s must be a token id or a list of them, got %s", r.name(key), show(v))
			return nil
		}
		ids = append(ids, n)
	}
	return ids
}

// noRopeLayers reads smollm3's per-layer rope switches: one 0/1 per layer.
func (r *reader) noRopeLayers(layers int) []int {
	v := r.m["no_rope_layers"]
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	out := make([]int, 0, len(list))
	for _, x := range list {
		n, isInt := asInt(x)
		ok = ok && isInt && (n == 0 || n == 1)
		out = append(out, n)
	}
	switch {
	case !ok:
		r.fail("no_rope_layers must be a list of 0 and 1, got %s", show(v))
	case layers > 0 && len(out) != layers:
		r.fail("no_rope_layers has %d entries for %d layers", len(out), layers)
	}
	return out
}

// show renders a JSON value for an error message, shortened so one bad value cannot flood the line.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// sortedKeys lists a map's keys in order, for deterministic iteration and error messages.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// joinKeys is sortedKeys as one comma-separated string.
func joinKeys[V any](m map[string]V) string { return strings.Join(sortedKeys(m), ", ") }
