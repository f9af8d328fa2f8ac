// The hybrid models (Qwen3.5, Qwen3-Next; family/hybrid.go) and the MoE ones (Qwen3-MoE; family/moe.go) in the
// model package: binding the tensors their layers add, their cache (KV slots for the full-attention layers only,
// a backend-owned recurrent state for the gated DeltaNet layers, and the position each sequence has reached,
// since a recurrent state cannot rewind; a model without DeltaNet layers has a plain KV cache), their extra
// activations, gated attention's output gate, the device queries for their ops, and the regrouping of
// projections stored interleaved per head.
package model

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// deltaNetLayer is a gated DeltaNet token mixer's weights.
type deltaNetLayer struct {
	slot                     int            // the layer's index among the DeltaNet layers: its recurrent-state slot
	qkv, z, b, a, out        backend.Linear // [convDim|valueWidth|valueHeads|valueHeads, hidden], out [hidden, valueWidth]
	conv, aLog, dtBias, norm backend.Tensor // [convDim, kernel], [valueHeads] ×2, [valueDim]
}

// moeLayer is a sparse MoE block's weights: the router, each expert's SwiGLU and the gated shared expert.
type moeLayer struct {
	router                               backend.Linear // [experts, hidden]
	gate, up, down                       []backend.Linear
	sharedGate, sharedUp, sharedDown, sg backend.Linear // sg: shared_expert_gate [1, hidden]
}

// setHybrid binds one part of a hybrid layer's projection to its slot.
func (L *layer) setHybrid(p family.Part, lin backend.Linear) {
	dn := func() *deltaNetLayer {
		if L.dn == nil {
			L.dn = &deltaNetLayer{}
		}
		return L.dn
	}
	moe := func() *moeLayer {
		if L.moe == nil {
			L.moe = &moeLayer{}
		}
		return L.moe
	}
	expert := func(s *[]backend.Linear) {
		if len(*s) <= p.Expert {
			*s = append(*s, make([]backend.Linear, p.Expert+1-len(*s))...)
		}
		(*s)[p.Expert] = lin
	}
	switch p.Slot {
	case family.AttnGate:
		L.attnGate = lin
	case family.DeltaQKV:
		dn().qkv = lin
	case family.DeltaZ:
		dn().z = lin
	case family.DeltaB:
		dn().b = lin
	case family.DeltaA:
		dn().a = lin
	case family.DeltaOut:
		dn().out = lin
	case family.Router:
		moe().router = lin
	case family.ExpertGate:
		expert(&moe().gate)
	case family.ExpertUp:
		expert(&moe().up)
	case family.ExpertDown:
		expert(&moe().down)
	case family.SharedGate:
		moe().sharedGate = lin
	case family.SharedUp:
		moe().sharedUp = lin
	case family.SharedDown:
		moe().sharedDown = lin
	case family.SharedExpertGate:
		moe().sg = lin
	default:
		panic(fmt.Sprintf("model: no binding for slot %s", p.Slot))
	}
}

// bindHybrid binds layer i's DeltaNet tensors and numbers its cache slot among the layers of its kind, after
// checking the backend has the ops the layer needs.
func (m *Model) bindHybrid(w *binder, L *layer, i int, lt family.Layer) {
	h := lt.Hybrid
	m.hybrid = h.Config
	need := func(ok bool, op backend.Op) {
		if !ok {
			w.fail(fmt.Errorf("model.layers.%d: %s has no %s op: %w", i, m.b.Name(), op, backend.ErrUnsupported))
		}
	}
	_, gates := m.b.(backend.SigmoidGate)
	if h.Sparse {
		_, ok := m.b.(backend.MoE)
		need(ok && (gates || !hasSlot(lt, family.SharedExpertGate)), backend.OpMoE)
	}
	if h.DeltaNet == nil {
		if hasSlot(lt, family.AttnGate) {
			need(gates, backend.OpSigmoidGate)
		}
		L.kv = i - countTrue(h.Config.DeltaNet[:i])
		return
	}
	_, ok := m.b.(backend.LinearAttention)
	need(ok, backend.OpGatedDeltaNet)
	d := h.DeltaNet
	L.dn.slot = countTrue(h.Config.DeltaNet[:i])
	if conv, ok := w.host(d.Conv.Name, d.Conv.Shape...); ok {
		conv.Shape = []int{d.Conv.Shape[0], d.Conv.Shape[2]} // [convDim, 1, kernel] as [convDim, kernel]
		L.dn.conv = w.upload(conv)
	}
	L.dn.aLog, L.dn.dtBias, L.dn.norm = w.vector(d.ALog), w.vector(d.DtBias), w.vector(d.Norm)
}

