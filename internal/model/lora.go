// LoRA adapters on a loaded model (internal/lora reads them from disk). An adapted projection computes
// y = W·x + Σᵢ sᵢ·Bᵢ(Aᵢ·x) whatever W's format (bf16, trellis, affine): the base MatMul as before, then per
// adapter two small MatMuls over dense linears A [r, in] and B [out, r] and one backend.ScaledAdder sum, so every
// backend serves them with the ops it has. A fused module (Phi-3's qkv_proj, gate_up_proj) is split by output rows
// as its weight is: each part gets the adapter's whole A and its rows of B.
//
// Each adapted projection issues its own products right after its base MatMul, so while an adapter touches a
// layer's q/k/v (or gate/up) those projections no longer reach the backend back to back: the CUDA backend's
// merge of consecutive MatMuls on one activation into one multi-segment GEMV launch (internal/cuda/fuse.go)
// falls back to separate projections, as the seed's fused gate/up paths do while an adapter is active. Layers
// and projections without an adapter issue exactly the ops they issued before.
package model

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/lora"
)

// ErrAdapterMismatch is wrapped by the errors of an adapter that does not fit the model.
var ErrAdapterMismatch = errors.New("adapter does not fit the model")

// loraDelta is one adapter on one projection (part): dst += scale·B(A·x).
type loraDelta struct {
	a, b  backend.Linear // A [r, in], B [out, r]
	scale float32
	set   int // 0: always applied (AttachAdapters); k > 0: only while named set k is selected (adapterset.go)
}

// adapterSite is where one adapter target lands: the layer and the stored module it adapts.
type adapterSite struct {
	layer int
	lin   family.Linear
	t     lora.Target
}

// adapterSites matches every target of ad against cfg's tensor map: a module the model does not have, one that
// adapters are not supported on, or matrices whose shape does not fit the module are an error naming the tensor.
func adapterSites(cfg *config.Model, ad *lora.Adapter) ([]adapterSite, error) {
	fam, err := family.For(cfg)
	if err != nil {
		return nil, err
	}
	tm := fam.Tensors(cfg)
	type where struct {
		layer int
		lin   family.Linear
		why   string // non-empty: the module exists but takes no adapter
	}
	modules := map[string]where{}
	for i, L := range tm.Layers {
		for _, l := range L.Linears {
			modules[l.Path] = where{layer: i, lin: l, why: adaptable(l)}
		}
	}
	for _, l := range append(tm.SideLinears(), tm.Head, tm.TiedHead) {
		modules[l.Path] = where{layer: -1, lin: l, why: "only the layers' attention and MLP projections take adapters"}
	}
	var sites []adapterSite
	for _, t := range ad.Targets {
		w, ok := modules[t.Module]
		if !ok {
			return nil, fmt.Errorf("adapter %s: tensor %q adapts %s, which this %s model (%d layers) does not have: %w",
				ad.Dir, t.ATensor, t.Module, cfg.ModelType, cfg.NumLayers, ErrAdapterMismatch)
		}
		if w.why != "" {
			return nil, fmt.Errorf("adapter %s: tensor %q adapts %s: %s: %w", ad.Dir, t.ATensor, t.Module, w.why, ErrAdapterMismatch)
		}
		r, in, out := t.Rank(), t.A.Shape[1], t.B.Shape[0]
		if in != w.lin.In || out != w.lin.Out {
			bad := t.ATensor
			if in == w.lin.In {
				bad = t.BTensor
			}
			return nil, fmt.Errorf("adapter %s: tensor %q: the adapter is a %d→%d update of rank %d, but %s of this model is %d→%d: %w",
				ad.Dir, bad, in, out, r, t.Module, w.lin.In, w.lin.Out, ErrAdapterMismatch)
		}
		sites = append(sites, adapterSite{layer: w.layer, lin: w.lin, t: t})
	}
	return sites, nil
}

