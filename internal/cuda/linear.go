// Linear layers: dense weights uploaded once as bf16 [out, in], and the table that picks MatMul's kernel by the
// number of activation rows: the hand-written GEMV (shaders/cuda/gemv.cu, f32 or bf16 activations read as they
// are) for decode batches, cuBLASLt for prompts (bf16 × bf16 → f32 or bf16: cuBLASLt has no f32 × bf16 form, so
// f32 activations are first rounded to a bf16 copy; see gemmInput). Trellis and affine weights are trellis.go's.

package cuda

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

type linear struct {
	name    string
	out, in int
	w       driver.DevPtr // bf16 [out, in]
	bias    driver.DevPtr // f32 [out] or 0
}

func (l *linear) In() int  { return l.in }
func (l *linear) Out() int { return l.out }

func (b *Backend) LoadLinear(spec backend.LinearSpec) (backend.Linear, error) {
	switch {
	case spec.Trellis != nil || spec.Affine != nil:
		return b.loadQuant(spec) // trellis.go
	case spec.EXL3 != nil:
		return b.loadEXL3(spec) // exl3.go
	case spec.Dense == nil:
		return nil, fmt.Errorf("cuda: linear %s: no weights given", spec.Name)
	}
	h := *spec.Dense
	if len(h.Shape) != 2 || h.Shape[0] != spec.Out || h.Shape[1] != spec.In {
		return nil, fmt.Errorf("cuda: linear %s: weight shape %v, want [%d %d]", spec.Name, h.Shape, spec.Out, spec.In)
	}
	if h.DType != backend.BF16 && h.DType != backend.F16 && h.DType != backend.F32 {
		return nil, fmt.Errorf("cuda: linear %s: weight dtype %s: %w", spec.Name, h.DType, backend.ErrUnsupported)
	}
	if len(h.Data) != h.Elements()*h.DType.Size() {
		return nil, fmt.Errorf("cuda: linear %s: %d bytes for %s %v", spec.Name, len(h.Data), h.DType, h.Shape)
	}
	l := &linear{name: spec.Name, out: spec.Out, in: spec.In}
	var err error
	if l.w, err = b.allocExact(2 * spec.Out * spec.In); err != nil {
		return nil, fmt.Errorf("cuda: linear %s: %w", spec.Name, err)
	}
	if err := b.uploadHost(l.w, h, backend.BF16); err != nil {
		return nil, fmt.Errorf("cuda: linear %s: %w", spec.Name, err)
	}
	if l.bias, err = b.uploadBias(spec); err != nil {
		return nil, err
	}
	return l, nil
}

// uploadBias places spec's optional bias [Out] on the device as f32 (zero DevPtr without one); dense and quantized
// linears share it.
func (b *Backend) uploadBias(spec backend.LinearSpec) (driver.DevPtr, error) {
	if spec.Bias == nil {
		return 0, nil
	}
	bh := *spec.Bias
	if bh.Elements() != spec.Out || len(bh.Data) != bh.Elements()*bh.DType.Size() {
		return 0, fmt.Errorf("cuda: linear %s: bias %s %v, want [%d]", spec.Name, bh.DType, bh.Shape, spec.Out)
	}
	p, err := b.allocExact(4 * spec.Out)
	if err != nil {
		return 0, fmt.Errorf("cuda: linear %s bias: %w", spec.Name, err)
	}
	if err := b.uploadHost(p, bh, backend.F32); err != nil {
		return 0, fmt.Errorf("cuda: linear %s bias: %w", spec.Name, err)
	}
	return p, nil
}

// matmulCase is what kernel selection sees of one MatMul.
type matmulCase struct {
	n, in, out int
	x, dst     backend.DType
	splitMax   int // tuning.splitGemmMax
}

// matmulForm is one way to compute a MatMul: the first form in matmulForms whose supports holds is used.
type matmulForm struct {
	name     string
	supports func(c matmulCase) bool
	enqueue  func(b *Backend, c matmulCase, y, x driver.DevPtr, l *linear)
}

