// The backend's kernels: which .cu files are compiled, the naming function of each templated family (used both
// to write the instantiation lines appended to the source and to look the kernels up), and the one launch path
// every op goes through (error wrapping with the kernel's name, launch counting, profiling events).

package cuda

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

// kernelFiles are the sources compiled at Open, each prefixed with common.cuh.
// A name "file.cu#unit" is one compilation unit of file.cu holding part of its instantiation list (quantUnits).
var kernelFiles = append(append([]string{"ops.cu", "gemv.cu", "attention.cu", "attention_win.cu", "pointwise.cu", "deltanet.cu", "moe.cu", "viterbi.cu"}, quantUnits()...), exl3Units()...)

// kernelHeaders are the shared headers a file gets after common.cuh.
var kernelHeaders = map[string][]string{"trellis.cu": {"quant.cuh", "code1mad.cuh"}, "affine.cu": {"quant.cuh"},
	"viterbi.cu": {"code1mad.cuh"}}

// sourceFile is the embedded source of a compilation unit ("trellis.cu#n1" -> "trellis.cu").
func sourceFile(unit string) string {
	base, _, _ := strings.Cut(unit, "#")
	return base
}

// kernelOptions are the NVRTC options of the backend's kernels: no -lineinfo, which crashes NVRTC 11.8 on
// templates (driver.NoLineInfo).
var kernelOptions = []string{driver.NoLineInfo}

// gemvForm is the shape of the vector GEMV kernel for one activation row count: R output rows per warp (more
// rows reuse each activation load for more weights, which matters once n activation rows are read per weight
// chunk: L1 traffic n/R times the weight traffic) and U 16-byte chunks in flight per row and lane.
type gemvForm struct{ R, U int }

// gemvForms is the default form per activation row count n (1..maxGemvRows), with gemvSplit's k-split.
var gemvForms = [maxGemvRows + 1]gemvForm{{}, {1, 4}, {2, 2}, {2, 2}, {4, 1}, {4, 1}, {4, 1}, {4, 1}, {4, 1}}

// gemvChoice is one row of a shape table: the first row whose lower bounds hold (in: the activation width, out:
// the output rows of the whole launch, grouped linears together) picks the form and k-split (0: gemvSplit).
type gemvChoice struct {
	minIn, minOut int
	form          gemvForm
	ksplit        int
}

// gemvTables refines gemvForms per n. Source: BenchmarkGEMVLab on the H200 (2026-11-29, docs/kernels.md), µs of
// the chosen form against the previous choice; run-to-run spread of the same form was under 1 % (14B rows) and
// about 0.3 µs (0.6B rows, launch-bound shapes).
var gemvTables = map[int][]gemvChoice{
	1: {
		{minIn: 8192, form: gemvForm{2, 2}, ksplit: 2},                // 14B down 17408→5120: 44.1 vs 49.6
		{minIn: 4096, minOut: 16384, form: gemvForm{4, 2}, ksplit: 4}, // 14B gate+up 82.8 vs 86.5, lm_head 337.6 vs 344.0
		{minIn: 4096, minOut: 6144, form: gemvForm{1, 2}, ksplit: 1},  // 14B q+k+v 21.9 vs 26.8
		{minIn: 4096, form: gemvForm{2, 2}},                           // 14B o 5120→5120: 17.0 vs 18.2
		{minOut: 4096, form: gemvForm{1, 2}, ksplit: 1},               // 0.6B q+k+v 7.1 vs 8.3, gate+up 7.9 vs 9.4, lm_head 73.6
		{minIn: 3072, form: gemvForm{2, 4}, ksplit: 8},                // 0.6B down 3072→1024: 6.7 vs 8.2
		{form: gemvForm{1, 2}},                                        // 0.6B o 2048→1024: 7.1 vs 7.4
	},
}

// gemvChoose picks the form and k-split (0: gemvSplit's) for n activation rows of width in and out output rows.
func gemvChoose(n, in, out int) (gemvForm, int) {
	for _, c := range gemvTables[n] {
		if in >= c.minIn && out >= c.minOut {
			return c.form, c.ksplit
		}
	}
	return gemvForms[n], 0
}

// gemvProductionForms lists every form gemvChoose can return for n.
func gemvProductionForms(n int) []gemvForm {
	fs := []gemvForm{gemvForms[n]}
	for _, c := range gemvTables[n] {
		if !slices.Contains(fs, c.form) {
			fs = append(fs, c.form)
		}
	}
	return fs
}

