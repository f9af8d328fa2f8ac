// Sequence copies of the KV cache on CUDA (backend.KVCopier) for the server's prompt cache: one device-to-device
// copy of each layer's keys and values of a sequence, queued on the stream like any op. Only the uniform layout
// ([layers, seqs, maxLen, kvHeads·headDim], attention.go) is served; a per-layer cache answers ErrUnsupported and
// the prompt cache then falls back to prefilling. NOT YET RUN ON A GPU: scripts/device/serve-check.sh checks it.
package cuda

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

func (b *Backend) CopyKV(dst backend.KVCache, dstSeq int, src backend.KVCache, srcSeq, n int) error {
	d, ok1 := dst.(*kvCache)
	s, ok2 := src.(*kvCache)
	if !ok1 || !ok2 {
		return fmt.Errorf("cuda: copy kv: caches of another backend (%T, %T)", dst, src)
	}
	if d.perLayer != nil || s.perLayer != nil {
		return fmt.Errorf("cuda: copy kv between per-layer caches: %w", backend.ErrUnsupported)
	}
	dc, sc := d.cfg, s.cfg
	if dc.Layers != sc.Layers || dc.KVHeads != sc.KVHeads || dc.HeadDim != sc.HeadDim || dstSeq < 0 || dstSeq >= dc.Seqs ||
		srcSeq < 0 || srcSeq >= sc.Seqs || n < 0 || n > dc.MaxLen || n > sc.MaxLen {
		return fmt.Errorf("cuda: copy kv: %d positions of sequence %d of %+v into sequence %d of %+v", n, srcSeq, sc, dstSeq, dc)
	}
	if n == 0 {
		return nil
	}
	width := int64(dc.KVHeads * dc.HeadDim)
	at := func(cfg backend.KVConfig, layer, seq int) driver.DevPtr {
		return driver.DevPtr(kvSize * (int64(layer)*int64(cfg.Seqs) + int64(seq)) * int64(cfg.MaxLen) * width)
	}
	bytes := int(kvSize * int64(n) * width)
	b.enqueue(func() error {
		for l := range dc.Layers {
			to, from := at(dc, l, dstSeq), at(sc, l, srcSeq)
			if err := b.stream.MemcpyDtoDAsync(d.k+to, s.k+from, bytes); err != nil {
				return err
			}
			if err := b.stream.MemcpyDtoDAsync(d.v+to, s.v+from, bytes); err != nil {
				return err
			}
		}
		return nil
	})
	return nil
}