// matmulForms is MatMul's selection table, most specific first.
//
//   - gemv: decode batches (n ≤ 8) with rows of whole 16-byte chunks; bandwidth-bound, so it wins wherever the
//     weight read dominates (cuBLASLt at m ≤ 8 pads to a tile and runs far from the copy bandwidth).
//   - gemv_scalar: the same batches at any width.
//   - cublaslt_split: small prompt GEMMs (n·in·out ≤ tuning.splitGemmMax) on f32 activations: x = hi + lo in two bf16
//     parts, two GEMMs accumulated in f32, so the input is not rounded to bf16 (~2^-17 instead of 2^-9). At these
//     sizes a GEMM is a few µs of launch latency, so the second one costs about one launch.
//   - cublaslt: prompts with widths in whole 16-byte rows, ~700 TFLOP/s at m = 512 (driver/MEASUREMENTS.md); f32
//     activations are rounded to a bf16 copy first (gemmInput).
//   - gemv_scalar_chunks: anything else, as scalar GEMVs over chunks of 8 rows (correct, slow; no model has
//     such widths).
var matmulForms = []matmulForm{
	{name: "gemv", supports: func(c matmulCase) bool { return c.n <= maxGemvRows && c.in%8 == 0 }, enqueue: enqueueGemv},
	{name: "gemv_scalar", supports: func(c matmulCase) bool { return c.n <= maxGemvRows }, enqueue: enqueueGemvScalar},
	{name: "cublaslt_split", supports: func(c matmulCase) bool {
		return c.x == backend.F32 && c.dst == backend.F32 && c.in%8 == 0 && c.out%8 == 0 && c.n*c.in*c.out <= c.splitMax
	}, enqueue: enqueueGemmSplit},
	{name: "cublaslt", supports: func(c matmulCase) bool { return c.in%8 == 0 && c.out%8 == 0 }, enqueue: enqueueGemm},
	{name: "gemv_scalar_chunks", supports: func(matmulCase) bool { return true }, enqueue: enqueueGemvChunks},
}

func (b *Backend) MatMul(dst, x backend.Tensor, w backend.Linear) {
	if q, ok := w.(*qlinear); ok {
		b.matmulQuant(tensorOf("MatMul", dst), tensorOf("MatMul", x), q) // trellis.go; never joins a dense GEMV group
		return
	}
	if e, ok := w.(*exl3Linear); ok {
		b.matmulEXL3(tensorOf("MatMul", dst), tensorOf("MatMul", x), e) // exl3.go
		return
	}
	l, ok := w.(*linear)
	if !ok {
		panic(fmt.Sprintf("backend: MatMul: linear of type %T is not a CUDA linear", w))
	}
	d, xs := tensorOf("MatMul", dst), tensorOf("MatMul", x)
	wantDType("MatMul", "x", xs, backend.F32, backend.BF16)
	wantDType("MatMul", "dst", d, backend.BF16, backend.F32)
	n, in := dims(xs)
	if in != l.in || d.elems() != n*l.out {
		backend.ShapeError("MatMul", "x, dst", []any{xs.shape, d.shape}, fmt.Sprintf("[n %d] -> [n %d] (%s)", l.in, l.out, l.name))
	}
	if n == 0 {
		return
	}
	c := matmulCase{n: n, in: in, out: l.out, x: xs.dt, dst: d.dt, splitMax: b.tune.splitGemmMax}
	for _, f := range matmulForms {
		if f.supports(c) {
			b.logf("MatMul %s n=%d %d->%d: %s", l.name, n, in, l.out, f.name)
			f.enqueue(b, c, d.ptr, xs.ptr, l)
			return
		}
	}
	panic("backend: MatMul: no form supports " + fmt.Sprint(c)) // the last form supports everything
}

// gemvSplit picks how many warps share one output row's dot product: the fewest that still give the device
// about four blocks per multiprocessor, so small-out shapes (k/v projections) keep enough loads in flight.
func gemvSplit(out, rows, sms int) int {
	for _, ks := range []int{1, 2, 4} {
		per := rows * (8 / ks)
		if (out+per-1)/per >= 4*sms {
			return ks
		}
	}
	return 8
}

func gemvBytes(c matmulCase) float64 {
	return float64(2*c.out*c.in + c.n*c.in*c.x.Size() + c.n*c.out*c.dst.Size())
}

// gemvSeg mirrors GemvSeg in shaders/cuda/gemv.cu (32 bytes).
type gemvSeg struct {
	W, Y, Bias  driver.DevPtr
	Out, Block0 int32
}

// gemvParams mirrors GemvParams in shaders/cuda/gemv.cu (112 bytes).
type gemvParams struct {
	Seg                  [3]gemvSeg
	NSeg, In, KSplit, _p int32
}

// gemvGroup is one vector-GEMV launch: up to three linears that multiply the same activations (a MatMulGroup: q, k,
// v; gate, up), so their weights stream in one launch with one ramp-up and one tail instead of three.
type gemvGroup struct {
	c    matmulCase
	x    driver.DevPtr
	segs []gemvSeg
	// lab overrides gemvChoose (BenchmarkGEMVLab): a form with its k-split (0: gemvSplit's)
	lab    *gemvForm
	ksplit int
}

