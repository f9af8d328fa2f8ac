// Quantized linear layers on CUDA: trellis codes (docs/trellis-format.md) and MLX affine weights uploaded as
// stored (packed words, f32 scales and biases) and multiplied by the kernels of shaders/cuda/{quant.cuh,
// trellis.cu, affine.cu]: decode GEMVs for n ≤ 8 rows, the same over chunks of 8 rows or a bf16 expansion plus
// cuBLASLt for prompts (quant_select.go picks). The decode arithmetic of trellis layers is fixed at load:
// trellis.Factored by default (the scale leaves the sum: fewer instructions per weight), trellis.Reciprocal — the
// CPU backend's per-weight arithmetic — in exact mode (tuning key exact=1, or SetQuantExact).

package cuda

import (
	"fmt"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"slices"
	"strings"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// quantState is the backend's state for quantized layers: the mode new layers load in, and the scratch buffers
// (one of each, grown on demand, replaced ones kept until Close since recorded graphs may point at them).
type quantState struct {
	exact      bool
	act8       int           // SetQuantAct8: 0 unset (tuning.act8), 1 on, −1 off
	mma        int           // SetQuantMMA: 0 unset (tuning.mmaRows, mma0Rows), 1 every batch, −1 never
	expand     driver.DevPtr // bf16 expansion of one layer (prompts)
	expandLen  int
	partial    driver.DevPtr // axis-0 split-K partials
	partialLen int
	// EXL3 layers (exl3.go): the rotated input (f32, and its bf16 copy for prompts) and the inner product.
	exl3X, exl3X16, exl3Y          driver.DevPtr
	exl3XLen, exl3X16Len, exl3YLen int
	smemReady                      bool          // the qgemv_rows kernels may take qSmemMax of dynamic shared memory
	ctr                            driver.DevPtr // trellis_gemvg's two work counters (zero between launches)
}

// SetQuantExact makes layers loaded afterwards use the reference arithmetic (trellis.Reciprocal per weight, f32
// weights for prompts too) or the default forms. The tuning key exact=1 does the same for the whole process.
func (b *Backend) SetQuantExact(exact bool) { b.quant.exact = exact }

// SetQuantAct8 pins whether trellis layers (both axes) loaded afterwards decode with int8 activations (the verify
// cases pin each form); it overrides the tuning table's act8.
func (b *Backend) SetQuantAct8(on bool) {
	b.quant.act8 = -1
	if on {
		b.quant.act8 = 1
	}
}

// wantAct8 is whether a layer of coded axis `axis` loaded now (not exact) uses the int8-activation decode form.
func (b *Backend) wantAct8(axis int) bool {
	if b.quant.act8 != 0 {
		return b.quant.act8 > 0
	}
	return b.tune.act8[axis&1]
}

// qlinear is a trellis or affine linear layer on the device.
type qlinear struct {
	name    string
	out, in int
	w       backend.Weight
	variant trellis.Variant // trellis decode arithmetic of the GEMV forms
	exact   bool
	act8    bool          // trellis decode GEMVs quantize activations to int8 (axis 1 per run of 32, axis 0 per warp's rows)
	mmaRows int           // with act8: the fewest rows the tensor-core form (trellis_mma, axis 0 trellis_mma0) serves, 0 never (qmma.go)
	gemvMMA bool          // with act8, axis 1: the one-row grouped form multiplies on the tensor cores (trellis_gemvm, qmma.go)
	shift   int           // log2 of the trellis block or the affine group
	L       int           // trellis state bits
	rows    int           // trellis coded rows (out on axis 1, in on axis 0)
	words   driver.DevPtr // uint32 as stored
	scales  driver.DevPtr // f32
	biases  driver.DevPtr // f32 (affine)
	bias    driver.DevPtr // f32 [out] or 0
}

func (l *qlinear) In() int  { return l.in }
func (l *qlinear) Out() int { return l.out }

// quantSupport says why the CUDA kernels cannot serve a quantized weight ("" when they can): trellis k 2–4 with
// power-of-two blocks of at least 32 positions and L ≤ 16 (1mad), either axis and the 3-bit interleave; affine at
// every width and group MLX has.
func quantSupport(w backend.Weight) string {
	switch w.Format {
	case backend.FormatTrellis:
		switch {
		case w.Code != "1mad":
			return "trellis code " + w.Code
		case !slicesContains(trellisBits, w.Bits):
			return fmt.Sprintf("trellis %d-bit codes (kernels for k = %v)", w.Bits, trellisBits)
		case w.Group < 32 || w.Group&(w.Group-1) != 0:
			return fmt.Sprintf("trellis blocks of %d positions (kernels need a power of two ≥ 32)", w.Group)
		case w.L < w.Bits || w.L > 16:
			return fmt.Sprintf("trellis L = %d", w.L)
		}
	case backend.FormatAffine:
		if err := affine.Supported(w.Bits, w.Group); err != nil {
			return err.Error()
		}
	case backend.FormatEXL3:
		return exl3Support(w) // exl3.go
	default:
		return "not a quantized format"
	}
	return ""
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func log2(v int) int {
	s := 0
	for 1<<s < v {
		s++
	}
	return s
}

// loadQuant uploads a trellis or affine layer as stored.
func (b *Backend) loadQuant(spec backend.LinearSpec) (backend.Linear, error) {
	w := spec.Describe()
	if why := quantSupport(w); why != "" {
		return nil, fmt.Errorf("cuda: linear %s: %s: %w", spec.Name, why, backend.ErrUnsupported)
	}
	if err := b.allowQSmem(); err != nil {
		return nil, fmt.Errorf("cuda: linear %s: %w", spec.Name, err)
	}
	exact := b.quant.exact || b.tune.exact
	l := &qlinear{name: spec.Name, out: spec.Out, in: spec.In, w: w, exact: exact, shift: log2(w.Group), variant: trellis.Factored}
	if exact {
		l.variant = trellis.Reciprocal
	}
	l.act8 = !exact && w.Format == backend.FormatTrellis && b.wantAct8(w.Axis)
	if l.act8 {
		l.mmaRows = b.mmaRows(w.Axis)
		l.gemvMMA = w.Axis == 1 && b.wantGemvMMA()
	}
	var words []uint32
	var floats [][]float32
	switch {
	case spec.Trellis != nil:
		t := spec.Trellis
		if t.InFeatures() != spec.In || t.OutFeatures() != spec.Out {
			return nil, fmt.Errorf("cuda: linear %s: trellis codes of a %d→%d projection, want %d→%d", spec.Name, t.InFeatures(), t.OutFeatures(), spec.In, spec.Out)
		}
		if len(t.Words) != t.Geometry.Words() || len(t.Scales) != t.Rows {
			return nil, fmt.Errorf("cuda: linear %s: %d words and %d scales for %v", spec.Name, len(t.Words), len(t.Scales), t.StoredShape())
		}
		l.L, l.rows = t.L, t.Rows
		words, floats = t.Words, [][]float32{t.Scales}
	case spec.Affine != nil:
		a := spec.Affine
		if a.Out != spec.Out || a.In != spec.In {
			return nil, fmt.Errorf("cuda: linear %s: affine weights %d×%d, want %d×%d", spec.Name, a.Out, a.In, spec.Out, spec.In)
		}
		if err := a.Validate(); err != nil {
			return nil, fmt.Errorf("cuda: linear %s: %w", spec.Name, err)
		}
		words, floats = a.Packed, [][]float32{a.Scales, a.Biases}
	}
	var err error
	if l.words, err = uploadSlice(b, words); err != nil {
		return nil, fmt.Errorf("cuda: linear %s codes: %w", spec.Name, err)
	}
	if l.scales, err = uploadSlice(b, floats[0]); err != nil {
		return nil, fmt.Errorf("cuda: linear %s scales: %w", spec.Name, err)
	}
	if len(floats) > 1 {
		if l.biases, err = uploadSlice(b, floats[1]); err != nil {
			return nil, fmt.Errorf("cuda: linear %s biases: %w", spec.Name, err)
		}
	}
	if l.bias, err = b.uploadBias(spec); err != nil {
		return nil, err
	}
	return l, nil
}

// uploadSlice copies a host slice of 4-byte elements into a new exact allocation.
func uploadSlice[T uint32 | float32](b *Backend, s []T) (driver.DevPtr, error) {
	n := 4 * len(s)
	p, err := b.allocExact(max(n, 4))
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return p, nil
	}
	src := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n)
	return p, b.uploadBytes(p, n, func(buf []byte, off int) { copy(buf, src[off:]) })
}

