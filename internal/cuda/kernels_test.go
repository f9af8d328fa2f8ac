// Tests of the backend's kernel sources that need no GPU: every file compiles with NVRTC for sm_90 (wherever an
// NVRTC loads: skipped otherwise), the instantiation list names exactly what the host looks up, and the
// selection tables pick what their comments say.

package cuda

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/exl3"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

// TestKernelsCompile compiles every backend kernel file for sm_90 with NVRTC (no device needed). With
// MLXBUN_PTXAS_V=1 it logs ptxas's register, shared-memory and spill report per kernel.
func TestKernelsCompile(t *testing.T) {
	if _, _, err := driver.NVRTCVersion(); err != nil {
		t.Skipf("no NVRTC here: %v", err)
	}
	extra := append([]string(nil), kernelOptions...)
	if os.Getenv("MLXBUN_PTXAS_V") == "1" {
		extra = append(extra, "--ptxas-options=-v")
	}
	for _, f := range kernelFiles {
		src, err := kernelSource(f, true)
		if err != nil {
			t.Fatal(err)
		}
		cubin, log, err := driver.CompileLog(f, src, "sm_90", extra...)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		t.Logf("%s: %d-byte CUBIN", f, len(cubin))
		if log != "" {
			t.Logf("%s log:\n%s", f, summarizePtxas(log))
		}
	}
}

// summarizePtxas keeps the per-kernel "Used N registers" lines and any spill warnings.
func summarizePtxas(log string) string {
	var out []string
	var fn string
	re := regexp.MustCompile(`Compiling entry function '(\w+)'`)
	for _, l := range strings.Split(log, "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			fn = m[1]
			continue
		}
		if strings.Contains(l, "Used") || strings.Contains(l, "spill") && !strings.Contains(l, "0 bytes spill") || strings.Contains(l, "warning") {
			out = append(out, fn+": "+strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "\n")
}

// TestInstantiations checks that every name the host can ask for is instantiated, and nothing twice.
func TestInstantiations(t *testing.T) {
	seen := map[string]bool{}
	re := regexp.MustCompile(`^[A-Z][A-Z0-9_]*\((\w+)[,)]`)
	for file, lines := range instantiations(true) {
		for _, l := range lines {
			m := re.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("%s: malformed instantiation %q", file, l)
			}
			if seen[m[1]] {
				t.Errorf("%s instantiated twice", m[1])
			}
			seen[m[1]] = true
		}
	}
	var want []string
	for n := 1; n <= maxGemvRows; n++ {
		for _, x := range actTypes {
			for _, dt := range []backend.DType{backend.F32, backend.BF16} {
				want = append(want, gemvName(n, x, dt, gemvForm{}, false))
				for _, in := range []int{256, 1024, 5120, 17408} {
					for _, out := range []int{8, 1024, 7168, 20000, 151936} {
						f, _ := gemvChoose(n, in, out)
						want = append(want, gemvName(n, x, dt, f, true))
					}
				}
			}
			for _, f := range gemvLab[n] {
				want = append(want, gemvName(n, x, backend.BF16, f, true))
			}
		}
	}
	for _, x := range actTypes {
		for _, hd := range []int{16, 32, 64, 80, 96, 128, 256, 300, 512} {
			want = append(want, attnSplitName(attnEPT(hd), x), attnRowsName(attnEPT(hd), x))
			want = append(want, winSplitName(attnEPT(hd), x), winRowsName(attnEPT(hd), x))
		}
		for _, hd := range attnPromptHDs {
			want = append(want, attnPromptName(hd, x))
		}
		for _, hd := range attnPromptWideHDs {
			want = append(want, attnPromptWideName(hd, x), attnChunkWideName(hd, x))
		}
	}
	for _, k := range trellisBits { // moe.go: the routed trellis experts, every width and variant
		for _, v := range quantVariants {
			want = append(want, moeTrellis1Name(k, v))
		}
	}
	for _, bits := range affineBits {
		want = append(want, moeAffineName(bits))
	}
	want = append(want, exl3HadName) // exl3.go: every K, codebook and row count
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		for _, cb := range exl3Codebooks {
			want = append(want, exl3ExpandName(k, cb))
			for n := 1; n <= maxGemvRows; n++ {
				want = append(want, exl3GemvName(k, cb, qInst(n)))
			}
		}
	}
	for _, name := range want {
		if !seen[name] {
			t.Errorf("the host may launch %s, which is not instantiated", name)
		}
	}
	src, _ := kernelSource("attention.cu", false)
	if !strings.Contains(src, fmt.Sprintf("#define ATTN_MIN_CHUNK %d ", attnMinChunk)) ||
		!strings.Contains(src, fmt.Sprintf("#define ATTN_MAX_SPLITS %d ", attnMaxSplits)) {
		t.Errorf("attention.cu's ATTN_MIN_CHUNK / ATTN_MAX_SPLITS differ from attnMinChunk = %d / attnMaxSplits = %d", attnMinChunk, attnMaxSplits)
	}
	if ops, _ := kernelSource("ops.cu", false); !strings.Contains(ops, fmt.Sprintf("#define ARGMAX_SLICE %d ", argmaxSlice)) {
		t.Errorf("ops.cu's ARGMAX_SLICE differs from argmaxSlice = %d", argmaxSlice)
	}
	if !strings.Contains(src, fmt.Sprintf("#define ATTN_WIDE_DV %d ", attnWideDV)) || !strings.Contains(src, fmt.Sprintf("#define ATTN_WIDE_BK %d ", attnWideBK)) {
		t.Errorf("attention.cu's ATTN_WIDE_DV / ATTN_WIDE_BK differ from attnWideDV = %d / attnWideBK = %d", attnWideDV, attnWideBK)
	}
	// The plain kernels are extern "C" definitions in the sources.
	plain := []string{"bias_add_f32", "bias_add_bf16", "argmax_part_f32", "argmax_f32", "cvt_f32_bf16"}
	for _, x := range actTypes {
		for _, op := range []string{"embed", "rmsnorm_warp", "rmsnorm_row", "add_rmsnorm", "add", "swiglu", "rope",
			"rmsnorm_rope", "kv_store", "attn_combine", "add_scaled", "hadamard"} {
			plain = append(plain, opName(op, x))
		}
	}
	for _, name := range plain {
		found := false
		for _, f := range kernelFiles {
			src, _ := kernelSource(f, true)
			// a literal definition, or one of ops.cu's OPS_INSTANTIATE(T, SFX) macro definitions
			i := strings.LastIndex(name, "_")
			if strings.Contains(src, "void "+name+"(") || strings.Contains(src, "void "+name[:i]+"_##SFX(") &&
				strings.Contains(src, "OPS_INSTANTIATE("+map[string]string{"f32": "float", "bf16": "bf16_t"}[name[i+1:]]+", "+name[i+1:]+")") {
				found = true
			}
		}
		if !found {
			t.Errorf("kernel %s is not defined in any kernel file", name)
		}
	}
}

