// The Metal backend: backend.Backend over a Metal runtime (runtime.go: the darwin one over internal/metal/mtl,
// or in tests the CPU emulator) and the launch plans of kernels.go. f32 activations and KV cache as on the CPU
// oracle; embedding tables in bf16, vectors in f32; trellis words bound as stored (no copy when page-aligned),
// their scales and biases in f32. Ops check shapes, build their plan, bind tensors to its roles (bind.go) and
// encode into one open command buffer; Sync, ReadFloat32 and WriteInt32 commit it and wait, so a device failure
// surfaces there with the GPU's own text. Supports (support.go) answers from the selection table and the
// functions the compiled library holds, so a model whose kernels are not written yet is passed over by
// --device auto instead of failing mid-load.
//
// This file has no build tag so that the whole op layer runs on Linux over the emulator (emurt_test.go); only
// macOS builds link it into the binary (cmd/mlxbun/metal_darwin.go), where runtime_darwin.go registers it.

package metal

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// Backend is the Metal backend; like the others it serves one goroutine at a time.
type Backend struct {
	rt      runtime
	fam     Family
	pipes   map[string]pipeline
	enc     encoder
	err     error    // first failure since the last Sync
	retire  []buffer // buffers freed or replaced while the open command buffer may use them
	scratch *Tensor
	debug   bool
	closed  bool

	memNow, memPeak int64   // bytes of the buffers this backend allocated (no-copy buffers excluded)
	copyBW          float64 // CopyBandwidth, measured once
}

var (
	_ backend.Backend        = (*Backend)(nil)
	_ backend.Argmaxer       = (*Backend)(nil)
	_ backend.FloatWriter    = (*Backend)(nil)
	_ backend.MemoryReporter = (*Backend)(nil)
	_ backend.Bandwidth      = (*Backend)(nil)
	_ backend.AddRMSNormer   = (*Backend)(nil)
	_ backend.NormRoper      = (*Backend)(nil)
	_ backend.GateUpSwiGLUer = (*Backend)(nil)
)

// newBackend is the backend over rt, a GPU of table row fam.
func newBackend(rt runtime, fam Family, debug bool) *Backend {
	return &Backend{rt: rt, fam: fam, pipes: map[string]pipeline{}, debug: debug}
}

func (b *Backend) Name() string            { return "metal" }
func (b *Backend) ActDType() backend.DType { return backend.F32 }

func (b *Backend) logf(format string, args ...any) {
	if b.debug {
		b.rt.Log(fmt.Sprintf(format, args...))
	}
}

// Supports answers from the selection table and the library's functions (support.go).
func (b *Backend) Supports(q backend.Query) error {
	if slices.Contains(backend.FusedOps, q.Op) {
		return backend.ServesFused(b, q.Op) // fused.go
	}
	return Supports(b.rt.Has, b.fam, q)
}

// Tensor is a shared-storage buffer region.
type Tensor struct {
	buf   buffer
	off   int // bytes into buf
	shape []int
	dt    backend.DType
	view  bool    // Rows of another tensor: Free leaves the buffer alone
	ids   []int32 // what WriteInt32 last wrote (rope reads positions on the host)
}

func (t *Tensor) Shape() []int         { return t.shape }
func (t *Tensor) DType() backend.DType { return t.dt }

func (t *Tensor) elems() int {
	n := 1
	for _, s := range t.shape {
		n *= s
	}
	return n
}

func (t *Tensor) bytes() []byte {
	return t.buf.Bytes()[t.off : t.off+t.elems()*t.dt.Size()]
}

func tensorOf(op string, t backend.Tensor) *Tensor {
	x, ok := t.(*Tensor)
	if !ok || x == nil || x.buf == nil {
		panic(fmt.Sprintf("metal: %s: %T is not a live Metal tensor", op, t))
	}
	return x
}

func (b *Backend) fail(err error) {
	if b.err == nil && err != nil {
		b.err = err
	}
}

func (b *Backend) newTensor(dt backend.DType, shape []int) (*Tensor, error) {
	t := &Tensor{shape: slices.Clone(shape), dt: dt}
	buf, err := b.rt.NewBuffer(max(t.elems()*dt.Size(), 4))
	if err != nil {
		return nil, err
	}
	t.buf = buf
	b.memNow += int64(buf.Size())
	b.memPeak = max(b.memPeak, b.memNow)
	return t, nil
}