// qgemvParams mirrors QGemvParams in shaders/cuda/quant.cuh (96 bytes).
type qgemvParams struct {
	W, Scales, Biases, Bias, X, Y, Partial                driver.DevPtr
	Out, In, Shift, L, NRows, KS, Chunk, RowsPerSplit, IL int32
	Axis                                                  int32
}

func (p *qgemvParams) raw() []byte {
	return append([]byte(nil), (*[unsafe.Sizeof(qgemvParams{})]byte)(unsafe.Pointer(p))[:]...)
}

// params is the layer's part of a launch's parameters.
func (l *qlinear) params(y, x driver.DevPtr, n int) qgemvParams {
	p := qgemvParams{W: l.words, Scales: l.scales, Biases: l.biases, Bias: l.bias, X: x, Y: y,
		Out: int32(l.out), In: int32(l.in), Shift: int32(l.shift), L: int32(l.L), NRows: int32(n), KS: 1,
		Axis: int32(l.w.Axis)}
	if l.w.Interleaved {
		p.IL = 1
	}
	return p
}

// bytes is the traffic the profiler counts for one decode launch: the packed weights and the activations.
func (l *qlinear) bytes(n int) float64 {
	wb := float64(l.out) * float64(l.in) * float64(l.w.Bits) / 8
	return wb + float64(4*n*(l.in+l.out))
}

