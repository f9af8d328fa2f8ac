// The forward pass, written once over the backend for every family: pre-norm attention and SwiGLU MLP blocks
// with residual adds, a final norm and the output projection. The hybrids swap in a gated DeltaNet token mixer
// or a sparse MoE block per layer (deltanet.go, moe.go).
package model

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
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
	if m.hybrid != nil {
		return m.newHybridCache(seqs, maxLen) // KV for the attention layers, recurrent state for the rest
	}
	return m.b.NewKVCache(backend.KVConfig{Layers: len(m.layers), Seqs: seqs, MaxLen: maxLen,
		KVHeads: m.kvHeads, HeadDim: m.headDim})
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
	n, outRows                                        int
	ids, seq, pos                                     backend.Tensor
	x, xn, q, k, v, att, proj, gate, up, last, logits backend.Tensor
	hy                                                *hybridWorkspace // hybrid models' extra activations
	all                                               []backend.Tensor
}

type graphKey struct {
	ws    *workspace
	cache backend.KVCache
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
	ws.q, ws.att = alloc(act, n, m.heads*m.headDim), alloc(act, n, m.heads*m.headDim)
	ws.k, ws.v = alloc(act, n, m.kvHeads*m.headDim), alloc(act, n, m.kvHeads*m.headDim)
	ws.proj = alloc(act, n, c.HiddenSize)
	ws.gate, ws.up = alloc(act, n, c.IntermediateSize), alloc(act, n, c.IntermediateSize)
	ws.last = alloc(act, outRows, c.HiddenSize)
	ws.logits = alloc(backend.F32, outRows, c.VocabSize)
	if m.hybrid != nil {
		ws.hy = m.newHybridWorkspace(n, alloc)
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
// as [outRows, vocab] float32 (row-major).
func (m *Model) Forward(s Step, cache backend.KVCache, outRows int) ([]float32, error) {
	ws, err := m.prepare(s, cache, outRows)
	if err != nil {
		return nil, err
	}
	if ws.n > maxRecordedRows {
		defer m.freeWorkspace(ws)
	}
	out := make([]float32, outRows*m.Config.VocabSize)
	if err := m.b.ReadFloat32(ws.logits, out); err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	if err := m.b.Sync(); err != nil {
		return nil, fmt.Errorf("forward on %s: %w", m.b.Name(), err)
	}
	return out, nil
}

// prepare validates s, writes its ids and positions into a workspace and issues (or replays) the ops.
func (m *Model) prepare(s Step, cache backend.KVCache, outRows int) (*workspace, error) {
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
	run := func() { m.ops(ws, cache) }
	if rec, ok := m.b.(backend.Recorder); ok && n <= maxRecordedRows {
		gk := graphKey{ws, cache}
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
	for i := range m.layers {
		L := &m.layers[i]
		b.RMSNorm(ws.xn, ws.x, L.inNorm, eps)
		if L.dn != nil {
			m.deltaNet(ws, L, cache) // a gated DeltaNet layer mixes tokens instead (deltanet.go)
		} else {
			m.attention(ws, L, cache)
		}
		b.Add(ws.x, ws.x, ws.proj)
		b.RMSNorm(ws.xn, ws.x, L.postNorm, eps)
		if L.moe != nil {
			m.moe(ws, L) // a sparse MoE block (moe.go)
		} else {
			m.mlp(ws, L)
		}
		b.Add(ws.x, ws.x, ws.proj)
	}
	b.RMSNorm(ws.last, b.Rows(ws.x, ws.n-ws.outRows, ws.outRows), m.norm, eps)
	b.MatMul(ws.logits, ws.last, m.lmHead)
}

// attention: ws.proj = the attention block of layer L over ws.xn.
func (m *Model) attention(ws *workspace, L *layer, cache backend.KVCache) {
	b, eps := m.b, float32(m.Config.RMSNormEps)
	b.MatMul(ws.q, ws.xn, L.q)
	b.MatMul(ws.k, ws.xn, L.k)
	b.MatMul(ws.v, ws.xn, L.v)
	if L.qNorm != nil {
		b.RMSNorm(ws.q, ws.q, L.qNorm, eps)
		b.RMSNorm(ws.k, ws.k, L.kNorm, eps)
	}
	if L.rope != nil {
		b.Rope(ws.q, ws.pos, m.heads, L.rope)
		b.Rope(ws.k, ws.pos, m.kvHeads, L.rope)
	}
	b.Attention(ws.att, ws.q, ws.k, ws.v, kvOf(cache), L.kv, ws.seq, ws.pos, m.scale)
	if L.attnGate != nil {
		m.gateAttention(ws, L) // the hybrids' output gate (hybrid.go)
	}
	b.MatMul(ws.proj, ws.att, L.o)
}

// mlp: ws.proj = the SwiGLU MLP of layer L over ws.xn.
func (m *Model) mlp(ws *workspace, L *layer) {
	b := m.b
	b.MatMul(ws.gate, ws.xn, L.gate)
	b.MatMul(ws.up, ws.xn, L.up)
	b.SwiGLU(ws.gate, ws.gate, ws.up)
	b.MatMul(ws.proj, ws.gate, L.down)
}