// MemoryUsed reports the bytes of the shared buffers the backend allocated, now and at the peak (weights wrapped
// without a copy are the file mapping's, not counted).
func (b *Backend) MemoryUsed() (now, peak int64) { return b.memNow, b.memPeak }

// release gives a tensor's own buffer back once the open command buffer no longer needs it.
func (b *Backend) release(buf buffer) {
	if !buf.NoCopy() {
		b.memNow -= int64(buf.Size())
	}
	b.retire = append(b.retire, buf)
}

// Alloc returns an f32 or int32 tensor.
func (b *Backend) Alloc(dt backend.DType, shape ...int) (backend.Tensor, error) {
	if dt != backend.F32 && dt != backend.I32 {
		return nil, fmt.Errorf("metal: alloc: dtype %s: %w", dt, backend.ErrUnsupported)
	}
	for _, s := range shape {
		if s < 0 {
			return nil, fmt.Errorf("metal: alloc: negative dimension in %v", shape)
		}
	}
	return b.newTensor(dt, shape)
}

// Free releases t's buffer once the open command buffer no longer needs it.
func (b *Backend) Free(t backend.Tensor) {
	x := tensorOf("Free", t)
	if !x.view {
		b.release(x.buf)
	}
	x.buf = nil
}

func (b *Backend) Rows(t backend.Tensor, start, n int) backend.Tensor {
	x := tensorOf("Rows", t)
	if len(x.shape) != 2 || start < 0 || n < 0 || start+n > x.shape[0] {
		backend.ShapeError("Rows", fmt.Sprintf("rows [%d,%d) of", start, start+n), x.shape, "2-D with enough rows")
	}
	c := x.shape[1]
	return &Tensor{buf: x.buf, off: x.off + start*c*x.dt.Size(), shape: []int{n, c}, dt: x.dt, view: true}
}

// Upload places a host tensor: int32 as is, float vectors as f32, float matrices (tables) as bf16.
func (b *Backend) Upload(h backend.Host) (backend.Tensor, error) {
	n := h.Elements()
	if len(h.Data) != n*h.DType.Size() {
		return nil, fmt.Errorf("metal: upload %s: %d bytes for %s %v", h.Name, len(h.Data), h.DType, h.Shape)
	}
	dt := backend.BF16
	switch {
	case h.DType == backend.I32:
		dt = backend.I32
	case !h.DType.Float():
		return nil, fmt.Errorf("metal: upload %s: dtype %s: %w", h.Name, h.DType, backend.ErrUnsupported)
	case len(h.Shape) <= 1:
		dt = backend.F32
	}
	t, err := b.newTensor(dt, h.Shape)
	if err != nil {
		return nil, fmt.Errorf("metal: upload %s: %w", h.Name, err)
	}
	dst := t.bytes()
	switch {
	case dt == h.DType:
		copy(dst, h.Data)
	default:
		f, err := h.Float32s()
		if err != nil {
			b.Free(t)
			return nil, fmt.Errorf("metal: upload: %w", err)
		}
		if dt == backend.F32 {
			copy(dst, f32Bytes(f))
		} else {
			out := unsafe.Slice((*uint16)(unsafe.Pointer(&dst[0])), len(f))
			for i, v := range f {
				out[i] = dtype.F32ToBF16(v)
			}
		}
	}
	return t, nil
}

func f32Bytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), 4*len(f))
}

func u32Bytes(w []uint32) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 4*len(w))
}

// linear is a layer's weights on the device.
type linear struct {
	in, out       int
	geom          *trellis.Geometry // trellis layers
	bits, group   int               // affine layers
	words, scales *Tensor
	biases, bias  *Tensor
	dense         *Tensor       // dense layers: bf16 [out, in]
	exl3          *exl3.Weights // EXL3 layers: the geometry and codebook (tiles in words, su in scales, sv in biases)
	keep          any           // the host memory a no-copy words buffer maps
}

func (l *linear) In() int  { return l.in }
func (l *linear) Out() int { return l.out }

// bytesTensor places raw bytes: mapped without a copy when page-aligned (mtl.PageAligned on darwin), copied otherwise.
func (b *Backend) bytesTensor(data []byte, dt backend.DType) (*Tensor, bool, error) {
	shape := []int{len(data) / dt.Size()}
	if buf, ok, err := b.rt.WrapNoCopy(data); err != nil {
		return nil, false, err
	} else if ok {
		return &Tensor{buf: buf, shape: shape, dt: dt}, true, nil
	}
	t, err := b.newTensor(dt, shape)
	if err != nil {
		return nil, false, err
	}
	copy(t.bytes(), data)
	return t, false, nil
}