// hasSlot reports whether one of the layer's linears holds slot s.
func hasSlot(L family.Layer, s family.Slot) bool {
	for _, l := range L.Linears {
		for _, p := range l.Parts {
			if p.Slot == s {
				return true
			}
		}
	}
	return false
}

func countTrue(v []bool) int {
	n := 0
	for _, b := range v {
		if b {
			n++
		}
	}
	return n
}

// hybridQueries lists the ops a hybrid model asks of the device beside its matmuls (SourceQueries).
func hybridQueries(tm *family.Map) []backend.Query {
	var qs []backend.Query
	for i, L := range tm.Layers {
		if L.Hybrid == nil {
			continue
		}
		p := fmt.Sprintf("model.layers.%d.", i)
		switch {
		case L.Hybrid.DeltaNet != nil:
			qs = append(qs, backend.Query{Op: backend.OpGatedDeltaNet, Name: p + "linear_attn"})
		case hasSlot(L, family.AttnGate):
			qs = append(qs, backend.Query{Op: backend.OpSigmoidGate, Name: p + "self_attn"})
		}
		if L.Hybrid.Sparse {
			qs = append(qs, backend.Query{Op: backend.OpMoE, Name: p + "mlp"})
			if hasSlot(L, family.SharedExpertGate) {
				qs = append(qs, backend.Query{Op: backend.OpSigmoidGate, Name: p + "mlp.shared_expert_gate"})
			}
		}
	}
	return qs
}

// hybridCache is a hybrid model's cache: the KV cache of its full-attention layers (numbered among themselves),
// the recurrent state of its DeltaNet layers, and per sequence the position its next row must have.
type hybridCache struct {
	backend.KVCache
	state backend.RecurrentState
	next  []int32
}

func (c *hybridCache) Release() {
	c.KVCache.Release()
	c.state.Release()
}

func (m *Model) newHybridCache(seqs, maxLen int) (backend.KVCache, error) {
	h := m.hybrid
	la, ok := m.b.(backend.LinearAttention)
	if !ok {
		return nil, fmt.Errorf("cache: %s has no %s op: %w", m.b.Name(), backend.OpGatedDeltaNet, backend.ErrUnsupported)
	}
	kv, err := m.b.NewKVCache(backend.KVConfig{Layers: max(1, h.AttnLayers), Seqs: seqs, MaxLen: maxLen,
		KVHeads: m.kvHeads, HeadDim: m.headDim})
	if err != nil {
		return nil, err
	}
	st, err := la.NewRecurrentState(backend.RecurrentConfig{Layers: max(1, h.DeltaLayers), Seqs: seqs,
		ConvDim: h.ConvDim, ConvKernel: h.ConvKernel, KeyHeads: h.KeyHeads, ValueHeads: h.ValueHeads,
		KeyDim: h.KeyDim, ValueDim: h.ValueDim})
	if err != nil {
		kv.Release()
		return nil, err
	}
	return &hybridCache{KVCache: kv, state: st, next: make([]int32, seqs)}, nil
}

// kvOf is the KV cache inside c.
func kvOf(c backend.KVCache) backend.KVCache {
	if hc, ok := c.(*hybridCache); ok {
		return hc.KVCache
	}
	return c
}

// advanceHybrid checks that each row of s continues its sequence (or restarts it at position 0), as a recurrent
// state requires, and moves the sequences on; caches of other models pass.
func advanceHybrid(c backend.KVCache, s Step) error {
	hc, ok := c.(*hybridCache)
	if !ok {
		return nil
	}
	next := slices.Clone(hc.next)
	for r, q := range s.Seq {
		if p := s.Pos[r]; p != 0 && p != next[q] {
			return fmt.Errorf("forward: row %d is sequence %d at position %d, but its recurrent state is at position %d "+
				"(a hybrid model's rows continue their sequence in order, or restart it at 0)", r, q, p, next[q])
		}
		next[q] = s.Pos[r] + 1
	}
	copy(hc.next, next)
	return nil
}

// hybridWorkspace holds the activations of the DeltaNet and MoE blocks for n rows.
type hybridWorkspace struct {
	qkv, z, core, a, beta backend.Tensor // DeltaNet: [n, convDim], [n, valueWidth] ×2, [n, valueHeads] ×2
	logits, weights, ids  backend.Tensor // router: f32 [n, experts], f32 [n, k], int32 [n, k]
	sgate, sup, sout, sg  backend.Tensor // shared expert: [n, sharedInter] ×2, [n, hidden], [n, 1]
}

