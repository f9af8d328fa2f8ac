// The KV cache and Attention: this step's keys and values are stored into the f32 cache (kv_store), then one of
// the attention forms of shaders/cuda/attention.cu runs, picked by the table attnForms (under tuning.attnStore a
// decode batch's split form stores them itself, one launch fewer). q, k, v and the output are
// activations (F32, or BF16 for tests and tools). The cache is f32 (kvSize) although a bf16 one would halve it:
// with f32 activations and a bf16 cache the fixture models' prompt logits stayed ~4e-3·max|ref| from the f32
// oracle, enough to flip near-ties (golden top-2 gaps down to 7e-4); decode reads weights 50-100× the cache's
// bytes at the contexts benchmarked, so the speed cost is within noise.

package cuda

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// kvSize is the bytes of one cache element (kv_t in common.cuh: f32).
const kvSize = 4

// kvCache is [layers, seqs, maxLen, kvHeads·headDim] f32 keys and the same for values; a cache with per-layer
// geometry (KVConfig.PerLayer, the Gemmas) instead holds one [seqs, slots, kvHeads·headDim] pair per layer
// (perLayer), a sliding-window layer's slots a ring of Window positions (windowed.go).
type kvCache struct {
	b        *Backend
	cfg      backend.KVConfig
	k, v     driver.DevPtr
	perLayer []kvLayer
}

// kvLayer is one layer's slots in a per-layer cache (k, v zero: the layer stores nothing).
type kvLayer struct {
	k, v               driver.DevPtr
	kvHeads, hd, slots int
	ring               bool // slots < MaxLen: position p lives in slot p mod slots
}

// kvGeom is what the attention kernels see of one layer: the base of its slots, the layer index relative to
// that base, its geometry and whether it is a ring.
type kvGeom struct {
	k, v        driver.DevPtr
	layer       int
	kvHeads, hd int
	slots       int // positions per sequence (MaxLen, or the window of a ring layer)
	ring        bool
}

func (c *kvCache) geom(layer int) kvGeom {
	if c.perLayer == nil {
		return kvGeom{k: c.k, v: c.v, layer: layer, kvHeads: c.cfg.KVHeads, hd: c.cfg.HeadDim, slots: c.cfg.MaxLen}
	}
	L := c.perLayer[layer]
	return kvGeom{k: L.k, v: L.v, kvHeads: L.kvHeads, hd: L.hd, slots: L.slots, ring: L.ring}
}

func (c *kvCache) Config() backend.KVConfig { return c.cfg }