// gemvLab lists GEMV shapes instantiated for measurement only (BenchmarkGEMVLab), by n.
var gemvLab = map[int][]gemvForm{1: {{1, 2}, {1, 8}, {2, 2}, {2, 4}, {4, 2}}, 8: {{2, 2}, {4, 2}, {8, 1}}}

// maxGemvRows is the largest activation row count the GEMV kernels are instantiated for: the contract's decode
// row bound, which the model's recorded decode workspaces share.
const maxGemvRows = backend.MaxDecodeRows

// attnEPTs are the decode-attention instantiations: dims per lane (head dim ≤ 32·EPT; 16: Gemma 4's global
// head dim 512).
var attnEPTs = []int{1, 2, 3, 4, 8, 16}

// attnPromptHDs are the head dims the tensor-core prompt attention is instantiated for (multiples of 16 whose
// accumulators fit the registers).
var attnPromptHDs = []int{32, 64, 96, 128}

// attnPromptWideHDs are the head dims of the wide prompt and chunk forms (attn_prompt_wide_hd*,
// attn_chunk_wide_hd*: the output split over blocks of attnWideDV dims, operands in dynamic shared memory).
var attnPromptWideHDs = []int{256, 512}

// outType is the C type a kernel writes for an output dtype.
func outType(dt backend.DType) string {
	if dt == backend.F32 {
		return "float"
	}
	return "bf16_t"
}

func dtName(dt backend.DType) string {
	if dt == backend.F32 {
		return "f32"
	}
	return "bf16"
}

// actTypes are the activation dtypes the kernels are instantiated for: F32 (the backend's ActDType) and BF16
// (tests and tools).
var actTypes = []backend.DType{backend.F32, backend.BF16}

// xSuffix marks the f32-activation instantiations of the templated families (the bf16 ones keep their names).
func xSuffix(x backend.DType) string {
	if x == backend.F32 {
		return "_xf32"
	}
	return ""
}

// gemvName names the GEMV kernel for n activation rows of dtype x writing dtype out in form f (vec), or the scalar
// form.
func gemvName(n int, x, out backend.DType, f gemvForm, vec bool) string {
	if vec {
		return fmt.Sprintf("gemv_bf16%s_n%d_r%d_u%d_%s", xSuffix(x), n, f.R, f.U, dtName(out))
	}
	return fmt.Sprintf("gemv_scalar%s_n%d_%s", xSuffix(x), n, dtName(out))
}

func attnSplitName(ept int, x backend.DType) string {
	return fmt.Sprintf("attn_split_e%d%s", ept, xSuffix(x))
}

// attnSplitStoreName is attn_split with kv_store folded in (tuning.attnStore): f32 activations only, the decode path.
func attnSplitStoreName(ept int) string {
	return fmt.Sprintf("attn_split_store_e%d%s", ept, xSuffix(backend.F32))
}

// attnSplitNormName is attn_split_store with rmsnorm_rope_qk folded in (tuning.normRopeAttn): heads up to 256
// (attnNormEPTMax dims a lane).
func attnSplitNormName(ept int) string {
	return fmt.Sprintf("attn_split_norm_e%d%s", ept, xSuffix(backend.F32))
}

// attnNormEPTMax is the widest instantiation of attn_split_norm: rmsnorm_rope_head holds 8 values a lane.
const attnNormEPTMax = 8

func attnRowsName(ept int, x backend.DType) string {
	return fmt.Sprintf("attn_rows_e%d%s", ept, xSuffix(x))
}
func attnPromptName(hd int, x backend.DType) string {
	return fmt.Sprintf("attn_prompt_hd%d%s", hd, xSuffix(x))
}
func attnChunkName(hd int, x backend.DType) string {
	return fmt.Sprintf("attn_chunk_hd%d%s", hd, xSuffix(x))
}
func attnPromptWideName(hd int, x backend.DType) string {
	return fmt.Sprintf("attn_prompt_wide_hd%d%s", hd, xSuffix(x))
}
func attnChunkWideName(hd int, x backend.DType) string {
	return fmt.Sprintf("attn_chunk_wide_hd%d%s", hd, xSuffix(x))
}
func winSplitName(ept int, x backend.DType) string {
	return fmt.Sprintf("attn_win_split_e%d%s", ept, xSuffix(x))
}
func winRowsName(ept int, x backend.DType) string {
	return fmt.Sprintf("attn_win_rows_e%d%s", ept, xSuffix(x))
}
func biasAddName(dt backend.DType) string { return "bias_add_" + dtName(dt) }

