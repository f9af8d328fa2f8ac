// Synthetic models for benchmarks: the real architecture of a published model with seeded random weights made
// on the fly, so `bench --synthetic qwen3-14b` needs no files. The numbers are the published configs'.
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

// SyntheticConfig returns the config of a preset.
func SyntheticConfig(name string) (*config.Model, error) {
	p, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("unknown synthetic model %q (known: %s)", name, strings.Join(Presets(), ", "))
	}
	b, _ := json.Marshal(p)
	return config.Parse(b, nil)
}

// Synthetic builds a preset with random bf16 weights (uniform, std 0.02; norm weights 1) on b.
func Synthetic(name string, seed uint64, b backend.Backend) (*Model, error) {
	cfg, err := SyntheticConfig(name)
	if err != nil {
		return nil, err
	}
	return LoadFrom(cfg, &randomSource{cfg: cfg, seed: seed}, b)
}

// randomSource answers every tensor name the families ask for with a tensor of the shape the config implies.
type randomSource struct {
	cfg  *config.Model
	seed uint64
}

func (r *randomSource) Close() error { return nil }

func (r *randomSource) Has(name string) bool {
	_, ok := r.shape(name)
	return ok
}

// shape derives a tensor's shape from its name and the config (dense bf16 checkpoints only).
func (r *randomSource) shape(name string) ([]int, bool) {
	c := r.cfg
	q, kv := c.NumHeads*c.HeadDim, c.NumKVHeads*c.HeadDim
	leaf := name
	if i := strings.Index(name, ".layers."); i >= 0 {
		rest := name[i+len(".layers."):]
		if j := strings.IndexByte(rest, '.'); j >= 0 {
			leaf = rest[j+1:]
		}
	}
	shapes := map[string][]int{
		"model.embed_tokens.weight":       {c.VocabSize, c.HiddenSize},
		"model.norm.weight":               {c.HiddenSize},
		"input_layernorm.weight":          {c.HiddenSize},
		"post_attention_layernorm.weight": {c.HiddenSize},
		"self_attn.q_proj.weight":         {q, c.HiddenSize},
		"self_attn.k_proj.weight":         {kv, c.HiddenSize},
		"self_attn.v_proj.weight":         {kv, c.HiddenSize},
		"self_attn.o_proj.weight":         {c.HiddenSize, q},
		"self_attn.q_norm.weight":         {c.HeadDim},
		"self_attn.k_norm.weight":         {c.HeadDim},
		"mlp.gate_proj.weight":            {c.IntermediateSize, c.HiddenSize},
		"mlp.up_proj.weight":              {c.IntermediateSize, c.HiddenSize},
		"mlp.down_proj.weight":            {c.HiddenSize, c.IntermediateSize},
	}
	if !c.TieWordEmbeddings {
		shapes["lm_head.weight"] = []int{c.VocabSize, c.HiddenSize}
	}
	s, ok := shapes[leaf]
	return s, ok
}

// Header describes a tensor without making its weights (SourceQueries asks before loading).
func (r *randomSource) Header(name string) (backend.Host, error) {
	shape, ok := r.shape(name)
	if !ok {
		return backend.Host{}, fmt.Errorf("synthetic model: no tensor %q", name)
	}
	return backend.Host{Name: name, DType: backend.BF16, Shape: shape}, nil
}

func (r *randomSource) Tensor(name string) (backend.Host, error) {
	shape, ok := r.shape(name)
	if !ok {
		return backend.Host{}, fmt.Errorf("synthetic model: no tensor %q", name)
	}
	h := backend.Host{Name: name, DType: backend.BF16, Shape: shape}
	n := h.Elements()
	h.Data = make([]byte, 2*n)
	if strings.HasSuffix(name, "norm.weight") {
		one := backend.F32ToBF16(1)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint16(h.Data[2*i:], one)
		}
		return h, nil
	}
	// Uniform on [-a, a] with a = 0.02·√3 (std 0.02), from a counter hash seeded by the name: deterministic and
	// parallel.
	a := 0.02 * math.Sqrt(3)
	base := r.seed ^ hashString(name)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				u := float64(splitmix(base+uint64(i))>>11) / (1 << 53)
				binary.LittleEndian.PutUint16(h.Data[2*i:], backend.F32ToBF16(float32((2*u-1)*a)))
			}
		}()
	}
	wg.Wait()
	return h, nil
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