// Release frees the cache once queued work is done with it.
func (c *kvCache) Release() {
	ptrs := []driver.DevPtr{c.k, c.v}
	for _, L := range c.perLayer {
		ptrs = append(ptrs, L.k, L.v)
	}
	ptrs = slices.DeleteFunc(ptrs, func(p driver.DevPtr) bool { return p == 0 })
	if len(ptrs) == 0 {
		return
	}
	b := c.b
	if err := b.syncFlush(); err == nil {
		b.fail(b.dev.Do(func() error {
			var errs []error
			for _, p := range ptrs {
				errs = append(errs, b.mem.release(p))
			}
			return firstErr(errs...)
		}))
	}
	c.k, c.v, c.perLayer = 0, 0, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (b *Backend) NewKVCache(cfg backend.KVConfig) (backend.KVCache, error) {
	if cfg.PerLayer != nil {
		return b.newLayeredCache(cfg)
	}
	if cfg.Layers <= 0 || cfg.Seqs <= 0 || cfg.MaxLen <= 0 || cfg.KVHeads <= 0 || cfg.HeadDim <= 0 {
		return nil, fmt.Errorf("cuda: kv cache: every dimension must be positive, got %+v", cfg)
	}
	bytes := kvSize * cfg.Layers * cfg.Seqs * cfg.MaxLen * cfg.KVHeads * cfg.HeadDim
	c := &kvCache{b: b, cfg: cfg}
	var err error
	if c.k, err = b.allocExact(bytes); err != nil {
		return nil, fmt.Errorf("cuda: kv cache %+v: %w", cfg, err)
	}
	if c.v, err = b.allocExact(bytes); err != nil {
		b.dev.Do(func() error { return b.mem.release(c.k) })
		return nil, fmt.Errorf("cuda: kv cache %+v: %w", cfg, err)
	}
	return c, nil
}

// attnMinChunk and attnMaxSplits must match ATTN_MIN_CHUNK and ATTN_MAX_SPLITS in attention.cu; attnWideDV and
// attnWideBK ATTN_WIDE_DV and ATTN_WIDE_BK.
const (
	attnMinChunk  = 8
	attnMaxSplits = 128
	attnWideDV    = 128
	attnWideBK    = 32
)

// attnPromptWideSmem is the dynamic shared memory of attn_prompt_wide_hd{hd}: q's 64 rows and a K tile of
// attnWideBK rows over the whole head, V's tile over one attnWideDV slice, bf16 rows padded by 8 (108.5 KiB at
// 512: opt-in, allowed at Open; H200: 227 KiB a block).
func attnPromptWideSmem(hd int) int {
	return 2 * ((64+attnWideBK)*(hd+8) + attnWideBK*(attnWideDV+8))
}

// attnCase is what kernel selection sees of one Attention call.
type attnCase struct {
	n, heads, kvHeads, hd int
	act                   backend.DType // q, k, v and output dtype
	run                   bool          // rows are one sequence at consecutive positions (known from the written values)
	positions             int64         // Σ (pos[r]+1) as last written, for the profiler's byte count; 0 when unknown
	rowsMax               int64         // tuning.attnRowsMax: prompt chunks of less work run the f32 rows form
	chunkRows             int           // tuning.attnChunkRows: the most rows of a chunk the chunk form takes (0: none)
	chunkMin              int64         // tuning.attnChunkMin: chunks of less work keep the f32 split form
	sms                   int           // multiprocessors (the split form's reach beyond decode batches)
	smem                  int           // the device's opt-in shared memory a block (0: unknown, as Supports asks)
}

// promptForm reports whether the tensor-core prompt kernels have a at its head dim: the narrow form, or the
// wide one where the device allows its shared memory (any device when unknown: the rows form stands behind).
func (a attnCase) promptForm() bool {
	if slices.Contains(attnPromptHDs, a.hd) {
		return true
	}
	return slices.Contains(attnPromptWideHDs, a.hd) && (a.smem == 0 || a.smem >= attnPromptWideSmem(a.hd))
}

// chunkForm reports whether the chunk form has a kernel at a's head dim: attn_chunk_hd* at the narrow prompt
// head dims, attn_chunk_wide_hd* at the wide ones where the device allows its shared memory (as promptForm).
func (a attnCase) chunkForm() bool {
	if slices.Contains(attnPromptHDs, a.hd) {
		return true
	}
	return slices.Contains(attnPromptWideHDs, a.hd) && (a.smem == 0 || a.smem >= attnPromptWideSmem(a.hd))
}

// kvBytes is the cache traffic of reading every row's keys and values once per kv head (an estimate of half the
// cache per row when the positions are unknown).
func (a attnCase) kvBytes(maxLen int) float64 {
	per := float64(2 * kvSize * a.kvHeads * a.hd)
	if a.positions > 0 {
		return per * float64(a.positions)
	}
	return per * float64(a.n) * float64(maxLen) / 2
}

type attnForm struct {
	name     string
	supports func(a attnCase) bool
	enqueue  func(b *Backend, a attnCase, p attnPtrs)
}

type attnPtrs struct {
	out, q, kc, vc, seq, pos driver.DevPtr
	kn, vn                   driver.DevPtr // this step's keys and values, where the split form stores them (attn_split_store)
	seqs, maxLen, layer      int
	scale                    float32
	norm                     *attnNorm // the head norms the split form applies itself (attn_split_norm), or nil
}

// attnNorm is what attn_split_norm takes beyond attn_split_store: rmsnorm_rope_qk's operands.
type attnNorm struct {
	wq, wk, freqs driver.DevPtr
	dims, trad    int32
	prescale, eps float32
}

// attnForms is Attention's selection table, most specific first.
//
//   - split: decode batches (n ≤ 8): flash-decoding over the positions with a grid that depends only on n, so a
//     recorded graph replays at every position.
//   - prompt: one sequence at consecutive positions (a prompt chunk), head dims the tensor-core kernels have
//     (attnPromptHDs; attnPromptWideHDs where the device's shared memory allows attnPromptWideSmem), with
//     more work than tuning.attnRowsMax (2^16: a prompt of up to ~360 tokens from position 0, where either form
//     takes a few µs; the rows form keeps q and the softmax weights in f32 where the tensor-core form rounds q, K,
//     V and P to bf16).
//   - split again for the other chunks of few rows (n·kv_heads < 4 blocks per multiprocessor): the rows form would
//     give each of its n·kv_heads blocks a whole context to walk — a 16-row chunk at position 2032 of Qwen3-14B
//     (the follow-up prompt of a cached conversation) runs 128 blocks over 2048 positions each, where the split
//     form, sized by the chunk's positions (enqueueAttnSplit), spreads the same work over 4,096 blocks of 64.
//   - chunk: a prompt chunk of a few rows (at most tuning.attnChunkRows) deep in a context (more work than
//     tuning.attnChunkMin), at the prompt head dims (chunkForm): the follow-up of a cached conversation. The prompt form
//     gives such a chunk one block per query head walking the whole context (40 blocks for Qwen3-14B), and the
//     split form reads every kv head's context once per row; the chunk form reads it once per block for all the
//     chunk's rows and query heads, split over the positions, on tensor cores. At the wide head dims (256: Qwen3.5's
//     full attention, 512: Gemma 4's global layers) attn_chunk_wide_hd* does the same with the output split over
//     attnWideDV-dim blocks, as the wide prompt form.
//   - rows: anything else (one block per row and kv head).
var attnForms = []attnForm{
	{name: "split", supports: func(a attnCase) bool { return a.n <= maxGemvRows && a.hd <= attnMaxHD() }, enqueue: enqueueAttnSplit},
	{name: "chunk", supports: func(a attnCase) bool {
		return a.run && a.n <= a.chunkRows && a.chunkForm() && a.positions > a.chunkMin
	}, enqueue: enqueueAttnChunk},
	{name: "prompt", supports: func(a attnCase) bool {
		return a.run && a.promptForm() && (a.positions == 0 || a.positions > a.rowsMax)
	}, enqueue: enqueueAttnPrompt},
	{name: "split", supports: func(a attnCase) bool {
		return a.n*a.kvHeads < 4*a.sms && a.hd <= attnMaxHD()
	}, enqueue: enqueueAttnSplit},
	{name: "rows", supports: func(a attnCase) bool { return a.hd <= attnMaxHD() }, enqueue: enqueueAttnRows},
}

// attnMaxHD is the widest head the decode and rows forms take (32 lanes × the widest dims per lane).
func attnMaxHD() int { return 32 * attnEPTs[len(attnEPTs)-1] }

// attnFormOf is the form of attnForms a plain Attention call takes, "" when none serves it.
func attnFormOf(a attnCase) string {
	for _, f := range attnForms {
		if f.supports(a) {
			return f.name
		}
	}
	return ""
}

// attnSupport is Supports for an attention shape at rows (0: prompts and decode steps alike): why no form
// serves it, or "". It asks the same tables a call selects from (attnForms; the windowed forms take any head
// dim up to attnMaxHD), so a shape answered yes here cannot fail for want of a kernel mid-forward.
func attnSupport(s backend.AttnShape, rows int) string {
	if s.Heads <= 0 || s.KVHeads <= 0 || s.HeadDim <= 0 || s.Heads%s.KVHeads != 0 {
		return fmt.Sprintf("attention of %s: heads must be a positive multiple of kv heads", s)
	}
	ns := []int{rows}
	if rows == 0 { // a decode step and a prompt chunk
		ns = []int{1, backend.MaxDecodeRows, backend.MaxDecodeRows + 1}
	}
	for _, n := range ns {
		kind := "decode"
		if n > backend.MaxDecodeRows {
			kind = "prompt"
		}
		if s.Window || s.Softcap {
			if s.HeadDim > attnMaxHD() {
				return fmt.Sprintf("%s windowed attention with head dim %d: the kernels take up to %d", kind, s.HeadDim, attnMaxHD())
			}
			continue
		}
		for _, run := range []bool{true, false} { // a prompt chunk, or rows of several sequences
			a := attnCase{n: n, heads: s.Heads, kvHeads: s.KVHeads, hd: s.HeadDim, run: run}
			if attnFormOf(a) == "" {
				return fmt.Sprintf("%s attention with head dim %d: no kernel form (decode and rows forms up to %d, the prompt form at %v)",
					kind, s.HeadDim, attnMaxHD(), attnPromptHDs)
			}
		}
	}
	return ""
}

// attnEPT is the smallest instantiated dims-per-lane that covers hd.
func attnEPT(hd int) int {
	for _, e := range attnEPTs {
		if 32*e >= hd {
			return e
		}
	}
	return 0
}

// attnSplits is the number of position slices per (row, kv head) of the split form: enough blocks for about four
// per multiprocessor, at most 128. Blocks past a row's position exit at once, so a long cache costs only the
// combine's loop over the slices holding positions. (32-position slices and at most 64 of them measured
// 18 µs per layer at position 512 for Qwen3-14B, latency-bound: H200 2026-11-29.)
func attnSplits(n, kvHeads, sms int) int {
	s := (4*sms + n*kvHeads - 1) / (n * kvHeads)
	return max(1, min(attnMaxSplits, s))
}

// oneRun reports whether seq and pos (as last written) place every row in one sequence at consecutive positions.
func oneRun(seq, pos *Tensor, n int) bool {
	if len(seq.shadow) != n || len(pos.shadow) != n {
		return false
	}
	for r := 0; r < n; r++ {
		if seq.shadow[r] != seq.shadow[0] || pos.shadow[r] != pos.shadow[0]+int32(r) {
			return false
		}
	}
	return true
}

func (b *Backend) Attention(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, scale float32) {
	b.AttentionWith(dst, q, k, v, cache, layer, seq, pos, backend.AttnOptions{Scale: scale})
}

// attendPlain is Attention over a layer without window or softcap: this step's rows are stored (kv_store), then
// one of attnForms runs over the layer's slots. Under tuning.attnStore a decode batch of f32 activations skips the
// kv_store launch: the split form stores the rows itself (attn_split_store) and reads them from k and v.
func (b *Backend) attendPlain(a attnCase, p attnPtrs, kp, vp driver.DevPtr, width int) {
	n := a.n
	for _, f := range attnForms {
		if f.supports(a) {
			fold := b.tune.attnStore && f.name == "split" && n <= backend.MaxDecodeRows && a.act == backend.F32
			b.logf("Attention n=%d heads=%d/%d hd=%d: %s, store folded %v, norms folded %v", n, a.heads, a.kvHeads, a.hd, f.name, fold, p.norm != nil)
			if p.norm != nil && !fold { // attnNormFold asks for the same conditions
				b.fail(fmt.Errorf("cuda backend: attention: head norms folded into the %s form, which does not take them", f.name))
				return
			}
			if fold {
				p.kn, p.vn = kp, vp
			} else {
				b.enqueueKVStore(a, p, kp, vp, width)
			}
			f.enqueue(b, a, p)
			return
		}
	}
	b.fail(fmt.Errorf("cuda backend: attention with head dim %d: %w", a.hd, backend.ErrUnsupported))
}

// enqueueKVStore queues kv_store of this step's n rows kp, vp (width kvHeads·hd) into the slots p names.
func (b *Backend) enqueueKVStore(a attnCase, p attnPtrs, kp, vp driver.DevPtr, width int) {
	store, n := opName("kv_store", a.act), a.n
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(p.kc).Ptr(p.vc).Ptr(kp).Ptr(vp).Ptr(p.seq).Ptr(p.pos).
			I32(int32(width)).I32(int32(p.layer)).I32(int32(p.seqs)).I32(int32(p.maxLen))
		return b.launch(store, driver.Dim3{X: n}, driver.Dim3{X: 128}, 0, args, float64(2*(kvSize+a.act.Size())*n*width+8*n))
	})
}

