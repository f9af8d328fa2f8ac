// Windowed attention (backend.WindowedAttention; the Gemma families, docs/gemma.md; kernels in
// shaders/cuda/attention_win.cu): a KV cache with per-layer geometry whose sliding-window layers keep a ring of
// Window slots, and AttentionWith (window, softcap, scale). The CPU backend (internal/cpu/attention.go) is the
// reference.

package cuda

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// windowedOps are the ops of this file Supports answers yes for.
var windowedOps = map[backend.Op]bool{backend.OpKVLayers: true, backend.OpWindowAttention: true, backend.OpSoftcapAttention: true}

// newLayeredCache allocates one pair of slot buffers per layer that stores anything: [seqs, slots, width] f32,
// slots = KVLayer.Slots(MaxLen) (a ring of Window slots on a sliding layer shorter than the context).
func (b *Backend) newLayeredCache(cfg backend.KVConfig) (backend.KVCache, error) {
	if cfg.Layers <= 0 || cfg.Seqs <= 0 || cfg.MaxLen <= 0 || len(cfg.PerLayer) != cfg.Layers {
		return nil, fmt.Errorf("cuda: kv cache: every dimension must be positive and PerLayer one entry a layer, got %+v", cfg)
	}
	c := &kvCache{b: b, cfg: cfg, perLayer: make([]kvLayer, cfg.Layers)}
	for i, l := range cfg.PerLayer {
		if l.KVHeads < 0 || l.HeadDim < 0 || l.Window < 0 || (l.KVHeads == 0) != (l.HeadDim == 0) {
			c.Release()
			return nil, fmt.Errorf("cuda: kv cache: layer %d: %+v", i, l)
		}
		slots := l.Slots(cfg.MaxLen)
		L := kvLayer{kvHeads: l.KVHeads, hd: l.HeadDim, slots: slots, ring: slots > 0 && slots < cfg.MaxLen}
		if slots > 0 {
			bytes := kvSize * cfg.Seqs * slots * l.KVHeads * l.HeadDim
			var err error
			if L.k, err = b.allocExact(bytes); err == nil {
				c.perLayer[i] = L // released with the cache should the second allocation fail
				L.v, err = b.allocExact(bytes)
			}
			if err != nil {
				c.Release()
				return nil, fmt.Errorf("cuda: kv cache layer %d (%d slots of %d×%d): %w", i, slots, l.KVHeads, l.HeadDim, err)
			}
		}
		c.perLayer[i] = L
	}
	return c, nil
}

// winCase is what the windowed forms' launches need beyond attnCase.
type winCase struct {
	attnCase
	g               kvGeom
	window          int
	scale, softcap  float32
	kn, vn          driver.DevPtr // this call's keys and values
	out, q, seq, ps driver.DevPtr
	seqs            int
}

// AttentionWith (backend.WindowedAttention): a layer without window or softcap takes Attention's forms over its
// slots; otherwise the windowed forms of attention_win.cu: split (≤ MaxDecodeRows rows, a grid that depends on the row
// count only, so recorded decode graphs replay) or rows. A ring layer reads the positions this call holds from
// its k and v rows and stores the rows after attending (not at all under DeferStore); any other layer stores
// first, as Attention does.
func (b *Backend) AttentionWith(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, o backend.AttnOptions) {
	b.attention(dst, q, k, v, cache, layer, seq, pos, o, nil)
}