func (b *Backend) f32Tensor(f []float32) (*Tensor, error) {
	t, err := b.newTensor(backend.F32, []int{len(f)})
	if err != nil {
		return nil, err
	}
	copy(t.bytes(), f32Bytes(f))
	return t, nil
}

// bf16Tensor places dense weights as bf16 (as CUDA does): bf16 host data as stored, mapped without a copy
// when page-aligned; f16 and f32 rounded to bf16.
func (b *Backend) bf16Tensor(h backend.Host) (*Tensor, error) {
	if len(h.Data) != h.Elements()*h.DType.Size() || !h.DType.Float() {
		return nil, fmt.Errorf("%d bytes of %s for %v", len(h.Data), h.DType, h.Shape)
	}
	if h.DType == backend.BF16 {
		t, _, err := b.bytesTensor(h.Data, backend.BF16)
		return t, err
	}
	f, err := h.Float32s()
	if err != nil {
		return nil, err
	}
	t, err := b.newTensor(backend.BF16, []int{len(f)})
	if err != nil {
		return nil, err
	}
	dst := t.bytes()
	out := unsafe.Slice((*uint16)(unsafe.Pointer(&dst[0])), len(f))
	for i, v := range f {
		out[i] = dtype.F32ToBF16(v)
	}
	return t, nil
}

// LoadLinear places dense (as bf16), trellis, affine or EXL3 weights.
func (b *Backend) LoadLinear(spec backend.LinearSpec) (backend.Linear, error) {
	l := &linear{in: spec.In, out: spec.Out}
	var err error
	switch {
	case spec.Trellis != nil:
		w := spec.Trellis
		g := w.Geometry
		l.geom = &g
		var mapped bool
		if l.words, mapped, err = b.bytesTensor(u32Bytes(w.Words), backend.I32); err == nil {
			if mapped {
				l.keep = w.Words
			}
			l.scales, err = b.f32Tensor(w.Scales)
		}
		b.logf("%s: trellis %d-bit axis %d words %s", spec.Name, g.K, g.Axis, map[bool]string{true: "mapped", false: "copied"}[mapped])
	case spec.Affine != nil:
		a := spec.Affine
		l.bits, l.group = a.Bits, a.GroupSize
		if l.words, _, err = b.bytesTensor(u32Bytes(a.Packed), backend.I32); err == nil {
			if l.scales, err = b.f32Tensor(a.Scales); err == nil {
				l.biases, err = b.f32Tensor(a.Biases)
			}
		}
	case spec.EXL3 != nil:
		x := spec.EXL3
		l.exl3 = &exl3.Weights{Geometry: x.Geometry, Codebook: x.Codebook, In: x.In, Out: x.Out}
		words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(x.Tiles))), len(x.Tiles)/2)
		if l.words, _, err = b.bytesTensor(u32Bytes(words), backend.I32); err == nil {
			if l.scales, err = b.f32Tensor(x.SU); err == nil {
				l.biases, err = b.f32Tensor(x.SV)
			}
		}
	case spec.Dense != nil:
		l.dense, err = b.bf16Tensor(*spec.Dense)
	default:
		return nil, fmt.Errorf("metal: %s: no weights: %w", spec.Name, backend.ErrUnsupported)
	}
	if err == nil && spec.Bias != nil {
		var f []float32
		if f, err = spec.Bias.Float32s(); err == nil {
			l.bias, err = b.f32Tensor(f)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("metal: load %s: %w", spec.Name, err)
	}
	return l, nil
}

// pipeline builds (once) the pipeline of a kernel function.
func (b *Backend) pipeline(fn string) (pipeline, error) {
	if p, ok := b.pipes[fn]; ok {
		return p, nil
	}
	p, err := b.rt.Pipeline(fn)
	if err != nil {
		return nil, err
	}
	b.pipes[fn] = p
	return p, nil
}

func sameRegion(x, y *Tensor) bool { return x.buf == y.buf && x.off == y.off }

// run encodes a plan.
func (b *Backend) run(p Plan, roles map[Role]*Tensor) { b.encode(p, roles) }

