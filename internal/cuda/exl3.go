// EXL3 linears on the device (exllamav3's format, docs/exl3-format.md; kernels in shaders/cuda/exl3.cu): the
// tiles and the two scale vectors uploaded as stored, and a MatMul of three steps — the input side (exl3_had: x' =
// H(su ⊙ x), padded to whole blocks), the inner product with Ŵ (the decode GEMV for n ≤ 8 rows, else Ŵᵀ expanded
// to bf16 and cuBLASLt; the GEMV leaves y' as exl3Slices planes of partial sums), the output side (exl3_had, or
// exl3_had_sum adding the GEMV's planes in order first: y = sv ⊙ H(y') + bias, cut to the layer's outputs). The
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

// exl3HadName is the sides' kernel over one plane (the input side, and the output side of the expansion's GEMM);
// exl3HadSumName the output side of exl3_gemv, whose exl3Slices planes of partial sums it adds first, in order.
const (
	exl3HadName    = "exl3_had"
	exl3HadSumName = "exl3_had_sum"
)

// exl3Slices is EXL3_GEMV_SLICES: the planes of exl3_gemv's partial sums (a tile column's tiles kb ≡ s mod 8).
const exl3Slices = 8

// exl3GemvMinBlocks mirrors EXL3_GEMV_MIN_BLOCKS (exl3.cu): the blocks an SM holds by registers under the cap.
func exl3GemvMinBlocks(k int, cb exl3.Codebook, n int) int {
	switch {
	case n == 1 && (k == 7 || cb == exl3.ThreeInst):
		return 6
	case n == 1:
		return 8
	case n == 2:
		return 5
	case n <= 4:
		return 4
	case k == 7:
		return 2
	}
	return 3
}

// exl3GemvSmem is exl3_gemv's static shared memory in bytes: 8 warps' rings of exl3_gemv_stages groups of
// EXL3_GEMV_AHEAD tiles of 8·K words.
func exl3GemvSmem(k int) int {
	stages := 2
	if k <= 4 {
		stages = 3
	}
	return 8 * stages * 8 * 8 * k * 4
}

// exl3GemvBlocksPerSM is the 256-thread exl3_gemv blocks one SM of the device holds: the least of the register cap's
// count, the threads an SM holds (2,048 on sm_70, 8.0, 9.0 and 10.x; 1,024 on sm_75; 1,536 on the others) and its
// shared memory (the opt-in per-block limit plus the 1 KiB the driver reserves a block, what an SM has on sm_80+).
// The grid is this times the SMs: exl3_gemv deals every warp its units up front, so a block in a second wave would
// run its units after the rest.
func exl3GemvBlocksPerSM(info driver.Info, k int, cb exl3.Codebook, n int) int {
	per := exl3GemvMinBlocks(k, cb, qInst(n))
	threads := 1536
	switch {
	case info.CCMajor == 7 && info.CCMinor == 5:
		threads = 1024
	case info.CCMajor == 7 || info.CCMajor == 8 && info.CCMinor == 0 || info.CCMajor == 9 || info.CCMajor == 10:
		threads = 2048
	}
	per = min(per, threads/256)
	if info.MaxSharedPerBlock > 0 {
		per = min(per, (info.MaxSharedPerBlock+1024)/(exl3GemvSmem(k)+1024))
	}
	return max(per, 1)
}

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
	m[first] = append(m[first], fmt.Sprintf("EXL3_HAD(%s, 1)", exl3HadName), fmt.Sprintf("EXL3_HAD(%s, %d)", exl3HadSumName, exl3Slices))
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
	planes := exl3Slices // exl3_gemv's partial sums, added by the output side
	if prompt {
		planes = 1
	}
	if err == nil && prompt {
		x16, err = b.ensureQScratch(&b.quant.exl3X16, &b.quant.exl3X16Len, 2*n*c.in)
	}
	if err == nil {
		yr, err = b.ensureQScratch(&b.quant.exl3Y, &b.quant.exl3YLen, 4*planes*n*c.out)
	}
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: MatMul %s: EXL3 scratch: %w", l.name, err))
		return
	}
	if prompt {
		xr = 0 // the GEMM reads the bf16 copy only
	}
	b.enqueueEXL3Had(xr, x16, xs.ptr, 1, l.su, 0, 0, n, l.in, c.in, c.in)
	f.enqueue(b, c, l, yr, xr, x16)
	b.enqueueEXL3Had(d.ptr, 0, yr, planes, 0, l.sv, l.bias, n, c.out, c.out, l.out)
}

// enqueueEXL3Had launches exl3_had (planes 1) or exl3_had_sum (planes exl3Slices): dst [rows, dcols] (and dst16
// [rows, cols]) = post ⊙ H(pre ⊙ x) + bias per run of 128 of the cols-wide rows, x [rows, xcols] zero-padded (the
// sum of the planes, rows·xcols floats apart, in order).
func (b *Backend) enqueueEXL3Had(dst, dst16, x driver.DevPtr, planes int, pre, post, bias driver.DevPtr, rows, xcols, cols, dcols int) {
	runs := int64(rows) * int64(cols/exl3.Block)
	grid := driver.Dim3{X: int((runs + 3) / 4)}
	scale := rht.Scale(exl3.Block)
	bytes := float64(4*rows*(planes*xcols+dcols) + 8*cols)
	if dst16 != 0 {
		bytes += float64(2 * rows * cols)
	}
	name := exl3HadName
	if planes > 1 {
		name = exl3HadSumName
	}
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(dst).Ptr(dst16).Ptr(x).I64(int64(rows) * int64(xcols)).Ptr(pre).Ptr(post).Ptr(bias).
			I32(int32(rows)).I32(int32(xcols)).I32(int32(cols)).I32(int32(dcols)).F32(scale)
		return b.launch(name, grid, driver.Dim3{X: 128}, 0, args, bytes)
	})
}

// enqueueEXL3Gemv runs exl3_gemv over chunks of at most 8 rows (one launch when n ≤ 8): yr holds exl3Slices planes
// of [n, PadOut] partial sums (the output side adds them). Grid: exl3GemvGrid.
func enqueueEXL3Gemv(b *Backend, c exl3Case, l *exl3Linear, yr, xr, _ driver.DevPtr) {
	tk, tn := l.g.TilesK, l.g.TilesN
	plane := int64(c.n) * int64(c.out)
	for r0 := 0; r0 < c.n; r0 += maxGemvRows {
		rows := min(maxGemvRows, c.n-r0)
		name := exl3GemvName(l.g.K, l.cb, qInst(rows))
		x, y := xr.Add(4*r0*c.in), yr.Add(4*r0*c.out)
		bytes := float64(c.in)*float64(c.out)*float64(l.g.K)/8 + float64(4*rows*(c.in+exl3Slices*c.out))
		grid := driver.Dim3{X: exl3GemvGrid(tn, exl3GemvBlocksPerSM(b.info, l.g.K, l.cb, rows), b.info.SMs)}
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(l.tiles).Ptr(x).Ptr(y).I32(int32(tk)).I32(int32(tn)).I32(int32(rows)).I64(plane)
			return b.launch(name, grid, driver.Dim3{X: 256}, 0, args, bytes)
		})
	}
}

// exl3GemvGrid is exl3_gemv's block count for tn tile columns: one block per unit (a slice of a column: exl3Slices
// a column) up to the blocks the device holds at once (perSM a multiprocessor), so the first units, dealt a warp of
// every block at a time, spread over every SM (the kernel's contract).
func exl3GemvGrid(tn, perSM, sms int) int {
	return max(1, min(exl3Slices*tn, perSM*max(1, sms)))
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
