// Loading a model directory (config.json, safetensors) onto a backend: asks the backend whether it serves every
// linear layer (queries.go), then binds every tensor of the family's tensor map (internal/family), checking
// shapes against the config so a wrong checkpoint fails at load with the tensor's name.
package model

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// Model is a loaded decoder-only transformer bound to one backend.
type Model struct {
	Config *config.Model
	Family family.Family
	b      backend.Backend
	arch   Source

	embed  backend.Tensor // [vocab, hidden]
	layers []layer
	norm   backend.Tensor
	lmHead backend.Linear

	headDim, heads, kvHeads int            // the config's; a layer's own are in its attn
	bufs                    []bufShape     // the distinct activation widths of the layers (forward.go)
	variations                             // per-layer caches, scales, softcaps, per-layer inputs (variations.go)
	hybrid                  *family.Hybrid // Qwen3.5 / Qwen3-Next (hybrid.go); nil for other families

	kept   map[[2]int]*workspace // decode-sized workspaces, kept for replay
	graphs map[graphKey]bool     // what a Recorder backend holds for us
	adder  backend.ScaledAdder   // the adapters' sum (lora.go); nil without adapters

	adapterSets // named adapter sets chosen per Forward (adapterset.go)

	rotor     backend.Rotator // the backend's rotation op, when some linear is rotated (rotate.go)
	rotWidths []int           // the widths of the rotated activations (one workspace scratch each)
	tapFn     Tap             // calibration tap (rotate.go); nil normally
}

type layer struct {
	inNorm, postNorm backend.Tensor
	q, k, v, o       backend.Linear // k, v nil on a layer attending over another's keys and values
	qNorm, kNorm     backend.Tensor // nil unless Family.QKNorm
	gate, up, down   backend.Linear
	rope             *rope.Table // nil: NoPE layer
	attn             family.Attn // heads, head dim, scale, window, softcap, the layer whose KV it reads
	buf              int         // its activations: the workspace's bufs[buf]
	sandwich                     // Gemma's further per-layer pieces (variations.go); zero for the others
	kv               int         // the layer's slot in the KV cache (its index, or among attention layers)
	// Hybrid layers (hybrid.go): gated attention's output gate, a gated DeltaNet token mixer (no q/k/v/o), a
	// sparse MoE MLP (no gate/up/down).
	attnGate backend.Linear
	dn       *deltaNetLayer
	moe      *moeLayer
	lora     [family.Head][]loraDelta // per slot Q..Down, the attached adapters' deltas (lora.go)
	rot      [family.Head]linRot      // the rotations of q, k, v, o, gate, up, down (rotate.go)
}

// Source is where a model's tensors come from: a safetensors archive, or synthetic weights for benchmarks.
type Source interface {
	Has(name string) bool
	Tensor(name string) (backend.Host, error)
	Close() error
}