// encode encodes a plan with roles bound to tensors; the scratch role is the backend's own.
func (b *Backend) encode(p Plan, roles map[Role]*Tensor) {
	if b.err != nil {
		return
	}
	// The scratch role is bound whenever a launch names it: a single split's scatter still takes the argument
	// (unused), as it takes an absent bias.
	if need := p.ScratchBytes; need > 0 || slices.Contains(p.Roles(), RoleScratch) {
		s := b.scratchOf(need, p.Form)
		if s == nil {
			return
		}
		roles[RoleScratch] = s
	}
	for _, l := range p.Launches {
		bound, err := Bind(l, roles)
		if err != nil {
			b.fail(err)
			return
		}
		pipe, err := b.pipeline(l.Function)
		if err != nil {
			b.fail(err)
			return
		}
		if b.enc == nil {
			if b.enc, err = b.rt.Begin(); err != nil {
				b.fail(err)
				return
			}
		}
		bufs := make([]binding, len(bound))
		for i, a := range bound {
			bufs[i] = binding{Index: a.Index, Buffer: a.Value.buf, Offset: a.Value.off}
		}
		b.fail(b.enc.Dispatch(pipe, bufs, l.ParamIndex, l.Params, l.Groups, l.Threads))
	}
}

// scratchOf is the backend's scratch buffer grown to at least need bytes, or nil after recording the failure.
func (b *Backend) scratchOf(need int, form string) *Tensor {
	if b.err != nil {
		return nil
	}
	if b.scratch == nil || b.scratch.elems()*4 < need {
		if b.scratch != nil {
			b.release(b.scratch.buf)
		}
		t, err := b.newTensor(backend.F32, []int{max((need+3)/4, 1)})
		if err != nil {
			b.fail(fmt.Errorf("metal: %s scratch: %w", form, err))
			return nil
		}
		b.scratch = t
	}
	return b.scratch
}

// finish commits and waits for the open command buffer, then releases the buffers retired meanwhile.
func (b *Backend) finish() error {
	var err error
	if b.enc != nil {
		err = b.enc.Finish()
		b.enc = nil
	}
	for _, buf := range b.retire {
		buf.Release()
	}
	b.retire = b.retire[:0]
	return err
}

// Sync waits for the queued work and returns (and clears) the first error since the last Sync.
func (b *Backend) Sync() error {
	b.fail(b.finish())
	err := b.err
	b.err = nil
	return err
}

func (b *Backend) WriteInt32(t backend.Tensor, v []int32) error {
	x := tensorOf("WriteInt32", t)
	if x.dt != backend.I32 || x.elems() != len(v) {
		return fmt.Errorf("metal: write %d int32 into %s %v", len(v), x.dt, x.shape)
	}
	if err := b.finish(); err != nil { // the GPU may still read the old values
		b.fail(err)
		return err
	}
	copy(x.bytes(), unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v)))
	x.ids = slices.Clone(v)
	return b.err
}

// WriteFloat32 writes values into an f32 tensor, or rounds them into a bf16 one (the verify harness poisons and
// fills tensors through it).
func (b *Backend) WriteFloat32(t backend.Tensor, v []float32) error {
	x := tensorOf("WriteFloat32", t)
	if x.elems() != len(v) || (x.dt != backend.F32 && x.dt != backend.BF16) {
		return fmt.Errorf("metal: write %d float32 into %s %v", len(v), x.dt, x.shape)
	}
	if err := b.finish(); err != nil { // the GPU may still read the old values
		b.fail(err)
		return err
	}
	dst := x.bytes()
	if x.dt == backend.F32 {
		copy(dst, f32Bytes(v))
		return b.err
	}
	out := unsafe.Slice((*uint16)(unsafe.Pointer(&dst[0])), len(v))
	for i, f := range v {
		out[i] = dtype.F32ToBF16(f)
	}
	return b.err
}

func (b *Backend) ReadFloat32(t backend.Tensor, dst []float32) error {
	x := tensorOf("ReadFloat32", t)
	if x.dt != backend.F32 || x.elems() != len(dst) {
		return fmt.Errorf("metal: read %d float32 from %s %v", len(dst), x.dt, x.shape)
	}
	if err := b.Sync(); err != nil {
		return err
	}
	copy(f32Bytes(dst), x.bytes())
	return nil
}

