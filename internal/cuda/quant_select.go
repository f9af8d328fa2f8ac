// Selection for quantized linear layers (trellis codes, MLX affine): which kernel form serves a MatMul by row
// count, format, bits and layout (quantForms, first match wins), the per-form launch shapes (tables keyed by the
// activation rows N, with where each number came from), and the one naming function per kernel family that both
// the instantiation list (quantInstantiations, appended to trellis.cu and affine.cu) and the launchers use.

package cuda

import (
	"fmt"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// quantCase is what selection sees of one quantized MatMul.
type quantCase struct {
	n, in, out int
	w          backend.Weight
	exact      bool // the layer was loaded in the reference-arithmetic mode (tuning.exact, SetQuantExact)
	act8       bool // the layer's decode GEMV may quantize activations to int8 (qlinear.act8)
	mmaRows    int  // the fewest rows the tensor-core form serves for the layer (qlinear.mmaRows), 0 never
	group      bool // one-row layers on one input may share a trellis_gemvg launch (tuning.gemvGroup)
	splitMax   int  // tuning.splitGemmMax: prompts this small keep f32 weights (gemv_chunks)
	wideRows   int  // tuning.mmaWideRows: the most rows trellis_mma serves (8, or qmmaWideRows for prompt chunks)
	chunkRows  int  // tuning.chunkRowsMax: int8-activation prompt chunks this short run the decode forms in passes
	// res, for MatMulAdd, is the residual the launch adds to y (y = res + x·Wᵀ; y may be res): set only where
	// selection picks one of residualForms.
	res driver.DevPtr
}

// residualForms are the forms whose launches take quantCase.res: trellis_gemvg's epilogue and the split-K reduce
// of the axis-0 forms.
var residualForms = []string{"trellis_gemvg", "trellis_mma0", "trellis_gemv0_i8", "trellis_gemv0"}

// quantForm is one way to compute a quantized MatMul.
type quantForm struct {
	name     string
	supports func(c quantCase) bool
	enqueue  func(b *Backend, c quantCase, y, x driver.DevPtr, l *qlinear)
}

// quantForms is the quantized MatMul's selection table, most specific first.
//
//   - trellis_gemv1 / trellis_gemv0 / affine_gemv: decode batches (n ≤ 8), each weight decoded once for every row;
//     axis-0 trellis codes (down) split the coded rows over blocks and reduce the partials in a second launch.
//     trellis_gemv1_i8 / trellis_gemv0_i8 first, for layers loaded with int8 activations (qlinear.act8:
//     tuning.act8 per axis — both on: 3-bit 14B tg128 153.4 against 136.5 tok/s with the f32 forms, mean KL to the
//     CPU ≤ 1.6e-4 (TestQuantizedKL); tuning key act8=0 keeps the f32 forms; never in exact mode).
//   - trellis_mma (first: int8-activation layers with in % 128 == 0, from tuning.mmaRows = 2 rows by default,
//     every batch with mma_rows=1, never with =0): the tensor-core form, q/k/v and gate/up joined in one
//     launch each and SwiGLU folded into gate/up (qmma.go).
//   - trellis_gemvg (one row, int8-activation axis-1 layers, tuning.gemvGroup): the dp4a arithmetic of
//     trellis_gemv1_i8 with the layers on one input in one launch (q/k/v; gate/up with SwiGLU folded) and units
//     of two rows handed out by a counter (qmma.go).
//   - trellis_mma0 (before trellis_gemv0_i8: int8-activation axis-0 layers with in % 8 == 0 and out % 32 == 0, from
//     tuning.mma0Rows rows, by default from qmma0DefaultRows = 2, measured on the H200; SetQuantMMA pins
//     both axes): the axis-0 tensor-core form, split-K with trellis_splitk_reduce (qmma.go).
//   - gemv_chunks: prompts whose GEMM is small (n·in·out ≤ tuning.splitGemmMax, the bound under which the dense path
//     splits its input for precision: the fixture models), every prompt of an exact-mode layer — the decode
//     forms over chunks of 8 rows, so prompt logits keep f32 weights (the bf16 expansion moved the fixture models'
//     prompt logits ~1e-3) — and int8-activation chunks of at most tuning.chunkRowsMax rows (the down projection
//     of a 9..16-row chunk: two passes of trellis_mma0 instead of the layer's bf16 expansion and GEMM).
//   - expand_cublaslt: other prompts — the layer expanded to a bf16 [out, in] scratch (one layer at a time) and
//     multiplied by cuBLASLt: weights rounded to bf16 (trellis.Factored's, hardware rounding), f32 accumulation.
//   - gemv_chunks again for widths cuBLASLt cannot take (never for a real model).
var quantForms = append(quantDecodeForms, []quantForm{
	{name: "gemv_chunks", supports: func(c quantCase) bool {
		return c.exact || c.n*c.in*c.out <= c.splitMax || (c.act8 && c.n <= c.chunkRows)
	}, enqueue: enqueueQChunks},
	{name: "expand_cublaslt", supports: func(c quantCase) bool { return c.in%8 == 0 && c.out%8 == 0 }, enqueue: enqueueQExpand},
	{name: "gemv_chunks", supports: func(quantCase) bool { return true }, enqueue: enqueueQChunks},
}...)

// quantDecodeForms are the forms for n ≤ 8 rows (also what gemv_chunks runs per chunk).
var quantDecodeForms = []quantForm{
	{name: "trellis_mma", supports: qmmaSupports, enqueue: enqueueQMma},
	{name: "trellis_gemvg", supports: gemvgSupports, enqueue: enqueueGemvg},
	{name: "trellis_gemv1_i8", supports: func(c quantCase) bool {
		return c.act8 && c.n <= maxGemvRows && c.w.Format == backend.FormatTrellis && c.w.Axis == 1
	}, enqueue: enqueueQGemv},
	{name: "trellis_gemv1", supports: func(c quantCase) bool {
		return c.n <= maxGemvRows && c.w.Format == backend.FormatTrellis && c.w.Axis == 1
	}, enqueue: enqueueQGemv},
	{name: "trellis_mma0", supports: qmma0Supports, enqueue: enqueueQMma0},
	{name: "trellis_gemv0_i8", supports: func(c quantCase) bool {
		return c.act8 && c.n <= maxGemvRows && c.w.Format == backend.FormatTrellis && c.w.Axis == 0
	}, enqueue: enqueueTrellisGemv0},
	{name: "trellis_gemv0", supports: func(c quantCase) bool {
		return c.n <= maxGemvRows && c.w.Format == backend.FormatTrellis && c.w.Axis == 0
	}, enqueue: enqueueTrellisGemv0},
	{name: "affine_gemv", supports: func(c quantCase) bool {
		return c.n <= maxGemvRows && c.w.Format == backend.FormatAffine
	}, enqueue: enqueueQGemv},
}

// quantBits are the widths instantiated: trellis k (the useful 2, 3, 4) and every affine width MLX has.
var (
	trellisBits = []int{2, 3, 4}
	affineBits  = []int{2, 3, 4, 5, 6, 8}
)

// qRowsInst are the activation-row counts the decode forms are instantiated for; n rows run the smallest N ≥ n
// (rows past n read zeros and are not stored: 3 rows cost 4, 5–7 cost 8).
var qRowsInst = []int{1, 2, 4, 8}

// qInst is the instantiated row count serving n ≤ maxGemvRows rows.
func qInst(n int) int {
	for _, N := range qRowsInst {
		if n <= N {
			return N
		}
	}
	panic(fmt.Sprintf("cuda backend: no quantized decode form for %d rows (max %d)", n, maxGemvRows))
}

// qShape is the launch shape of a qgemv_rows form (quant.cuh): R weight rows per warp (each activation load
// serves R rows), and how many blocks per multiprocessor the grid is capped at (blocks stride over the row
// groups, so activations staged once per block serve several groups).
type qShape struct{ R, blocksPerSM int }

// qShapes is the shape per activation rows N. Source: DESIGN.md (two rows per warp), then the H200 on 2026-11-30
// (docs/perf.md, `bench --synthetic qwen3-14b --bits 3 --profile`, 3840 one-row axis-1 launches): R 2 77.6 ms,
// R 4 75.8 ms (−2.4 %), R 1 79.2 ms; 2 blocks/SM 82.4 ms, 8 blocks/SM 77.2 ms. R 4 is not promoted yet:
// verify-kernels has run only R 2 (the lab forms are instantiated for k 3, one row).
var qShapes = map[int]qShape{1: {2, 4}, 2: {2, 4}, 4: {2, 4}, 8: {2, 4}}

// qLab lists shapes instantiated for measurement only (3-bit trellis, one row): R per warp, and the R whose
// prefetching form (PF, quant.cuh) is instantiated (tuning keys gemv_r, gemv_pf; lab only).
var (
	qLab         = []int{1, 4}
	qLabPrefetch = []int{2, 4}
)

// qI8U is the runs a lane of the int8-activation form (trellis_gemv1_i8) loads before decoding them, by N (U·R·(K+1)
// words in flight per lane; U·R·N int32 sums). qLabI8 lists the (R, U) instantiated for measurement only (3-bit, one
// row; tuning keys gemv_r, gemv_u; lab only).
func qI8U(N int) int {
	if N <= 2 {
		return 2
	}
	return 1
}

var qLabI8 = [][2]int{{2, 1}, {2, 4}, {4, 1}, {4, 2}}

// qSmemMax bounds the activations a qgemv_rows block stages at once (dynamic shared memory, bytes): a layer whose
// N·in f32 activations (plus padding) exceed it is staged in passes.
const qSmemMax = 96 << 10

// qChunk is the positions staged per pass for N rows of width in: every run of 32 positions costs 36 floats a row.
func qChunk(N, in int) int {
	runs := qSmemMax / (4 * 36 * N)
	return min(in, runs*32)
}

// qSplit is how many warps share a row group's runs: the fewest that give the device about four row groups per
// multiprocessor (small-out layers such as k/v keep enough warps busy), as gemvSplit does for the dense GEMV.
func qSplit(out, R, sms int) int {
	for _, ks := range []int{1, 2, 4} {
		if (out+R*(8/ks)-1)/(R*(8/ks)) >= 4*sms {
			return ks
		}
	}
	return 8
}

// Axis-0 (split-K) launch shape: positions per lane P by N (P·N ≤ 64 accumulators), the most input rows a split
// may take (its activations are staged), and the blocks aimed for.
func gemv0Piece(N int) int {
	switch {
	case N <= 2:
		return 32
	case N <= 4:
		return 16
	}
	return 8
}

func gemv0MaxRows(N int) int { return min(1024, 2048/N) }

// gemv0Split returns the rows per split and the split count for a coded matrix of rows × cols at N rows, for a
// grid of about perSM blocks per multiprocessor (tuning.gemv0Blocks).
func gemv0Split(rows, cols, N, sms, perSM int) (rowsPerSplit, splits int) {
	tiles := (cols + 32*gemv0Piece(N) - 1) / (32 * gemv0Piece(N))
	want := max(1, (perSM*sms+tiles-1)/tiles)
	rps := (rows + want - 1) / want
	rps = min(max((rps+7)&^7, 8), gemv0MaxRows(N))
	return rps, (rows + rps - 1) / rps
}

// variantSuffix names a decode arithmetic in kernel names (and its VAR value in trellis.cu: 0 rcp, 1 fac).
func variantSuffix(v trellis.Variant) (string, int) {
	switch v {
	case trellis.Reciprocal:
		return "rcp", 0
	case trellis.Factored:
		return "fac", 1
	}
	panic(fmt.Sprintf("cuda backend: no trellis kernels for the %s decode", v))
}

// The naming functions of the quantized families (one each, used by quantInstantiations and the launchers).
func trellisGemv1Name(k, n, r int, v trellis.Variant, prefetch bool) string {
	s, _ := variantSuffix(v)
	if prefetch {
		s += "_pf"
	}
	return fmt.Sprintf("trellis_gemv1_k%d_n%d_r%d_%s", k, n, r, s)
}
func trellisGemv1I8Name(k, n, r, u int) string {
	return fmt.Sprintf("trellis_gemv1_k%d_n%d_r%d_i8u%d", k, n, r, u)
}
func trellisGemv0Name(k, n int, v trellis.Variant) string {
	s, _ := variantSuffix(v)
	return fmt.Sprintf("trellis_gemv0_k%d_n%d_%s", k, n, s)
}
func trellisGemv0I8Name(k, n int) string   { return fmt.Sprintf("trellis_gemv0_k%d_n%d_i8", k, n) }
func trellisExpandName(k int) string       { return fmt.Sprintf("trellis_expand_k%d", k) }
func affineGemvName(bits, n, r int) string { return fmt.Sprintf("affine_gemv_b%d_n%d_r%d", bits, n, r) }
func affineExpandName(bits int) string     { return fmt.Sprintf("affine_expand_b%d", bits) }

const trellisReduceName = "trellis_splitk_reduce"

// moeTrellis1Name is the routed-experts GEMV over axis-1 trellis experts (moe.go, MOE_TRELLIS1 in trellis.cu).
func moeTrellis1Name(k int, v trellis.Variant) string {
	sfx, _ := variantSuffix(v)
	return fmt.Sprintf("moe_trellis1_k%d_%s", k, sfx)
}

// moeAffineName is the routed-experts GEMV over affine experts (moe.go, MOE_AFFINE in affine.cu).
func moeAffineName(bits int) string { return fmt.Sprintf("moe_affine_b%d", bits) }

// quantVariants are the trellis decode arithmetics instantiated: Reciprocal (the CPU's, per weight) and Factored.
var quantVariants = []trellis.Variant{trellis.Reciprocal, trellis.Factored}

// quantUnits are the compilation units of trellis.cu and affine.cu: one per instantiated row count N, so NVRTC
// compiles them in parallel (one file of every form took ~25 s on one core).
func quantUnits() []string {
	var out []string
	for _, f := range []string{"trellis.cu", "affine.cu"} {
		for _, N := range qRowsInst {
			out = append(out, fmt.Sprintf("%s#n%d", f, N))
		}
	}
	return append(out, qmmaWideUnit)
}

// quantInstantiations lists the macro lines of each unit of trellis.cu and affine.cu (quantUnits); lab adds the
// forms instantiated for measurement only (3-bit codes: qLab, qLabPrefetch, qLabI8, qmma0LabPiece, gemvgLab and
// the prefetching trellis_gemvg).
func quantInstantiations(lab bool) map[string][]string {
	m := map[string][]string{}
	for _, k := range trellisBits {
		for _, N := range qRowsInst {
			unit := fmt.Sprintf("trellis.cu#n%d", N)
			for _, v := range quantVariants {
				_, vi := variantSuffix(v)
				R := []int{qShapes[N].R}
				if lab && k == 3 && N == 1 {
					for _, r := range qLab {
						if !slices.Contains(R, r) {
							R = append(R, r)
						}
					}
				}
				for _, r := range R {
					m[unit] = append(m[unit], fmt.Sprintf("TRELLIS_GEMV_ROWS(%s, %d, %d, %d, %d, false)", trellisGemv1Name(k, N, r, v, false), k, N, r, vi))
				}
				if lab && k == 3 && N == 1 {
					for _, r := range qLabPrefetch {
						m[unit] = append(m[unit], fmt.Sprintf("TRELLIS_GEMV_ROWS(%s, %d, %d, %d, %d, true)", trellisGemv1Name(k, N, r, v, true), k, N, r, vi))
					}
				}
				m[unit] = append(m[unit], fmt.Sprintf("TRELLIS_GEMV_SPLITK(%s, %d, %d, %d)", trellisGemv0Name(k, N, v), k, N, vi))
			}
		}
		for _, N := range qRowsInst {
			unit := fmt.Sprintf("trellis.cu#n%d", N)
			ru := [][2]int{{qShapes[N].R, qI8U(N)}}
			if lab && k == 3 && N == 1 {
				ru = append(ru, qLabI8...)
			}
			for _, x := range ru {
				m[unit] = append(m[unit], fmt.Sprintf("TRELLIS_GEMV_INT(%s, %d, %d, %d, %d)", trellisGemv1I8Name(k, N, x[0], x[1]), k, N, x[0], x[1]))
			}
			m[unit] = append(m[unit], fmt.Sprintf("TRELLIS_GEMV_SPLITK_INT(%s, %d, %d)", trellisGemv0I8Name(k, N), k, N))
			for _, piece := range qmma0Pieces(k, lab) {
				m[unit] = append(m[unit], fmt.Sprintf("TRELLIS_MMA_SPLITK(%s, %d, %d, %d)", trellisMma0Name(k, N, piece), k, N, piece))
			}
			for _, k1 := range trellisBits {
				if k1 == k || qmmaMixed(N) {
					m[unit] = append(m[unit], fmt.Sprintf("TRELLIS_MMA(%s, %d, %d, %d)", trellisMmaName(k, k1, N), k, k1, N))
				}
			}
		}
		m[qmmaWideUnit] = append(m[qmmaWideUnit], fmt.Sprintf("TRELLIS_MMA(%s, %d, %d, %d)", trellisMmaName(k, k, qmmaWideRows), k, k, qmmaWideRows))
		m["trellis.cu#n1"] = append(m["trellis.cu#n1"], fmt.Sprintf("TRELLIS_EXPAND(%s, %d)", trellisExpandName(k), k))
		for _, v := range quantVariants { // in the n2 unit: n1 holds the most forms
			_, vi := variantSuffix(v)
			m["trellis.cu#n2"] = append(m["trellis.cu#n2"], fmt.Sprintf("MOE_TRELLIS1(%s, %d, %d)", moeTrellis1Name(k, v), k, vi))
		}
		shapes := append([]gemvgShape{gemvgDefault, gemvgWide}, gemvgRounds...)
		if lab && k == 3 {
			shapes = append(shapes, gemvgLab...)
			m["trellis.cu#n1"] = append(m["trellis.cu#n1"], fmt.Sprintf("TRELLIS_GEMVG_PF(%s, %d)", trellisGemvgName(k, true), k))
		}
		for _, sh := range shapes {
			m["trellis.cu#n1"] = append(m["trellis.cu#n1"], fmt.Sprintf("TRELLIS_GEMVG(%s, %d, %d, %d, %d)", sh.name(k), k, sh.bps, sh.u, sh.w))
		}
		if lab { // trellis_gemvm: the lab's one-row tensor-core form (tuning key gemv_mma), its shapes at 3 bits
			shapes := []gemvgShape{gemvgDefault}
			if k == 3 {
				shapes = append(shapes, gemvmLab...)
			}
			for _, sh := range shapes {
				m["trellis.cu#n1"] = append(m["trellis.cu#n1"], fmt.Sprintf("TRELLIS_GEMVM(%s, %d, %d, %d)", sh.kernel("trellis_gemvm", k), k, sh.bps, sh.u))
			}
		}
	}
	for _, bits := range affineBits {
		for _, N := range qRowsInst {
			unit := fmt.Sprintf("affine.cu#n%d", N)
			m[unit] = append(m[unit], fmt.Sprintf("AFFINE_GEMV(%s, %d, %d, %d)", affineGemvName(bits, N, qShapes[N].R), bits, N, qShapes[N].R))
		}
		m["affine.cu#n1"] = append(m["affine.cu#n1"], fmt.Sprintf("AFFINE_EXPAND(%s, %d)", affineExpandName(bits), bits))
		m["affine.cu#n2"] = append(m["affine.cu#n2"], fmt.Sprintf("MOE_AFFINE(%s, %d)", moeAffineName(bits), bits))
	}
	return m
}