// ensureScratch makes the split-attention scratch at least bytes long. A replaced buffer is kept until Close:
// recorded graphs may still point at it.
func (b *Backend) ensureScratch(bytes int) (driver.DevPtr, error) {
	return b.grow(&b.scratch, &b.scrLen, bytes)
}

// grow makes the buffer *p (of *n bytes) at least bytes long; a replaced buffer is kept until Close (recorded
// graphs may still point at it).
func (b *Backend) grow(p *driver.DevPtr, n *int, bytes int) (driver.DevPtr, error) {
	if *n >= bytes {
		return *p, nil
	}
	q, err := b.allocExact(bytes)
	if err != nil {
		return 0, err
	}
	if *p != 0 {
		b.retired = append(b.retired, *p)
	}
	*p, *n = q, bytes
	return q, nil
}

func enqueueAttnSplit(b *Backend, a attnCase, p attnPtrs) {
	S := attnSplits(a.n, a.kvHeads, b.info.SMs)
	if a.n > maxGemvRows && a.positions > 0 {
		// A prompt chunk (never in a recorded graph) may size its splits by its positions: about 64 a block. The
		// 16-row chunk at position 2032 of Qwen3-14B took 162 µs a layer at 5 splits of ~410 (H200, 2026-12-02).
		S = max(S, min(attnMaxSplits, int(a.positions/int64(a.n)+63)/64))
	}
	part, err := b.ensureScratch(4 * a.n * a.heads * S * (a.hd + 2))
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: attention scratch: %w", err))
		return
	}
	name, combine := attnSplitName(attnEPT(a.hd), a.act), opName("attn_combine", a.act)
	bytes := float64(a.act.Size()*a.n*a.heads*a.hd) + a.kvBytes(p.maxLen)
	if p.kn != 0 { // attendPlain folded kv_store in: the f32 rows are read once and stored
		name = attnSplitStoreName(attnEPT(a.hd))
		bytes += float64(2 * (kvSize + 4) * a.n * a.kvHeads * a.hd)
		if p.norm != nil {
			name = attnSplitNormName(attnEPT(a.hd))
		}
	}
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(part).Ptr(p.q).Ptr(p.kc).Ptr(p.vc)
		if p.kn != 0 {
			args = args.Ptr(p.kn).Ptr(p.vn)
		}
		args = args.Ptr(p.seq).Ptr(p.pos).
			I32(int32(a.heads)).I32(int32(a.kvHeads)).I32(int32(a.hd)).I32(int32(p.seqs)).I32(int32(p.maxLen)).
			I32(int32(p.layer)).F32(p.scale)
		if nm := p.norm; nm != nil {
			args = args.Ptr(nm.wq).Ptr(nm.wk).Ptr(nm.freqs).I32(nm.dims).I32(nm.trad).F32(nm.prescale).F32(nm.eps)
		}
		if err := b.launch(name, driver.Dim3{X: S, Y: a.kvHeads, Z: a.n}, driver.Dim3{X: 128}, 0, args, bytes); err != nil {
			return err
		}
		args = driver.NewArgs().Ptr(p.out).Ptr(part).Ptr(p.seq).Ptr(p.pos).I32(int32(a.heads)).I32(int32(a.hd)).
			I32(int32(S)).I32(int32(p.seqs)).I32(int32(p.maxLen)).I32(0)
		return b.launch(combine, driver.Dim3{X: a.heads, Y: a.n}, driver.Dim3{X: 128}, 0, args, float64(a.n*a.heads*(S*4*(a.hd+2)+a.act.Size()*a.hd)))
	})
}

