// Synthetic models for benchmarks: the real architecture of a published model with seeded random weights made
// on the fly, so `bench --synthetic qwen3-14b` needs no files. The presets are the published configs' numbers;
// every tensor's name and shape comes from the family's tensor map (internal/family) for that config, so any
// registered family can be synthesized from its config alone.
package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// presets holds the config.json fields of the architectures bench can synthesize.
var presets = map[string]map[string]any{
	"qwen3-0.6b": {"model_type": "qwen3", "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
		"num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
		"rope_theta": 1000000.0, "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "tie_word_embeddings": true},
	"qwen3-8b": {"model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288, "num_hidden_layers": 36,
		"num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
		"rope_theta": 1000000.0, "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "tie_word_embeddings": false},
	"qwen3-14b": {"model_type": "qwen3", "hidden_size": 5120, "intermediate_size": 17408, "num_hidden_layers": 40,
		"num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
		"rope_theta": 1000000.0, "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "tie_word_embeddings": false},

	// Gemma 4 31B (dense), the text_config of https://huggingface.co/google/gemma-4-31B/blob/main/config.json as
	// reproduced in public code (the file itself was not read here): 60 layers, five sliding-window layers
	// (window 1024, 16 kv heads of 256) to one global layer (4 kv heads of 512, values = keys), 32 query heads,
	// proportional rope on the global layers, no per-layer inputs, no KV sharing, tied embeddings, final softcap
	// 30. 30.70 G parameters, the published 30.7B. use_bidirectional_attention ("vision" there) is left out: it
	// touches image tokens only, and text-only decoding is causal.
	"gemma4-31b": {"model_type": "gemma4_text", "hidden_size": 5376, "intermediate_size": 21504, "num_hidden_layers": 60,
		"num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 256, "global_head_dim": 512,
		"num_global_key_value_heads": 4, "attention_k_eq_v": true, "vocab_size": 262144,
		"vocab_size_per_layer_input": 262144, "hidden_size_per_layer_input": 0, "num_kv_shared_layers": 0,
		"use_double_wide_mlp": false, "enable_moe_block": false, "hidden_activation": "gelu_pytorch_tanh",
		"layer_types": repeatLayers(60, "sliding_attention", "sliding_attention", "sliding_attention",
			"sliding_attention", "sliding_attention", "full_attention"),
		"sliding_window": 1024, "final_logit_softcapping": 30.0, "max_position_embeddings": 262144, "rms_norm_eps": 1e-6,
		"rope_parameters": map[string]any{
			"full_attention":    map[string]any{"partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional"},
			"sliding_attention": map[string]any{"rope_theta": 10000.0, "rope_type": "default"},
		},
		"attention_bias": false, "tie_word_embeddings": true},

	// Qwen3.5-27B, the text_config of https://huggingface.co/Qwen/Qwen3.5-27B/blob/main/config.json as reproduced
	// in public code and its model card (the file itself was not read here): 64 layers, 16 × (3 gated DeltaNet +
	// 1 gated attention), DeltaNet 16 q/k heads and 48 v heads of 128, conv kernel 4; attention 24 query heads
	// and 4 kv heads of 256, a quarter of each rotated (rope_theta 1e7); dense SwiGLU MLP 17408; untied
	// 248320-token embeddings. 26.90 G parameters, the published 27B (vision tower and MTP head not counted).
	// The rope's mrope_section is left out: text positions are the same on its three sections, i.e. plain rope.
	"qwen3.5-27b": {"model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408, "num_hidden_layers": 64,
		"num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 248320,
		"layer_types":          repeatLayers(64, "linear_attention", "linear_attention", "linear_attention", "full_attention"),
		"linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
		"linear_conv_kernel_dim": 4, "attn_output_gate": true, "hidden_act": "silu", "partial_rotary_factor": 0.25,
		"rope_parameters":         map[string]any{"partial_rotary_factor": 0.25, "rope_theta": 10000000.0, "rope_type": "default"},
		"max_position_embeddings": 262144, "rms_norm_eps": 1e-6, "attention_bias": false, "tie_word_embeddings": false},

	// Qwen3-30B-A3B, https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json as reproduced in public code
	// and its model card (the file itself was not read here): 48 layers of Qwen3 attention (32 query heads, 4 kv
	// heads of 128) and a sparse MoE block each (128 experts of 768, 8 routed, renormalised, no shared expert),
	// untied 151936-token embeddings. 30.53 G parameters (published 30.5B), 3.35 G of them read per token
	// (published 3.3B activated).
	"qwen3-30b-a3b": {"model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 48,
		"num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936,
		"num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768, "norm_topk_prob": true,
		"decoder_sparse_step": 1, "mlp_only_layers": []any{}, "hidden_act": "silu",
		"rope_theta": 1000000.0, "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "attention_bias": false,
		"tie_word_embeddings": false},

	// Qwen3-Next-80B-A3B, https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json as
	// reproduced in public code and its model card (the file itself was not read here): 48 layers, 12 × (3 gated
	// DeltaNet + 1 gated attention) — written as layer_types where the file says full_attention_interval 4, the
	// same layers — DeltaNet 16 q/k heads and 32 v heads of 128; attention 16 query heads and 2 kv heads of 256, a
	// quarter rotated (rope_theta 1e7); every MLP a sparse MoE block (512 experts of 512, 10 routed, plus a shared
	// expert of 512); untied 151936-token embeddings. 79.66 G parameters (published 80B), 3.87 G of them read per
	// token with the embeddings (the card's "3B activated" leaves the embeddings out: 3.25 G).
	"qwen3-next-80b-a3b": {"model_type": "qwen3_next", "hidden_size": 2048, "intermediate_size": 5120, "num_hidden_layers": 48,
		"num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936,
		"layer_types":          repeatLayers(48, "linear_attention", "linear_attention", "linear_attention", "full_attention"),
		"linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
		"linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512,
		"shared_expert_intermediate_size": 512, "norm_topk_prob": true, "decoder_sparse_step": 1, "mlp_only_layers": []any{},
		"hidden_act": "silu", "partial_rotary_factor": 0.25, "rope_theta": 10000000.0, "max_position_embeddings": 262144,
		"rms_norm_eps": 1e-6, "attention_bias": false, "tie_word_embeddings": false},
}

// repeatLayers is a layer_types list of n entries repeating period.
func repeatLayers(n int, period ...string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = period[i%len(period)]
	}
	return out
}

// Presets lists the synthetic architectures.
func Presets() []string {
	out := make([]string, 0, len(presets))
	for k := range presets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// preset returns a copy of a preset's config fields.
func preset(name string) (map[string]any, error) {
	p, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("unknown synthetic model %q (known: %s)", name, strings.Join(Presets(), ", "))
	}
	m := make(map[string]any, len(p)+1)
	for k, v := range p {
		m[k] = v
	}
	return m, nil
}

// parseRaw parses config fields as config.json would hold them.
func parseRaw(raw map[string]any) (*config.Model, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("synthetic config: %w", err)
	}
	return config.Parse(b, nil)
}

// SyntheticConfig returns the config of a preset.
func SyntheticConfig(name string) (*config.Model, error) {
	p, err := preset(name)
	if err != nil {
		return nil, err
	}
	return parseRaw(p)
}

// Synthetic builds a preset with random bf16 weights (uniform, std 0.02; norm weights the identity) on b.
func Synthetic(name string, seed uint64, b backend.Backend) (*Model, error) {
	p, err := preset(name)
	if err != nil {
		return nil, err
	}
	cfg, src, err := syntheticSource(p, trellis.Spec{}, false, seed)
	if err != nil {
		return nil, err
	}
	return LoadFrom(cfg, src, b)
}

// syntheticHalfWidth is a, the dense synthetic weights being uniform on [-a, a]: a = 0.02·√3 gives std 0.02.
var syntheticHalfWidth = 0.02 * math.Sqrt(3)

// randomSource answers every tensor of the family's tensor map for cfg that an unquantized checkpoint holds:
// bf16, uniform with std 0.02, norm weights and layer scalars the identity. Biases are left out (no preset's
// family uses them; the binder uses a bias only when the checkpoint has one), lm_head too when tied.
type randomSource struct {
	cfg  *config.Model
	seed uint64
	tm   *family.Map
	held map[string]family.Tensor // by name
	fill map[string]float32       // constant tensors by name
}

// newRandomSource builds the source of cfg's family map.
func newRandomSource(cfg *config.Model, seed uint64) (*randomSource, error) {
	fam, err := family.For(cfg)
	if err != nil {
		return nil, err
	}
	r := &randomSource{cfg: cfg, seed: seed, tm: fam.Tensors(cfg), held: map[string]family.Tensor{}, fill: map[string]float32{}}
	for _, t := range r.tm.All() {
		if t.Kind == family.KindBias || (cfg.TieWordEmbeddings && t.Name == r.tm.Head.WeightName()) {
			continue
		}
		r.held[t.Name] = t
		if t.Kind == family.KindNorm { // (1+w) norms store 0, plain ones 1: both the identity (layer_scalar too)
			r.fill[t.Name] = map[bool]float32{true: 0, false: 1}[t.PlusOne]
		}
	}
	for _, L := range r.tm.Layers { // DeltaNet's gated RMSNorm weight is plain and stored as a parameter
		if L.Hybrid != nil && L.Hybrid.DeltaNet != nil {
			r.fill[L.Hybrid.DeltaNet.Norm.Name] = 1
		}
	}
	return r, nil
}

func (r *randomSource) Close() error { return nil }

// headPath is the module of the output projection: lm_head, or the embedding table of a tied preset.
func (r *randomSource) headPath() string { return r.tm.OutputHead(r.Has).Path }

func (r *randomSource) Has(name string) bool {
	_, ok := r.held[name]
	return ok
}

// Names lists the tensors the source holds, sorted.
func (r *randomSource) Names() []string {
	out := make([]string, 0, len(r.held))
	for n := range r.held {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Header describes a tensor without making its weights (SourceQueries asks before loading).
func (r *randomSource) Header(name string) (backend.Host, error) {
	t, ok := r.held[name]
	if !ok {
		return backend.Host{}, fmt.Errorf("synthetic model: no tensor %q", name)
	}
	return backend.Host{Name: name, DType: backend.BF16, Shape: append([]int(nil), t.Shape...)}, nil
}

func (r *randomSource) Tensor(name string) (backend.Host, error) {
	h, err := r.Header(name)
	if err != nil {
		return h, err
	}
	if v, ok := r.fill[name]; ok {
		return constant(h, backend.F32ToBF16(v)), nil
	}
	n := h.Elements()
	h.Data = make([]byte, 2*n)
	// Uniform on [-a, a] (std 0.02), from a counter hash seeded by the name: deterministic and parallel.
	a := syntheticHalfWidth
	base := r.seed ^ hashString(name)
	parallel(n, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			u := float64(splitmix(base+uint64(i))>>11) / (1 << 53)
			binary.LittleEndian.PutUint16(h.Data[2*i:], backend.F32ToBF16(float32((2*u-1)*a)))
		}
	})
	return h, nil
}

// parallel runs fn over [0, n) split into GOMAXPROCS ranges whose starts are multiples of align.
func parallel(n, align int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers/align*align, (w+1)*n/workers/align*align
		if w == workers-1 {
			hi = n
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}