func TestSelection(t *testing.T) {
	pick := func(c matmulCase) string {
		for _, f := range matmulForms {
			if f.supports(c) {
				return f.name
			}
		}
		return ""
	}
	for _, tc := range []struct {
		c    matmulCase
		want string
	}{
		{matmulCase{n: 1, in: 5120, out: 17408}, "gemv"},
		{matmulCase{n: 8, in: 17408, out: 5120}, "gemv"},
		{matmulCase{n: 3, in: 100, out: 7}, "gemv_scalar"},
		{matmulCase{n: 9, in: 5120, out: 5120}, "cublaslt"},
		{matmulCase{n: 512, in: 5120, out: 1024}, "cublaslt"},
		{matmulCase{n: 512, in: 100, out: 37}, "gemv_scalar_chunks"},
	} {
		if got := pick(tc.c); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.c, got, tc.want)
		}
	}
	apick := func(a attnCase) string {
		for _, f := range attnForms {
			if f.supports(a) {
				return f.name
			}
		}
		return ""
	}
	for _, tc := range []struct {
		a    attnCase
		want string
	}{
		{attnCase{n: 1, heads: 40, kvHeads: 8, hd: 128}, "split"},
		{attnCase{n: 512, heads: 40, kvHeads: 8, hd: 128, run: true}, "prompt"},
		{attnCase{n: 512, heads: 40, kvHeads: 8, hd: 128}, "rows"},
		{attnCase{n: 16, heads: 40, kvHeads: 8, hd: 128, run: true, positions: 16 * 2040, rowsMax: 1 << 16, sms: 132}, "split"},
		{attnCase{n: 66, heads: 40, kvHeads: 8, hd: 128, run: true, positions: 66 * 2040, rowsMax: 1 << 16, sms: 132}, "prompt"},
		{attnCase{n: 66, heads: 40, kvHeads: 8, hd: 128, sms: 132}, "rows"},
		// The chunk form with the default table's bounds: a 16-row follow-up deep in a context, not one at the start
		// (less work than chunkMin), not more rows than chunkRows; at the wide head dims the wide chunk form where
		// the device's shared memory allows it, else the split form.
		{attnCase{n: 16, heads: 40, kvHeads: 8, hd: 128, run: true, positions: 16 * 2040, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132}, "chunk"},
		{attnCase{n: 64, heads: 40, kvHeads: 8, hd: 128, run: true, positions: 64 * 2040, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132}, "chunk"},
		{attnCase{n: 16, heads: 40, kvHeads: 8, hd: 128, run: true, positions: 136, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132}, "split"},
		{attnCase{n: 66, heads: 40, kvHeads: 8, hd: 128, run: true, positions: 66 * 2040, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132}, "prompt"},
		{attnCase{n: 16, heads: 24, kvHeads: 4, hd: 256, run: true, positions: 16 * 2040, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132}, "chunk"},
		{attnCase{n: 40, heads: 32, kvHeads: 4, hd: 512, run: true, positions: 40 * 2040, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132, smem: 227 << 10}, "chunk"},
		{attnCase{n: 16, heads: 32, kvHeads: 4, hd: 512, run: true, positions: 16 * 2040, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132, smem: 99 << 10}, "split"},
		{attnCase{n: 16, heads: 40, kvHeads: 8, hd: 128, positions: 16 * 2040, rowsMax: 1 << 16, chunkRows: 64, chunkMin: 1 << 12, sms: 132}, "split"},
		{attnCase{n: 100, heads: 4, kvHeads: 2, hd: 80, run: true}, "rows"},
		{attnCase{n: 100, heads: 4, kvHeads: 2, hd: 512, run: true}, "prompt"},
		{attnCase{n: 100, heads: 24, kvHeads: 4, hd: 256, run: true, smem: 227 << 10}, "prompt"},
		{attnCase{n: 100, heads: 32, kvHeads: 4, hd: 512, run: true, smem: 99 << 10}, "rows"}, // the wide form's 108.5 KiB do not fit
		{attnCase{n: 8, heads: 32, kvHeads: 4, hd: 512}, "split"},
		{attnCase{n: 100, heads: 4, kvHeads: 2, hd: 1024, run: true}, ""},
	} {
		if got := apick(tc.a); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.a, got, tc.want)
		}
	}
	// The chunk form's launch: the 16-row follow-up at 2032 of Qwen3-14B (80 query rows of a kv head: five warps),
	// 132 multiprocessors over 8 kv heads want 17 slices of the 32 tiles: 16 of two tiles.
	if w, z, s, cl := attnChunkGeom(attnCase{n: 16, heads: 40, kvHeads: 8, hd: 128, sms: 132}, 2047); w != 5 || z != 1 || s != 16 || cl != 128 {
		t.Errorf("attnChunkGeom(16 rows at 2032) = %d warps, %d, %d slices of %d", w, z, s, cl)
	}
	if w, z, s, cl := attnChunkGeom(attnCase{n: 40, heads: 32, kvHeads: 2, hd: 64, sms: 132}, 139); w != 8 || z != 5 || s != 3 || cl != 64 {
		t.Errorf("attnChunkGeom(40 rows of a 16-head group) = %d warps, %d, %d slices of %d", w, z, s, cl)
	}
	// The wide chunk form's: the 16-row follow-up at 2032 of Qwen3.5-27B's full attention (96 query rows of a kv
	// head: two blocks of 64, each in two 128-dim slices), 132 multiprocessors over 4·2·2 blocks a slice want 9
	// slices of the 32 tiles: 8 of four tiles.
	if z, s, cl := attnChunkWideGeom(attnCase{n: 16, heads: 24, kvHeads: 4, hd: 256, sms: 132}, 2047); z != 2 || s != 8 || cl != 256 {
		t.Errorf("attnChunkWideGeom(16 rows at 2032, hd 256) = %d, %d slices of %d", z, s, cl)
	}
	if f, ks := gemvChoose(1, 17408, 5120); f != (gemvForm{2, 2}) || ks != 2 {
		t.Errorf("gemvChoose(down) = %v, %d", f, ks)
	}
	if f, ks := gemvChoose(1, 5120, 7168); f != (gemvForm{1, 2}) || ks != 1 {
		t.Errorf("gemvChoose(qkv) = %v, %d", f, ks)
	}
	if f, ks := gemvChoose(8, 5120, 7168); f != gemvForms[8] || ks != 0 {
		t.Errorf("gemvChoose(n=8) = %v, %d", f, ks)
	}
	if ks := gemvSplit(1024, 1, 132); ks != 8 {
		t.Errorf("gemvSplit(1024 rows) = %d, want 8", ks)
	}
	if ks := gemvSplit(17408, 1, 132); ks != 1 {
		t.Errorf("gemvSplit(17408 rows) = %d, want 1", ks)
	}
	for _, n := range []int{1, 100, 1 << 20, 5<<20 + 3, 178 << 20} {
		c := classSize(n)
		if c < n || float64(c) > float64(n)*1.125+512 {
			t.Errorf("classSize(%d) = %d", n, c)
		}
	}
}

