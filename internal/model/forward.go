// The forward pass, written once over the backend for every family: pre-norm attention and SwiGLU MLP blocks
// with residual adds, a final norm and the output projection. A family's variations (variations.go: sandwich
// norms, GeGLU, per-layer geometry and windows, softcaps, per-layer inputs) are optional steps of the same pass;
// the hybrids swap in a gated DeltaNet token mixer or a sparse MoE block per layer (deltanet.go, moe.go).
package model

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// Step is one forward call's rows: token ids with the sequence and position each row belongs to. A prompt is
// one sequence at consecutive positions; batched decode is one row per sequence.
type Step struct {
	IDs, Seq, Pos []int32
}

// maxRecordedRows bounds the row counts whose workspaces are kept (and whose ops a Recorder backend records
// as a graph): the decode shapes. Longer prompt chunks get a transient workspace.
const maxRecordedRows = backend.MaxDecodeRows

// NewCache allocates a KV cache for seqs sequences of up to maxLen positions.
func (m *Model) NewCache(seqs, maxLen int) (backend.KVCache, error) {
	if m.hybrid != nil && m.hybrid.DeltaLayers > 0 {
		return m.newHybridCache(seqs, maxLen) // KV for the attention layers, recurrent state for the rest
	}
	return m.b.NewKVCache(backend.KVConfig{Layers: len(m.layers), Seqs: seqs, MaxLen: maxLen,
		KVHeads: m.kvHeads, HeadDim: m.headDim, PerLayer: m.kvLayers()})
}

// ReleaseCache frees a cache and anything recorded against it.
func (m *Model) ReleaseCache(c backend.KVCache) {
	if rec, ok := m.b.(backend.Recorder); ok {
		for key := range m.graphs {
			if key.cache == c {
				rec.Forget(key)
				delete(m.graphs, key)
			}
		}
	}
	c.Release()
}

// workspace holds one row count's activations, ids and logits; kept workspaces stay at fixed addresses so a
// recorded graph can replay on them.
type workspace struct {
	n, outRows                int
	ids, seq, pos             backend.Tensor
	x, xn, proj, last, logits backend.Tensor
	picks                     backend.Tensor         // int32 [outRows], the device's greedy picks (picks.go); nil without an Argmaxer
	bufs                      []layerBufs            // one per Model.bufs
	inputs                    []backend.Tensor       // per-layer inputs [n, dim], one per layer (variations.go); nil without
	inputTmp                  backend.Tensor         // [n, dim] scratch of the per-layer inputs
	hy                        *hybridWorkspace       // hybrid models' extra activations
	lw                        *loraWorkspace         // adapters' activations (lora.go); nil without adapters
	rot                       map[int]backend.Tensor // scratch [n, width] per rotated activation width (rotate.go)
	rotHeld                   map[int]*rotInput      // which activation each scratch holds now
	all                       []backend.Tensor
	// The residual seam while ops issues it (residual.go): a block's output projection deferred to the residual
	// add (out), and the norm ws.xn = RMSNorm(ws.x, pend) deferred to the projections that read it.
	out  *outProj
	pend backend.Tensor
}

// layerBufs are one layer geometry's activations: q, att [n, heads·headDim]; k, v [n, kvHeads·headDim];
// gate, up [n, intermediate].
type layerBufs struct{ q, k, v, att, gate, up backend.Tensor }

// bufShape is one distinct set of layer activation widths. A layer whose keys and values a later layer reads
// (owner ≥ 0) gets buffers of its own, so its k and v survive until then.
type bufShape struct{ q, kv, inter, owner int }

// planBuffers gives each layer the index of its activation buffers: layers of the same widths share them.
func (m *Model) planBuffers() {
	read := map[int]bool{}
	for i, L := range m.layers {
		if L.attn.KVFrom != i {
			read[L.attn.KVFrom] = true
		}
	}
	m.bufs = m.bufs[:0]
	for i := range m.layers {
		L := &m.layers[i]
		sh := bufShape{q: L.attn.Heads * L.attn.HeadDim, kv: L.attn.KVHeads * L.attn.HeadDim, owner: -1}
		if L.gate != nil {
			sh.inter = L.gate.Out()
		}
		if read[i] {
			sh.owner = i
		}
		L.buf = slices.Index(m.bufs, sh)
		if L.buf < 0 {
			L.buf = len(m.bufs)
			m.bufs = append(m.bufs, sh)
		}
	}
}

