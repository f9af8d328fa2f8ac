// The multi-layer launches of axis-1 trellis layers (shaders/cuda/trellis.cu): the tensor-core form trellis_mma
// (int8 activations against the LCG bytes on mma.m16n8k32, for decode batches from tuning.mmaRows rows, input
// widths a multiple of 128) and the one-row dp4a form trellis_gemvg. MatMuls queued back to back on the same
// activations join one launch (q, k, v; gate, up), and a SwiGLU of a joined gate and up pair folds into it (the
// fused gate/up/SwiGLU of the seeds). The axis-0 tensor-core form for the down projection of a batch, trellis_mma0
// (split-K), is launched from here too.

package cuda

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// qmmaDefaultRows is the fewest activation rows the tensor-core form serves by default.
const qmmaDefaultRows = 2

// qmmaWideRows is the one instantiation of trellis_mma above the decode batches (its own compilation unit,
// qmmaWideUnit): prompt chunks of 9..16 rows (the follow-up of a cached prompt, a speculative batch) decode each
// weight once for two n-fragments, where the bf16 expansion of the layer and its GEMM cost a fixed ~0.8 ms a
// Qwen3-14B layer whatever the rows (docs/perf.md: 33 of the 48 ms of a 16-row chunk at position 2032).
const (
	qmmaWideRows = 16
	qmmaWideUnit = "trellis.cu#n16"
)

// qmmaInst is the trellis_mma instantiation serving n rows.
func qmmaInst(n int) int {
	if n > maxGemvRows {
		return qmmaWideRows
	}
	return qInst(n)
}

// qmmaSeg mirrors QMmaSeg in shaders/cuda/trellis.cu (40 bytes).
type qmmaSeg struct {
	W, Scales, Bias, Y driver.DevPtr
	Out, Tile0         int32
}

// qmmaParams mirrors QMmaParams (168 bytes).
type qmmaParams struct {
	Seg                                  [3]qmmaSeg
	X, H                                 driver.DevPtr
	NSeg, In, Shift, L, NRows, KS, Chunk int32
	NTiles                               int32
}

// qgroupParams mirrors QGroupParams (192 bytes), the parameters of trellis_gemvg.
type qgroupParams struct {
	Seg                        [3]qmmaSeg
	X, H, Ctr                  driver.DevPtr
	NSeg, In, Shift, L, NUnits int32
	Eps                        float32
	NormW, XN, Res             driver.DevPtr
}

// gemvmLab are the lab shapes of trellis_gemvm (3-bit; tuning key gemvg_shape with gemv_mma on), which runs at
// gemvg's default shape otherwise (U: the rounds of 32 runs a lane loads at once).
var gemvmLab = []gemvgShape{{3, 2, 8}, {4, 1, 8}, {2, 4, 8}}

// trellisGemvgName names the one-row grouped form for k-bit codes (pf: each lane's words loaded one run ahead).
func trellisGemvgName(k int, pf bool) string {
	if pf {
		return fmt.Sprintf("trellis_gemvg_k%d_pf", k)
	}
	return gemvgDefault.name(k)
}

// gemvgShape is a trellis_gemvg launch shape: blocks per SM (its launch bound: 65536/(32·w·bps) registers a
// thread), the runs a lane loads at once and the warps a block (8; 32: one block an SM, whose staging of the
// activations serves all its warps). The grid is bps blocks per SM, every warp taking units until none are left.
type gemvgShape struct{ bps, u, w int }

func (s gemvgShape) name(k int) string { return s.kernel("trellis_gemvg", k) }

// kernel names form's kernel (trellis_gemvg, trellis_gemvm) of this shape for k-bit codes: the default shape
// unsuffixed.
func (s gemvgShape) kernel(form string, k int) string {
	switch {
	case s == gemvgDefault:
		return fmt.Sprintf("%s_k%d", form, k)
	case s.w != 8:
		return fmt.Sprintf("%s_k%d_b%du%dw%d", form, k, s.bps, s.u, s.w)
	}
	return fmt.Sprintf("%s_k%d_b%du%d", form, k, s.bps, s.u)
}

