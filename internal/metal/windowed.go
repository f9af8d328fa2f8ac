// backend.WindowedAttention on Metal (the Gemma families): caches whose layers differ (KVConfig.PerLayer: each
// layer its own slots, a sliding-window layer a ring of Window slots, a layer sharing another's keys none) and
// AttentionWith's window, softcap and deferred store, planned by PlanWinAttention (attention_win.metal). A uniform
// cache serves AttentionWith too, the layer's part of it bound as a view.
package metal

import (
	"fmt"
	"math"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
)

var _ backend.WindowedAttention = (*Backend)(nil)

// kvLayer is one layer of a per-layer cache: f32 [seqs, slots, kvHeads·hd] keys and values (nil: no slots).
type kvLayer struct {
	k, v        *Tensor
	kvHeads, hd int
	slots       int
	ring        bool
}

func (c *kvCache) releaseLayers() {
	for i, l := range c.layers {
		if l.k != nil {
			c.b.Free(l.k)
		}
		if l.v != nil {
			c.b.Free(l.v)
		}
		c.layers[i].k, c.layers[i].v = nil, nil
	}
}

func (b *Backend) newLayeredCache(cfg backend.KVConfig) (backend.KVCache, error) {
	if cfg.Layers <= 0 || cfg.Seqs <= 0 || cfg.MaxLen <= 0 || len(cfg.PerLayer) != cfg.Layers {
		return nil, fmt.Errorf("metal: kv cache: every dimension must be positive and PerLayer one entry a layer, got %+v", cfg)
	}
	c := &kvCache{b: b, cfg: cfg, layers: make([]kvLayer, cfg.Layers)}
	for i, l := range cfg.PerLayer {
		if l.KVHeads < 0 || l.HeadDim < 0 || l.Window < 0 || (l.KVHeads == 0) != (l.HeadDim == 0) {
			c.releaseLayers()
			return nil, fmt.Errorf("metal: kv cache: layer %d: %+v", i, l)
		}
		slots := l.Slots(cfg.MaxLen)
		L := kvLayer{kvHeads: l.KVHeads, hd: l.HeadDim, slots: slots, ring: slots > 0 && slots < cfg.MaxLen}
		if slots > 0 {
			shape := []int{cfg.Seqs, slots, l.KVHeads * l.HeadDim}
			var err error
			if L.k, err = b.newTensor(backend.F32, shape); err == nil {
				c.layers[i] = L // released with the cache should the second allocation fail
				L.v, err = b.newTensor(backend.F32, shape)
			}
			if err != nil {
				c.releaseLayers()
				return nil, fmt.Errorf("metal: kv cache layer %d (%d slots of %d×%d): %w", i, slots, l.KVHeads, l.HeadDim, err)
			}
		}
		c.layers[i] = L
	}
	return c, nil
}

// layer is layer i's slots: its own buffers, or the uniform cache's part as views.
func (c *kvCache) layer(i int) kvLayer {
	if c.layers != nil {
		return c.layers[i]
	}
	cfg := c.cfg
	width := cfg.KVHeads * cfg.HeadDim
	off := i * cfg.Seqs * cfg.MaxLen * width * 4
	view := func(t *Tensor) *Tensor {
		return &Tensor{buf: t.buf, off: t.off + off, shape: []int{cfg.Seqs, cfg.MaxLen, width}, dt: backend.F32, view: true}
	}
	return kvLayer{k: view(c.k), v: view(c.v), kvHeads: cfg.KVHeads, hd: cfg.HeadDim, slots: cfg.MaxLen}
}

// AttentionWith is Attention with a window, a score softcap and a deferred store over any cache of this backend.
func (b *Backend) AttentionWith(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, o backend.AttnOptions) {
	d, qq, kk, vv := tensorOf("Attention", dst), tensorOf("Attention", q), tensorOf("Attention", k), tensorOf("Attention", v)
	s, p := tensorOf("Attention", seq), tensorOf("Attention", pos)
	c, ok := cache.(*kvCache)
	if !ok {
		panic(fmt.Sprintf("metal: Attention: %T is not a Metal cache", cache))
	}
	if !b.f32("Attention", d, qq, kk, vv) {
		return
	}
	if layer < 0 || layer >= c.cfg.Layers || math.IsNaN(float64(o.Scale)) {
		b.fail(fmt.Errorf("metal: attention: layer %d of %d, scale %v", layer, c.cfg.Layers, o.Scale))
		return
	}
	L := c.layer(layer)
	if L.k == nil {
		b.fail(fmt.Errorf("metal: attention: layer %d stores no keys (it attends over another layer's)", layer))
		return
	}
	n, qw := rows2("Attention", "q", qq)
	kvw := L.kvHeads * L.hd
	if qw%L.hd != 0 || !slices.Equal(kk.shape, []int{n, kvw}) || !slices.Equal(vv.shape, kk.shape) || !slices.Equal(d.shape, qq.shape) ||
		s.elems() != n || p.elems() != n {
		backend.ShapeError("Attention", "q, k, v, dst", [][]int{qq.shape, kk.shape, vv.shape, d.shape}, fmt.Sprintf("layer %d: k, v [n %d]", layer, kvw))
	}
	if d.buf == qq.buf && d.off == qq.off {
		panic("backend: Attention: dst aliases q")
	}
	if n == 0 {
		return
	}
	plan, err := PlanWinAttention(b.fam, WinCase{N: n, Heads: qw / L.hd, KVHeads: L.kvHeads, HeadDim: L.hd, Seqs: c.cfg.Seqs, Slots: L.slots,
		Ring: L.ring, Window: max(o.Window, 0), Scale: o.Scale, Softcap: max(o.Softcap, 0), Store: !L.ring || !o.DeferStore})
	if err != nil {
		b.fail(fmt.Errorf("layer %d: %w", layer, err))
		return
	}
	b.run(plan, map[Role]*Tensor{RoleDst: d, RoleQ: qq, RoleKCache: L.k, RoleVCache: L.v, RoleK: kk, RoleV: vv, RoleSeq: s, RolePos: p})
}