type graphKey struct {
	ws    *workspace
	cache backend.KVCache
	set   int  // the adapter set selected (adapterset.go): its deltas are part of the recorded ops
	picks bool // the ops end with the device argmax (ForwardPicks) rather than at the logits
}

func (m *Model) newWorkspace(n, outRows int) (*workspace, error) {
	c := m.Config
	act := m.b.ActDType()
	ws := &workspace{n: n, outRows: outRows}
	var err error
	alloc := func(dt backend.DType, shape ...int) backend.Tensor {
		if err != nil {
			return nil
		}
		var t backend.Tensor
		if t, err = m.b.Alloc(dt, shape...); err == nil {
			ws.all = append(ws.all, t)
		}
		return t
	}
	ws.ids, ws.seq, ws.pos = alloc(backend.I32, n), alloc(backend.I32, n), alloc(backend.I32, n)
	ws.x, ws.xn = alloc(act, n, c.HiddenSize), alloc(act, n, c.HiddenSize)
	for _, sh := range m.bufs {
		ws.bufs = append(ws.bufs, layerBufs{q: alloc(act, n, sh.q), att: alloc(act, n, sh.q),
			k: alloc(act, n, sh.kv), v: alloc(act, n, sh.kv), gate: alloc(act, n, sh.inter), up: alloc(act, n, sh.inter)})
	}
	if in := m.inputs; in != nil {
		for range m.layers {
			ws.inputs = append(ws.inputs, alloc(act, n, in.dim))
		}
		ws.inputTmp = alloc(act, n, in.dim)
	}
	ws.proj = alloc(act, n, c.HiddenSize)
	ws.last = alloc(act, outRows, c.HiddenSize)
	ws.logits = alloc(backend.F32, outRows, c.VocabSize)
	if _, ok := m.b.(backend.Argmaxer); ok {
		ws.picks = alloc(backend.I32, outRows)
	}
	if m.hybrid != nil {
		ws.hy = m.newHybridWorkspace(n, alloc)
	}
	m.loraBuffers(ws, alloc)
	if len(m.rotWidths) > 0 {
		ws.rot, ws.rotHeld = map[int]backend.Tensor{}, map[int]*rotInput{}
		for _, w := range m.rotWidths {
			ws.rot[w] = alloc(act, n, w)
		}
	}
	if err != nil {
		m.freeWorkspace(ws)
		return nil, fmt.Errorf("forward: workspace for %d rows: %w", n, err)
	}
	return ws, nil
}

func (m *Model) freeWorkspace(ws *workspace) {
	for _, t := range ws.all {
		m.b.Free(t)
	}
}

// Forward runs the rows of s through the model, filling cache, and returns the logits of the last outRows rows
// as [outRows, vocab] float32 (row-major), in a new slice the caller may keep.
func (m *Model) Forward(s Step, cache backend.KVCache, outRows int) ([]float32, error) {
	return m.ForwardInto(s, cache, outRows, nil)
}

// ForwardInto is Forward reading the logits into dst (grown when it is short) instead of a new slice: a caller
// that is done with one step's rows before the next call reuses one buffer, not outRows × vocab × 4 bytes a step.
// It returns dst[:outRows·vocab].
func (m *Model) ForwardInto(s Step, cache backend.KVCache, outRows int, dst []float32) ([]float32, error) {
	ws, err := m.prepare(s, cache, outRows, false)
	if err != nil {
		return nil, err
	}
	if ws.n > maxRecordedRows {
		defer m.freeWorkspace(ws)
	}
	return m.readLogits(ws, dst)
}

// readLogits reads a workspace's logits into dst (grown when short) and waits for the device.
func (m *Model) readLogits(ws *workspace, dst []float32) ([]float32, error) {
	n := ws.outRows * m.Config.VocabSize
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	if err := m.b.ReadFloat32(ws.logits, dst); err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	if err := m.b.Sync(); err != nil {
		return nil, fmt.Errorf("forward on %s: %w", m.b.Name(), err)
	}
	return dst, nil
}

