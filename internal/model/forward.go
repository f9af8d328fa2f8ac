// The forward pass, written once over the backend for every family: pre-norm attention and SwiGLU MLP blocks
// with residual adds, a final norm and the output projection.
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

// NewCache allocates a KV cache for seqs sequences of up to maxLen positions.
func (m *Model) NewCache(seqs, maxLen int) (backend.KVCache, error) {
	return m.b.NewKVCache(backend.KVConfig{Layers: len(m.layers), Seqs: seqs, MaxLen: maxLen,
		KVHeads: m.kvHeads, HeadDim: m.headDim})
}

// Forward runs the rows of s through the model, filling cache, and returns the logits of the last outRows rows
// as [outRows, vocab] float32 (row-major).
func (m *Model) Forward(s Step, cache backend.KVCache, outRows int) ([]float32, error) {
	n := len(s.IDs)
	if n == 0 || len(s.Seq) != n || len(s.Pos) != n || outRows < 1 || outRows > n {
		return nil, fmt.Errorf("forward: %d ids, %d seqs, %d positions, %d output rows", n, len(s.Seq), len(s.Pos), outRows)
	}
	cfg := cache.Config()
	for r := 0; r < n; r++ {
		if int(s.Pos[r]) >= cfg.MaxLen || s.Pos[r] < 0 {
			return nil, fmt.Errorf("forward: position %d outside the context of %d tokens", s.Pos[r], cfg.MaxLen)
		}
		if int(s.Seq[r]) >= cfg.Seqs || s.Seq[r] < 0 {
			return nil, fmt.Errorf("forward: sequence %d outside the cache's %d sequences", s.Seq[r], cfg.Seqs)
		}
		if int(s.IDs[r]) >= m.Config.VocabSize || s.IDs[r] < 0 {
			return nil, fmt.Errorf("forward: token id %d outside the vocabulary of %d", s.IDs[r], m.Config.VocabSize)
		}
	}
	a := arena{b: m.b}
	defer a.free()
	ids, seq, pos := a.ints(s.IDs), a.ints(s.Seq), a.ints(s.Pos)
	c := m.Config
	act := m.b.ActDType()
	x := a.alloc(act, n, c.HiddenSize)
	xn := a.alloc(act, n, c.HiddenSize)
	q := a.alloc(act, n, m.heads*m.headDim)
	k := a.alloc(act, n, m.kvHeads*m.headDim)
	v := a.alloc(act, n, m.kvHeads*m.headDim)
	att := a.alloc(act, n, m.heads*m.headDim)
	proj := a.alloc(act, n, c.HiddenSize)
	gate := a.alloc(act, n, c.IntermediateSize)
	up := a.alloc(act, n, c.IntermediateSize)
	if a.err != nil {
		return nil, a.err
	}
	b := m.b
	eps := float32(c.RMSNormEps)
	b.Embed(x, m.embed, ids)
	for i := range m.layers {
		L := &m.layers[i]
		b.RMSNorm(xn, x, L.inNorm, eps)
		b.MatMul(q, xn, L.q)
		b.MatMul(k, xn, L.k)
		b.MatMul(v, xn, L.v)
		if L.qNorm != nil {
			b.RMSNorm(q, q, L.qNorm, eps)
			b.RMSNorm(k, k, L.kNorm, eps)
		}
		if L.rope != nil {
			b.Rope(q, pos, m.heads, L.rope)
			b.Rope(k, pos, m.kvHeads, L.rope)
		}
		b.Attention(att, q, k, v, cache, i, seq, pos, m.scale)
		b.MatMul(proj, att, L.o)
		b.Add(x, x, proj)
		b.RMSNorm(xn, x, L.postNorm, eps)
		b.MatMul(gate, xn, L.gate)
		b.MatMul(up, xn, L.up)
		b.SwiGLU(gate, gate, up)
		b.MatMul(proj, gate, L.down)
		b.Add(x, x, proj)
	}
	last := b.Rows(x, n-outRows, outRows)
	lastN := a.alloc(act, outRows, c.HiddenSize)
	logits := a.alloc(backend.F32, outRows, c.VocabSize)
	if a.err != nil {
		return nil, a.err
	}
	b.RMSNorm(lastN, last, m.norm, eps)
	b.MatMul(logits, lastN, m.lmHead)
	out := make([]float32, outRows*c.VocabSize)
	if err := b.ReadFloat32(logits, out); err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	if err := b.Sync(); err != nil {
		return nil, fmt.Errorf("forward on %s: %w", b.Name(), err)
	}
	return out, nil
}

// arena tracks one forward call's temporaries so they are freed together.
type arena struct {
	b   backend.Backend
	ts  []backend.Tensor
	err error
}

func (a *arena) alloc(dt backend.DType, shape ...int) backend.Tensor {
	if a.err != nil {
		return nil
	}
	t, err := a.b.Alloc(dt, shape...)
	if err != nil {
		a.err = fmt.Errorf("forward: %w", err)
		return nil
	}
	a.ts = append(a.ts, t)
	return t
}

func (a *arena) ints(v []int32) backend.Tensor {
	t := a.alloc(backend.I32, len(v))
	if t != nil {
		if err := a.b.WriteInt32(t, v); err != nil && a.err == nil {
			a.err = fmt.Errorf("forward: %w", err)
		}
	}
	return t
}

func (a *arena) free() {
	for _, t := range a.ts {
		a.b.Free(t)
	}
}
