// cuBLASLt through purego: the dense matrix products of the model (activations × weights) with bf16 inputs,
// f32 accumulation and bf16 or f32 output. Descriptors, layouts and the heuristic's chosen algorithm are built once
// per shape and reused, so a steady-state GEMM is a single cublasLtMatmul call (and capturable into a graph).

package driver

import (
	"fmt"
	"math"
	"sync"
	"unsafe"
)

// DataType is a cudaDataType_t element type.
type DataType int32

// The element types GEMMs take.
const (
	Float32  DataType = 0  // CUDA_R_32F
	Float16  DataType = 2  // CUDA_R_16F
	BFloat16 DataType = 14 // CUDA_R_16BF
)

func (t DataType) String() string {
	switch t {
	case Float32:
		return "f32"
	case Float16:
		return "f16"
	case BFloat16:
		return "bf16"
	}
	return fmt.Sprintf("cudaDataType(%d)", int32(t))
}

// Size is the element size in bytes.
func (t DataType) Size() int {
	if t == Float32 {
		return 4
	}
	return 2
}

const (
	cublasCompute32F = 68 // CUBLAS_COMPUTE_32F

	descComputeType = 0 // CUBLASLT_MATMUL_DESC_COMPUTE_TYPE (int32)
	descScaleType   = 1 // CUBLASLT_MATMUL_DESC_SCALE_TYPE (int32)
	descTransA      = 3 // CUBLASLT_MATMUL_DESC_TRANSA (int32)
	descTransB      = 4 // CUBLASLT_MATMUL_DESC_TRANSB (int32)
	opN, opT        = 0, 1

	prefMaxWorkspace = 1 // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES (uint64)

	// blasWorkspace is what NVIDIA recommends for Hopper (32 MiB); with less some fast kernels are not eligible.
	blasWorkspace = 32 << 20
)

var lt struct {
	lib *library

	cublasLtCreate, cublasLtDestroy, cublasLtGetVersion                                 uintptr
	cublasLtMatmulDescCreate, cublasLtMatmulDescSetAttribute, cublasLtMatmulDescDestroy uintptr
	cublasLtMatrixLayoutCreate, cublasLtMatrixLayoutDestroy                             uintptr
	cublasLtMatmulPreferenceCreate, cublasLtMatmulPreferenceSetAttribute                uintptr
	cublasLtMatmulPreferenceDestroy, cublasLtMatmulAlgoGetHeuristic, cublasLtMatmul     uintptr
	cublasLtGetStatusName, cublasLtGetStatusString                                      uintptr
}

var (
	ltOnce sync.Once
	ltErr  error
)

func loadCublasLt() error {
	ltOnce.Do(func() {
		lib, err := openLibrary(libCublasLt, hostSearchEnv())
		if err != nil {
			ltErr = err
			return
		}
		l := &lt
		l.lib = lib
		ltErr = lib.bind([]symbol{
			{fn: &l.cublasLtCreate, names: []string{"cublasLtCreate"}},
			{fn: &l.cublasLtDestroy, names: []string{"cublasLtDestroy"}},
			{fn: &l.cublasLtGetVersion, names: []string{"cublasLtGetVersion"}},
			{fn: &l.cublasLtMatmulDescCreate, names: []string{"cublasLtMatmulDescCreate"}},
			{fn: &l.cublasLtMatmulDescSetAttribute, names: []string{"cublasLtMatmulDescSetAttribute"}},
			{fn: &l.cublasLtMatmulDescDestroy, names: []string{"cublasLtMatmulDescDestroy"}},
			{fn: &l.cublasLtMatrixLayoutCreate, names: []string{"cublasLtMatrixLayoutCreate"}},
			{fn: &l.cublasLtMatrixLayoutDestroy, names: []string{"cublasLtMatrixLayoutDestroy"}},
			{fn: &l.cublasLtMatmulPreferenceCreate, names: []string{"cublasLtMatmulPreferenceCreate"}},
			{fn: &l.cublasLtMatmulPreferenceSetAttribute, names: []string{"cublasLtMatmulPreferenceSetAttribute"}},
			{fn: &l.cublasLtMatmulPreferenceDestroy, names: []string{"cublasLtMatmulPreferenceDestroy"}},
			{fn: &l.cublasLtMatmulAlgoGetHeuristic, names: []string{"cublasLtMatmulAlgoGetHeuristic"}},
			{fn: &l.cublasLtMatmul, names: []string{"cublasLtMatmul"}},
			{fn: &l.cublasLtGetStatusName, names: []string{"cublasLtGetStatusName"}, optional: true},
			{fn: &l.cublasLtGetStatusString, names: []string{"cublasLtGetStatusString"}, optional: true},
		})
	})
	return ltErr
}

