// Tests for config parsing: the shared fixtures' configs against values read off the files by hand, both rope
// spellings, quantization blocks (affine overrides, false entries, trellis), generation_config ids, bad inputs.
package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// strip drops Raw so whole Models can be compared; Raw is checked separately.
func strip(m *Model) Model {
	c := *m
	c.Raw = nil
	return c
}

func TestFixtureConfigs(t *testing.T) {
	cases := []struct {
		dir  string
		want Model
	}{
		{"models/tiny-llama3", Model{
			ModelType: "llama", HiddenSize: 256, IntermediateSize: 768, NumLayers: 2, NumHeads: 8, NumKVHeads: 2,
			HeadDim: 32, VocabSize: 2048, MaxPositions: 4096, RMSNormEps: 1e-5, RopeTheta: 500000,
			RopeScaling: map[string]any{"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
				"original_max_position_embeddings": 16.0, "rope_type": "llama3"},
			PartialRotaryFactor: 1, BOS: []int{1}, EOS: []int{2},
		}},
		{"models/tiny-qwen2-yarn", Model{
			ModelType: "qwen2", HiddenSize: 256, IntermediateSize: 768, NumLayers: 2, NumHeads: 4, NumKVHeads: 2,
			HeadDim: 64 /* hidden_size / heads: the config has no head_dim */, VocabSize: 2048, MaxPositions: 4096,
			RMSNormEps: 1e-6, TieWordEmbeddings: true, RopeTheta: 10000,
			RopeScaling:         map[string]any{"factor": 4.0, "original_max_position_embeddings": 8.0, "rope_type": "yarn"},
			PartialRotaryFactor: 1,
		}},
		{"models/tiny-qwen3", Model{
			ModelType: "qwen3", HiddenSize: 256, IntermediateSize: 768, NumLayers: 2, NumHeads: 4, NumKVHeads: 2,
			HeadDim: 64, VocabSize: 2048, MaxPositions: 4096, RMSNormEps: 1e-6, TieWordEmbeddings: true,
			RopeTheta: 1e6, PartialRotaryFactor: 1, // rope_type "default" alone: no scaling
		}},
		{"trained/pycoder-12m", Model{
			ModelType: "qwen3", HiddenSize: 512, IntermediateSize: 1536, NumLayers: 4, NumHeads: 8, NumKVHeads: 2,
			HeadDim: 64, VocabSize: 384, MaxPositions: 2048, RMSNormEps: 1e-6, TieWordEmbeddings: true,
			RopeTheta: 10000, PartialRotaryFactor: 1, EOS: []int{256},
		}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Dir(testutil.Fixture(t, c.dir+"/config.json"))
			m, err := load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := strip(m); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			if m.Raw["model_type"] != c.want.ModelType || m.Raw["vocab_size"] != float64(c.want.VocabSize) {
				t.Errorf("Raw lacks the file's keys: %v", m.Raw)
			}
		})
	}
}

// base is a minimal valid config.json body; tests append keys to it.
const base = `"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,` +
	`"num_attention_heads":4,"vocab_size":100`