// gemvgDefault is the shape of the one-row int8 form (four blocks, 64 registers, U 2). gemvgLab are instantiated
// for 3-bit codes only, for measurement (tuning key gemvg_shape): more warps per SM at fewer registers.
var (
	gemvgDefault = gemvgShape{4, 2, 8}
	gemvgLab     = []gemvgShape{{5, 2, 8}, {5, 1, 8}, {6, 1, 8}, {4, 1, 8}}
	// gemvgWide is the one-block-an-SM shape of every width (tuning key gemvg_warps=32, the default).
	gemvgWide = gemvgShape{1, 2, 32}
	// gemvgRounds are one-block-an-SM shapes for launches of few units (tuning key gemvg_round, on): fewer warps at
	// more registers, so that a lane asks for more of its runs at once. A launch whose units fit one round of
	// the grid's warps (o: 2,560 units, q/k/v: 3,584 at Qwen3-14B) otherwise spends each unit's time in
	// three DRAM round trips (U 2, 2, 1 of the five runs a lane takes at in = 5,120): Nsight Compute (H200,
	// 2026-12-03) had o and q/k/v at 0.43 and 0.54 issued warps a scheduler-cycle, long-scoreboard stalls 5.1 and
	// 4.3 cycles an instruction, against gate/up's 0.76 and 2.5. {1, 5, 20}: 20 warps, all five runs in flight
	// (96 registers); {1, 3, 28}: 28 warps, three runs then two (72 registers; U 5 spills there).
	gemvgRounds = []gemvgShape{{1, 5, 20}, {1, 3, 28}}
)

// gemvgRound is the first of gemvgRounds whose grid (one block an SM) holds units in one round and whose U with
// one pair after it covers a lane's runs at in, or false.
func gemvgRound(units, in, sms int) (gemvgShape, bool) {
	runs := (in/32 + 31) / 32 // a lane's runs
	for _, s := range gemvgRounds {
		if units <= s.w*sms && runs <= s.u+2 && runs >= s.u {
			return s, true
		}
	}
	return gemvgShape{}, false
}

// gemvgSupports is whether trellis_gemvg serves a layer's MatMul: one row of an int8-activation axis-1 trellis
// layer whose quantized activations fit in one block's shared memory, when the tuning table says so.
func gemvgSupports(c quantCase) bool {
	return c.group && c.act8 && c.n == 1 && c.w.Format == backend.FormatTrellis && c.w.Axis == 1 && c.in%32 == 0 &&
		c.in/32*36*4 <= qSmemMax
}

// enqueueGemvg queues trellis_gemvg for one layer (MatMulGroup and GateUpSwiGLU put several in one launch).
func enqueueGemvg(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear) {
	g := &qmmaGroup{n: c.n, x: x, segs: []*qlinear{l}, ys: []driver.DevPtr{y}, gemvg: true, fold: gemvgFold{res: c.res}}
	b.enqueue(g.launch(b))
}

// gemvgFolds is whether the trellis_gemvg kernel a layer's launches use takes gemvgFold's norm and residual: the
// production kernel and its lab shapes, not the lab's tensor-core or prefetching forms.
func (b *Backend) gemvgFolds(l *qlinear) bool {
	return !(l.gemvMMA && l.in%128 == 0) && !(l.w.Bits == 3 && b.tune.gemvgPrefetch)
}

// SetQuantMMA pins whether int8-activation trellis layers loaded afterwards (both axes) use the tensor-core forms
// for every decode batch or never (the verify cases pin each form); unset, the tuning table's mma_rows and
// mma0_rows decide.
func (b *Backend) SetQuantMMA(on bool) {
	b.quant.mma = -1
	if on {
		b.quant.mma = 1
	}
}

// wantGemvMMA is whether one-row axis-1 layers loaded now take the grouped form's tensor-core kernel
// (trellis_gemvm, a lab form: the tuning table's gemv_mma; SetQuantMMA's pins leave it alone).
func (b *Backend) wantGemvMMA() bool { return b.tune.gemvMMA && b.quant.mma == 0 }

// mmaRows is the fewest rows the tensor-core form of coded axis `axis` (trellis_mma, trellis_mma0) serves for a
// layer loaded now (0: never): SetQuantMMA pins both axes, else the tuning table's rows for the axis.
func (b *Backend) mmaRows(axis int) int {
	if b.quant.mma != 0 {
		return max(b.quant.mma, 0)
	}
	if axis == 0 {
		return b.tune.mma0Rows
	}
	return b.tune.mmaRows
}

// trellisMmaName names the tensor-core form for m-tile widths k0, k1 (equal but for a fused SwiGLU of mixed widths).
func trellisMmaName(k0, k1, n int) string { return fmt.Sprintf("trellis_mma_k%d%d_n%d", k0, k1, n) }

// qmmaMixed is whether the mixed-width (k0 ≠ k1) fused gate/up forms are instantiated for N rows: one row only
// (decode of a model quantized with different gate and up widths; batches run them as separate launches).
func qmmaMixed(N int) bool { return N == 1 }