// adaptable says why a layer's module takes no adapter ("" when it does): only modules whose parts are the
// shared forward pass's projections, stored as contiguous row blocks.
func adaptable(l family.Linear) string {
	if l.Experts > 0 || l.Interleave != nil || l.Keep {
		return "adapters on expert stacks, interleaved or side projections are not supported"
	}
	for _, p := range l.Parts {
		if p.Slot >= family.Head {
			return fmt.Sprintf("adapters on the %s projection are not supported", p.Slot)
		}
	}
	return ""
}

// AdapterQueries checks the adapters against cfg (adapterSites) and lists what they ask of a device: a dense
// matmul per A and per part of B (named by their tensors), and the scaled sum. No device is touched.
func AdapterQueries(cfg *config.Model, ads []*lora.Adapter) ([]backend.Query, error) {
	var qs []backend.Query
	for _, ad := range ads {
		sites, err := adapterSites(cfg, ad)
		if err != nil {
			return nil, err
		}
		for _, s := range sites {
			r := s.t.Rank()
			qs = append(qs, backend.Query{Op: backend.OpMatMul, Name: s.t.ATensor,
				Weight: backend.Weight{Format: backend.FormatDense, DType: s.t.A.DType}, Out: r, In: s.lin.In})
			for k := range s.lin.Parts {
				_, n := s.lin.RowRange(k)
				qs = append(qs, backend.Query{Op: backend.OpMatMul, Name: partName(s, k),
					Weight: backend.Weight{Format: backend.FormatDense, DType: s.t.B.DType}, Out: n, In: r})
			}
		}
	}
	if len(qs) > 0 {
		qs = append(qs, backend.Query{Op: backend.OpAddScaled, Name: ads[0].Targets[0].Module})
	}
	return qs, nil
}

// partName names part k of a site's B as LoadLinear sees it: the tensor, with its rows when the module is fused.
func partName(s adapterSite, k int) string {
	if !s.lin.Fused() {
		return s.t.BTensor
	}
	start, n := s.lin.RowRange(k)
	return fmt.Sprintf("%s[%d:%d]", s.t.BTensor, start, start+n)
}

// AttachAdapters uploads the adapters' matrices and makes every adapted projection add its deltas, in the order
// given (the sum's order). The backend is asked first (AdapterQueries), so a device without the ops fails before
// anything is uploaded. Workspaces and recorded graphs made before are released: the next Forward rebuilds them.
func (m *Model) AttachAdapters(ads []*lora.Adapter) error { return m.attachAdapters(ads, 0) }

// attachAdapters is AttachAdapters with the deltas tagged as belonging to set (0: always applied).
func (m *Model) attachAdapters(ads []*lora.Adapter, set int) error {
	if len(ads) == 0 {
		return nil
	}
	qs, err := AdapterQueries(m.Config, ads)
	if err != nil {
		return err
	}
	if err := backend.SupportsAll(m.b, qs); err != nil {
		return fmt.Errorf("adapters: %w", err)
	}
	adder, ok := m.b.(backend.ScaledAdder)
	if !ok {
		return fmt.Errorf("adapters: %s has no AddScaled: %w", m.b.Name(), backend.ErrUnsupported)
	}
	saved := make([][family.Head][]loraDelta, len(m.layers))
	for i := range m.layers {
		saved[i] = m.layers[i].lora
	}
	for _, ad := range ads {
		sites, err := adapterSites(m.Config, ad)
		if err == nil {
			for _, s := range sites {
				if err = m.attach(s, set); err != nil {
					err = fmt.Errorf("adapter %s: %w", ad.Dir, err)
					break
				}
			}
		}
		if err != nil { // the model stays as it was: no delta of a half-attached adapter runs
			for i := range m.layers {
				m.layers[i].lora = saved[i]
			}
			return err
		}
	}
	m.adder = adder
	m.dropWorkspaces()
	return nil
}