// matmulQuant is MatMul over a quantized layer: f32 activations in and out.
func (b *Backend) matmulQuant(d, xs *Tensor, l *qlinear) { b.matmulQuantRes(d, xs, l, 0) }

// matmulQuantRes is matmulQuant with res (non-zero) added to y in the launch (MatMulAdd; fused.go checks first that
// the form picked is one of residualForms).
func (b *Backend) matmulQuantRes(d, xs *Tensor, l *qlinear, res driver.DevPtr) {
	wantDType("MatMul", "x (quantized "+l.name+")", xs, backend.F32)
	wantDType("MatMul", "dst (quantized "+l.name+")", d, backend.F32)
	n, in := dims(xs)
	if in != l.in || d.elems() != n*l.out {
		backend.ShapeError("MatMul", "x, dst", []any{xs.shape, d.shape}, fmt.Sprintf("[n %d] -> [n %d] (%s)", l.in, l.out, l.name))
	}
	if n == 0 {
		return
	}
	c := b.quantCaseOf(l, n)
	c.res = res
	for _, f := range quantForms {
		if f.supports(c) {
			if res != 0 && !slices.Contains(residualForms, f.name) {
				panic(fmt.Sprintf("cuda backend: MatMulAdd %s: form %s adds no residual", l.name, f.name))
			}
			b.logf("MatMul %s n=%d %d->%d (%s, %s): %s, residual %v", l.name, n, in, l.out, l.w, l.arith(), f.name, res != 0)
			f.enqueue(b, c, d.ptr, xs.ptr, l)
			return
		}
	}
	panic("backend: MatMul: no quantized form supports " + fmt.Sprint(c)) // the last form supports everything
}

// quantCaseOf is the selection case of layer l over n rows of its input (MatMul and the grouped launches alike).
func (b *Backend) quantCaseOf(l *qlinear, n int) quantCase {
	return quantCase{n: n, in: l.in, out: l.out, w: l.w, exact: l.exact, act8: l.act8, mmaRows: l.mmaRows, group: b.tune.gemvGroup,
		splitMax: b.tune.splitGemmMax, wideRows: b.tune.mmaWideRows, chunkRows: b.tune.chunkRowsMax}
}

func (l *qlinear) arith() string {
	if l.w.Format == backend.FormatAffine {
		return "affine reference decode"
	}
	if l.act8 {
		return l.variant.String() + ", int8 activations"
	}
	return l.variant.String()
}