// qmmaBlocksPerSM caps the grid: two 256-thread blocks per multiprocessor (the launch bound of the kernel).
const qmmaBlocksPerSM = 2

// qmmaChunk is the positions staged per pass: every group of 128 costs 144 words a row, plus 8 a row.
func qmmaChunk(N, in int) int {
	groups := (qSmemMax/(4*N) - 8) / 144
	return min(in, groups*128)
}

// qmmaKS is how many warps share a tile's groups: all eight of a block, measured best on the H200 (2026-11-30,
// 3-bit 14B decode, 1920 launches: ks 8 65.0 ms, 4 67.1 ms, and 69.8 ms for the fewest that gave every block slot
// a tile group); uncapped grids were slower (71.0–72.0 ms).
const qmmaKS = 8

// qmmaGroup is one trellis_mma or trellis_gemvg launch: up to three layers on the same activations, and the SwiGLU
// output when it is a gate/up pair with SwiGLU folded in (GateUpSwiGLU).
type qmmaGroup struct {
	n     int
	x     driver.DevPtr
	segs  []*qlinear
	ys    []driver.DevPtr
	h     driver.DevPtr
	gemvg bool // the one-row grouped dp4a form (trellis_gemvg) instead of the tensor-core one
	fold  gemvgFold
}

// gemvgFold is what a trellis_gemvg launch folds in around its products (the fused ops NormMatMulGroup,
// NormGateUpSwiGLU and MatMulAdd): the input norm (normw non-zero: x is RMSNorm'd with it, xn receives the norm)
// and the residual added to the one segment's output (res).
type gemvgFold struct {
	normw, xn, res driver.DevPtr
	eps            float32
}

// form names the group's kernel family (debug lines).
func (g *qmmaGroup) form() string {
	if g.gemvg {
		return "trellis_gemvg"
	}
	return "trellis_mma"
}

func (g *qmmaGroup) sameBits() bool {
	for _, l := range g.segs[1:] {
		if l.w.Bits != g.segs[0].w.Bits {
			return false
		}
	}
	return true
}