func (g *gemvGroup) launch(b *Backend) func() error {
	p := gemvParams{NSeg: int32(len(g.segs)), In: int32(g.c.in)}
	total := 0
	for _, s := range g.segs {
		total += int(s.Out)
	}
	form, ks := gemvChoose(g.c.n, g.c.in, total)
	if g.lab != nil {
		form, ks = *g.lab, g.ksplit
	}
	if ks == 0 {
		ks = gemvSplit(total, form.R, b.info.SMs)
	}
	per := form.R * (8 / ks)
	blocks := 0
	var bytes float64
	for i, s := range g.segs {
		s.Block0 = int32(blocks)
		blocks += (int(s.Out) + per - 1) / per
		p.Seg[i] = s
		c := g.c
		c.out = int(s.Out)
		bytes += gemvBytes(c)
	}
	p.KSplit = int32(ks)
	raw := (*[unsafe.Sizeof(gemvParams{})]byte)(unsafe.Pointer(&p))[:]
	raw = append([]byte(nil), raw...)
	x, name := g.x, gemvName(g.c.n, g.c.x, g.c.dst, form, true)
	return func() error {
		args := driver.NewArgs().Raw(raw, 8).Ptr(x)
		return b.launch(name, driver.Dim3{X: blocks}, driver.Dim3{X: 256}, 0, args, bytes)
	}
}

// overlaps reports whether byte ranges [a, a+an) and [c, c+cn) share a byte.
func overlaps(a driver.DevPtr, an int, c driver.DevPtr, cn int) bool {
	return a < c+driver.DevPtr(cn) && c < a+driver.DevPtr(an)
}

func enqueueGemv(b *Backend, c matmulCase, y, x driver.DevPtr, l *linear) {
	g := &gemvGroup{c: c, x: x, segs: []gemvSeg{{W: l.w, Y: y, Bias: l.bias, Out: int32(c.out)}}}
	b.enqueue(g.launch(b))
}

func enqueueGemvScalar(b *Backend, c matmulCase, y, x driver.DevPtr, l *linear) {
	grid := driver.Dim3{X: (c.out + 7) / 8}
	name, w, bias := gemvName(c.n, c.x, c.dst, gemvForm{}, false), l.w, l.bias
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(y).Ptr(w).Ptr(x).Ptr(bias).I32(int32(c.in)).I32(int32(c.out))
		return b.launch(name, grid, driver.Dim3{X: 256}, 0, args, gemvBytes(c))
	})
}

func enqueueGemm(b *Backend, c matmulCase, y, x driver.DevPtr, l *linear) {
	out := driver.BFloat16
	if c.dst == backend.F32 {
		out = driver.Float32
	}
	w, bias := l.w, l.bias
	xb := x
	if c.x == backend.F32 {
		var err error
		if xb, err = b.gemmInput(x, c.n*c.in); err != nil {
			b.fail(fmt.Errorf("cuda backend: MatMul %s: bf16 input: %w", l.name, err))
			return
		}
	}
	b.enqueue(func() error {
		return b.timed("gemm_cublaslt", gemvBytes(c), func() error {
			return b.blas.GemmBF16(b.stream, y, out, xb, w, c.n, c.out, c.in)
		})
	})
	if bias != 0 {
		total := int64(c.n) * int64(c.out)
		grid := b.grid1D(total, 256)
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(y).Ptr(bias).I64(total).I32(int32(c.out))
			return b.launch(biasAddName(c.dst), grid, driver.Dim3{X: 256}, 0, args, float64(total*int64(2*c.dst.Size())+4*int64(c.out)))
		})
	}
	if c.x == backend.F32 && !overlaps(y, c.n*c.out*c.dst.Size(), x, c.n*c.in*4) {
		b.mu.Lock()
		b.fuse.gemmIn = &gemmIn{idx: len(b.pending) - 1, x: x, elems: c.n * c.in, bf: xb}
		b.mu.Unlock()
	}
}

// enqueueGemmSplit computes y = hi·Wᵀ + lo·Wᵀ with x = hi + lo split into two bf16 parts (split_f32_bf16): two
// cuBLASLt GEMMs, the second accumulating (beta = 1) into the f32 output, so the input is carried to ~2^-17.
func enqueueGemmSplit(b *Backend, c matmulCase, y, x driver.DevPtr, l *linear) {
	elems := c.n * c.in
	buf, err := b.ensureGemmScratch(4 * elems)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: MatMul %s: split input: %w", l.name, err))
		return
	}
	hi, lo := buf, buf.Add(2*elems)
	w, bias := l.w, l.bias
	grid := b.grid1D(int64(elems), 256)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(hi).Ptr(lo).Ptr(x).I64(int64(elems))
		if err := b.launch("split_f32_bf16", grid, driver.Dim3{X: 256}, 0, args, float64(8*elems)); err != nil {
			return err
		}
		return b.timed("gemm_cublaslt_split", 2*gemvBytes(c), func() error {
			if err := b.blas.GemmBF16Scaled(b.stream, y, driver.Float32, hi, w, c.n, c.out, c.in, 1, 0); err != nil {
				return err
			}
			return b.blas.GemmBF16Scaled(b.stream, y, driver.Float32, lo, w, c.n, c.out, c.in, 1, 1)
		})
	})
	if bias != 0 {
		total := int64(c.n) * int64(c.out)
		grid := b.grid1D(total, 256)
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(y).Ptr(bias).I64(total).I32(int32(c.out))
			return b.launch(biasAddName(c.dst), grid, driver.Dim3{X: 256}, 0, args, float64(total*8+4*int64(c.out)))
		})
	}
}