// attnChunkGeom is the chunk form's launch for a chunk whose last row is at position last: W warps of 16 query
// rows a block and Z blocks per kv head for the n·G rows, and S position slices of cl (a multiple of the 64-position
// tile) — about one block per multiprocessor, at most attnMaxSplits slices (the partials grow with S: n·heads·S·(hd+2)
// floats written and read again by the combine).
func attnChunkGeom(a attnCase, last int) (w, z, s, cl int) {
	q := a.n * (a.heads / a.kvHeads)
	w = min(8, (q+15)/16)
	z = (q + 16*w - 1) / (16 * w)
	tiles := last/64 + 1
	want := max(1, min(attnMaxSplits, (a.sms+a.kvHeads*z-1)/(a.kvHeads*z)))
	per := (tiles + want - 1) / want
	cl = 64 * per
	return w, z, (tiles + per - 1) / per, cl
}

// attnChunkWideGeom is attnChunkGeom's counterpart for attn_chunk_wide_hd*: z blocks of 64 query rows (four
// warps of 16) per kv head for the n·G rows, each in hd/attnWideDV output slices, and S position slices of cl (a
// multiple of the 64-position tile, so of the wide form's attnWideBK) — about one block per multiprocessor.
func attnChunkWideGeom(a attnCase, last int) (z, s, cl int) {
	q := a.n * (a.heads / a.kvHeads)
	z = (q + 63) / 64
	tiles := last/64 + 1
	per := a.kvHeads * z * (a.hd / attnWideDV)
	want := max(1, min(attnMaxSplits, (a.sms+per-1)/per))
	n := (tiles + want - 1) / want
	return z, (tiles + n - 1) / n, 64 * n
}

