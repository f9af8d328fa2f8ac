// Sequence-level cache helpers for a server's scheduler: copying one sequence's cached context (attention keys and
// values, a hybrid's recurrent state) into another cache or sequence, whether a sequence may continue from an
// earlier position of what its cache holds, and what a cache costs in bytes. The prompt cache (internal/scheduler)
// is built on them; Forward and Generate do not use them.
package model

import (
	"errors"
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// CanCopySequences reports whether the backend copies this model's caches between sequences (CopySequence).
func (m *Model) CanCopySequences() bool {
	if _, ok := m.b.(backend.KVCopier); !ok {
		return false
	}
	if m.hybrid != nil {
		_, ok := m.b.(backend.StateCopier)
		return ok
	}
	return true
}

// CopySequence copies the first n positions of sequence srcSeq of src into sequence dstSeq of dst (both caches of
// this model, from NewCache): the keys and values of every attention layer and, for a hybrid model, the recurrent
// state, which must stand exactly at position n in src (a state cannot be cut back). Afterwards dstSeq continues
// at position n.
func (m *Model) CopySequence(dst backend.KVCache, dstSeq int, src backend.KVCache, srcSeq, n int) error {
	kc, ok := m.b.(backend.KVCopier)
	if !ok {
		return fmt.Errorf("copy sequence: %s copies no caches: %w", m.b.Name(), backend.ErrUnsupported)
	}
	dh, dHybrid := dst.(*hybridCache)
	sh, sHybrid := src.(*hybridCache)
	if dHybrid != sHybrid {
		return errors.New("copy sequence: a hybrid cache and a plain one")
	}
	if sHybrid {
		sc, ok := m.b.(backend.StateCopier)
		if !ok {
			return fmt.Errorf("copy sequence: %s copies no recurrent state: %w", m.b.Name(), backend.ErrUnsupported)
		}
		if at := sh.next[srcSeq]; int(at) != n {
			return fmt.Errorf("copy sequence: the recurrent state of sequence %d is at position %d, not %d", srcSeq, at, n)
		}
		if err := sc.CopyState(dh.state, dstSeq, sh.state, srcSeq); err != nil {
			return err
		}
	}
	if err := kc.CopyKV(kvOf(dst), dstSeq, kvOf(src), srcSeq, n); err != nil {
		return err
	}
	if dHybrid {
		dh.next[dstSeq] = int32(n)
	}
	return nil
}

// Rewindable reports whether, in a cache of maxLen positions, a sequence may go on from any position p below the
// one it reached (the positions from p on are overwritten by later rows): true for attention layers that keep
// every position. A hybrid's recurrent state only moves forward, and a sliding-window ring shorter than maxLen
// evicts position p−Window when p is stored, so for those a sequence continues only where it stopped. Speculative
// decoding (rejected drafts leave positions to overwrite) and prompt-cache reuse of a shorter prefix need it.
func (m *Model) Rewindable(maxLen int) bool {
	if m.hybrid != nil {
		return false
	}
	for _, l := range m.kvLayers() {
		if l.KVHeads > 0 && l.Window > 0 && l.Window < maxLen {
			return false
		}
	}
	return true
}

// CacheBytes is the memory a cache of seqs sequences × maxLen positions holds: float32 keys and values per layer
// slot (the CPU's and CUDA's cache element) and a hybrid's recurrent state.
func (m *Model) CacheBytes(seqs, maxLen int) int64 {
	const f32 = 4
	var floats int64
	if m.hybrid != nil {
		h := m.hybrid
		floats = int64(h.AttnLayers) * int64(maxLen) * 2 * int64(m.kvHeads*m.headDim)
		floats += int64(h.DeltaLayers) * (int64(h.ConvKernel-1)*int64(h.ConvDim) + int64(h.ValueHeads)*int64(h.KeyDim)*int64(h.ValueDim))
		return f32 * floats * int64(seqs)
	}
	if per := m.kvLayers(); per != nil {
		for _, l := range per {
			floats += int64(l.Slots(maxLen)) * 2 * int64(l.KVHeads*l.HeadDim)
		}
	} else {
		floats = int64(len(m.layers)) * int64(maxLen) * 2 * int64(m.kvHeads*m.headDim)
	}
	return f32 * floats * int64(seqs)
}
