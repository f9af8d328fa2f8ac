// EXL3 linears on the device (exllamav3's format, docs/exl3-format.md; kernels in shaders/cuda/exl3.cu): the
// tiles and the two scale vectors uploaded as stored, and a MatMul of three steps — the input side (exl3_had: x' =
// H(su ⊙ x), padded to whole blocks), the inner product with Ŵ (the decode GEMV for n ≤ 8 rows, else Ŵᵀ expanded
// to bf16 and cuBLASLt), the output side (exl3_had: y = sv ⊙ H(y') + bias, cut to the layer's outputs). The
// selection table, the launch shapes and the one naming function per kernel family live here too.

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/rht"
)

// exl3Linear is one EXL3 layer on the device.
type exl3Linear struct {
	name    string
	in, out int
	g       exl3.Geometry
	cb      exl3.Codebook
	w       backend.Weight
	tiles   driver.DevPtr // u32 [tk, tn, 8·K] as stored
	su, sv  driver.DevPtr // f32 [PadIn], [PadOut]
	bias    driver.DevPtr // f32 [out] or 0
}

func (l *exl3Linear) In() int  { return l.in }
func (l *exl3Linear) Out() int { return l.out }

// exl3Support says why the EXL3 kernels cannot serve a weight ("" when they can): every K of the format (1..8) and
// every codebook is instantiated.
func exl3Support(w backend.Weight) string {
	if w.Bits < exl3.MinK || w.Bits > exl3.MaxK {
		return fmt.Sprintf("EXL3 codes of %d bits", w.Bits)
	}
	if _, err := exl3.ParseCodebook(w.Code); err != nil {
		return err.Error()
	}
	return ""
}

// loadEXL3 uploads an EXL3 layer as stored (the tiles' int16 pairs are the kernels' 32-bit words).
func (b *Backend) loadEXL3(spec backend.LinearSpec) (backend.Linear, error) {
	x := spec.EXL3
	w := spec.Describe()
	if why := exl3Support(w); why != "" {
		return nil, fmt.Errorf("cuda: linear %s: %s: %w", spec.Name, why, backend.ErrUnsupported)
	}
	if x.In != spec.In || x.Out != spec.Out {
		return nil, fmt.Errorf("cuda: linear %s: EXL3 weights of %d→%d, want %d→%d", spec.Name, x.In, x.Out, spec.In, spec.Out)
	}
	if len(x.Tiles) != x.Len() || len(x.SU) != x.PadIn() || len(x.SV) != x.PadOut() {
		return nil, fmt.Errorf("cuda: linear %s: %d tile elements and %d+%d scales for %+v", spec.Name, len(x.Tiles), len(x.SU), len(x.SV), x.Geometry)
	}
	l := &exl3Linear{name: spec.Name, in: spec.In, out: spec.Out, g: x.Geometry, cb: x.Codebook, w: w}
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(x.Tiles))), len(x.Tiles)/2)
	var err error
	if l.tiles, err = uploadSlice(b, words); err != nil {
		return nil, fmt.Errorf("cuda: linear %s tiles: %w", spec.Name, err)
	}
	if l.su, err = uploadSlice(b, x.SU); err != nil {
		return nil, fmt.Errorf("cuda: linear %s input scales: %w", spec.Name, err)
	}
	if l.sv, err = uploadSlice(b, x.SV); err != nil {
		return nil, fmt.Errorf("cuda: linear %s output scales: %w", spec.Name, err)
	}
	if l.bias, err = b.uploadBias(spec); err != nil {
		return nil, err
	}
	return l, nil
}

// exl3Case is what selection sees of one EXL3 MatMul.
type exl3Case struct{ n, in, out, splitMax int } // splitMax: tuning.splitGemmMax

// exl3Form is one way to compute the inner product y' [n, PadOut] = x' [n, PadIn]·Ŵ.
type exl3Form struct {
	name     string
	supports func(c exl3Case) bool
	enqueue  func(b *Backend, c exl3Case, l *exl3Linear, yr, xr, x16 driver.DevPtr)
}