// attention is AttentionWith after the head norms nr asks for (NormRopeAttention; nil: none): folded into the
// split form where attnNormFold takes them, else NormRopeQK first.
func (b *Backend) attention(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, o backend.AttnOptions, nr *normRopeReq) {
	c, ok := cache.(*kvCache)
	if !ok {
		panic(fmt.Sprintf("backend: Attention: cache of type %T is not a CUDA cache", cache))
	}
	cfg := c.cfg
	if layer < 0 || layer >= cfg.Layers {
		panic(fmt.Sprintf("backend: Attention: layer %d outside the cache's %d", layer, cfg.Layers))
	}
	g := c.geom(layer)
	d, qs, ks, vs := tensorOf("Attention", dst), tensorOf("Attention", q), tensorOf("Attention", k), tensorOf("Attention", v)
	st, pt := tensorOf("Attention", seq), tensorOf("Attention", pos)
	for _, t := range []*Tensor{d, qs, ks, vs} {
		wantDType("Attention", "activation", t, qs.dt)
	}
	wantDType("Attention", "q", qs, backend.F32, backend.BF16)
	wantDType("Attention", "seq", st, backend.I32)
	wantDType("Attention", "pos", pt, backend.I32)
	width := g.kvHeads * g.hd
	n, qc := dims(qs)
	if width == 0 || qc%g.hd != 0 || st.elems() != n || pt.elems() != n || ks.elems() != n*width || vs.elems() != n*width || d.elems() != n*qc {
		backend.ShapeError("Attention", "q, k, v", []any{qs.shape, ks.shape, vs.shape}, fmt.Sprintf("layer %d: rows of heads×%d, kv %d wide", layer, g.hd, width))
	}
	heads := qc / g.hd
	if heads%g.kvHeads != 0 {
		backend.ShapeError("Attention", "query heads", heads, fmt.Sprintf("a multiple of %d kv heads", g.kvHeads))
	}
	if g.ring && (o.Window <= 0 || o.Window > g.slots) {
		panic(fmt.Sprintf("backend: Attention: layer %d keeps a ring of %d positions, asked for window %d", layer, g.slots, o.Window))
	}
	if d.ptr == qs.ptr {
		panic("backend: Attention: dst aliases q")
	}
	if n == 0 {
		return
	}
	a := attnCase{n: n, heads: heads, kvHeads: g.kvHeads, hd: g.hd, act: qs.dt, run: oneRun(st, pt, n),
		rowsMax: int64(b.tune.attnRowsMax), chunkRows: b.tune.attnChunkRows, chunkMin: int64(b.tune.attnChunkMin),
		sms: b.info.SMs, smem: b.info.MaxSharedPerBlock}
	if len(pt.shadow) == n {
		for _, v := range pt.shadow {
			held := int64(v) + 1 // the positions the row reads: its window, or all before it
			if o.Window > 0 {
				held = min(held, int64(o.Window))
			}
			a.positions += held
		}
	}
	p := attnPtrs{out: d.ptr, q: qs.ptr, kc: g.k, vc: g.v, seq: st.ptr, pos: pt.ptr,
		seqs: cfg.Seqs, maxLen: g.slots, layer: g.layer, scale: o.Scale}
	if nr != nil {
		if p.norm = b.attnNormFold(a, g, o, qs, ks, pt, nr); p.norm == nil {
			b.NormRopeQK(q, k, pos, nr.wq, nr.wk, nr.qheads, nr.kheads, nr.eps, nr.table)
		}
	}
	if !g.ring && o.Window <= 0 && o.Softcap <= 0 {
		b.attendPlain(a, p, ks.ptr, vs.ptr, width)
		return
	}
	if a.hd > attnMaxHD() { // attnSupport refuses such a shape before loading
		b.fail(fmt.Errorf("cuda backend: windowed attention with head dim %d: %w", a.hd, backend.ErrUnsupported))
		return
	}
	w := winCase{attnCase: a, g: g, window: max(o.Window, 0), scale: o.Scale, softcap: max(o.Softcap, 0),
		kn: ks.ptr, vn: vs.ptr, out: d.ptr, q: qs.ptr, seq: st.ptr, ps: pt.ptr, seqs: cfg.Seqs}
	if !g.ring { // positions live in slot p: store first, as Attention does
		store := opName("kv_store", a.act)
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(g.k).Ptr(g.v).Ptr(w.kn).Ptr(w.vn).Ptr(w.seq).Ptr(w.ps).
				I32(int32(width)).I32(int32(g.layer)).I32(int32(w.seqs)).I32(int32(g.slots))
			return b.launch(store, driver.Dim3{X: n}, driver.Dim3{X: 128}, 0, args, float64(2*(kvSize+a.act.Size())*n*width+8*n))
		})
	}
	if n <= backend.MaxDecodeRows {
		b.logf("AttentionWith n=%d heads=%d/%d hd=%d window %d softcap %g ring %v: win_split", n, heads, g.kvHeads, g.hd, w.window, w.softcap, g.ring)
		enqueueWinSplit(b, w)
	} else {
		b.logf("AttentionWith n=%d heads=%d/%d hd=%d window %d softcap %g ring %v: win_rows", n, heads, g.kvHeads, g.hd, w.window, w.softcap, g.ring)
		enqueueWinRows(b, w)
	}
	if g.ring && !o.DeferStore { // after attending: a row's store may evict a position an earlier row still reads
		store := opName("kv_store_ring", a.act)
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(g.k).Ptr(g.v).Ptr(w.kn).Ptr(w.vn).Ptr(w.seq).Ptr(w.ps).
				I32(int32(n)).I32(int32(width)).I32(int32(w.seqs)).I32(int32(g.slots))
			return b.launch(store, driver.Dim3{X: n}, driver.Dim3{X: 128}, 0, args, float64(2*(kvSize+a.act.Size())*n*width+8*n))
		})
	}
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// winArgs are the arguments the split and rows forms share after their first pointer.
func (w winCase) winArgs(args *driver.Args) *driver.Args {
	ring := int32(boolInt(w.g.ring))
	return args.Ptr(w.q).Ptr(w.g.k).Ptr(w.g.v).Ptr(w.kn).Ptr(w.vn).Ptr(w.seq).Ptr(w.ps).I32(int32(w.n)).
		I32(int32(w.heads)).I32(int32(w.kvHeads)).I32(int32(w.hd)).I32(int32(w.seqs)).I32(int32(w.g.slots)).
		I32(ring).I32(int32(w.window)).F32(w.scale).F32(w.softcap)
}