func (b *Backend) ReadInt32(t backend.Tensor, dst []int32) error {
	x := tensorOf("ReadInt32", t)
	if x.dt != backend.I32 || x.elems() != len(dst) {
		return fmt.Errorf("metal: read %d int32 from %s %v", len(dst), x.dt, x.shape)
	}
	if err := b.Sync(); err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 4*len(dst)), x.bytes())
	return nil
}

// kvCache is the f32 cache [layers, seqs, maxLen, kvHeads·headDim] for keys and for values, or with
// KVConfig.PerLayer each layer's own slots (windowed.go).
type kvCache struct {
	b      *Backend
	cfg    backend.KVConfig
	k, v   *Tensor
	layers []kvLayer // per-layer caches only
}

func (c *kvCache) Config() backend.KVConfig { return c.cfg }
func (c *kvCache) Release() {
	c.releaseLayers()
	if c.k != nil {
		c.b.Free(c.k)
		c.b.Free(c.v)
		c.k, c.v = nil, nil
	}
}

func (c *kvCache) geometry() KVGeometry {
	return KVGeometry{Layers: c.cfg.Layers, Seqs: c.cfg.Seqs, MaxLen: c.cfg.MaxLen, KVHeads: c.cfg.KVHeads, HeadDim: c.cfg.HeadDim}
}