func parse(t *testing.T, extra, gen string) *Model {
	t.Helper()
	cfg := "{" + base
	if extra != "" {
		cfg += "," + extra
	}
	m, err := Parse([]byte(cfg+"}"), []byte(gen))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDefaults(t *testing.T) {
	m := parse(t, "", "")
	want := Model{ModelType: "llama", HiddenSize: 64, IntermediateSize: 128, NumLayers: 2, NumHeads: 4, NumKVHeads: 4,
		HeadDim: 16, VocabSize: 100, RMSNormEps: 1e-6, RopeTheta: 10000, PartialRotaryFactor: 1}
	if got := strip(m); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestRopeSpellings(t *testing.T) {
	cases := []struct {
		name    string
		extra   string
		theta   float64
		scaling map[string]any
		prf     float64
	}{
		{"old rope_scaling with type", `"rope_theta":500000,"rope_scaling":{"type":"linear","factor":2.0}`,
			500000, map[string]any{"rope_type": "linear", "factor": 2.0}, 1},
		{"rope_type wins over type", `"rope_scaling":{"type":"linear","rope_type":"dynamic","factor":2}`,
			10000, map[string]any{"rope_type": "dynamic", "factor": 2.0}, 1},
		{"null rope_scaling", `"rope_theta":1e6,"rope_scaling":null`, 1e6, nil, 1},
		{"default with extra key kept", `"rope_parameters":{"rope_type":"default","rope_theta":5,"partial_rotary_factor":0.5}`,
			5, map[string]any{"rope_type": "default", "partial_rotary_factor": 0.5}, 0.5},
		{"top-level partial rotary", `"partial_rotary_factor":0.25`, 10000, nil, 0.25},
		{"proportional keeps its factor to itself", `"rope_parameters":{"rope_type":"proportional","rope_theta":1e6,"partial_rotary_factor":0.25}`,
			1e6, map[string]any{"rope_type": "proportional", "partial_rotary_factor": 0.25}, 1},
		{"rope_scaling agreeing with rope_parameters", `"rope_scaling":{"type":"yarn","factor":4},"rope_parameters":{"rope_type":"yarn","factor":4,"rope_theta":7}`,
			7, map[string]any{"rope_type": "yarn", "factor": 4.0}, 1},
		{"both default", `"rope_scaling":{"rope_type":"default"},"rope_parameters":{"rope_theta":7}`, 7, nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := parse(t, c.extra, "")
			if m.RopeTheta != c.theta || !reflect.DeepEqual(m.RopeScaling, c.scaling) || m.PartialRotaryFactor != c.prf {
				t.Errorf("theta %g scaling %v prf %g; want %g %v %g", m.RopeTheta, m.RopeScaling, m.PartialRotaryFactor, c.theta, c.scaling, c.prf)
			}
		})
	}
	// The normalisation works on a copy: Raw keeps the file's spelling.
	m := parse(t, `"rope_scaling":{"type":"linear","factor":2.0}`, "")
	if raw := m.Raw["rope_scaling"].(map[string]any); raw["type"] != "linear" {
		t.Errorf("Raw rope_scaling rewritten: %v", raw)
	}
}

func TestNoRopeLayersAndMisc(t *testing.T) {
	m := parse(t, `"model_type":"smollm3","no_rope_layers":[1,1,0,1,1,1],"num_hidden_layers":6,"num_key_value_heads":2,`+
		`"head_dim":32,"tie_word_embeddings":true,"attention_bias":true,"mlp_bias":true,"architectures":["SmolLM3ForCausalLM"]`, "")
	if !reflect.DeepEqual(m.NoRopeLayers, []int{1, 1, 0, 1, 1, 1}) || m.NumKVHeads != 2 || m.HeadDim != 32 ||
		!m.TieWordEmbeddings || !m.AttentionBias || !m.MLPBias || !reflect.DeepEqual(m.Architectures, []string{"SmolLM3ForCausalLM"}) {
		t.Errorf("%+v", strip(m))
	}
}

func TestGenerationConfigIDs(t *testing.T) {
	cases := []struct {
		name     string
		extra    string
		gen      string
		bos, eos []int
	}{
		{"generation eos list wins", `"bos_token_id":1,"eos_token_id":2`, `{"bos_token_id":5,"eos_token_id":[7,8,9]}`, []int{5}, []int{7, 8, 9}},
		{"config list, no generation file", `"eos_token_id":[3,4]`, ``, nil, []int{3, 4}},
		{"generation null keeps config", `"eos_token_id":2`, `{"eos_token_id":null,"do_sample":true}`, nil, []int{2}},
		{"generation int", `"eos_token_id":null`, `{"eos_token_id":11}`, nil, []int{11}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := parse(t, c.extra, c.gen)
			if !reflect.DeepEqual(m.BOS, c.bos) || !reflect.DeepEqual(m.EOS, c.eos) {
				t.Errorf("bos %v eos %v; want %v %v", m.BOS, m.EOS, c.bos, c.eos)
			}
		})
	}
}

