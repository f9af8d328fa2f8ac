// Loading a model directory (config.json, safetensors) onto a backend: binds every tensor the family needs,
// checking shapes against the config so a wrong checkpoint fails at load with the tensor's name.
package model

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// Model is a loaded decoder-only transformer bound to one backend.
type Model struct {
	Config *config.Model
	Family Family
	b      backend.Backend
	arch   Source

	embed  backend.Tensor // [vocab, hidden]
	layers []layer
	norm   backend.Tensor
	lmHead backend.Linear

	headDim, heads, kvHeads int
	scale                   float32

	kept   map[[2]int]*workspace // decode-sized workspaces, kept for replay
	graphs map[graphKey]bool     // what a Recorder backend holds for us
}

type layer struct {
	inNorm, postNorm backend.Tensor
	q, k, v, o       backend.Linear
	qNorm, kNorm     backend.Tensor // nil unless Family.QKNorm
	gate, up, down   backend.Linear
	rope             *rope.Table // nil: NoPE layer
}

// Source is where a model's tensors come from: a safetensors archive, or synthetic weights for benchmarks.
type Source interface {
	Has(name string) bool
	Tensor(name string) (backend.Host, error)
	Close() error
}

// Load reads dir's config.json and safetensors and places the weights on b.
func Load(dir string, b backend.Backend) (*Model, error) {
	cfg, err := config.Load(dir)
	if err != nil {
		return nil, err
	}
	if _, err := familyFor(cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	arch, err := safetensors.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	m, err := LoadFrom(cfg, arch, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return m, nil
}

// LoadFrom binds a config's tensors from src onto b. The model owns src and closes it.
func LoadFrom(cfg *config.Model, src Source, b backend.Backend) (*Model, error) {
	fam, err := familyFor(cfg)
	if err != nil {
		src.Close()
		return nil, err
	}
	m := &Model{Config: cfg, Family: fam, b: b, arch: src,
		headDim: cfg.HeadDim, heads: cfg.NumHeads, kvHeads: cfg.NumKVHeads}
	m.scale = float32(1 / math.Sqrt(float64(cfg.HeadDim)))
	if err := m.bind(); err != nil {
		src.Close()
		return nil, err
	}
	return m, nil
}

// Close releases the kept workspaces and the memory-mapped checkpoint. Weights live as long as the backend.
func (m *Model) Close() error {
	if rec, ok := m.b.(backend.Recorder); ok {
		for key := range m.graphs {
			rec.Forget(key)
		}
	}
	m.graphs = nil
	for _, ws := range m.kept {
		m.freeWorkspace(ws)
	}
	m.kept = nil
	return m.arch.Close()
}

// Backend is the device the model runs on.
func (m *Model) Backend() backend.Backend { return m.b }

func (m *Model) bind() error {
	c := m.Config
	if c.NumHeads%c.NumKVHeads != 0 {
		return fmt.Errorf("config.json: num_attention_heads %d is not a multiple of num_key_value_heads %d", c.NumHeads, c.NumKVHeads)
	}
	w := binder{m: m}
	m.embed = w.vector("model.embed_tokens.weight", c.VocabSize, c.HiddenSize)
	m.norm = w.vector("model.norm.weight", c.HiddenSize)
	ropeCache := map[bool]*rope.Table{}
	m.layers = make([]layer, c.NumLayers)
	for i := range m.layers {
		L := &m.layers[i]
		p := fmt.Sprintf("model.layers.%d.", i)
		L.inNorm = w.vector(p+"input_layernorm.weight", c.HiddenSize)
		L.postNorm = w.vector(p+"post_attention_layernorm.weight", c.HiddenSize)
		qOut, kvOut := c.NumHeads*c.HeadDim, c.NumKVHeads*c.HeadDim
		if m.Family.FusedQKV {
			parts := w.splitLinear(p+"self_attn.qkv_proj", c.HiddenSize, qOut, kvOut, kvOut)
			L.q, L.k, L.v = parts[0], parts[1], parts[2]
		} else {
			L.q = w.linear(p+"self_attn.q_proj", qOut, c.HiddenSize)
			L.k = w.linear(p+"self_attn.k_proj", kvOut, c.HiddenSize)
			L.v = w.linear(p+"self_attn.v_proj", kvOut, c.HiddenSize)
		}
		L.o = w.linear(p+"self_attn.o_proj", c.HiddenSize, qOut)
		if m.Family.QKNorm {
			L.qNorm = w.vector(p+"self_attn.q_norm.weight", c.HeadDim)
			L.kNorm = w.vector(p+"self_attn.k_norm.weight", c.HeadDim)
		}
		if m.Family.FusedGateUp {
			parts := w.splitLinear(p+"mlp.gate_up_proj", c.HiddenSize, c.IntermediateSize, c.IntermediateSize)
			L.gate, L.up = parts[0], parts[1]
		} else {
			L.gate = w.linear(p+"mlp.gate_proj", c.IntermediateSize, c.HiddenSize)
			L.up = w.linear(p+"mlp.up_proj", c.IntermediateSize, c.HiddenSize)
		}
		L.down = w.linear(p+"mlp.down_proj", c.HiddenSize, c.IntermediateSize)
		if w.err != nil {
			return w.err
		}
		uses := m.Family.UsesRope == nil || m.Family.UsesRope(c, i)
		if uses {
			if ropeCache[true] == nil {
				t, err := newRope(c)
				if err != nil {
					return err
				}
				ropeCache[true] = t
			}
			L.rope = ropeCache[true]
		}
	}
	switch {
	case m.arch.Has("lm_head.weight") || m.arch.Has("lm_head.scales"):
		m.lmHead = w.linear("lm_head", c.VocabSize, c.HiddenSize)
	case c.TieWordEmbeddings || !m.arch.Has("lm_head.weight"):
		// Tied (or a checkpoint that omits lm_head, which mlx-lm treats as tied): the embedding table doubles as
		// the output projection.
		m.lmHead = w.linear("model.embed_tokens", c.VocabSize, c.HiddenSize)
	}
	return w.err
}

// newRope builds the rope table for the config, passing the top-level original_max_position_embeddings (Phi-3)
// into the scaling block when the block lacks it, as mlx-lm's constructors do.
func newRope(c *config.Model) (*rope.Table, error) {
	dims := int(float64(c.HeadDim) * c.PartialRotaryFactor)
	scaling := c.RopeScaling
	if scaling != nil {
		if _, ok := scaling["original_max_position_embeddings"]; !ok {
			if v, ok := c.Raw["original_max_position_embeddings"]; ok {
				s := make(map[string]any, len(scaling)+1)
				for k, x := range scaling {
					s[k] = x
				}
				s["original_max_position_embeddings"] = v
				scaling = s
			}
		}
	}
	t, err := rope.New(dims, c.RopeTheta, false, scaling, c.MaxPositions)
	if err != nil {
		return nil, fmt.Errorf("config.json: rope: %w", err)
	}
	return t, nil
}