// allowQSmem raises the dynamic shared memory limit of every qgemv_rows kernel to qSmemMax, once, at the first
// quantized load (not at launch: a graph may be recording then).
func (b *Backend) allowQSmem() error {
	if b.quant.smemReady {
		return nil
	}
	ctr, err := b.allocExact(8)
	if err != nil {
		return fmt.Errorf("trellis_gemvg counters: %w", err)
	}
	err = b.dev.Do(func() error {
		if err := b.dev.MemsetD32(ctr, 0, 2); err != nil {
			return err
		}
		for name, f := range b.fns {
			if strings.HasPrefix(name, "trellis_gemv1_") || strings.HasPrefix(name, "trellis_gemvg_") || strings.HasPrefix(name, "trellis_mma_") ||
				strings.HasPrefix(name, "affine_gemv_") {
				if err := f.SetMaxDynamicShared(qSmemMax); err != nil {
					return err
				}
			}
		}
		return nil
	})
	b.quant.smemReady, b.quant.ctr = err == nil, ctr
	return err
}

// enqueueQGemv launches the qgemv_rows form of an axis-1 trellis or affine layer (n ≤ 8).
func enqueueQGemv(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear) {
	N := qInst(c.n)
	sh := qShapes[N]
	R := sh.R
	t := &b.tune
	lab := t.lab && l.w.Format == backend.FormatTrellis && l.w.Bits == 3 && N == 1
	if lab && t.gemvR > 0 {
		R = t.gemvR // lab (instantiated: qShapes, qLab)
	}
	prefetch := lab && t.gemvPF && slices.Contains(qLabPrefetch, R) // lab: qLabPrefetch
	U := qI8U(N)
	if lab && t.gemvU > 0 && c.act8 {
		U = t.gemvU // lab (instantiated: qLabI8)
	}
	if c.act8 && (R != sh.R || U != qI8U(N)) && !(lab && slices.Contains(qLabI8, [2]int{R, U})) {
		R, U = sh.R, qI8U(N) // a lab shape the int8 form is not instantiated for
	}
	if !c.act8 && R != sh.R && !(lab && slices.Contains(qLab, R)) {
		R = sh.R
	}
	per := sh.blocksPerSM
	if t.lab && t.gemvBlocks > 0 {
		per = t.gemvBlocks
	}
	p := l.params(y, x, c.n)
	p.KS = int32(qSplit(c.out, R, b.info.SMs))
	p.Chunk = int32(qChunk(N, c.in))
	rpb := R * (8 / int(p.KS))
	groups := (c.out + rpb - 1) / rpb
	grid := driver.Dim3{X: min(groups, per*b.info.SMs)}
	smem := N * int(p.Chunk) / 32 * 36 * 4
	var name string
	switch {
	case c.act8:
		name = trellisGemv1I8Name(l.w.Bits, N, R, U)
	case l.w.Format == backend.FormatTrellis:
		name = trellisGemv1Name(l.w.Bits, N, R, l.variant, prefetch)
	default:
		name = affineGemvName(l.w.Bits, N, R)
	}
	raw, bytes := p.raw(), l.bytes(c.n)
	b.logf("  %s grid %d ks %d chunk %d smem %d", name, grid.X, p.KS, p.Chunk, smem)
	b.enqueue(func() error {
		return b.launch(name, grid, driver.Dim3{X: 256}, smem, driver.NewArgs().Raw(raw, 8), bytes)
	})
}

// ensurePartial makes the split-K partial scratch at least bytes long.
func (b *Backend) ensurePartial(bytes int) (driver.DevPtr, error) {
	return b.ensureQScratch(&b.quant.partial, &b.quant.partialLen, bytes)
}

func (b *Backend) ensureQScratch(p *driver.DevPtr, n *int, bytes int) (driver.DevPtr, error) {
	if *n >= bytes {
		return *p, nil
	}
	np, err := b.allocExact(bytes)
	if err != nil {
		return 0, err
	}
	if *p != 0 {
		b.retired = append(b.retired, *p)
	}
	*p, *n = np, bytes
	return np, nil
}

// enqueueTrellisGemv0 launches the split-K form of an axis-0 trellis layer and its reduce (n ≤ 8).
func enqueueTrellisGemv0(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear) {
	N := qInst(c.n)
	rps, splits := gemv0Split(l.rows, c.out, N, b.info.SMs, b.tune.gemv0Blocks)
	P := gemv0Piece(N)
	name := trellisGemv0Name(l.w.Bits, N, l.variant)
	if c.act8 {
		name = trellisGemv0I8Name(l.w.Bits, N)
	}
	enqueueSplitK(b, c, y, x, l, name, driver.Dim3{X: (c.out + 32*P - 1) / (32 * P), Y: splits}, rps)
}