func TestQuantizationAffine(t *testing.T) {
	for _, key := range []string{"quantization", "quantization_config"} {
		t.Run(key, func(t *testing.T) {
			m := parse(t, `"`+key+`":{"group_size":64,"bits":4,"mode":"affine",`+
				`"model.layers.0.mlp.down_proj":{"group_size":32,"bits":8},`+
				`"model.embed_tokens":{"bits":6},`+
				`"model.layers.1.self_attn.q_proj":false}`, "")
			q := m.Quant
			if q == nil {
				t.Fatal("no quantization")
			}
			cases := []struct {
				path string
				spec QuantSpec
				ok   bool
			}{
				{"model.layers.0.mlp.down_proj", QuantSpec{Mode: "affine", Bits: 8, GroupSize: 32}, true},
				{"model.embed_tokens", QuantSpec{Mode: "affine", Bits: 6, GroupSize: 64}, true}, // MLX's group default
				{"model.layers.1.self_attn.q_proj", QuantSpec{}, false},
				{"model.layers.1.self_attn.k_proj", QuantSpec{Mode: "affine", Bits: 4, GroupSize: 64}, true},
			}
			for _, c := range cases {
				s, ok := q.For(c.path)
				if ok != c.ok || !reflect.DeepEqual(s, c.spec) {
					t.Errorf("%s: %+v %v; want %+v %v", c.path, s, ok, c.spec, c.ok)
				}
			}
			if len(q.PerPath) != 2 || len(q.Skip) != 1 {
				t.Errorf("per-path %v skip %v", q.PerPath, q.Skip)
			}
		})
	}
	// Mode absent means affine; no block means no quantization.
	if s, _ := parse(t, `"quantization":{"group_size":32,"bits":3}`, "").Quant.For("x"); s != (QuantSpec{Mode: "affine", Bits: 3, GroupSize: 32}) {
		t.Errorf("mode-less default %+v", s)
	}
	var none *Quantization
	if m := parse(t, "", ""); m.Quant != nil {
		t.Errorf("quant %+v without a block", m.Quant)
	} else if _, ok := none.For("x"); ok {
		t.Error("nil Quantization says quantized")
	}
}

func TestQuantizationTrellis(t *testing.T) {
	tr := `{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":1}}`
	down := `{"mode":"trellis","bits":4,"group_size":256,"trellis":{"L":16,"code":"1mad","axis":0}}`
	m := parse(t, `"quantization":{"group_size":64,"bits":8,"model.layers.0.mlp.gate_proj":`+tr+`,"model.layers.0.mlp.down_proj":`+down+`}`, "")
	s, ok := m.Quant.For("model.layers.0.mlp.gate_proj")
	want := QuantSpec{Mode: "trellis", Bits: 3, GroupSize: 256, Trellis: &TrellisParams{L: 12, Code: "1mad", Axis: 1}}
	if !ok || !reflect.DeepEqual(s, want) {
		t.Errorf("gate %+v %+v", s, s.Trellis)
	}
	s, _ = m.Quant.For("model.layers.0.mlp.down_proj")
	if !reflect.DeepEqual(s.Trellis, &TrellisParams{L: 16, Code: "1mad", Axis: 0}) || s.Bits != 4 {
		t.Errorf("down %+v %+v", s, s.Trellis)
	}
	if s, _ := m.Quant.For("lm_head"); s != (QuantSpec{Mode: "affine", Bits: 8, GroupSize: 64}) {
		t.Errorf("default %+v", s)
	}
	// Trellis as the block's default.
	m = parse(t, `"quantization":`+tr, "")
	if s, ok := m.Quant.For("model.layers.5.self_attn.o_proj"); !ok || !reflect.DeepEqual(s, want) {
		t.Errorf("trellis default %+v", s)
	}
}