// attach uploads one site's A once and B per part, and appends the deltas to the layer's slots.
func (m *Model) attach(s adapterSite, set int) error {
	r := s.t.Rank()
	a, err := m.b.LoadLinear(backend.LinearSpec{Name: s.t.ATensor, Out: r, In: s.lin.In, Dense: &s.t.A})
	if err != nil {
		return err
	}
	L := &m.layers[s.layer]
	for k, p := range s.lin.Parts {
		start, n := s.lin.RowRange(k)
		rows := rowsOf(s.t.B, partName(s, k), start, n)
		b, err := m.b.LoadLinear(backend.LinearSpec{Name: rows.Name, Out: n, In: r, Dense: rows})
		if err != nil {
			return err
		}
		L.lora[p.Slot] = append(L.lora[p.Slot], loraDelta{a: a, b: b, scale: float32(s.t.Scale), set: set})
	}
	return nil
}

// dropWorkspaces releases the kept workspaces and what a Recorder recorded on them (their buffers change).
func (m *Model) dropWorkspaces() {
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
}

// loraWidths lists the distinct ranks and output widths of the attached deltas (the workspace's buffers).
func (m *Model) loraWidths() (ranks, outs []int) {
	for i := range m.layers {
		for _, ds := range m.layers[i].lora {
			for _, d := range ds {
				if r := d.a.Out(); !slices.Contains(ranks, r) {
					ranks = append(ranks, r)
				}
				if o := d.b.Out(); !slices.Contains(outs, o) {
					outs = append(outs, o)
				}
			}
		}
	}
	return ranks, outs
}

// loraWorkspace holds a workspace's adapter activations: a[r] = A·x [n, r] per rank, b[out] = B(A·x) [n, out]
// per output width. Deltas run one after another, so each buffer serves every delta of its width.
type loraWorkspace struct{ a, b map[int]backend.Tensor }

// loraBuffers gives a workspace of n rows its adapter activations: A·x [n, r] per rank, B(A·x) [n, out] per width.
func (m *Model) loraBuffers(ws *workspace, alloc func(dt backend.DType, shape ...int) backend.Tensor) {
	ranks, outs := m.loraWidths()
	if len(ranks) == 0 {
		return
	}
	act := m.b.ActDType()
	ws.lw = &loraWorkspace{a: map[int]backend.Tensor{}, b: map[int]backend.Tensor{}}
	for _, r := range ranks {
		ws.lw.a[r] = alloc(act, ws.n, r)
	}
	for _, o := range outs {
		ws.lw.b[o] = alloc(act, ws.n, o)
	}
}

// project is dst = x·Wᵀ for layer L's slot s (weights w, with their rotations: rotate.go), plus each attached
// adapter's scale·B(A·x) on the unrotated input (an adapter is trained against the original W).
func (m *Model) project(ws *workspace, dst backend.Tensor, in *rotInput, L *layer, s family.Slot, w backend.Linear) {
	m.projectBase(dst, in, L, s, w)
	m.projectFinish(ws, dst, in, L, s)
}

// projectBase is the product alone (input rotation included); projects sharing an input issue theirs back to back.
func (m *Model) projectBase(dst backend.Tensor, in *rotInput, L *layer, s family.Slot, w backend.Linear) {
	m.b.MatMul(dst, in.by(L.rot[s].in), w)
}

// projectFinish completes projectBase's dst: the output rotation, then the adapters' deltas.
func (m *Model) projectFinish(ws *workspace, dst backend.Tensor, in *rotInput, L *layer, s family.Slot) {
	m.rotateOut(dst, L.rot[s])
	x := in.x
	for _, d := range L.lora[s] {
		if d.set != 0 && d.set != m.activeSet {
			continue
		}
		t, u := ws.lw.a[d.a.Out()], ws.lw.b[d.b.Out()]
		m.b.MatMul(t, x, d.a)
		m.b.MatMul(u, t, d.b)
		m.adder.AddScaled(dst, dst, u, d.scale)
	}
}