// enqueueAttnChunk runs attn_chunk_hd* (attn_chunk_wide_hd* at the wide head dims) and the combine for a prompt chunk (never in a recorded graph: the grid
// depends on the positions, read from the values last written to pos).
func enqueueAttnChunk(b *Backend, a attnCase, p attnPtrs) {
	// Σ (pos[r]+1) over consecutive positions p0..p0+n−1 is n·p0 + n(n+1)/2.
	last := int((a.positions-int64(a.n*(a.n+1)/2))/int64(a.n)) + a.n - 1
	w, z, S, cl := attnChunkGeom(a, last)
	name, grid, smem := attnChunkName(a.hd, a.act), driver.Dim3{X: S, Y: a.kvHeads, Z: z}, 0
	if !slices.Contains(attnPromptHDs, a.hd) {
		z, S, cl = attnChunkWideGeom(a, last)
		w, name, smem = 4, attnChunkWideName(a.hd, a.act), attnPromptWideSmem(a.hd)
		grid = driver.Dim3{X: S, Y: a.kvHeads, Z: z * (a.hd / attnWideDV)}
	}
	part, err := b.ensureScratch(4 * a.n * a.heads * S * (a.hd + 2))
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: attention scratch: %w", err))
		return
	}
	combine := opName("attn_combine", a.act)
	bytes := float64(a.act.Size()*a.n*a.heads*a.hd) + float64(z*2*kvSize*a.kvHeads*a.hd*(last+1)) + float64(4*a.n*a.heads*S*(a.hd+2))
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(part).Ptr(p.q).Ptr(p.kc).Ptr(p.vc).Ptr(p.seq).Ptr(p.pos).I32(int32(a.n)).
			I32(int32(a.heads)).I32(int32(a.kvHeads)).I32(int32(p.seqs)).I32(int32(p.maxLen)).I32(int32(p.layer)).
			F32(p.scale).I32(int32(cl))
		if err := b.launch(name, grid, driver.Dim3{X: 32 * w}, smem, args, bytes); err != nil {
			return err
		}
		args = driver.NewArgs().Ptr(p.out).Ptr(part).Ptr(p.seq).Ptr(p.pos).I32(int32(a.heads)).I32(int32(a.hd)).
			I32(int32(S)).I32(int32(p.seqs)).I32(int32(p.maxLen)).I32(int32(cl))
		return b.launch(combine, driver.Dim3{X: a.heads, Y: a.n}, driver.Dim3{X: 128}, 0, args, float64(a.n*a.heads*(S*4*(a.hd+2)+a.act.Size()*a.hd)))
	})
}