func enqueueWinSplit(b *Backend, w winCase) {
	S := attnSplits(w.n, w.kvHeads, b.info.SMs)
	part, err := b.ensureScratch(4 * w.n * w.heads * S * (w.hd + 2))
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: attention scratch: %w", err))
		return
	}
	name, combine := winSplitName(attnEPT(w.hd), w.act), opName("attn_win_combine", w.act)
	bytes := float64(w.act.Size()*w.n*w.heads*w.hd) + w.kvBytes(w.g.slots)
	b.enqueue(func() error {
		if err := b.launch(name, driver.Dim3{X: S, Y: w.kvHeads, Z: w.n}, driver.Dim3{X: 128}, 0, w.winArgs(driver.NewArgs().Ptr(part)), bytes); err != nil {
			return err
		}
		args := driver.NewArgs().Ptr(w.out).Ptr(part).Ptr(w.seq).Ptr(w.ps).I32(int32(w.heads)).I32(int32(w.hd)).
			I32(int32(S)).I32(int32(w.seqs)).I32(int32(w.g.slots)).I32(int32(boolInt(w.g.ring))).I32(int32(w.window))
		return b.launch(combine, driver.Dim3{X: w.heads, Y: w.n}, driver.Dim3{X: 128}, 0, args, float64(w.n*w.heads*(S*4*(w.hd+2)+w.act.Size()*w.hd)))
	})
}

func enqueueWinRows(b *Backend, w winCase) {
	name := winRowsName(attnEPT(w.hd), w.act)
	bytes := float64(2*w.act.Size()*w.n*w.heads*w.hd) + w.kvBytes(w.g.slots)
	b.enqueue(func() error {
		return b.launch(name, driver.Dim3{X: 1, Y: w.kvHeads, Z: w.n}, driver.Dim3{X: 128}, 0, w.winArgs(driver.NewArgs().Ptr(w.out)), bytes)
	})
}