// prepare validates s, writes its ids and positions into a workspace and issues (or replays) the ops; with picks
// (the workspace has a picks tensor) they end with the device argmax of the logits into ws.picks.
func (m *Model) prepare(s Step, cache backend.KVCache, outRows int, picks bool) (*workspace, error) {
	n := len(s.IDs)
	if n == 0 || len(s.Seq) != n || len(s.Pos) != n || outRows < 1 || outRows > n {
		return nil, fmt.Errorf("forward: %d ids, %d seqs, %d positions, %d output rows", n, len(s.Seq), len(s.Pos), outRows)
	}
	cfg := cache.Config()
	for r := 0; r < n; r++ {
		switch {
		case s.Pos[r] < 0 || int(s.Pos[r]) >= cfg.MaxLen:
			return nil, fmt.Errorf("forward: position %d outside the context of %d tokens", s.Pos[r], cfg.MaxLen)
		case s.Seq[r] < 0 || int(s.Seq[r]) >= cfg.Seqs:
			return nil, fmt.Errorf("forward: sequence %d outside the cache's %d sequences", s.Seq[r], cfg.Seqs)
		case s.IDs[r] < 0 || int(s.IDs[r]) >= m.Config.VocabSize:
			return nil, fmt.Errorf("forward: token id %d outside the vocabulary of %d", s.IDs[r], m.Config.VocabSize)
		}
	}
	var ws *workspace
	key := [2]int{n, outRows}
	if n <= maxRecordedRows {
		ws = m.kept[key]
	}
	if ws == nil {
		var err error
		if ws, err = m.newWorkspace(n, outRows); err != nil {
			return nil, err
		}
		if n <= maxRecordedRows {
			if m.kept == nil {
				m.kept = map[[2]int]*workspace{}
			}
			m.kept[key] = ws
		}
	}
	if err := advanceHybrid(cache, s); err != nil { // a recurrent state moves only forward (hybrid.go)
		return nil, err
	}
	for _, w := range []struct {
		t backend.Tensor
		v []int32
	}{{ws.ids, s.IDs}, {ws.seq, s.Seq}, {ws.pos, s.Pos}} {
		if err := m.b.WriteInt32(w.t, w.v); err != nil {
			return nil, fmt.Errorf("forward: %w", err)
		}
	}
	run := func() {
		m.ops(ws, cache)
		if picks {
			// Inside the recorded ops: on CUDA the argmax is one more node of the step's graph.
			m.b.(backend.Argmaxer).Argmax(ws.picks, ws.logits)
		}
	}
	// A tap (calibration) sees each activation as the pass computes it, which a replayed graph would not call.
	if rec, ok := m.b.(backend.Recorder); ok && n <= maxRecordedRows && m.tapFn == nil {
		gk := graphKey{ws, cache, m.activeSet, picks}
		if m.graphs == nil {
			m.graphs = map[graphKey]bool{}
		}
		m.graphs[gk] = true
		if err := rec.Record(gk, run); err != nil {
			return nil, fmt.Errorf("forward on %s: %w", m.b.Name(), err)
		}
	} else {
		run()
	}
	return ws, nil
}