func (b *Backend) NewKVCache(cfg backend.KVConfig) (backend.KVCache, error) {
	if cfg.PerLayer != nil {
		return b.newLayeredCache(cfg)
	}
	if cfg.Layers <= 0 || cfg.Seqs <= 0 || cfg.MaxLen <= 0 || cfg.KVHeads <= 0 || cfg.HeadDim <= 0 {
		return nil, fmt.Errorf("metal: kv cache: every dimension must be positive, got %+v", cfg)
	}
	shape := []int{cfg.Layers, cfg.Seqs, cfg.MaxLen, cfg.KVHeads * cfg.HeadDim}
	c := &kvCache{b: b, cfg: cfg}
	var err error
	if c.k, err = b.newTensor(backend.F32, shape); err == nil {
		if c.v, err = b.newTensor(backend.F32, shape); err != nil {
			b.Free(c.k)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("metal: kv cache %+v: %w", cfg, err)
	}
	return c, nil
}

func rows2(op, what string, t *Tensor) (int, int) {
	if len(t.shape) != 2 {
		backend.ShapeError(op, what, t.shape, "2-D")
	}
	return t.shape[0], t.shape[1]
}

// f32 checks that activation operands are f32: the kernels read and write nothing else.
func (b *Backend) f32(op string, ts ...*Tensor) bool {
	for _, t := range ts {
		if t.dt != backend.F32 {
			b.fail(fmt.Errorf("metal: %s: an operand is %s %v; the kernels take f32 activations", op, t.dt, t.shape))
			return false
		}
	}
	return true
}

func sameShape(op string, a, b *Tensor) {
	if !slices.Equal(a.shape, b.shape) {
		backend.ShapeError(op, "operands", a.shape, b.shape)
	}
}

func (b *Backend) Embed(dst, table, ids backend.Tensor) {
	d, tb, id := tensorOf("Embed", dst), tensorOf("Embed", table), tensorOf("Embed", ids)
	vocab, width := rows2("Embed", "table", tb)
	if tb.dt != backend.BF16 {
		b.fail(fmt.Errorf("metal: embed: the table is %s; the kernel reads bf16", tb.dt))
		return
	}
	n := id.elems()
	if !b.f32("Embed", d) || id.dt != backend.I32 {
		b.fail(fmt.Errorf("metal: embed: ids are %s, want int32", id.dt))
		return
	}
	if !slices.Equal(d.shape, []int{n, width}) {
		backend.ShapeError("Embed", "dst", d.shape, []int{n, width})
	}
	b.run(PlanEmbed(n, width, vocab), map[Role]*Tensor{RoleDst: d, RoleTable: tb, RoleIDs: id})
}

func (b *Backend) RMSNorm(dst, x, w backend.Tensor, eps float32) {
	d, xx, ww := tensorOf("RMSNorm", dst), tensorOf("RMSNorm", x), tensorOf("RMSNorm", w)
	sameShape("RMSNorm", d, xx)
	if !b.f32("RMSNorm", d, xx) {
		return
	}
	g := ww.elems()
	if g == 0 || xx.elems()%g != 0 || ww.dt != backend.F32 {
		backend.ShapeError("RMSNorm", "weight", ww.shape, "f32, dividing the row")
	}
	b.run(PlanRMSNorm(xx.elems()/g, g, eps), map[Role]*Tensor{RoleDst: d, RoleX: xx, RoleNormW: ww})
}

func (b *Backend) MatMul(dst, x backend.Tensor, w backend.Linear) {
	d, xx := tensorOf("MatMul", dst), tensorOf("MatMul", x)
	l, ok := w.(*linear)
	if !ok {
		panic(fmt.Sprintf("metal: MatMul: %T is not a Metal linear", w))
	}
	if !b.f32("MatMul", d, xx) {
		return
	}
	n, in := rows2("MatMul", "x", xx)
	if in != l.in || !slices.Equal(d.shape, []int{n, l.out}) {
		backend.ShapeError("MatMul", "x, dst", [][]int{xx.shape, d.shape}, fmt.Sprintf("[n %d], [n %d]", l.in, l.out))
	}
	roles := map[Role]*Tensor{RoleDst: d, RoleX: xx, RoleBias: xx}
	if l.bias != nil {
		roles[RoleBias] = l.bias
	}
	var p Plan
	var err error
	switch {
	case l.dense != nil:
		roles[RoleDenseW] = l.dense
		p = PlanDense(b.fam, l.out, l.in, n, l.bias != nil)
	case l.geom != nil:
		roles[RoleWords], roles[RoleScales] = l.words, l.scales
		v := trellis.Reciprocal
		if n <= backend.MaxDecodeRows {
			v = trellis.Factored // the MMA decode forms compute the factored arithmetic
		}
		p, err = PlanTrellis(b.fam, *l.geom, n, v, l.bias != nil)
	case l.exl3 != nil:
		roles[RoleWords], roles[RolePre], roles[RolePost] = l.words, l.scales, l.biases
		p, err = PlanEXL3(b.fam, l.exl3.Geometry, l.exl3.Codebook, l.in, l.out, n, l.bias != nil)
	default:
		roles[RoleWords], roles[RoleScales], roles[RoleBiases] = l.words, l.scales, l.biases
		p, err = PlanAffine(b.fam, l.bits, l.group, l.out, l.in, n, l.bias != nil)
	}
	if err != nil {
		b.fail(err)
		return
	}
	b.run(p, roles)
}

func (b *Backend) Add(dst, x, y backend.Tensor) {
	d, a, c := tensorOf("Add", dst), tensorOf("Add", x), tensorOf("Add", y)
	sameShape("Add", d, a)
	sameShape("Add", a, c)
	if !b.f32("Add", d, a, c) {
		return
	}
	b.run(PlanAdd(d.elems()), map[Role]*Tensor{RoleDst: d, RoleA: a, RoleB: c})
}

func (b *Backend) SwiGLU(dst, gate, up backend.Tensor) {
	d, g, u := tensorOf("SwiGLU", dst), tensorOf("SwiGLU", gate), tensorOf("SwiGLU", up)
	sameShape("SwiGLU", d, g)
	sameShape("SwiGLU", g, u)
	if !b.f32("SwiGLU", d, g, u) {
		return
	}
	b.run(PlanSwiGLU(d.elems()), map[Role]*Tensor{RoleDst: d, RoleA: g, RoleB: u})
}

func (b *Backend) Rope(x, pos backend.Tensor, heads int, table *rope.Table) {
	xx, p := tensorOf("Rope", x), tensorOf("Rope", pos)
	if !b.f32("Rope", xx) {
		return
	}
	n, width := rows2("Rope", "x", xx)
	if heads < 1 || width%heads != 0 || p.elems() != n {
		backend.ShapeError("Rope", "x, pos", [][]int{xx.shape, p.shape}, fmt.Sprintf("%d heads, one position per row", heads))
	}
	plan, err := PlanRope(n, heads, width/heads, table)
	if err != nil || len(plan.Launches) == 0 {
		b.fail(err)
		return
	}
	cs := b.cosSin(p, n, table)
	if cs == nil {
		return
	}
	defer b.release(cs.buf)
	b.run(plan, map[Role]*Tensor{RoleX: xx, RoleCosSin: cs})
}

// cosSin is the rope's cos/sin rows for the n positions WriteInt32 wrote into p (built on the host), or nil with
// the failure recorded.
func (b *Backend) cosSin(p *Tensor, n int, table *rope.Table) *Tensor {
	if len(p.ids) != n {
		b.fail(errors.New("metal: rope: the positions tensor was not written by WriteInt32 (the cos/sin rows are built on the host)"))
		return nil
	}
	cs, err := b.f32Tensor(RopeCosSin(table, p.ids))
	if err != nil {
		b.fail(err)
		return nil
	}
	return cs
}

func (b *Backend) Attention(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos backend.Tensor, scale float32) {
	d, qq, kk, vv := tensorOf("Attention", dst), tensorOf("Attention", q), tensorOf("Attention", k), tensorOf("Attention", v)
	s, p := tensorOf("Attention", seq), tensorOf("Attention", pos)
	c, ok := cache.(*kvCache)
	if !ok {
		panic(fmt.Sprintf("metal: Attention: %T is not a Metal cache", cache))
	}
	if c.layers != nil {
		b.AttentionWith(dst, q, k, v, cache, layer, seq, pos, backend.AttnOptions{Scale: scale})
		return
	}
	if !b.f32("Attention", d, qq, kk, vv) {
		return
	}
	n, qw := rows2("Attention", "q", qq)
	kvw := c.cfg.KVHeads * c.cfg.HeadDim
	if qw%c.cfg.HeadDim != 0 || !slices.Equal(kk.shape, []int{n, kvw}) || !slices.Equal(vv.shape, kk.shape) || !slices.Equal(d.shape, qq.shape) {
		backend.ShapeError("Attention", "q, k, v, dst", [][]int{qq.shape, kk.shape, vv.shape, d.shape}, fmt.Sprintf("k, v [n %d]", kvw))
	}
	if layer < 0 || layer >= c.cfg.Layers || math.IsNaN(float64(scale)) {
		b.fail(fmt.Errorf("metal: attention: layer %d of %d, scale %v", layer, c.cfg.Layers, scale))
		return
	}
	geo := c.geometry()
	b.run(PlanKVStore(n, geo, layer), map[Role]*Tensor{RoleKCache: c.k, RoleVCache: c.v, RoleK: kk, RoleV: vv, RoleSeq: s, RolePos: p})
	plan, err := PlanAttention(b.fam, AttnCase{N: n, Heads: qw / c.cfg.HeadDim, KV: geo, Layer: layer, Scale: scale})
	if err != nil {
		b.fail(err)
		return
	}
	b.run(plan, map[Role]*Tensor{RoleDst: d, RoleQ: qq, RoleKCache: c.k, RoleVCache: c.v, RoleSeq: s, RolePos: p})
}

// Argmax writes each row's greedy id (int32 [rows]) of logits [rows, vocab].
func (b *Backend) Argmax(dst, logits backend.Tensor) {
	d, l := tensorOf("Argmax", dst), tensorOf("Argmax", logits)
	if !b.f32("Argmax", l) {
		return
	}
	rows, vocab := rows2("Argmax", "logits", l)
	if d.dt != backend.I32 || d.elems() != rows {
		backend.ShapeError("Argmax", "dst", d.shape, []int{rows})
	}
	b.run(PlanArgmax(rows, vocab), map[Role]*Tensor{RoleDst: d, RoleX: l})
}

// CopyBandwidth measures (once) a 256 MiB blit copy between two shared buffers, best of six by the GPU's own
// timestamps, and reports bytes read plus written per second.
func (b *Backend) CopyBandwidth() (float64, error) {
	if b.copyBW > 0 {
		return b.copyBW, nil
	}
	if err := b.Sync(); err != nil {
		return 0, err
	}
	const n = 256 << 20
	src, err := b.rt.NewBuffer(n)
	if err != nil {
		return 0, err
	}
	defer src.Release()
	dst, err := b.rt.NewBuffer(n)
	if err != nil {
		return 0, err
	}
	defer dst.Release()
	best := math.Inf(1)
	for range 6 {
		s, err := b.rt.Copy(dst, src, n)
		if err != nil {
			return 0, err
		}
		best = min(best, s)
	}
	b.copyBW = 2 * n / best
	return b.copyBW, nil
}

// Close waits for the queue, writes the pipeline cache and releases everything.
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	errs := []error{b.Sync()}
	if b.scratch != nil {
		b.scratch.buf.Release()
	}
	for _, p := range b.pipes {
		p.Release()
	}
	errs = append(errs, b.rt.Close())
	return errors.Join(errs...)
}