func TestRejects(t *testing.T) {
	full := func(extra string) string { return "{" + base + "," + extra + "}" }
	cases := []struct {
		name, cfg, gen, want string
	}{
		{"malformed config", `{"hidden_size":`, ``, "config.json: malformed JSON: unexpected end of JSON input"},
		{"not an object", `[1]`, ``, "config.json: malformed JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{"null config", `null`, ``, "config.json: not a JSON object"},
		{"malformed generation", "{" + base + "}", `{"eos_token_id":[1,}`, "generation_config.json: malformed JSON: invalid character '}' looking for beginning of value"},
		{"missing hidden_size", `{"intermediate_size":1,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":1}`, ``, "config.json: missing hidden_size"},
		{"zero vocab", full(`"vocab_size":0`), ``, "config.json: vocab_size must be a positive integer, got 0"},
		{"null layers", full(`"num_hidden_layers":null`), ``, "config.json: missing num_hidden_layers"},
		{"string heads", full(`"num_attention_heads":"4"`), ``, `config.json: num_attention_heads must be a positive integer, got "4"`},
		{"fractional intermediate", full(`"intermediate_size":12.5`), ``, "config.json: intermediate_size must be a positive integer, got 12.5"},
		{"kv heads not dividing", full(`"num_key_value_heads":3`), ``, "config.json: num_attention_heads 4 is not a multiple of num_key_value_heads 3"},
		{"no head_dim, uneven", full(`"hidden_size":66`), ``, "config.json: no head_dim, and hidden_size 66 is not a multiple of num_attention_heads 4"},
		{"layers beyond any model", full(`"num_hidden_layers":1e12`), ``, "config.json: num_hidden_layers 1000000000000 is above 4096, beyond any model this engine loads"},
		{"heads·head_dim overflow", full(`"num_attention_heads":4294967296,"num_key_value_heads":4294967296,"head_dim":4294967296`), ``,
			"config.json: num_attention_heads 4294967296 is above 16777216, beyond any model this engine loads"},
		{"bad eps", full(`"rms_norm_eps":-1`), ``, "config.json: rms_norm_eps must be a positive number, got -1"},
		{"bad tie", full(`"tie_word_embeddings":"yes"`), ``, `config.json: tie_word_embeddings must be true or false, got "yes"`},
		{"bad eos", full(`"eos_token_id":[1,-2]`), ``, "config.json: eos_token_id must be a token id or a list of them, got [1,-2]"},
		{"bad generation eos", "{" + base + "}", `{"eos_token_id":"</s>"}`, `generation_config.json: eos_token_id must be a token id or a list of them, got "\u003c/s\u003e"`},
		{"rope_scaling not object", full(`"rope_scaling":"yarn"`), ``, `config.json: rope_scaling must be an object, got "yarn"`},
		{"bad inner theta", full(`"rope_parameters":{"rope_theta":"big"}`), ``, `config.json: rope_parameters.rope_theta must be a positive number, got "big"`},
		{"rope_scaling differing from rope_parameters", full(`"rope_scaling":{"type":"linear","factor":2},"rope_parameters":{"rope_type":"yarn","factor":4,"rope_theta":7}`), ``,
			`config.json: rope_parameters {"factor":4,"rope_theta":7,"rope_type":"yarn"} and rope_scaling {"factor":2,"type":"linear"} are both set and differ; keep one`},
		{"partial rotary above 1", full(`"partial_rotary_factor":1.5`), ``, "config.json: partial_rotary_factor 1.5 is above 1"},
		{"no_rope_layers values", full(`"no_rope_layers":[1,2]`), ``, "config.json: no_rope_layers must be a list of 0 and 1, got [1,2]"},
		{"no_rope_layers length", full(`"no_rope_layers":[1,1,0]`), ``, "config.json: no_rope_layers has 3 entries for 2 layers"},
		{"bits 9 per path", full(`"quantization":{"bits":4,"group_size":64,"model.layers.0.mlp.down_proj":{"bits":9,"group_size":64}}`), ``,
			"config.json: quantization.model.layers.0.mlp.down_proj: bits 9 outside 1..8"},
		{"bits 0 default", full(`"quantization":{"bits":0,"group_size":64}`), ``, "config.json: quantization.bits must be a positive integer, got 0"},
		{"missing default bits", full(`"quantization":{"group_size":64}`), ``, "config.json: missing quantization.bits"},
		{"unknown mode", full(`"quantization":{"bits":4,"group_size":64,"lm_head":{"mode":"nf4","bits":4}}`), ``,
			`config.json: quantization.lm_head: unknown quantization mode "nf4" (known: affine, trellis)`},
		{"hf quant method", full(`"quantization_config":{"quant_method":"gptq","bits":4,"group_size":128}`), ``,
			`config.json: quantization_config has quant_method "gptq", which this engine does not load (only MLX affine, trellis and exl3 blocks)`},
		{"trellis without params", full(`"quantization":{"mode":"trellis","bits":3,"group_size":256}`), ``,
			`config.json: quantization: mode "trellis" needs a trellis object {L, code, axis}`},
		{"trellis bad code", full(`"quantization":{"bits":4,"group_size":64,"m.q":{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"3inst","axis":1}}}`), ``,
			`config.json: quantization.m.q: unknown trellis code "3inst" (known: 1mad)`},
		{"trellis bad axis", full(`"quantization":{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":2}}`), ``,
			`config.json: quantization: trellis axis 2 (want 0 or 1)`},
		{"trellis missing axis", full(`"quantization":{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"1mad"}}`), ``,
			`config.json: missing quantization.trellis.axis`},
		{"trellis missing L", full(`"quantization":{"mode":"trellis","bits":3,"group_size":256,"trellis":{"code":"1mad","axis":0}}`), ``,
			`config.json: missing quantization.trellis.L`},
		{"trellis L below bits", full(`"quantization":{"mode":"trellis","bits":4,"group_size":256,"trellis":{"L":3,"code":"1mad","axis":0}}`), ``,
			`config.json: quantization: trellis L=3 must be in bits..32 = 4..32`},
		{"trellis block not whole words", full(`"quantization":{"mode":"trellis","bits":3,"group_size":100,"trellis":{"L":12,"code":"1mad","axis":0}}`), ``,
			`config.json: quantization: group_size·bits = 100·3 is not a multiple of 32`},
		// Entries the block would drop, the module then read with the default spec.
		{"module entry a number", full(`"quantization":{"bits":4,"group_size":64,"model.layers.0.mlp.down_proj":8}`), ``,
			`config.json: quantization.model.layers.0.mlp.down_proj is 8: a module's entry is a spec object or false, and the block's own keys are ` +
				`bits, group_size, mode, quantizer, rotation, trellis`},
		{"block key misspelled", full(`"quantization":{"bits":4,"group_size":64,"groupsize":32}`), ``,
			`config.json: quantization.groupsize is 32: a module's entry is a spec object or false, and the block's own keys are ` +
				`bits, group_size, mode, quantizer, rotation, trellis`},
		{"module spec key misspelled", full(`"quantization":{"bits":4,"group_size":64,"lm_head":{"bits":8,"group-size":32}}`), ``,
			`config.json: quantization.lm_head.group-size: unknown key in a module's quantization spec (known: bits, group_size, mode, trellis)`},
		{"trellis key unknown", full(`"quantization":{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":1,"T":128}}`), ``,
			`config.json: quantization.trellis.T: unknown key in a trellis object (known: L, axis, code)`},
		{"rotation key unknown", full(`"quantization":{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":1},` +
			`"rotation":{"method":"hadamard","version":1,"seed":7}}`), ``,
			`config.json: quantization.rotation.seed: unknown key in the rotation object (known: method, version)`},
		{"trellis object on affine", full(`"quantization":{"bits":4,"group_size":64,"trellis":{"L":12,"code":"1mad","axis":0}}`), ``,
			`config.json: quantization: a trellis object needs mode "trellis", not "affine"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse([]byte(c.cfg), []byte(c.gen))
			if err == nil {
				t.Fatalf("accepted: %+v", m)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Error("error does not wrap ErrInvalid")
			}
		})
	}
}

// load reads a fixture directory's two files as package modeldir does and parses them.
func load(dir string) (*Model, error) {
	cfg, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	gen, err := os.ReadFile(filepath.Join(dir, GenerationFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return Parse(cfg, gen)
}

// Missing files are the directory reader's to report (internal/modeldir); a malformed generation config is ours.
func TestParseBadGeneration(t *testing.T) {
	_, err := Parse([]byte("{"+base+"}"), []byte("{"))
	if err == nil || !strings.HasPrefix(err.Error(), "generation_config.json: malformed JSON") {
		t.Errorf("bad generation config: %v", err)
	}
}