// launch returns the group's launches: one when the layers share a width or form a fused SwiGLU pair, else one
// per layer.
func (g *qmmaGroup) launch(b *Backend) func() error {
	if g.h == 0 && !g.sameBits() {
		var fs []func() error
		for i, l := range g.segs {
			one := &qmmaGroup{n: g.n, x: g.x, segs: []*qlinear{l}, ys: []driver.DevPtr{g.ys[i]}, gemvg: g.gemvg, fold: g.fold}
			fs = append(fs, one.launch(b))
		}
		return func() error {
			for _, f := range fs {
				if err := f(); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if g.gemvg {
		return g.launchGemvg(b)
	}
	N, l0 := qmmaInst(g.n), g.segs[0]
	p := qmmaParams{X: g.x, H: g.h, NSeg: int32(len(g.segs)), In: int32(l0.in), Shift: int32(l0.shift), L: int32(l0.L),
		NRows: int32(g.n), Chunk: int32(qmmaChunk(N, l0.in))}
	var bytes float64
	tiles := 0
	for i, l := range g.segs {
		p.Seg[i] = qmmaSeg{W: l.words, Scales: l.scales, Bias: l.bias, Y: g.ys[i], Out: int32(l.out), Tile0: int32(tiles)}
		tiles += (l.out + 31) / 32
		bytes += l.bytes(g.n)
	}
	k0, k1 := l0.w.Bits, l0.w.Bits
	if g.h != 0 {
		tiles = (l0.out + 15) / 16
		k1 = g.segs[1].w.Bits
		bytes += float64(4 * g.n * l0.out)
	}
	p.NTiles = int32(tiles)
	ks, per := qmmaKS, qmmaBlocksPerSM
	if b.tune.mmaKS > 0 {
		ks = b.tune.mmaKS // lab: the warps sharing a tile
	}
	if b.tune.mmaBlocks > 0 {
		per = b.tune.mmaBlocks // lab: blocks per SM
	}
	p.KS = int32(ks)
	gpb := 8 / ks
	groups := (tiles + gpb - 1) / gpb
	grid := driver.Dim3{X: min(groups, per*b.info.SMs)}
	smem := 4 * N * (int(p.Chunk)/128*144 + 8)
	name := trellisMmaName(k0, k1, N)
	raw := append([]byte(nil), (*[unsafe.Sizeof(qmmaParams{})]byte)(unsafe.Pointer(&p))[:]...)
	b.logf("  %s grid %d ks %d chunk %d smem %d tiles %d", name, grid.X, ks, p.Chunk, smem, tiles)
	return func() error {
		return b.launch(name, grid, driver.Dim3{X: 256}, smem, driver.NewArgs().Raw(raw, 8), bytes)
	}
}

// launchGemvg is the group's trellis_gemvg launch (one row; every segment of one width).
func (g *qmmaGroup) launchGemvg(b *Backend) func() error {
	l0 := g.segs[0]
	p := qgroupParams{X: g.x, H: g.h, Ctr: b.quant.ctr, NSeg: int32(len(g.segs)), In: int32(l0.in), Shift: int32(l0.shift), L: int32(l0.L),
		Eps: g.fold.eps, NormW: g.fold.normw, XN: g.fold.xn, Res: g.fold.res}
	units := 0
	var bytes float64
	for i, l := range g.segs {
		p.Seg[i] = qmmaSeg{W: l.words, Scales: l.scales, Bias: l.bias, Y: g.ys[i], Out: int32(l.out), Tile0: int32(units)}
		units += (l.out + 1) / 2
		bytes += l.bytes(1)
	}
	if g.h != 0 {
		units = l0.out
		bytes += float64(4 * l0.out)
	}
	if g.fold.res != 0 {
		bytes += float64(4 * l0.out)
	}
	shape := gemvgDefault
	name := trellisGemvgName(l0.w.Bits, false)
	whole := false // the lab's trellis_gemvm and prefetching form keep their own shapes
	switch lab := b.tune.gemvgShape; {
	case l0.gemvMMA && l0.in%128 == 0:
		name, whole = gemvgDefault.kernel("trellis_gemvm", l0.w.Bits), true
		if l0.w.Bits == 3 && slices.Contains(gemvmLab, lab) {
			shape, name = lab, lab.kernel("trellis_gemvm", 3)
		}
	case l0.w.Bits != 3: // the lab forms are 3-bit only
	case b.tune.gemvgPrefetch:
		name, whole = trellisGemvgName(3, true), true
	case lab != (gemvgShape{}):
		shape, name = lab, lab.name(3)
	}
	if !whole && shape == gemvgDefault && b.tune.gemvgWarps == gemvgWide.w {
		shape, name = gemvgWide, gemvgWide.name(l0.w.Bits)
		if r, ok := gemvgRound(units, l0.in, b.info.SMs); ok && b.tune.gemvgRound {
			shape, name = r, r.name(l0.w.Bits)
		}
	}
	p.NUnits = int32(units)
	// Every SM a block while there are units for them (the kernel deals the first units out across the blocks).
	grid := driver.Dim3{X: max(1, min(units, shape.bps*b.info.SMs))}
	smem := l0.in / 32 * 36 * 4
	raw := append([]byte(nil), (*[unsafe.Sizeof(qgroupParams{})]byte)(unsafe.Pointer(&p))[:]...)
	b.logf("  %s grid %d units %d smem %d layers %d swiglu %v norm %v residual %v", name, grid.X, units, smem, len(g.segs), g.h != 0,
		g.fold.normw != 0, g.fold.res != 0)
	return func() error {
		return b.launch(name, grid, driver.Dim3{X: 32 * shape.w}, smem, driver.NewArgs().Raw(raw, 8), bytes)
	}
}

// qmmaSupports is whether the tensor-core form serves a layer's MatMul of n rows.
func qmmaSupports(c quantCase) bool {
	return c.act8 && c.mmaRows > 0 && c.n >= c.mmaRows && c.n <= max(maxGemvRows, c.wideRows) && c.w.Format == backend.FormatTrellis &&
		c.w.Axis == 1 && c.in%128 == 0
}

// enqueueQMma queues the tensor-core form, joining the trellis_mma launch queued last when it multiplies the same
// activations with a layer of the same geometry (block, L) and room remains (three layers).
func enqueueQMma(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear) {
	g := &qmmaGroup{n: c.n, x: x, segs: []*qlinear{l}, ys: []driver.DevPtr{y}}
	b.enqueue(g.launch(b))
}

// groupable reports whether layers ls (with their cases cs and the forms selection picks for them) can share one
// multi-layer launch on x: all trellis_gemvg or all trellis_mma, one input geometry (block, L), at most three,
// outputs apart from x and from each other. gemvg is the form found.
func groupable(ls []*qlinear, cs []quantCase, forms []string, x driver.DevPtr, ys []driver.DevPtr) (gemvg, ok bool) {
	if len(ls) < 2 || len(ls) > 3 || (forms[0] != "trellis_gemvg" && forms[0] != "trellis_mma") {
		return false, false
	}
	gemvg = forms[0] == "trellis_gemvg"
	for i, l := range ls {
		c := cs[i]
		if forms[i] != forms[0] || c.n != cs[0].n || l.in != ls[0].in || l.shift != ls[0].shift || l.L != ls[0].L ||
			overlaps(ys[i], 4*c.n*c.out, x, 4*c.n*c.in) {
			return false, false
		}
		for j := range i {
			if overlaps(ys[i], 4*c.n*c.out, ys[j], 4*cs[j].n*cs[j].out) {
				return false, false
			}
		}
	}
	return gemvg, true
}

// ---- axis 0 (down): trellis_mma0 ----

// qmma0DefaultRows is the fewest activation rows trellis_mma0 serves by default: batches from two rows, where the
// dp4a form pays one dp4a per weight and row and the MMA one a quarter instruction per weight whatever N. Measured
// on the H200 (2026-12-01, `bench --synthetic qwen3-14b --bits 3 -p 0 -n 64 -r 2`): batch 4 418.3 tok/s against
// 379.3 with the dp4a form, batch 8 483.1 against 403.7; verify-kernels MatMul/trellis/mma0 32 of 32 pass.
const qmma0DefaultRows = 2

// qmma0Piece is the positions per lane piece P of trellis_mma0 (P/2 m-tiles, 2P int32 accumulators a lane);
// qmma0LabPiece is instantiated for 3-bit codes only, for measurement (tuning key mma0_piece=32, lab).
const (
	qmma0Piece    = 16
	qmma0LabPiece = 32
)

// qmma0Pieces are the pieces instantiated for k-bit codes (the lab piece with lab).
func qmma0Pieces(k int, lab bool) []int {
	if lab && k == 3 {
		return []int{qmma0Piece, qmma0LabPiece}
	}
	return []int{qmma0Piece}
}

func trellisMma0Name(k, n, piece int) string {
	return fmt.Sprintf("trellis_mma0_k%d_n%d_p%d", k, n, piece)
}

// mma0MaxRows is the most coded rows a split may take (their N activations are staged, ≤ 32 KB, and each warp's
// ≤ 128 rows keep its int32 sums exact: 128·1020·127 < 2^31); mma0MinRows gives every warp of a block a group of
// 8 (the fixture's small layers would otherwise split to 8 rows a block, seven warps idle).
const (
	mma0MaxRows = 1024
	mma0MinRows = 64
)

// mma0BlocksPerSM is the grid the axis-0 split aims for: two waves of the three blocks per SM that P 16's 72
// registers allow (__launch_bounds__(256, 3)). A prediction, not yet measured (14B down: 40 × 20 blocks).
const mma0BlocksPerSM = 6

// mma0Split returns the rows per split (a multiple of 8) and the split count for a coded matrix of rows × cols.
func mma0Split(rows, cols, piece, sms int) (rowsPerSplit, splits int) {
	tiles := (cols + 8*piece - 1) / (8 * piece)
	want := max(1, (mma0BlocksPerSM*sms+tiles-1)/tiles)
	rps := (rows + want - 1) / want
	rps = min(max((rps+7)&^7, mma0MinRows), mma0MaxRows)
	return rps, (rows + rps - 1) / rps
}

// qmma0Supports is whether trellis_mma0 serves a layer's MatMul of n rows: int8-activation axis-0 trellis layers
// whose coded rows fill groups of 8 and whose outputs fill 32-position pieces.
func qmma0Supports(c quantCase) bool {
	return c.act8 && c.mmaRows > 0 && c.n >= c.mmaRows && c.n <= maxGemvRows && c.w.Format == backend.FormatTrellis &&
		c.w.Axis == 0 && c.in%8 == 0 && c.out%32 == 0
}

// enqueueQMma0 launches trellis_mma0 and the split-K reduce (trellis_splitk_reduce) of an axis-0 layer.
func enqueueQMma0(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear) {
	N := qInst(c.n)
	piece := qmma0Piece
	if v := b.tune.mma0Piece; v > 0 && slices.Contains(qmma0Pieces(l.w.Bits, b.tune.lab), v) {
		piece = v // lab
	}
	rps, splits := mma0Split(l.rows, c.out, piece, b.info.SMs)
	grid := driver.Dim3{X: (c.out + 8*piece - 1) / (8 * piece), Y: splits}
	enqueueSplitK(b, c, y, x, l, trellisMma0Name(l.w.Bits, N, piece), grid, rps)
}