// TestGemvParamsLayout checks the Go mirror of GemvParams against the layout gemv.cu declares.
func TestGemvParamsLayout(t *testing.T) {
	var p gemvParams
	var s gemvSeg
	if unsafe.Sizeof(s) != 32 || unsafe.Offsetof(s.Out) != 24 || unsafe.Offsetof(s.Block0) != 28 || unsafe.Offsetof(s.Bias) != 16 {
		t.Errorf("gemvSeg: size %d, Bias at %d, Out at %d, Block0 at %d; gemv.cu has 32, 16, 24, 28",
			unsafe.Sizeof(s), unsafe.Offsetof(s.Bias), unsafe.Offsetof(s.Out), unsafe.Offsetof(s.Block0))
	}
	if unsafe.Sizeof(p) != 112 || unsafe.Offsetof(p.NSeg) != 96 || unsafe.Offsetof(p.In) != 100 || unsafe.Offsetof(p.KSplit) != 104 {
		t.Errorf("gemvParams: size %d, NSeg at %d, In at %d, KSplit at %d; gemv.cu has 112, 96, 100, 104",
			unsafe.Sizeof(p), unsafe.Offsetof(p.NSeg), unsafe.Offsetof(p.In), unsafe.Offsetof(p.KSplit))
	}
	src := cudashaders.Sources["gemv.cu"]
	for _, want := range []string{"int out;           // 24", "int block0;        // 28", "int nseg;       // 96", "};                  // 112 bytes"} {
		if !strings.Contains(src, want) {
			t.Errorf("gemv.cu no longer declares %q", want)
		}
	}
}