// gemmIn is the bf16 copy of a prompt GEMM's f32 input, reusable by the next GEMM on the same input while nothing
// but GEMMs was queued since (q, k, v; gate, up).
type gemmIn struct {
	idx, elems int
	x, bf      driver.DevPtr
}

// gemmInput returns a bf16 copy of the f32 activations x (elems values) for cuBLASLt, in the backend's GEMM-input
// scratch: the copy the previous GEMM on x made, or one written by the launch that produced x (its y16 output,
// see shadowOut in fuse.go), or a cvt_f32_bf16 launch.
func (b *Backend) gemmInput(x driver.DevPtr, elems int) (driver.DevPtr, error) {
	b.mu.Lock()
	if g := b.fuse.gemmIn; g != nil && b.fuse.last(g.idx, len(b.pending)) && g.x == x && g.elems == elems {
		b.mu.Unlock()
		return g.bf, nil
	}
	b.mu.Unlock()
	buf, err := b.ensureGemmScratch(2 * elems)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	if p := b.fuse.out; p != nil && b.fuse.last(p.idx, len(b.pending)) && p.out == x && p.elems == elems {
		b.pending[p.idx] = p.with(buf)
		b.fuse.out = nil
		b.mu.Unlock()
		b.logf("bf16 GEMM input written by the launch producing it")
		return buf, nil
	}
	b.mu.Unlock()
	grid := b.grid1D(int64((elems+7)/8), 256)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(buf).Ptr(x).I64(int64(elems))
		return b.launch("cvt_f32_bf16", grid, driver.Dim3{X: 256}, 0, args, float64(6*elems))
	})
	return buf, nil
}

// ensureGemmScratch makes the GEMM-input scratch at least bytes long; a replaced buffer is kept until Close
// (recorded graphs may still point at it).
func (b *Backend) ensureGemmScratch(bytes int) (driver.DevPtr, error) {
	if b.gemmLen >= bytes {
		return b.gemmScratch, nil
	}
	p, err := b.allocExact(bytes)
	if err != nil {
		return 0, err
	}
	if b.gemmScratch != 0 {
		b.retired = append(b.retired, b.gemmScratch)
	}
	b.gemmScratch, b.gemmLen = p, bytes
	return p, nil
}

func enqueueGemvChunks(b *Backend, c matmulCase, y, x driver.DevPtr, l *linear) {
	for r0 := 0; r0 < c.n; r0 += maxGemvRows {
		part := c
		part.n = min(maxGemvRows, c.n-r0)
		enqueueGemvScalar(b, part, y.Add(r0*c.out*c.dst.Size()), x.Add(r0*c.in*c.x.Size()), l)
	}
}

// Supports: dense bf16/f16/f32 weights (stored as bf16), trellis codes and affine weights the quantized kernels
// take (quantSupport, trellis.go), at any row count; the model asks before loading so "auto" falls back to the CPU
// for anything else.
func (b *Backend) Supports(q backend.Query) error {
	why := ""
	switch {
	case hybridOps[q.Op]: // the hybrids' DeltaNet, sigmoid gate and MoE ops (deltanet.go, moe.go)
	case q.Op == backend.OpAddScaled: // LoRA adapters (adapter.go)
	case pointwiseOps[q.Op]: // Scale, Softcap, GeGLU (pointwise.go)
	case windowedOps[q.Op]: // per-layer caches, windowed and softcapped attention (windowed.go)
	case q.Op == backend.OpAttention: // the head dims and forms attention.go has kernels for
		why = attnSupport(q.Attn, q.Rows)
	case q.Op == backend.OpHadamard: // rotate.go
	case slices.Contains(backend.FusedOps, q.Op): // fused.go
		if err := backend.ServesFused(b, q.Op); err != nil {
			return err
		}
	case q.Op != backend.OpMatMul:
		why = "unknown op"
	case q.Weight.Format != backend.FormatDense:
		why = quantSupport(q.Weight)
	case q.Weight.DType != backend.BF16 && q.Weight.DType != backend.F16 && q.Weight.DType != backend.F32:
		why = "dense weights in " + q.Weight.DType.String()
	}
	if why != "" {
		return &backend.UnsupportedError{Backend: "cuda", Query: q, Why: why}
	}
	return nil
}