// ops issues the whole forward pass for a workspace: the part a Recorder captures as one graph.
func (m *Model) ops(ws *workspace, cache backend.KVCache) {
	b, c := m.b, m.Config
	eps := float32(c.RMSNormEps)
	b.Embed(ws.x, m.embed, ws.ids)
	m.embedSteps(ws)
	ws.out, ws.pend = nil, nil
	normed := false // ws.xn already holds this layer's input norm (the previous layer's residual add made it)
	for i := range m.layers {
		L := &m.layers[i]
		if !normed && m.tapFn == nil {
			ws.pend = L.inNorm // folded into the projections that read it where the backend can (residual.go)
		} else if !normed {
			b.RMSNorm(ws.xn, ws.x, L.inNorm, eps)
		}
		if L.dn != nil {
			m.deltaNet(ws, L, cache) // a gated DeltaNet layer mixes tokens instead (deltanet.go; it takes the deferred norm)
		} else {
			m.attention(ws, L, i, cache)
		}
		m.residualNorm(ws, L.attnOutNorm, L.postNorm, eps)
		if L.moe != nil {
			m.inputNorm(ws)
			m.moe(ws, L) // a sparse MoE block (moe.go)
		} else {
			m.mlp(ws, L, i)
		}
		// The residual add and the next layer's input norm are one op, unless this layer ends with more steps.
		normed = i+1 < len(m.layers) && L.input == nil && !L.scaled
		if normed {
			m.residualNorm(ws, L.mlpOutNorm, m.layers[i+1].inNorm, eps)
			continue
		}
		m.residual(ws, L.mlpOutNorm, eps)
		m.layerSteps(ws, L, i, eps)
	}
	m.inputNorm(ws) // nothing is left deferred here; kept so a later change cannot leave ws.xn stale
	b.RMSNorm(ws.last, b.Rows(ws.x, ws.n-ws.outRows, ws.outRows), m.norm, eps)
	b.MatMul(ws.logits, ws.last, m.lmHead)
	if m.finalSoftcap > 0 {
		m.pw.softcap.Softcap(ws.logits, ws.logits, m.finalSoftcap)
	}
}

// attention: ws.proj = the attention block of layer L (index i) over ws.xn. A layer reading another layer's
// keys and values (L.attn.KVFrom ≠ i) projects only its queries.
func (m *Model) attention(ws *workspace, L *layer, i int, cache backend.KVCache) {
	b, eps := m.b, float32(m.Config.RMSNormEps)
	a, kv := &ws.bufs[L.buf], &ws.bufs[m.layers[L.attn.KVFrom].buf]
	own := L.attn.KVFrom == i
	m.tap(i, family.Q, ws.xn)
	in := m.rotated(ws, ws.xn) // rotated once for q, k and v when they share input signs
	g := projGroup{m: m, in: in, L: L}
	g.add(a.q, family.Q, L.q)
	if own {
		g.add(a.k, family.K, L.k)
		if !L.attn.VFromK {
			g.add(a.v, family.V, L.v)
		}
	}
	g.issue()
	// Output rotations and adapter deltas after the products, which stay back to back on one input (a backend may
	// group them).
	m.projectFinish(ws, a.q, in, L, family.Q)
	if own {
		m.projectFinish(ws, a.k, in, L, family.K)
		m.values(ws, a, in, L)
	}
	normQK := own && L.qNorm != nil && L.kNorm != nil && L.rope != nil
	if normQK && L.vNorm == nil && !L.deferStore && L.attn.Window <= 0 && L.attn.Softcap <= 0 {
		// The head norms folded into a plain attention: q and k are scratch afterwards, and no later layer reads
		// this layer's k (deferStore), so the op may leave them unnormalized.
		cache, slot := kvOf(cache), L.kv
		backend.NormRopeAttention(b, a.att, a.q, a.k, a.v, cache, slot, ws.seq, ws.pos, L.qNorm, L.kNorm,
			L.attn.Heads, L.attn.KVHeads, eps, L.rope, float32(L.attn.Scale))
		m.afterAttention(ws, L, i, a)
		return
	}
	if normQK { // both head norms with their ropes: one op
		backend.NormRopeQK(b, a.q, a.k, ws.pos, L.qNorm, L.kNorm, L.attn.Heads, L.attn.KVHeads, eps, L.rope)
	} else {
		m.normRope(a.q, ws.pos, L.qNorm, L.attn.Heads, L.rope)
		if own {
			m.normRope(a.k, ws.pos, L.kNorm, L.attn.KVHeads, L.rope)
		}
	}
	if own && L.vNorm != nil {
		b.RMSNorm(a.v, a.v, L.vNorm, eps)
	}
	m.attend(a.att, a.q, kv.k, kv.v, cache, L.attn, L.deferStore, ws)
	m.afterAttention(ws, L, i, a)
}

