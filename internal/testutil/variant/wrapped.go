// Wrapped variants: a text-only tiny model rewritten as transformers publishes the multimodal model around it
// (Gemma3ForConditionalGeneration, Gemma4…, Qwen3_5…, Qwen3_5Moe…), in either prefix style, optionally sharded,
// with vision, audio, projector and MTP tensors the text model never reads. Its text model computes exactly what
// the source computes.
package variant

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// Style is a wrapped checkpoint's spelling of the language model's prefixes.
type Style string

const (
	NewPrefixes Style = "new" // model.language_model.*, lm_head.* (transformers ≥ 4.52)
	OldPrefixes Style = "old" // language_model.model.*, language_model.lm_head.* (earlier Gemma 3 uploads)
)

// architectures are the outer classes' names, by outer model_type.
var architectures = map[string]string{"gemma3": "Gemma3ForConditionalGeneration", "gemma4": "Gemma4ForConditionalGeneration",
	"qwen3_5": "Qwen3_5ForConditionalGeneration", "qwen3_5_moe": "Qwen3_5MoeForConditionalGeneration"}

// towers are each layout's tensors outside the language model, new-style names (the old style drops the leading
// "model."; MTP heads stay top-level in both), with dtypes and shapes (h: the text model's hidden size).
func towers(outer string, h int) []backend.Host {
	mk := func(name string, dt backend.DType, shape ...int) backend.Host {
		t := backend.Host{Name: name, DType: dt, Shape: shape}
		t.Data = make([]byte, t.Elements()*dt.Size())
		for i := range t.Data {
			t.Data[i] = byte(len(name)*13 + i*29)
		}
		if dt == backend.F32 { // finite floats, as a tower's weights are (a byte pattern could be NaN)
			for i := 0; i < len(t.Data); i += 4 {
				binary.LittleEndian.PutUint32(t.Data[i:], 0x3c000000+uint32(i))
			}
		}
		return t
	}
	switch outer {
	case "gemma3":
		return []backend.Host{mk("model.vision_tower.vision_model.embeddings.patch_embedding.weight", backend.F32, 8, 3, 2, 2),
			mk("model.vision_tower.vision_model.post_layernorm.weight", backend.F32, 8),
			mk("model.multi_modal_projector.mm_input_projection_weight", backend.F32, 8, h),
			mk("model.multi_modal_projector.mm_soft_emb_norm.weight", backend.F32, 8)}
	case "gemma4":
		return []backend.Host{mk("model.vision_tower.encoder.layers.0.self_attn.q_proj.linear.weight", backend.F32, 8, 8),
			mk("model.embed_vision.embedding_projection.weight", backend.F32, h, 8),
			mk("model.audio_tower.layers.0.feed_forward1.ffw_layer_1.linear.weight", backend.F32, 16, 8),
			mk("model.embed_audio.embedding_projection.weight", backend.F32, h, 8)}
	default: // Qwen3.5 and Qwen3.5-MoE
		return []backend.Host{mk("model.visual.blocks.0.attn.qkv.weight", backend.F32, 24, 8),
			mk("model.visual.merger.linear_fc2.weight", backend.F32, h, 8), mk("mtp.fc.weight", backend.F32, h, 2*h)}
	}
}

// TextPrefix is a text model tensor's name (model.*, lm_head.*) in a wrapped checkpoint of style.
func TextPrefix(name string, style Style) string {
	if style == OldPrefixes {
		return "language_model." + name // model.X → language_model.model.X, lm_head → language_model.lm_head
	}
	if rest, ok := strings.CutPrefix(name, "model."); ok {
		return "model.language_model." + rest
	}
	return name
}

// Wrap writes the text-only model directory src as its multimodal wrapper: config.json's keys under text_config
// beside a vision_config (and Gemma 4's audio_config), the outer model_type, architectures, tie_word_embeddings
// and dtype at the top; the tensors under the language-model prefixes of style beside the towers' tensors; in
// shards files with an index when shards > 1. Other files of src (tokenizer, golden) are not copied.
func Wrap(tb testing.TB, src string, style Style, shards int) string {
	tb.Helper()
	var text map[string]any
	b, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err == nil {
		err = json.Unmarshal(b, &text)
	}
	if err != nil {
		tb.Fatal(err)
	}
	outer := ""
	for _, o := range config.WrapperTypes() {
		if t, _ := config.TextType(o); t == text["model_type"] {
			outer = o
		}
	}
	if outer == "" {
		tb.Fatalf("variant: no multimodal layout wraps model_type %v", text["model_type"])
	}
	top := map[string]any{"model_type": outer, "architectures": []string{architectures[outer]}, "text_config": text,
		"vision_config":       map[string]any{"hidden_size": 8, "num_hidden_layers": 1, "patch_size": 2},
		"tie_word_embeddings": text["tie_word_embeddings"], "dtype": "bfloat16", "image_token_id": 3}
	if outer == "gemma4" {
		top["audio_config"] = map[string]any{"hidden_size": 8, "num_hidden_layers": 1}
	}
	dir := tb.TempDir()
	if b, err = json.MarshalIndent(top, "", " "); err == nil {
		err = os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644)
	}
	if err != nil {
		tb.Fatal(err)
	}
	arch, err := safetensors.OpenDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer arch.Close()
	var ts []backend.Host
	for _, n := range arch.Names() {
		h, err := arch.Tensor(n)
		if err != nil {
			tb.Fatal(err)
		}
		h.Name = TextPrefix(n, style)
		ts = append(ts, h)
	}
	hidden, _ := text["hidden_size"].(float64)
	for _, h := range towers(outer, int(hidden)) {
		if n, ok := strings.CutPrefix(h.Name, "model."); ok && style == OldPrefixes {
			h.Name = n
		}
		ts = append(ts, h)
	}
	writeShards(tb, dir, ts, shards)
	return dir
}

// writeShards writes ts as model.safetensors, or as n shards (every n-th tensor in each) with the index
// transformers writes.
func writeShards(tb testing.TB, dir string, ts []backend.Host, n int) {
	tb.Helper()
	if n <= 1 {
		if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), ts, nil); err != nil {
			tb.Fatal(err)
		}
		return
	}
	weightMap, total := map[string]string{}, 0
	for s := range n {
		name := fmt.Sprintf("model-%05d-of-%05d.safetensors", s+1, n)
		var part []backend.Host
		for i := s; i < len(ts); i += n {
			part = append(part, ts[i])
			weightMap[ts[i].Name] = name
			total += len(ts[i].Data)
		}
		if err := safetensors.WriteFile(filepath.Join(dir, name), part, nil); err != nil {
			tb.Fatal(err)
		}
	}
	b, err := json.MarshalIndent(map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": weightMap}, "", " ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), b, 0o644)
	}
	if err != nil {
		tb.Fatal(err)
	}
}