// opName names a plain kernel of ops.cu or attention.cu for activation dtype dt ("add" -> add_f32, add_bf16).
func opName(op string, dt backend.DType) string { return op + "_" + dtName(dt) }

// instantiations lists, per file, the macro lines that instantiate its template families; lab adds the forms kept
// for measurement only (tuning.lab).
func instantiations(lab bool) map[string][]string {
	var gemv, attn, win []string
	vec := func(n int, x, dt backend.DType, f gemvForm) string {
		return fmt.Sprintf("GEMV_VEC(%s, %d, %d, %d, %s, %s)", gemvName(n, x, dt, f, true), n, f.R, f.U, outType(x), outType(dt))
	}
	for n := 1; n <= maxGemvRows; n++ {
		prod := gemvProductionForms(n)
		for _, x := range actTypes {
			for _, dt := range []backend.DType{backend.F32, backend.BF16} {
				for _, f := range prod {
					gemv = append(gemv, vec(n, x, dt, f))
				}
				gemv = append(gemv, fmt.Sprintf("GEMV_SCALAR(%s, %d, %s, %s)", gemvName(n, x, dt, gemvForm{}, false), n, outType(x), outType(dt)))
			}
			for _, f := range gemvLab[n] {
				if lab && !slices.Contains(prod, f) {
					gemv = append(gemv, vec(n, x, backend.BF16, f))
				}
			}
		}
	}
	for _, x := range actTypes {
		for _, e := range attnEPTs {
			attn = append(attn, fmt.Sprintf("ATTN_SPLIT(%s, %d, %s)", attnSplitName(e, x), e, outType(x)))
			attn = append(attn, fmt.Sprintf("ATTN_ROWS(%s, %d, %s)", attnRowsName(e, x), e, outType(x)))
			if x == backend.F32 {
				attn = append(attn, fmt.Sprintf("ATTN_SPLIT_STORE(%s, %d)", attnSplitStoreName(e), e))
				if e <= attnNormEPTMax {
					attn = append(attn, fmt.Sprintf("ATTN_SPLIT_NORM(%s, %d)", attnSplitNormName(e), e))
				}
			}
		}
		for _, e := range attnEPTs { // attention_win.cu: windowed and softcapped attention
			win = append(win, fmt.Sprintf("ATTN_WIN_SPLIT(%s, %d, %s)", winSplitName(e, x), e, outType(x)))
			win = append(win, fmt.Sprintf("ATTN_WIN_ROWS(%s, %d, %s)", winRowsName(e, x), e, outType(x)))
		}
		for _, hd := range attnPromptHDs {
			attn = append(attn, fmt.Sprintf("ATTN_PROMPT(%s, %d, %s)", attnPromptName(hd, x), hd, outType(x)))
			attn = append(attn, fmt.Sprintf("ATTN_CHUNK(%s, %d, %s)", attnChunkName(hd, x), hd, outType(x)))
		}
		for _, hd := range attnPromptWideHDs {
			attn = append(attn, fmt.Sprintf("ATTN_PROMPT_WIDE(%s, %d, %s)", attnPromptWideName(hd, x), hd, outType(x)))
			attn = append(attn, fmt.Sprintf("ATTN_CHUNK_WIDE(%s, %d, %s)", attnChunkWideName(hd, x), hd, outType(x)))
		}
	}
	m := quantInstantiations(lab)
	maps.Copy(m, exl3Instantiations()) // exl3.go
	m["gemv.cu"], m["attention.cu"], m["attention_win.cu"] = gemv, attn, win
	m["deltanet.cu"] = deltaInstantiations()
	m["viterbi.cu"] = viterbiInstantiations()
	return m
}

// kernelSource is what NVRTC compiles for file: common.cuh, the file (line numbers restarted so compiler messages
// point into it) and its instantiation lines (with the lab forms when lab).
func kernelSource(file string, lab bool) (string, error) {
	common, ok := cudashaders.Sources["common.cuh"]
	if !ok {
		return "", fmt.Errorf("cuda backend: common.cuh is not embedded")
	}
	body, ok := cudashaders.Sources[sourceFile(file)]
	if !ok {
		return "", fmt.Errorf("cuda backend: kernel source %s is not embedded", file)
	}
	var sb strings.Builder
	sb.WriteString(common)
	for _, h := range kernelHeaders[sourceFile(file)] {
		hs, ok := cudashaders.Sources[h]
		if !ok {
			return "", fmt.Errorf("cuda backend: header %s is not embedded", h)
		}
		fmt.Fprintf(&sb, "\n#line 1 %q\n%s", h, hs)
	}
	fmt.Fprintf(&sb, "\n#line 1 %q\n", sourceFile(file))
	sb.WriteString(body)
	sb.WriteString("\n// instantiations (internal/cuda/kernels.go)\n")
	for _, line := range instantiations(lab)[file] {
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return sb.String(), nil
}

// compileKernels compiles every kernel file for arch in parallel (NVRTC needs no device; the disk cache makes
// later starts cheap) and returns the CUBINs by file; lab compiles the lab forms too.
func compileKernels(arch string, lab bool) (map[string][]byte, error) {
	out := make(map[string][]byte, len(kernelFiles))
	errs := make([]error, len(kernelFiles))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, f := range kernelFiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, err := kernelSource(f, lab)
			if err == nil {
				var cubin []byte
				if cubin, err = driver.Compile(f, src, arch, kernelOptions...); err == nil {
					mu.Lock()
					out[f] = cubin
					mu.Unlock()
				}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("cuda backend: compiling %s: %w", kernelFiles[i], err)
		}
	}
	return out, nil
}