// enqueueSplitK launches an axis-0 split-K kernel (grid.Y splits of rps coded rows, partial sums per split) and
// trellis_splitk_reduce, which adds the splits' partials into y.
func enqueueSplitK(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear, name string, grid driver.Dim3, rps int) {
	splits := grid.Y
	part, err := b.ensurePartial(4 * splits * c.n * c.out)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: MatMul %s: split-K partials: %w", l.name, err))
		return
	}
	p := l.params(y, x, c.n)
	p.Partial = part
	p.RowsPerSplit = int32(rps)
	raw := p.raw()
	bytes := l.bytes(c.n) + float64(4*splits*c.n*c.out)
	rgrid := driver.Dim3{X: (c.n*c.out + 31) / 32}
	rbytes := float64(4 * (splits + 1) * c.n * c.out)
	res := c.res // MatMulAdd's residual, added by the reduce
	if res != 0 {
		rbytes += float64(4 * c.n * c.out)
	}
	b.logf("  %s grid %dx%d rows/split %d; %s", name, grid.X, grid.Y, rps, trellisReduceName)
	b.enqueue(func() error {
		if err := b.launch(name, grid, driver.Dim3{X: 256}, 0, driver.NewArgs().Raw(raw, 8), bytes); err != nil {
			return err
		}
		return b.launch(trellisReduceName, rgrid, driver.Dim3{X: 256}, 0, driver.NewArgs().Raw(raw, 8).I32(int32(splits)).Ptr(res), rbytes)
	})
}

// enqueueQChunks runs the decode form over chunks of at most 8 rows.
func enqueueQChunks(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear) {
	for r0 := 0; r0 < c.n; r0 += maxGemvRows {
		part := c
		part.n = min(maxGemvRows, c.n-r0)
		for _, f := range quantDecodeForms {
			if f.supports(part) {
				f.enqueue(b, part, y.Add(4*r0*c.out), x.Add(4*r0*c.in), l)
				break
			}
		}
	}
}

// enqueueQExpand expands the layer to bf16 in the expansion scratch and multiplies with cuBLASLt (prompts).
func enqueueQExpand(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear) {
	// The bf16 input first: it may be the copy the previous GEMM on x made, or written by the launch producing x.
	xb, err := b.gemmInput(x, c.n*c.in)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: MatMul %s: bf16 input: %w", l.name, err))
		return
	}
	wexp, err := b.ensureQScratch(&b.quant.expand, &b.quant.expandLen, 2*c.out*c.in)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: MatMul %s: bf16 expansion: %w", l.name, err))
		return
	}
	p := l.params(0, 0, 0)
	name := affineExpandName(l.w.Bits)
	if l.w.Format == backend.FormatTrellis {
		name = trellisExpandName(l.w.Bits)
	}
	runs := int64(c.out) * int64(c.in) / 32
	grid := b.grid1D(runs, 256)
	raw := p.raw()
	ebytes := l.bytes(0) + float64(2*c.out*c.in)
	b.enqueue(func() error {
		return b.launch(name, grid, driver.Dim3{X: 256}, 0, driver.NewArgs().Ptr(wexp).Raw(raw, 8), ebytes)
	})
	b.enqueue(func() error {
		return b.timed("gemm_cublaslt", float64(2*c.out*c.in+2*c.n*c.in+4*c.n*c.out), func() error {
			return b.blas.GemmBF16(b.stream, y, driver.Float32, xb, wexp, c.n, c.out, c.in)
		})
	})
	if l.bias != 0 {
		total := int64(c.n) * int64(c.out)
		bgrid, bias := b.grid1D(total, 256), l.bias
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(y).Ptr(bias).I64(total).I32(int32(c.out))
			return b.launch(biasAddName(backend.F32), bgrid, driver.Dim3{X: 256}, 0, args, float64(total*8+4*int64(c.out)))
		})
	}
	if !overlaps(y, c.n*c.out*4, x, c.n*c.in*4) {
		b.mu.Lock()
		b.fuse.gemmIn = &gemmIn{idx: len(b.pending) - 1, x: x, elems: c.n * c.in, bf: xb}
		b.mu.Unlock()
	}
}