// TestKernelsWaitForPredecessor checks the rule programmatic dependent launch relies on (pdl_begin in
// common.cuh): every kernel's body begins with pdl_begin(), preceded at most by prefetches of weights.
func TestKernelsWaitForPredecessor(t *testing.T) {
	prologue := regexp.MustCompile(`^(\w*prefetch\w*\([^;]*\);)*$`)
	kernels := 0
	for name, src := range cudashaders.Sources {
		if !strings.HasSuffix(name, ".cu") {
			continue
		}
		for rest := src; ; {
			i := strings.Index(rest, "__global__")
			if i < 0 {
				break
			}
			rest = rest[i+len("__global__"):]
			open := strings.Index(rest, "{")
			head := strings.Fields(rest[:open])
			body := rest[open+1:]
			kernels++
			j := strings.Index(body, "pdl_begin();")
			if j >= 0 && prologue.MatchString(squeeze(body[:j])) {
				continue
			}
			// Or the body is one call of a device function that begins with pdl_begin() after prefetches of weights.
			if m := regexp.MustCompile(`^(\w+)(<[^>]*>)?\(`).FindStringSubmatch(squeeze(body)); m != nil && beginsWithPDL(m[1]) {
				continue
			}
			t.Errorf("%s: kernel %v does not begin with pdl_begin()", name, head)
		}
	}
	if kernels < 50 {
		t.Fatalf("found %d kernels; the scan is broken", kernels)
	}
}

// TestTuningOverride checks the one override of the tuning table: keys set fields, unknown keys and bad values fail.
func TestTuningOverride(t *testing.T) {
	tu, err := loadTuning("pdl=0, gemv_group=0")
	if err != nil || tu.pdl || tu.gemvGroup {
		t.Fatalf("pdl=0,gemv_group=0: %+v %v", tu, err)
	}
	if tu, err = loadTuning(""); err != nil || tu != defaultTuning() {
		t.Fatalf("empty override: %+v %v", tu, err)
	}
	for _, bad := range []string{"nope=1", "pdl", "pdl=maybe"} {
		if _, err := loadTuning(bad); err == nil || !strings.Contains(err.Error(), envTune) {
			t.Errorf("%q: want an error naming %s, got %v", bad, envTune, err)
		}
	}
}

func squeeze(s string) string {
	return strings.NewReplacer(" ", "", "\n", "", "\\", "", "\t", "").Replace(s)
}

// beginsWithPDL reports whether the device function fn (defined in some kernel source) calls pdl_begin() before
// anything but weight reads: its body up to pdl_begin() holds no shared-memory staging, activation read or store
// (no "p.x", "xs[", "y[" or "__syncthreads" before it).
func beginsWithPDL(fn string) bool {
	def := regexp.MustCompile(`(?s)__device__[^;{]*\b` + fn + `\([^)]*\)\s*\{`)
	for _, src := range cudashaders.Sources {
		loc := def.FindStringIndex(src)
		if loc == nil {
			continue
		}
		body := src[loc[1]:]
		j := strings.Index(body, "pdl_begin();")
		if j < 0 {
			return false
		}
		pre := body[:j]
		for _, bad := range []string{"p.x", "xs[", "y[", "__syncthreads", "qstage"} {
			if strings.Contains(pre, bad) {
				return false
			}
		}
		return true
	}
	return false
}
