// Attention and the KV cache on the CPU: float32 keys and values, one slot per (layer, sequence, position) — or,
// for a sliding-window layer whose window is shorter than the context, a ring of Window slots per sequence.
package cpu

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func init() {
	for _, op := range []backend.Op{backend.OpAttention, backend.OpKVLayers, backend.OpWindowAttention, backend.OpSoftcapAttention} {
		extraOps[op] = true
	}
}

type kvCache struct {
	cfg    backend.KVConfig
	layers []kvLayer
}

// kvLayer is one layer's slots: k, v [seqs, slots, kvHeads·headDim]; a ring layer (slots < MaxLen) also records
// the position each slot holds (held [seqs, slots], −1 when empty).
type kvLayer struct {
	heads, hd, slots int
	ring             bool
	k, v             []float32
	held             []int32
}

func (c *kvCache) Config() backend.KVConfig { return c.cfg }

// Release drops the cache's memory to the garbage collector.
func (c *kvCache) Release() { c.layers = nil }

// Bytes is the memory the cache's keys and values take (tests check that ring layers stay within the window).
func (c *kvCache) Bytes() int64 {
	var n int64
	for _, L := range c.layers {
		n += 4 * int64(len(L.k)+len(L.v))
	}
	return n
}

// slot is the offset of (seq, pos) in a layer's k and v.
func (L *kvLayer) slot(seq, pos int) int {
	return (seq*L.slots + pos%L.slots) * L.heads * L.hd
}

func (b *Backend) NewKVCache(cfg backend.KVConfig) (backend.KVCache, error) {
	if cfg.Layers <= 0 || cfg.Seqs <= 0 || cfg.MaxLen <= 0 || (cfg.PerLayer == nil && (cfg.KVHeads <= 0 || cfg.HeadDim <= 0)) ||
		(cfg.PerLayer != nil && len(cfg.PerLayer) != cfg.Layers) {
		return nil, fmt.Errorf("kv cache: every dimension must be positive, got %+v", cfg)
	}
	var floats int64
	for i := range cfg.Layers {
		l := cfg.Layer(i)
		if l.KVHeads < 0 || l.HeadDim < 0 || l.Window < 0 || (l.KVHeads == 0) != (l.HeadDim == 0) {
			return nil, fmt.Errorf("kv cache: layer %d: %+v", i, l)
		}
		floats += int64(cfg.Seqs) * int64(l.Slots(cfg.MaxLen)) * int64(l.KVHeads*l.HeadDim)
	}
	if mem := physicalMemory(); mem > 0 && floats*8 > mem {
		return nil, fmt.Errorf("kv cache: %d×%d positions need %.1f GiB of float32 keys and values, the machine has %.1f GiB: out of memory",
			cfg.Seqs, cfg.MaxLen, float64(floats*8)/(1<<30), float64(mem)/(1<<30))
	}
	c := &kvCache{cfg: cfg, layers: make([]kvLayer, cfg.Layers)}
	for i := range c.layers {
		l := cfg.Layer(i)
		slots := l.Slots(cfg.MaxLen)
		n := cfg.Seqs * slots * l.KVHeads * l.HeadDim
		L := kvLayer{heads: l.KVHeads, hd: l.HeadDim, slots: slots, ring: slots < cfg.MaxLen && slots > 0,
			k: make([]float32, n), v: make([]float32, n)}
		if L.ring {
			L.held = make([]int32, cfg.Seqs*slots)
			for j := range L.held {
				L.held[j] = -1
			}
		}
		c.layers[i] = L
	}
	return c, nil
}

func (b *Backend) Attention(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, scale float32) {
	b.AttentionWith(dst, q, k, v, cache, layer, seq, pos, backend.AttnOptions{Scale: scale})
}