// exl3Forms is the EXL3 inner product's selection table, first match wins:
//   - exl3_gemv: decode batches (n ≤ 8), each weight decoded once for every row, f32 weights and sums;
//   - exl3_chunks: prompts whose GEMM is small (n·in·out ≤ tuning.splitGemmMax, as the trellis forms: the fixture
//     models), exl3_gemv over chunks of 8 rows, so their prompt logits keep the f32 weights;
//   - exl3_expand_cublaslt: other prompts, Ŵᵀ expanded to bf16 (one layer at a time, the trellis expansion's
//     scratch) and multiplied by cuBLASLt from the input side's bf16 copy: weights and x' rounded to bf16, f32 sums.
var exl3Forms = []exl3Form{
	{name: "exl3_gemv", supports: func(c exl3Case) bool { return c.n <= maxGemvRows }, enqueue: enqueueEXL3Gemv},
	{name: "exl3_chunks", supports: func(c exl3Case) bool { return c.n*c.in*c.out <= c.splitMax }, enqueue: enqueueEXL3Gemv},
	{name: "exl3_expand_cublaslt", supports: func(exl3Case) bool { return true }, enqueue: enqueueEXL3Expand},
}

// The naming functions of the EXL3 families (used by exl3Instantiations and the launchers).
func exl3GemvName(k int, cb exl3.Codebook, n int) string {
	return fmt.Sprintf("exl3_gemv_k%d_%s_n%d", k, cb, n)
}
func exl3ExpandName(k int, cb exl3.Codebook) string { return fmt.Sprintf("exl3_expand_k%d_%s", k, cb) }

const exl3HadName = "exl3_had"

// exl3Codebooks are the codebooks instantiated (all of the format's), in exl3.Codebook's (exllamav3's cb) order.
var exl3Codebooks = []exl3.Codebook{exl3.ThreeInst, exl3.MCG, exl3.Mul1}

// exl3Units are exl3.cu's compilation units: one per instantiated row count N (the sides and the expansions in the
// first), compiled in parallel as the trellis units are.
func exl3Units() []string {
	var out []string
	for _, N := range qRowsInst {
		out = append(out, fmt.Sprintf("exl3.cu#n%d", N))
	}
	return out
}

// exl3Instantiations lists the macro lines of each unit of exl3.cu.
func exl3Instantiations() map[string][]string {
	m := map[string][]string{}
	first := fmt.Sprintf("exl3.cu#n%d", qRowsInst[0])
	m[first] = append(m[first], fmt.Sprintf("EXL3_HAD(%s)", exl3HadName))
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		for _, cb := range exl3Codebooks {
			for _, N := range qRowsInst {
				unit := fmt.Sprintf("exl3.cu#n%d", N)
				m[unit] = append(m[unit], fmt.Sprintf("EXL3_GEMV(%s, %d, %d, %d)", exl3GemvName(k, cb, N), k, cb, N))
			}
			m[first] = append(m[first], fmt.Sprintf("EXL3_EXPAND(%s, %d, %d)", exl3ExpandName(k, cb), k, cb))
		}
	}
	return m
}

// matmulEXL3 is MatMul over an EXL3 layer: f32 activations in and out.
func (b *Backend) matmulEXL3(d, xs *Tensor, l *exl3Linear) {
	wantDType("MatMul", "x (EXL3 "+l.name+")", xs, backend.F32)
	wantDType("MatMul", "dst (EXL3 "+l.name+")", d, backend.F32)
	n, in := dims(xs)
	if in != l.in || d.elems() != n*l.out {
		backend.ShapeError("MatMul", "x, dst", []any{xs.shape, d.shape}, fmt.Sprintf("[n %d] -> [n %d] (%s)", l.in, l.out, l.name))
	}
	if n == 0 {
		return
	}
	c := exl3Case{n: n, in: l.g.PadIn(), out: l.g.PadOut(), splitMax: b.tune.splitGemmMax}
	var f exl3Form
	for _, f = range exl3Forms {
		if f.supports(c) {
			break
		}
	}
	b.logf("MatMul %s n=%d %d->%d (%s): %s", l.name, n, l.in, l.out, l.w, f.name)
	prompt := f.name == "exl3_expand_cublaslt"
	xr, err := b.ensureQScratch(&b.quant.exl3X, &b.quant.exl3XLen, 4*n*c.in)
	var x16, yr driver.DevPtr
	if err == nil && prompt {
		x16, err = b.ensureQScratch(&b.quant.exl3X16, &b.quant.exl3X16Len, 2*n*c.in)
	}
	if err == nil {
		yr, err = b.ensureQScratch(&b.quant.exl3Y, &b.quant.exl3YLen, 4*n*c.out)
	}
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: MatMul %s: EXL3 scratch: %w", l.name, err))
		return
	}
	if prompt {
		xr = 0 // the GEMM reads the bf16 copy only
	}
	b.enqueueEXL3Had(xr, x16, xs.ptr, l.su, 0, 0, n, l.in, c.in, c.in)
	f.enqueue(b, c, l, yr, xr, x16)
	b.enqueueEXL3Had(d.ptr, 0, yr, 0, l.sv, l.bias, n, c.out, c.out, l.out)
}

