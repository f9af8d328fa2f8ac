// Attention and the KV cache on the CPU: float32 keys and values, one slot per (layer, sequence, position).
package cpu

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

type kvCache struct {
	cfg  backend.KVConfig
	k, v []float32 // [layers, seqs, maxLen, kvHeads·headDim]
}

func (c *kvCache) Config() backend.KVConfig { return c.cfg }

// Release drops the cache's memory to the garbage collector.
func (c *kvCache) Release() { c.k, c.v = nil, nil }

func (c *kvCache) slot(layer, seq, pos int) int {
	width := c.cfg.KVHeads * c.cfg.HeadDim
	return ((layer*c.cfg.Seqs+seq)*c.cfg.MaxLen + pos) * width
}

func (b *Backend) NewKVCache(cfg backend.KVConfig) (backend.KVCache, error) {
	n := cfg.Layers * cfg.Seqs * cfg.MaxLen * cfg.KVHeads * cfg.HeadDim
	if cfg.Layers <= 0 || cfg.Seqs <= 0 || cfg.MaxLen <= 0 || cfg.KVHeads <= 0 || cfg.HeadDim <= 0 {
		return nil, fmt.Errorf("kv cache: every dimension must be positive, got %+v", cfg)
	}
	if mem := physicalMemory(); mem > 0 && int64(cfg.Layers)*int64(cfg.Seqs)*int64(cfg.MaxLen)*int64(cfg.KVHeads*cfg.HeadDim)*8 > mem {
		return nil, fmt.Errorf("kv cache: %d×%d positions need %.1f GiB of float32 keys and values, the machine has %.1f GiB: out of memory",
			cfg.Seqs, cfg.MaxLen, float64(int64(n)*8)/(1<<30), float64(mem)/(1<<30))
	}
	return &kvCache{cfg: cfg, k: make([]float32, n), v: make([]float32, n)}, nil
}

func (b *Backend) Attention(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, scale float32) {
	c := cache.(*kvCache)
	cfg := c.cfg
	width := cfg.KVHeads * cfg.HeadDim
	n, qc := dims(q)
	seqs, poss := i32(seq), i32(pos)
	if qc%cfg.HeadDim != 0 || len(seqs) != n || len(poss) != n || len(f32(k)) != n*width || len(f32(v)) != n*width {
		backend.ShapeError("Attention", "q, k, v", []any{q.Shape(), k.Shape(), v.Shape()}, fmt.Sprintf("rows of heads×%d, kv %d wide", cfg.HeadDim, width))
	}
	heads := qc / cfg.HeadDim
	if heads%cfg.KVHeads != 0 {
		backend.ShapeError("Attention", "query heads", heads, fmt.Sprintf("a multiple of %d kv heads", cfg.KVHeads))
	}
	ks, vs := f32(k), f32(v)
	for r := 0; r < n; r++ {
		s, p := int(seqs[r]), int(poss[r])
		if s < 0 || s >= cfg.Seqs || p < 0 || p >= cfg.MaxLen {
			panic(fmt.Sprintf("backend: Attention: row %d at (seq %d, pos %d) outside the cache's %d×%d", r, s, p, cfg.Seqs, cfg.MaxLen))
		}
		at := c.slot(layer, s, p)
		copy(c.k[at:at+width], ks[r*width:(r+1)*width])
		copy(c.v[at:at+width], vs[r*width:(r+1)*width])
	}
	qs, out := f32(q), f32(dst)
	hd, group := cfg.HeadDim, heads/cfg.KVHeads
	b.parallel(n*heads, func(lo, hi int) {
		scores := make([]float32, 0, 256)
		acc := make([]float32, hd)
		for item := lo; item < hi; item++ {
			r, h := item/heads, item%heads
			kvh := h / group
			s, p := int(seqs[r]), int(poss[r])
			qh := qs[r*qc+h*hd : r*qc+(h+1)*hd]
			base := c.slot(layer, s, 0) + kvh*hd
			scores = scores[:0]
			maxScore := float32(math.Inf(-1))
			for t := 0; t <= p; t++ {
				sc := dot(qh, c.k[base+t*width:base+t*width+hd]) * scale
				scores = append(scores, sc)
				maxScore = max(maxScore, sc)
			}
			var sum float32
			for t, sc := range scores {
				e := float32(math.Exp(float64(sc - maxScore)))
				scores[t] = e
				sum += e
			}
			clear(acc)
			for t, e := range scores {
				vt := c.v[base+t*width : base+t*width+hd]
				for j := range acc {
					acc[j] += e * vt[j]
				}
			}
			o := out[r*qc+h*hd : r*qc+(h+1)*hd]
			inv := 1 / sum
			for j := range o {
				o[j] = acc[j] * inv
			}
		}
	})
}