// blasStatusNames covers cublasStatus_t when the library cannot name its own codes.
var blasStatusNames = map[uint32]string{
	0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
	7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
	13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// blasCheck describes a failed cuBLASLt call; op is formatted only on failure.
func blasCheck(r uint32, format string, args ...any) error {
	if r == 0 {
		return nil
	}
	name, desc := blasStatusNames[r], ""
	if lt.cublasLtGetStatusName != 0 {
		name = goString(callPtr(lt.cublasLtGetStatusName, uintptr(r)))
	}
	if lt.cublasLtGetStatusString != 0 {
		desc = goString(callPtr(lt.cublasLtGetStatusString, uintptr(r)))
	}
	if name == "" {
		name = "CUBLAS_STATUS_UNKNOWN"
	}
	return fmt.Errorf("cuda: cublasLt %s: %s (%d: %s)", fmt.Sprintf(format, args...), name, r, desc)
}

// BlasLt is a cuBLASLt handle with its workspace and per-shape plans; one per device, device thread only.
type BlasLt struct {
	d       *Device
	h       uintptr
	ws      DevPtr
	wsBytes int
	plans   map[gemmKey]*gemmPlan
	grams   map[[2]int]*gemmPlan // GramF32's plans by (rows, n)
	version int
}

// gemmKey identifies a plan: the shape and output type of C[m,n] = A[m,k]·W[n,k]ᵀ.
type gemmKey struct {
	m, n, k int
	out     DataType
}

func (k gemmKey) String() string { return fmt.Sprintf("m=%d n=%d k=%d out=%s", k.m, k.n, k.k, k.out) }

// heuristicResult mirrors cublasLtMatmulHeuristicResult_t (96 bytes).
type heuristicResult struct {
	algo          [8]uint64
	workspaceSize uint64
	state         int32
	waves         float32
	reserved      [4]int32
}

type gemmPlan struct {
	desc, la, lb, lc uintptr // the matmul descriptor and cuBLASLt's A, B and C layouts
	algo             heuristicResult
	alpha, beta      float32 // host scalars read at enqueue time
}

// BlasLt returns the device's cuBLASLt context, creating handle and workspace on first use. Call inside Do.
func (d *Device) BlasLt() (*BlasLt, error) {
	if d.blas != nil {
		return d.blas, nil
	}
	if err := loadCublasLt(); err != nil {
		return nil, err
	}
	b := &BlasLt{d: d, plans: map[gemmKey]*gemmPlan{}, grams: map[[2]int]*gemmPlan{}, wsBytes: blasWorkspace}
	if err := blasCheck(call(lt.cublasLtCreate, uintptr(unsafe.Pointer(&b.h))), "cublasLtCreate"); err != nil {
		return nil, err
	}
	b.version = int(call(lt.cublasLtGetVersion))
	ws, err := d.Alloc(b.wsBytes)
	if err != nil {
		call(lt.cublasLtDestroy, b.h)
		return nil, fmt.Errorf("cuda: cublasLt workspace: %w", err)
	}
	b.ws = ws
	d.blas = b
	d.onClose(b.destroy)
	return b, nil
}

// Version is cublasLtGetVersion (e.g. 130000).
func (b *BlasLt) Version() int { return b.version }

// LibraryPath is the cuBLASLt file in use.
func (b *BlasLt) LibraryPath() string { return lt.lib.path }

func (b *BlasLt) destroy() {
	for _, p := range b.plans {
		p.free()
	}
	for _, p := range b.grams {
		p.free()
	}
	b.plans, b.grams = nil, nil
	b.d.Free(b.ws)
	call(lt.cublasLtDestroy, b.h)
	b.d.blas = nil
}

func (p *gemmPlan) free() {
	for _, l := range []uintptr{p.la, p.lb, p.lc} {
		if l != 0 {
			call(lt.cublasLtMatrixLayoutDestroy, l)
		}
	}
	if p.desc != 0 {
		call(lt.cublasLtMatmulDescDestroy, p.desc)
	}
}

// layoutSpec is one cuBLASLt matrix layout: element type, rows × cols column-major, leading dimension.
type layoutSpec struct {
	t              DataType
	rows, cols, ld int
}

// newPlan builds the descriptors of one matmul shape: f32 compute and scale (CUBLAS_COMPUTE_32F: true f32 FMAs,
// never TF32), operand transposes opA and opB, the layouts of A, B and C (= D), and the heuristic's first
// algorithm within the workspace. what names the shape in errors.
func (b *BlasLt) newPlan(opA, opB int32, la, lb, lc layoutSpec, what string) (*gemmPlan, error) {
	p := &gemmPlan{}
	fail := func(err error) (*gemmPlan, error) {
		p.free()
		return nil, err
	}
	if err := blasCheck(call(lt.cublasLtMatmulDescCreate, uintptr(unsafe.Pointer(&p.desc)), cublasCompute32F, uintptr(Float32)), "MatmulDescCreate(%s)", what); err != nil {
		return fail(err)
	}
	setDesc := func(attr int, v int32) error {
		return blasCheck(call(lt.cublasLtMatmulDescSetAttribute, p.desc, uintptr(attr), uintptr(unsafe.Pointer(&v)), 4), "MatmulDescSetAttribute(%d)", attr)
	}
	if err := setDesc(descTransA, opA); err != nil {
		return fail(err)
	}
	if err := setDesc(descTransB, opB); err != nil {
		return fail(err)
	}
	for _, l := range []struct {
		dst  *uintptr
		spec layoutSpec
	}{{&p.la, la}, {&p.lb, lb}, {&p.lc, lc}} {
		sp := l.spec
		if err := blasCheck(call(lt.cublasLtMatrixLayoutCreate, uintptr(unsafe.Pointer(l.dst)), uintptr(sp.t), uintptr(sp.rows), uintptr(sp.cols), uintptr(sp.ld)),
			"MatrixLayoutCreate(%s %dx%d ld=%d)", sp.t, sp.rows, sp.cols, sp.ld); err != nil {
			return fail(err)
		}
	}
	var pref uintptr
	if err := blasCheck(call(lt.cublasLtMatmulPreferenceCreate, uintptr(unsafe.Pointer(&pref))), "MatmulPreferenceCreate"); err != nil {
		return fail(err)
	}
	defer call(lt.cublasLtMatmulPreferenceDestroy, pref)
	ws := uint64(b.wsBytes)
	if err := blasCheck(call(lt.cublasLtMatmulPreferenceSetAttribute, pref, prefMaxWorkspace, uintptr(unsafe.Pointer(&ws)), 8), "MatmulPreferenceSetAttribute(workspace)"); err != nil {
		return fail(err)
	}
	var found int32
	if err := blasCheck(call(lt.cublasLtMatmulAlgoGetHeuristic, b.h, p.desc, p.la, p.lb, p.lc, p.lc, pref, 1,
		uintptr(unsafe.Pointer(&p.algo)), uintptr(unsafe.Pointer(&found))), "MatmulAlgoGetHeuristic(%s)", what); err != nil {
		return fail(err)
	}
	if found == 0 {
		return fail(fmt.Errorf("cuda: cublasLt has no algorithm for %s", what))
	}
	return p, nil
}

// plan builds (once) the descriptors for key. Row-major C[m,n] = A[m,k]·W[n,k]ᵀ is, read column-major,
// Cᵀ[n,m] = W·Aᵀ: cuBLASLt's A operand is W (stored k×n column-major, transposed), its B operand is A (k×m
// column-major, not transposed), C is n×m with leading dimension n. This "TN" form is the one every Hopper kernel
// (and fp8 later) supports.
func (b *BlasLt) plan(key gemmKey) (*gemmPlan, error) {
	if p, ok := b.plans[key]; ok {
		return p, nil
	}
	p, err := b.newPlan(opT, opN, layoutSpec{BFloat16, key.k, key.n, key.k}, layoutSpec{BFloat16, key.k, key.m, key.k},
		layoutSpec{key.out, key.n, key.m, key.n}, fmt.Sprintf("bf16 GEMM %v", key))
	if err != nil {
		return nil, err
	}
	b.plans[key] = p
	return p, nil
}

// GemmBF16 enqueues C[m,n] = A[m,k]·W[n,k]ᵀ on s: row-major bf16 activations A times a bf16 weight W stored
// [out, in] as checkpoints store it, f32 accumulation, C in bf16 or f32 (out). All three are dense row-major.
func (b *BlasLt) GemmBF16(s *Stream, c DevPtr, out DataType, a, w DevPtr, m, n, k int) error {
	return b.GemmBF16Scaled(s, c, out, a, w, m, n, k, 1, 0)
}

// GemmBF16Scaled is GemmBF16 computing C = alpha·A·Wᵀ + beta·C (beta = 1 accumulates into C, e.g. a residual).
func (b *BlasLt) GemmBF16Scaled(s *Stream, c DevPtr, out DataType, a, w DevPtr, m, n, k int, alpha, beta float32) error {
	if m <= 0 || n <= 0 || k <= 0 {
		return fmt.Errorf("cuda: GemmBF16: bad shape m=%d n=%d k=%d", m, n, k)
	}
	if out != BFloat16 && out != Float32 {
		return fmt.Errorf("cuda: GemmBF16: output type %s, want bf16 or f32", out)
	}
	if math.IsNaN(float64(alpha)) || math.IsNaN(float64(beta)) {
		return fmt.Errorf("cuda: GemmBF16: NaN scale")
	}
	key := gemmKey{m: m, n: n, k: k, out: out}
	p, err := b.plan(key)
	if err != nil {
		return err
	}
	p.alpha, p.beta = alpha, beta
	r := call(lt.cublasLtMatmul, b.h, p.desc, uintptr(unsafe.Pointer(&p.alpha)),
		uintptr(w), p.la, uintptr(a), p.lb, uintptr(unsafe.Pointer(&p.beta)),
		uintptr(c), p.lc, uintptr(c), p.lc,
		uintptr(unsafe.Pointer(&p.algo.algo)), uintptr(b.ws), uintptr(b.wsBytes), s.h)
	return blasCheck(r, "Matmul(%v)", key)
}

// gramPlan builds (once) the descriptors of GramF32 for x [rows, n]. Row-major x is, read column-major, the n×rows
// matrix Xc with leading dimension n, and xᵀ·x = Xc·Xcᵀ: cuBLASLt's A is Xc (not transposed), its B the same
// memory transposed, C n×n (symmetric, so its storage order does not matter). Everything is f32 with
// CUBLAS_COMPUTE_32F, which runs true f32 FMAs: TF32 tensor cores are used only with CUBLAS_COMPUTE_32F_FAST_TF32,
// never asked for here.
func (b *BlasLt) gramPlan(rows, n int) (*gemmPlan, error) {
	key := [2]int{rows, n}
	if p, ok := b.grams[key]; ok {
		return p, nil
	}
	x := layoutSpec{Float32, n, rows, n}
	p, err := b.newPlan(opN, opT, x, x, layoutSpec{Float32, n, n, n}, fmt.Sprintf("the f32 Gram product rows=%d n=%d", rows, n))
	if err != nil {
		return nil, err
	}
	b.grams[key] = p
	return p, nil
}

// GramF32 enqueues C[n,n] = xᵀ·x + beta·C on s for x f32 [rows, n] row-major, C f32 (beta 0 overwrites, 1
// accumulates), in f32 arithmetic (gramPlan). Both pointers must be 256-byte aligned (cuMemAlloc's alignment,
// which the heuristic assumes by default).
func (b *BlasLt) GramF32(s *Stream, c, x DevPtr, rows, n int, beta float32) error {
	if rows <= 0 || n <= 0 {
		return fmt.Errorf("cuda: GramF32: bad shape rows=%d n=%d", rows, n)
	}
	if c%256 != 0 || x%256 != 0 {
		return fmt.Errorf("cuda: GramF32: pointers %#x, %#x not 256-byte aligned", uint64(c), uint64(x))
	}
	p, err := b.gramPlan(rows, n)
	if err != nil {
		return err
	}
	p.alpha, p.beta = 1, beta
	r := call(lt.cublasLtMatmul, b.h, p.desc, uintptr(unsafe.Pointer(&p.alpha)),
		uintptr(x), p.la, uintptr(x), p.lb, uintptr(unsafe.Pointer(&p.beta)),
		uintptr(c), p.lc, uintptr(c), p.lc,
		uintptr(unsafe.Pointer(&p.algo.algo)), uintptr(b.ws), uintptr(b.wsBytes), s.h)
	return blasCheck(r, "Matmul(gram rows=%d n=%d)", rows, n)
}