func (m *Model) newHybridWorkspace(n int, alloc func(backend.DType, ...int) backend.Tensor) *hybridWorkspace {
	h, act, hy := m.hybrid, m.b.ActDType(), &hybridWorkspace{}
	if h.DeltaLayers > 0 {
		hy.qkv, hy.z, hy.core = alloc(act, n, h.ConvDim), alloc(act, n, h.ValueWidth), alloc(act, n, h.ValueWidth)
		hy.a, hy.beta = alloc(act, n, h.ValueHeads), alloc(act, n, h.ValueHeads)
	}
	if h.Experts > 0 {
		hy.logits, hy.weights, hy.ids = alloc(backend.F32, n, h.Experts), alloc(backend.F32, n, h.TopK), alloc(backend.I32, n, h.TopK)
	}
	if h.Experts > 0 && h.SharedInter > 0 {
		hy.sgate, hy.sup = alloc(act, n, h.SharedInter), alloc(act, n, h.SharedInter)
		hy.sout, hy.sg = alloc(act, n, m.Config.HiddenSize), alloc(act, n, 1)
	}
	return hy
}

// gateAttention applies gated attention's output gate: att ·= sigmoid(xn·gateᵀ), the gate computed into the layer's q buffer,
// which attention has finished with.
func (m *Model) gateAttention(ws *workspace, L *layer) {
	a := &ws.bufs[L.buf]
	m.b.MatMul(a.q, ws.xn, L.attnGate)
	m.b.(backend.SigmoidGate).SigmoidMul(a.att, a.att, a.q)
}

// plusOne is a zero-centred norm weight as the (1 + w) the forward pass scales by, in float32 (as transformers
// computes 1.0 + weight.float()).
func plusOne(h backend.Host) backend.Host {
	f, err := h.Float32s()
	if err != nil {
		return h // the upload reports it
	}
	for i := range f {
		f[i]++
	}
	return backend.HostF32(h.Name, f, h.Shape...)
}

// regroup reorders a projection's stored rows into blocks (family.Linear.Regroup) so that its parts are
// contiguous: dense rows, trellis rows coded along the input (axis 1) with their scales, affine rows with their
// scales and biases, and the bias. The result is a copy.
func regroup(s backend.LinearSpec, blocks [][2]int) (backend.LinearSpec, error) {
	out := s
	rows := func(h *backend.Host) *backend.Host {
		if h == nil {
			return nil
		}
		rb := len(h.Data) / h.Shape[0]
		g := &backend.Host{Name: h.Name, DType: h.DType, Shape: slices.Clone(h.Shape)}
		for _, b := range blocks {
			g.Data = append(g.Data, h.Data[b[0]*rb:(b[0]+b[1])*rb]...)
		}
		return g
	}
	out.Dense, out.Bias = rows(s.Dense), rows(s.Bias)
	switch {
	case s.Trellis != nil:
		var words []uint32
		var scales []float32
		for _, b := range blocks {
			part, err := s.Trellis.OutputRows(b[0], b[1])
			if err != nil {
				return s, fmt.Errorf("tensor %q: interleaved projection: %w", s.Name+".weight", err)
			}
			words, scales = append(words, part.Words...), append(scales, part.Scales...)
		}
		t, err := trellis.NewWeights(s.Trellis.Geometry, words, scales)
		if err != nil {
			return s, fmt.Errorf("tensor %q: %w", s.Name+".weight", err)
		}
		out.Trellis = t
	case s.Affine != nil:
		a := *s.Affine
		a.Packed, a.Scales, a.Biases = nil, nil, nil
		for _, b := range blocks {
			part, err := s.Affine.OutputRows(b[0], b[1])
			if err != nil {
				return s, fmt.Errorf("tensor %q: interleaved projection: %w", s.Name+".weight", err)
			}
			a.Packed, a.Scales, a.Biases = append(a.Packed, part.Packed...), append(a.Scales, part.Scales...), append(a.Biases, part.Biases...)
		}
		w, err := affine.New(a.Bits, a.GroupSize, a.Out, a.In, a.Packed, a.Scales, a.Biases)
		if err != nil {
			return s, fmt.Errorf("tensor %q: %w", s.Name+".weight", err)
		}
		out.Affine = w
	}
	return out, nil
}
