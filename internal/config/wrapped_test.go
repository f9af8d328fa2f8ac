// Tests of wrapped multimodal configs: a text_config read as the text model's own, with the outer config's keys
// and the text config class's defaults where it is silent; the quantization block's module paths as the text
// model names them; the one naming rule in both prefix styles; and bad wrappers refused on one line.
package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// gemma3_4b is google/gemma-3-4b-it's config.json as transformers 4.50 wrote it: the text_config holds only what
// differs from Gemma3TextConfig's defaults (vision_config shortened).
const gemma3_4b = `{"architectures":["Gemma3ForConditionalGeneration"],"boi_token_index":255999,"eoi_token_index":256000,
	"eos_token_id":[1,106],"image_token_index":262144,"initializer_range":0.02,"mm_tokens_per_image":256,
	"model_type":"gemma3","text_config":{"hidden_size":2560,"intermediate_size":10240,"model_type":"gemma3_text",
	"num_hidden_layers":34,"rope_scaling":{"factor":8.0,"rope_type":"linear"},"sliding_window":1024},
	"torch_dtype":"bfloat16","transformers_version":"4.50.0.dev0",
	"vision_config":{"hidden_size":1152,"image_size":896,"model_type":"siglip_vision_model","num_hidden_layers":27}}`

func TestWrappedGemma3(t *testing.T) {
	m, err := Parse([]byte(gemma3_4b), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Model{ModelType: "gemma3_text", Architectures: []string{"Gemma3ForConditionalGeneration"},
		HiddenSize: 2560, IntermediateSize: 10240, NumLayers: 34, NumHeads: 8, NumKVHeads: 4, HeadDim: 256,
		VocabSize: 262208, MaxPositions: 131072, RMSNormEps: 1e-6, TieWordEmbeddings: true, RopeTheta: 1e6,
		RopeScaling: map[string]any{"factor": 8.0, "rope_type": "linear"}, PartialRotaryFactor: 1,
		BOS: []int{2}, EOS: []int{1, 106}} // eos from the outer config, bos the text class's default
	got := strip(m)
	got.Wrapper = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if m.Wrapper == nil || m.Wrapper.ModelType != "gemma3" || m.Wrapper.Raw["mm_tokens_per_image"] != 256.0 {
		t.Fatalf("wrapper %+v", m.Wrapper)
	}
	// The family reads its own keys from Raw: the text config's, the class defaults filled in, nothing of vision.
	for k, v := range map[string]any{"sliding_window": 1024.0, "rope_local_base_freq": 10000.0, "query_pre_attn_scalar": 256.0,
		"sliding_window_pattern": 6.0, "torch_dtype": "bfloat16", "model_type": "gemma3_text"} {
		if m.Raw[k] != v {
			t.Errorf("Raw[%s] = %v, want %v", k, m.Raw[k], v)
		}
	}
	for _, k := range []string{"vision_config", "mm_tokens_per_image", "text_config"} {
		if _, ok := m.Raw[k]; ok {
			t.Errorf("Raw holds the outer key %s", k)
		}
	}
}

// TestWrappedKeys: the outer tie_word_embeddings wins over the text config's (the wrapped model ties by it), the
// outer token ids fill in only what the text config lacks, and an absent text model_type is the wrapper's.
func TestWrappedKeys(t *testing.T) {
	m, err := Parse([]byte(`{"model_type":"qwen3_5","tie_word_embeddings":true,"eos_token_id":9,"bos_token_id":8,
		"text_config":{"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,
		"num_key_value_heads":2,"head_dim":16,"vocab_size":100,"tie_word_embeddings":false,"eos_token_id":5}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.ModelType != "qwen3_5_text" || !m.TieWordEmbeddings || !reflect.DeepEqual(m.EOS, []int{5}) || !reflect.DeepEqual(m.BOS, []int{8}) ||
		m.PartialRotaryFactor != 0.25 || m.MaxPositions != 32768 {
		t.Errorf("%+v", strip(m))
	}
	// A MoE text config without intermediate_size parses (its family checks the dense layers).
	m, err = Parse([]byte(`{"model_type":"qwen3_5_moe","text_config":{"hidden_size":64,"num_hidden_layers":2,
		"num_attention_heads":4,"vocab_size":100}}`), nil)
	if err != nil || m.IntermediateSize != 0 || m.Raw["num_experts"] != 256.0 || m.NumKVHeads != 2 || m.HeadDim != 256 {
		t.Errorf("%v %+v", err, m)
	}
}

// TestTextName: both prefix styles and both head spellings name the text model's tensors and module paths; other
// tensors are not the text model's; a text-only checkpoint's names are its own.
func TestTextName(t *testing.T) {
	m, err := Parse([]byte(gemma3_4b), nil)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"model.language_model.layers.0.self_attn.q_proj.weight": "model.layers.0.self_attn.q_proj.weight",
		"language_model.model.layers.0.self_attn.q_proj.weight": "model.layers.0.self_attn.q_proj.weight",
		"model.language_model.embed_tokens.weight":              "model.embed_tokens.weight",
		"language_model.model.norm.weight":                      "model.norm.weight",
		"language_model.lm_head.weight":                         "lm_head.weight",
		"lm_head.weight":                                        "lm_head.weight",
		"lm_head":                                               "lm_head",
		"model.language_model.layers.3.mlp.down_proj":           "model.layers.3.mlp.down_proj",
		"model.vision_tower.vision_model.post_layernorm.weight": "",
		"vision_tower.vision_model.post_layernorm.weight":       "",
		"multi_modal_projector.mm_input_projection_weight":      "",
		"model.language_model_extra.weight":                     "",
		"lm_headx.weight":                                       "",
		"model.layers.0.self_attn.q_proj.weight":                "",
		"mtp.fc.weight":                                         "",
	} {
		got, ok := m.TextName(in)
		if ok != (want != "") || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
	plain := parse(t, "", "")
	if got, ok := plain.TextName("model.vision_tower.x"); !ok || got != "model.vision_tower.x" {
		t.Errorf("text-only: %q %v", got, ok)
	}
}

// TestWrappedQuantization: a wrapped block keys modules by their stored names; the parsed block answers for the
// text model's paths, and leaves the vision tower's out.
func TestWrappedQuantization(t *testing.T) {
	tr := `{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":0}}`
	cfg := strings.Replace(gemma3_4b, `"torch_dtype"`, `"quantization":{"mode":"trellis","bits":2,"group_size":256,`+
		`"trellis":{"L":12,"code":"1mad","axis":1},"language_model.model.layers.0.mlp.down_proj":`+tr+`,`+
		`"language_model.model.embed_tokens":false,"vision_tower.vision_model.head":false},"torch_dtype"`, 1)
	m, err := Parse([]byte(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := m.Quant.For("model.layers.0.mlp.down_proj"); !ok || s.Bits != 3 || s.Trellis.Axis != 0 {
		t.Errorf("down_proj %+v %v", s, ok)
	}
	if _, ok := m.Quant.For("model.embed_tokens"); ok {
		t.Error("embed_tokens quantized")
	}
	if s, ok := m.Quant.For("model.layers.1.mlp.gate_proj"); !ok || s.Bits != 2 {
		t.Errorf("default %+v %v", s, ok)
	}
	if len(m.Quant.Skip) != 1 || len(m.Quant.PerPath) != 1 {
		t.Errorf("skip %v per-path %v", m.Quant.Skip, m.Quant.PerPath)
	}
	// Both spellings of one module is an error naming both.
	dup := strings.Replace(cfg, `"vision_tower.vision_model.head":false`, `"model.language_model.embed_tokens":false`, 1)
	if _, err := Parse([]byte(dup), nil); err == nil || !strings.Contains(err.Error(), "language_model.model.embed_tokens and model.language_model.embed_tokens") {
		t.Errorf("duplicate module: %v", err)
	}
}

func TestWrappedRejects(t *testing.T) {
	text := `"text_config":{"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100`
	for name, c := range map[string]struct{ cfg, want string }{
		"unknown wrapper": {`{"model_type":"llava",` + text + `}}`,
			`config.json: model_type "llava" nests its language model under text_config, and is not a multimodal layout this engine reads (known: gemma3, gemma4, qwen3_5, qwen3_5_moe)`},
		"other text model": {`{"model_type":"gemma3",` + text + `,"model_type":"llama"}}`,
			`config.json: text_config.model_type is "llama"; a gemma3 checkpoint's language model is "gemma3_text"`},
		"text_config not an object": {`{"model_type":"gemma3","text_config":[1]}`, `config.json: text_config must be an object, got [1]`},
		"nested quantization": {`{"model_type":"gemma3",` + text + `,"quantization":{"bits":4,"group_size":64}}}`,
			`config.json: text_config.quantization: the quantization block of a gemma3 checkpoint belongs at the top level`},
		"bad text key named by path": {`{"model_type":"qwen3_5",` + text + `,"num_key_value_heads":3}}`,
			`config.json: text_config.num_attention_heads 4 is not a multiple of text_config.num_key_value_heads 3`},
		"missing dim named by path": {`{"model_type":"qwen3_5","text_config":{"vocab_size":"x"}}`,
			`config.json: text_config.vocab_size must be a positive integer, got "x"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.cfg), nil)
			if err == nil || err.Error() != c.want || !errors.Is(err, ErrInvalid) {
				t.Errorf("error\n got %v\nwant %s", err, c.want)
			}
		})
	}
}