// enqueueEXL3Had launches exl3_had: dst [rows, dcols] (and dst16 [rows, cols]) = post ⊙ H(pre ⊙ x) + bias per run of
// 128 of the cols-wide rows, x [rows, xcols] zero-padded.
func (b *Backend) enqueueEXL3Had(dst, dst16, x, pre, post, bias driver.DevPtr, rows, xcols, cols, dcols int) {
	runs := int64(rows) * int64(cols/exl3.Block)
	grid := driver.Dim3{X: int((runs + 3) / 4)}
	scale := rht.Scale(exl3.Block)
	bytes := float64(4*rows*(xcols+dcols) + 8*cols)
	if dst16 != 0 {
		bytes += float64(2 * rows * cols)
	}
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(dst).Ptr(dst16).Ptr(x).Ptr(pre).Ptr(post).Ptr(bias).
			I32(int32(rows)).I32(int32(xcols)).I32(int32(cols)).I32(int32(dcols)).F32(scale)
		return b.launch(exl3HadName, grid, driver.Dim3{X: 128}, 0, args, bytes)
	})
}

// enqueueEXL3Gemv runs exl3_gemv over chunks of at most 8 rows (one launch when n ≤ 8).
func enqueueEXL3Gemv(b *Backend, c exl3Case, l *exl3Linear, yr, xr, _ driver.DevPtr) {
	tk, tn := l.g.TilesK, l.g.TilesN
	for r0 := 0; r0 < c.n; r0 += maxGemvRows {
		rows := min(maxGemvRows, c.n-r0)
		name := exl3GemvName(l.g.K, l.cb, qInst(rows))
		x, y := xr.Add(4*r0*c.in), yr.Add(4*r0*c.out)
		bytes := float64(c.in)*float64(c.out)*float64(l.g.K)/8 + float64(4*rows*(c.in+c.out))
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(l.tiles).Ptr(x).Ptr(y).I32(int32(tk)).I32(int32(tn)).I32(int32(rows))
			return b.launch(name, driver.Dim3{X: tn}, driver.Dim3{X: 256}, 0, args, bytes)
		})
	}
}

// enqueueEXL3Expand expands Ŵᵀ to bf16 in the expansion scratch and multiplies the bf16 x' by it with cuBLASLt.
func enqueueEXL3Expand(b *Backend, c exl3Case, l *exl3Linear, yr, _, x16 driver.DevPtr) {
	wexp, err := b.ensureQScratch(&b.quant.expand, &b.quant.expandLen, 2*c.out*c.in)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: MatMul %s: bf16 expansion: %w", l.name, err))
		return
	}
	tk, tn := l.g.TilesK, l.g.TilesN
	name := exl3ExpandName(l.g.K, l.cb)
	grid := b.grid1D(int64(tk)*int64(tn)*256, 256)
	ebytes := float64(c.in)*float64(c.out)*float64(l.g.K)/8 + float64(2*c.out*c.in)
	b.enqueue(func() error {
		return b.launch(name, grid, driver.Dim3{X: 256}, 0, driver.NewArgs().Ptr(wexp).Ptr(l.tiles).I32(int32(tk)).I32(int32(tn)), ebytes)
	})
	b.enqueue(func() error {
		return b.timed("gemm_cublaslt", float64(2*c.out*c.in+2*c.n*c.in+4*c.n*c.out), func() error {
			return b.blas.GemmBF16(b.stream, yr, driver.Float32, x16, wexp, c.n, c.out, c.in)
		})
	})
}