// Load reads dir's config.json and safetensors and places the weights on b. A backend that cannot serve one of
// the model's linear layers fails it before anything is uploaded, naming the layer and its format.
func Load(dir string, b backend.Backend) (*Model, error) {
	cfg, arch, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	m, err := LoadFrom(cfg, arch, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return m, nil
}

// openDir reads dir through the one directory reader: its config, checked for a known family, and its weights.
func openDir(dir string) (*config.Model, *safetensors.Archive, error) {
	d, err := modeldir.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := d.Config()
	if err != nil {
		return nil, nil, err
	}
	if _, err := family.For(cfg); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	arch, err := d.Weights()
	return cfg, arch, err
}

// LoadFrom binds a config's tensors from src onto b. The model owns src and closes it. b is asked about every
// linear layer (SourceQueries) before any weight is read; a tensor of src that the model would not read is an
// error (unread.go).
func LoadFrom(cfg *config.Model, src Source, b backend.Backend) (*Model, error) {
	fam, err := family.For(cfg)
	if err != nil {
		src.Close()
		return nil, err
	}
	err = extraLayers(cfg, src)
	var qs []backend.Query
	if err == nil {
		qs, err = SourceQueries(cfg, src)
	}
	if err == nil {
		err = backend.SupportsAll(b, qs)
	}
	if err != nil {
		src.Close()
		return nil, err
	}
	rec := &readSet{Source: src, read: map[string]bool{}}
	m := &Model{Config: cfg, Family: fam, b: b, arch: rec,
		headDim: cfg.HeadDim, heads: cfg.NumHeads, kvHeads: cfg.NumKVHeads}
	err = m.bind()
	m.arch = src
	if err == nil {
		err = unread(cfg, fam, src, rec.read)
	}
	if err != nil {
		src.Close()
		return nil, err
	}
	return m, nil
}

// Close releases the kept workspaces and the memory-mapped checkpoint. Weights live as long as the backend.
func (m *Model) Close() error {
	m.dropWorkspaces()
	return m.arch.Close()
}

// Backend is the device the model runs on.
func (m *Model) Backend() backend.Backend { return m.b }

func (m *Model) bind() error {
	c := m.Config
	if c.NumHeads%c.NumKVHeads != 0 {
		return fmt.Errorf("config.json: num_attention_heads %d is not a multiple of num_key_value_heads %d", c.NumHeads, c.NumKVHeads)
	}
	tm := m.Family.TensorsOf(c, m.arch.Has)
	w := binder{m: m}
	m.embed = w.vector(tm.Embed)
	m.norm = w.vector(tm.Norm)
	var table *rope.Table
	m.layers = make([]layer, c.NumLayers)
	for i, lt := range tm.Layers {
		L := &m.layers[i]
		L.attn = lt.Attn
		L.inNorm = w.vector(lt.InNorm)
		L.postNorm = w.vector(lt.PostNorm)
		if lt.QNorm != nil {
			L.qNorm = w.vector(*lt.QNorm)
		}
		if lt.KNorm != nil {
			L.kNorm = w.vector(*lt.KNorm)
		}
		L.kv = i
		slots := [...]*backend.Linear{family.Q: &L.q, family.K: &L.k, family.V: &L.v, family.O: &L.o,
			family.Gate: &L.gate, family.Up: &L.up, family.Down: &L.down}
		for _, l := range lt.Linears {
			lins, rot := w.linearRot(l)
			for k, part := range lins {
				if s := l.Parts[k].Slot; int(s) < len(slots) {
					*slots[s] = part
					L.rot[s] = rot
				} else {
					if rot != (linRot{}) {
						w.fail(fmt.Errorf("tensor %q: rotation signs on a hybrid projection (not supported)", l.Path+".weight"))
					}
					L.setHybrid(l.Parts[k], part)
				}
			}
		}
		if lt.Hybrid != nil {
			m.bindHybrid(&w, L, i, lt)
		}
		if w.err != nil {
			return w.err
		}
		if lt.Rope && lt.Attn.Rope != nil {
			t, err := w.rope(*lt.Attn.Rope, c.MaxPositions)
			if err != nil {
				return err
			}
			L.rope = t
		} else if lt.Rope {
			if table == nil {
				t, err := newRope(c)
				if err != nil {
					return err
				}
				table = t
			}
			L.rope = table
		}
	}
	m.bindVariations(&w, tm)
	m.lmHead = w.linear(tm.OutputHead(m.arch.Has))[0]
	if w.err == nil && len(w.rots) > 0 {
		rot, ok := m.b.(backend.Rotator)
		if !ok {
			return fmt.Errorf("the checkpoint's linears are Hadamard-rotated and %s has no rotation op: %w", m.b.Name(), backend.ErrUnsupported)
		}
		m.rotor = rot
		for _, r := range w.rots {
			if !slices.Contains(m.rotWidths, r.n) {
				m.rotWidths = append(m.rotWidths, r.n)
			}
		}
	}
	if w.err == nil {
		m.planBuffers()
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
		return nil, fmt.Errorf("%s: %w", config.ConfigFile, err)
	}
	return t, nil
}
