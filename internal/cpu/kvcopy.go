// Sequence copies on the CPU (backend.KVCopier, backend.StateCopier): plain slice copies of a sequence's slots
// and of its recurrent state, used by the server's prompt cache.
package cpu

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func (b *Backend) CopyKV(dst backend.KVCache, dstSeq int, src backend.KVCache, srcSeq, n int) error {
	d, ok1 := dst.(*kvCache)
	s, ok2 := src.(*kvCache)
	if !ok1 || !ok2 {
		return fmt.Errorf("copy kv: caches of another backend (%T, %T)", dst, src)
	}
	if len(d.layers) != len(s.layers) || dstSeq < 0 || dstSeq >= d.cfg.Seqs || srcSeq < 0 || srcSeq >= s.cfg.Seqs ||
		n < 0 || n > d.cfg.MaxLen {
		return fmt.Errorf("copy kv: %d positions of sequence %d (%d layers, %d×%d) into sequence %d (%d layers, %d×%d)",
			n, srcSeq, len(s.layers), s.cfg.Seqs, s.cfg.MaxLen, dstSeq, len(d.layers), d.cfg.Seqs, d.cfg.MaxLen)
	}
	for i := range d.layers {
		D, S := &d.layers[i], &s.layers[i]
		if D.heads != S.heads || D.hd != S.hd {
			return fmt.Errorf("copy kv: layer %d is %d×%d in one cache and %d×%d in the other", i, D.heads, D.hd, S.heads, S.hd)
		}
		if D.slots == 0 {
			continue
		}
		width := D.heads * D.hd
		lo := 0
		if D.ring {
			lo = max(0, n-D.slots)
			held := D.held[dstSeq*D.slots : (dstSeq+1)*D.slots]
			for j := range held {
				held[j] = -1
			}
		}
		for p := lo; p < n; p++ {
			if S.ring && S.held[srcSeq*S.slots+p%S.slots] != int32(p) || !S.ring && p >= S.slots {
				return fmt.Errorf("copy kv: layer %d of the source no longer holds position %d of sequence %d", i, p, srcSeq)
			}
			from, to := S.slot(srcSeq, p), D.slot(dstSeq, p)
			copy(D.k[to:to+width], S.k[from:from+width])
			copy(D.v[to:to+width], S.v[from:from+width])
			if D.ring {
				D.held[dstSeq*D.slots+p%D.slots] = int32(p)
			}
		}
	}
	return nil
}

func (b *Backend) CopyState(dst backend.RecurrentState, dstSeq int, src backend.RecurrentState, srcSeq int) error {
	d, ok1 := dst.(*recurrentState)
	s, ok2 := src.(*recurrentState)
	if !ok1 || !ok2 {
		return fmt.Errorf("copy state: states of another backend (%T, %T)", dst, src)
	}
	dc, sc := d.cfg, s.cfg
	dc.Seqs, sc.Seqs = 0, 0
	if dc != sc || dstSeq < 0 || dstSeq >= d.cfg.Seqs || srcSeq < 0 || srcSeq >= s.cfg.Seqs {
		return fmt.Errorf("copy state: sequence %d of %+v into sequence %d of %+v", srcSeq, s.cfg, dstSeq, d.cfg)
	}
	for l := range dc.Layers {
		copy(d.convAt(l, dstSeq), s.convAt(l, srcSeq))
		for h := range dc.ValueHeads {
			copy(d.matrix(l, dstSeq, h), s.matrix(l, srcSeq, h))
		}
	}
	return nil
}