// afterAttention: the output gate (the hybrids') and the output projection of layer L's attention a.att.
func (m *Model) afterAttention(ws *workspace, L *layer, i int, a *layerBufs) {
	if L.attnGate != nil {
		m.gateAttention(ws, L) // the hybrids' output gate (hybrid.go)
	}
	m.tap(i, family.O, a.att)
	m.projectOut(ws, m.rotated(ws, a.att), L, family.O, L.o, L.attnOutNorm)
}

// mlp: ws.proj = the gated MLP of layer L (index i) over ws.xn (SwiGLU, or GeGLU for the families that say so).
func (m *Model) mlp(ws *workspace, L *layer, i int) {
	a := &ws.bufs[L.buf]
	m.tap(i, family.Gate, ws.xn)
	in := m.rotated(ws, ws.xn) // rotated once for gate and up when they share input signs
	if x := in.by(L.rot[family.Gate].in); m.pw.geglu == nil && x == in.by(L.rot[family.Up].in) && m.plain(L, family.Gate) && m.plain(L, family.Up) {
		if x == ws.xn && ws.pend != nil { // the input norm folds in too
			backend.NormGateUpSwiGLU(m.b, a.gate, a.gate, a.up, ws.xn, ws.x, ws.pend, float32(m.Config.RMSNormEps), L.gate, L.up)
			ws.pend = nil
		} else {
			backend.GateUpSwiGLU(m.b, a.gate, a.gate, a.up, x, L.gate, L.up) // nothing between the products and SwiGLU
		}
	} else {
		g := projGroup{m: m, in: in, L: L}
		g.add(a.gate, family.Gate, L.gate)
		g.add(a.up, family.Up, L.up)
		g.issue()
		m.projectFinish(ws, a.gate, in, L, family.Gate)
		m.projectFinish(ws, a.up, in, L, family.Up)
		m.glu(a.gate, a.gate, a.up)
	}
	m.tap(i, family.Down, a.gate)
	m.projectOut(ws, m.rotated(ws, a.gate), L, family.Down, L.down, L.mlpOutNorm)
}

// projGroup collects the products of projections reading one activation (q, k, v; gate, up) and issues those with
// the same (rotated) input as one MatMulGroup, so a backend may serve them in one launch.
type projGroup struct {
	m   *Model
	in  *rotInput
	L   *layer
	ys  []backend.Tensor
	xs  []backend.Tensor
	lin []backend.Linear
}

func (g *projGroup) add(dst backend.Tensor, s family.Slot, w backend.Linear) {
	g.ys, g.xs, g.lin = append(g.ys, dst), append(g.xs, g.in.by(g.L.rot[s].in)), append(g.lin, w)
}

// issue issues the collected products, each run of the same input as one group.
func (g *projGroup) issue() {
	for i := 0; i < len(g.ys); {
		j := i + 1
		for j < len(g.ys) && g.xs[j] == g.xs[i] {
			j++
		}
		if ws := g.in.ws; g.xs[i] == ws.xn && ws.pend != nil { // the input norm folds into the group
			backend.NormMatMulGroup(g.m.b, g.ys[i:j], ws.xn, ws.x, ws.pend, float32(g.m.Config.RMSNormEps), g.lin[i:j])
			ws.pend = nil
		} else {
			backend.MatMulGroup(g.m.b, g.ys[i:j], g.xs[i], g.lin[i:j])
		}
		i = j
	}
}

// plain reports whether slot s of layer L is a bare product: no output rotation and no adapter.
func (m *Model) plain(L *layer, s family.Slot) bool {
	return L.rot[s].out == nil && len(L.lora[s]) == 0
}

// normRope is a head norm (when the layer has one) and the rope (when it has one) of x, as one op where both are.
func (m *Model) normRope(x, pos, norm backend.Tensor, heads int, table *rope.Table) {
	eps := float32(m.Config.RMSNormEps)
	switch {
	case norm != nil && table != nil:
		backend.NormRope(m.b, x, pos, norm, heads, eps, table)
	case norm != nil:
		m.b.RMSNorm(x, x, norm, eps)
	case table != nil:
		m.b.Rope(x, pos, heads, table)
	}
}