// loadKernels loads the compiled files (device thread) and indexes every extern "C" kernel by name.
func (b *Backend) loadKernels(cubins map[string][]byte) error {
	b.fns = map[string]*driver.Function{}
	for _, f := range kernelFiles {
		m, err := b.dev.LoadModule(f, cubins[f])
		if err != nil {
			return fmt.Errorf("cuda backend: %w", err)
		}
		b.mods = append(b.mods, m)
		fs, err := m.Functions()
		if err != nil {
			return fmt.Errorf("cuda backend: %w", err)
		}
		for _, fn := range fs {
			b.fns[strings.TrimPrefix(fn.Name(), f+".")] = fn
		}
	}
	return nil
}

// fn finds a kernel by name among those the loaded modules enumerated (device thread).
func (b *Backend) fn(name string) (*driver.Function, error) {
	if f, ok := b.fns[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("cuda backend: kernel %s is in no loaded module", name)
}

// launch enqueues kernel name on the backend's stream (device thread). bytes is the traffic the kernel's contract
// counts, for the profiler. Every failure names the kernel.
func (b *Backend) launch(name string, grid, block driver.Dim3, smem int, args *driver.Args, bytes float64) error {
	f, err := b.fn(name)
	if err != nil {
		return err
	}
	var mark *profMark
	if b.prof != nil && !b.capturing {
		if mark, err = b.prof.begin(b, name, bytes); err != nil {
			return err
		}
	}
	launch := f.Launch
	if b.pdl {
		launch = f.LaunchPDL // every kernel waits for its predecessor in pdl_begin (TestKernelsWaitForPredecessor)
	}
	if err := launch(b.stream, grid, block, smem, args); err != nil {
		return fmt.Errorf("cuda backend: kernel %s: %w", name, err)
	}
	if mark != nil {
		if err := mark.end.Record(b.stream); err != nil {
			return err
		}
	}
	if b.capturing {
		b.capNodes++
	} else {
		b.stats.Launches++
	}
	for i := 0; i < b.tune.labPad && name != launchProbe; i++ { // lab: the cost of a launch (tuning key lab_pad)
		if err := b.launch(launchProbe, driver.Dim3{X: 1}, driver.Dim3{X: 32}, 0, nil, 0); err != nil {
			return err
		}
	}
	return nil
}

// launchProbe is the empty kernel the lab key lab_pad launches after every kernel (shaders/cuda/ops.cu).
const launchProbe = "launch_probe"

// timed runs a non-kernel device step (a cuBLASLt GEMM) with the same counting and profiling as launch.
func (b *Backend) timed(name string, bytes float64, step func() error) error {
	var mark *profMark
	var err error
	if b.prof != nil && !b.capturing {
		if mark, err = b.prof.begin(b, name, bytes); err != nil {
			return err
		}
	}
	if err := step(); err != nil {
		return fmt.Errorf("cuda backend: %s: %w", name, err)
	}
	if mark != nil {
		if err := mark.end.Record(b.stream); err != nil {
			return err
		}
	}
	if b.capturing {
		b.capNodes++
	} else {
		b.stats.Launches++
	}
	return nil
}

// grid1D is the block count of a grid-stride kernel over n items, capped at a few waves of the device.
func (b *Backend) grid1D(n int64, threads int) driver.Dim3 {
	blocks := (n + int64(threads) - 1) / int64(threads)
	limit := int64(b.info.SMs * 8)
	if blocks > limit {
		blocks = limit
	}
	if blocks < 1 {
		blocks = 1
	}
	return driver.Dim3{X: int(blocks)}
}