func enqueueAttnRows(b *Backend, a attnCase, p attnPtrs) {
	name := attnRowsName(attnEPT(a.hd), a.act)
	bytes := float64(2*a.act.Size()*a.n*a.heads*a.hd) + a.kvBytes(p.maxLen)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(p.out).Ptr(p.q).Ptr(p.kc).Ptr(p.vc).Ptr(p.seq).Ptr(p.pos).
			I32(int32(a.heads)).I32(int32(a.kvHeads)).I32(int32(a.hd)).I32(int32(p.seqs)).I32(int32(p.maxLen)).
			I32(int32(p.layer)).F32(p.scale)
		return b.launch(name, driver.Dim3{X: 1, Y: a.kvHeads, Z: a.n}, driver.Dim3{X: 128}, 0, args, bytes)
	})
}

// allowAttnSmem raises the dynamic shared memory limit of the wide prompt and chunk kernels, at Open (device
// thread; not at launch, where a graph may be recording). On a device whose opt-in limit is lower they stay
// unused (attnCase.promptForm, chunkForm) and such prompts take the split or rows form.
func (b *Backend) allowAttnSmem() error {
	for _, x := range actTypes {
		for _, hd := range attnPromptWideHDs {
			if smem := attnPromptWideSmem(hd); smem <= b.info.MaxSharedPerBlock {
				for _, name := range []string{attnPromptWideName(hd, x), attnChunkWideName(hd, x)} {
					f, err := b.fn(name)
					if err != nil {
						return err
					}
					if err := f.SetMaxDynamicShared(smem); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func enqueueAttnPrompt(b *Backend, a attnCase, p attnPtrs) {
	name, grid, smem := attnPromptName(a.hd, a.act), driver.Dim3{X: (a.n + 63) / 64, Y: a.heads}, 0
	if !slices.Contains(attnPromptHDs, a.hd) {
		name, grid.Z, smem = attnPromptWideName(a.hd, a.act), a.hd/attnWideDV, attnPromptWideSmem(a.hd)
	}
	tiles := grid.X
	// bytes: q and out once, and each block's k/v tiles (every head's blocks read their kv head's tiles)
	bytes := float64(2*a.act.Size()*a.n*a.heads*a.hd) + float64(a.heads*tiles*2*kvSize*a.hd)*float64(a.n)/2
	out := &Tensor{ptr: p.out, shape: []int{a.n, a.heads * a.hd}, dt: a.act, kind: kindView}
	b.enqueueShadow(out, func(y16 driver.DevPtr) func() error {
		return func() error {
			args := driver.NewArgs().Ptr(p.out).Ptr(p.q).Ptr(p.kc).Ptr(p.vc).Ptr(p.seq).Ptr(p.pos).I32(int32(a.n)).
				I32(int32(a.heads)).I32(int32(a.kvHeads)).I32(int32(p.seqs)).I32(int32(p.maxLen)).
				I32(int32(p.layer)).F32(p.scale).Ptr(y16)
			return b.launch(name, grid, driver.Dim3{X: 128}, smem, args, bytes)
		}
	})
}