// AttentionWith is the reference of backend.WindowedAttention. Scores are float32 q·k products times the scale,
// capped when asked, and softmaxed in float32 over the positions in the row's window, oldest first.
func (b *Backend) AttentionWith(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, o backend.AttnOptions) {
	c := cache.(*kvCache)
	cfg := c.cfg
	L := &c.layers[layer]
	width, hd := L.heads*L.hd, L.hd
	n, qc := dims(q)
	seqs, poss := i32(seq), i32(pos)
	if width == 0 || qc%hd != 0 || len(seqs) != n || len(poss) != n || len(f32(k)) != n*width || len(f32(v)) != n*width {
		backend.ShapeError("Attention", "q, k, v", []any{q.Shape(), k.Shape(), v.Shape()}, fmt.Sprintf("layer %d: rows of heads×%d, kv %d wide", layer, hd, width))
	}
	heads := qc / hd
	if heads%L.heads != 0 {
		backend.ShapeError("Attention", "query heads", heads, fmt.Sprintf("a multiple of %d kv heads", L.heads))
	}
	if L.ring && (o.Window <= 0 || o.Window > L.slots) {
		panic(fmt.Sprintf("backend: Attention: layer %d keeps a ring of %d positions, asked for window %d", layer, L.slots, o.Window))
	}
	for r := 0; r < n; r++ {
		if s, p := int(seqs[r]), int(poss[r]); s < 0 || s >= cfg.Seqs || p < 0 || p >= cfg.MaxLen {
			panic(fmt.Sprintf("backend: Attention: row %d at (seq %d, pos %d) outside the cache's %d×%d", r, s, p, cfg.Seqs, cfg.MaxLen))
		}
	}
	ks, vs := f32(k), f32(v)
	store := func() {
		for r := 0; r < n; r++ {
			s, p := int(seqs[r]), int(poss[r])
			at := L.slot(s, p)
			copy(L.k[at:at+width], ks[r*width:(r+1)*width])
			copy(L.v[at:at+width], vs[r*width:(r+1)*width])
			if L.ring {
				L.held[s*L.slots+p%L.slots] = int32(p)
			}
		}
	}
	// src[r] lists, for each position row r attends (oldest first), where its key and value start: ≥ 0 an
	// offset into the layer's slots, < 0 the row −1−src of this call's k and v (times width). Without a ring
	// every position is read from the cache, written first.
	var src [][]int
	if L.ring {
		src = ringSources(L, seqs, poss, o.Window, width, layer)
	} else {
		store()
	}
	qs, out := f32(q), f32(dst)
	group := heads / L.heads
	b.parallel(n*heads, func(lo, hi int) {
		scores := make([]float32, 0, 256)
		acc := make([]float32, hd)
		for item := lo; item < hi; item++ {
			r, h := item/heads, item%heads
			kvh := h / group
			s, p := int(seqs[r]), int(poss[r])
			qh := qs[r*qc+h*hd : r*qc+(h+1)*hd]
			first := 0
			if o.Window > 0 {
				first = max(0, p-o.Window+1)
			}
			keyAt := func(j int) ([]float32, []float32) {
				if src != nil {
					if e := src[r][j]; e < 0 {
						off := (-1-e)*width + kvh*hd
						return ks[off : off+hd], vs[off : off+hd]
					}
					off := src[r][j] + kvh*hd
					return L.k[off : off+hd], L.v[off : off+hd]
				}
				off := L.slot(s, first+j) + kvh*hd
				return L.k[off : off+hd], L.v[off : off+hd]
			}
			scores = scores[:0]
			maxScore := float32(math.Inf(-1))
			for j := 0; j <= p-first; j++ {
				kt, _ := keyAt(j)
				sc := dot(qh, kt) * o.Scale
				if o.Softcap > 0 {
					sc = softcap(sc, o.Softcap)
				}
				scores = append(scores, sc)
				maxScore = max(maxScore, sc)
			}
			var sum float32
			for j, sc := range scores {
				e := float32(math.Exp(float64(sc - maxScore)))
				scores[j] = e
				sum += e
			}
			clear(acc)
			for j, e := range scores {
				_, vt := keyAt(j)
				for d := range acc {
					acc[d] += e * vt[d]
				}
			}
			res := out[r*qc+h*hd : r*qc+(h+1)*hd]
			inv := 1 / sum
			for d := range res {
				res[d] = acc[d] * inv
			}
		}
	})
	if L.ring && !o.DeferStore {
		store()
	}
}

// ringSources finds, for every row of a call on a ring layer, where each position of its window is: among this
// call's rows (the last one wins) or in the ring, which must still hold it.
func ringSources(L *kvLayer, seqs, poss []int32, window, width, layer int) [][]int {
	inCall := make(map[[2]int32]int, len(seqs))
	for r := range seqs {
		inCall[[2]int32{seqs[r], poss[r]}] = r
	}
	src := make([][]int, len(seqs))
	for r := range seqs {
		s, p := int(seqs[r]), int(poss[r])
		first := max(0, p-window+1)
		src[r] = make([]int, 0, p-first+1)
		for t := first; t <= p; t++ {
			if r2, ok := inCall[[2]int32{int32(s), int32(t)}]; ok {
				src[r] = append(src[r], -1-r2)
				continue
			}
			if held := L.held[s*L.slots+t%L.slots]; held != int32(t) {
				panic(fmt.Sprintf("backend: Attention: layer %d, sequence %d: position %d is neither in the call nor in the ring of %d (its slot holds %d): positions must go forward",
					layer, s, t, L.slots, held))
			}
			src[r] = append(src[r], L.slot(s, t))
		}
	}
	return src
}
