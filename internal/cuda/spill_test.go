// Register spills of the prompt kernels whose per-thread arrays are unrolled into registers, checked at their
// launch bounds by compiling one kernel file for sm_90 with its whole instantiation list (one small compile
// instead of TestKernelsCompile's whole tree; skipped where no NVRTC is): TestDeltaRuleNoSpill for deltanet.cu's
// delta rules, TestAttnWideNoSpill for attention.cu's wide prompt and chunk forms, TestViterbiNoSpill for
// viterbi.cu's searches. (exl3.cu's register caps: exl3_spill_test.go.)

package cuda

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// ptxasLines compiles file with its instantiations and returns ptxas's per-kernel lines (summarizePtxas).
func ptxasLines(t *testing.T, file string) []string {
	t.Helper()
	if _, _, err := driver.NVRTCVersion(); err != nil {
		t.Skipf("no NVRTC here: %v", err)
	}
	src, err := kernelSource(file, true)
	if err != nil {
		t.Fatal(err)
	}
	opts := append(append([]string(nil), kernelOptions...), "--ptxas-options=-v")
	_, log, err := driver.CompileLog(file, src, "sm_90", opts...)
	if err != nil {
		t.Fatalf("compiling %s: %v", file, err)
	}
	sum := summarizePtxas(log)
	t.Logf("ptxas:\n%s", sum)
	return strings.Split(sum, "\n")
}

// noSpills fails on a spill line of a kernel that keep selects, and when no line names the kernel want.
func noSpills(t *testing.T, lines []string, keep func(kernel string) bool, want string) {
	t.Helper()
	seen := false
	for _, l := range lines {
		kernel, _, _ := strings.Cut(l, ":")
		seen = seen || kernel == want
		if keep(kernel) && strings.Contains(l, "spill") {
			t.Errorf("ptxas spills in %s", l)
		}
	}
	if !seen {
		t.Errorf("ptxas reported no %s: is it instantiated?", want)
	}
}

// TestDeltaRuleNoSpill: the delta-rule kernels (gated_delta_*, gated_delta_chunk_*: every key-dim bound, both
// activation types) spill nothing: the recurrent form's state column and the chunked form's per-thread arrays
// (the substitution's column of u, the state update's weights) stay in registers. The other kernels' lines are
// logged only (NVRTC 11.8 gives gated_delta_prep_bf16 an 8-byte stack frame around its f64 exp).
func TestDeltaRuleNoSpill(t *testing.T) {
	noSpills(t, ptxasLines(t, "deltanet.cu"), func(k string) bool {
		return strings.HasPrefix(k, "gated_delta_") && !strings.HasPrefix(k, "gated_delta_prep")
	}, deltaChunkName(128, backend.F32))
}

// TestAttnWideNoSpill: the wide prompt and chunk forms (attn_prompt_wide_*, attn_chunk_wide_*: head dims 256
// and 512, both activation types) spill nothing: their accumulators (128 dims of two query rows a lane) stay in
// registers. The other kernels' lines are logged only (NVRTC 11.8 gives attn_rows_e2 and attn_chunk_hd64_xf32 a
// 4-byte spill).
func TestAttnWideNoSpill(t *testing.T) {
	noSpills(t, ptxasLines(t, "attention.cu"), func(k string) bool {
		return strings.HasPrefix(k, "attn_prompt_wide_") || strings.HasPrefix(k, "attn_chunk_wide_")
	}, attnChunkWideName(512, backend.F32))
}

// TestViterbiNoSpill: no viterbi_k{K}_l{L} has a stack frame or spills (their loops are unrolled to the edge of
// ptxas's 64 registers at 1024 threads). It reads ptxas's log itself: a count such as "40 bytes spill loads" holds
// "0 bytes spill", which summarizePtxas takes for none.
func TestViterbiNoSpill(t *testing.T) {
	if _, _, err := driver.NVRTCVersion(); err != nil {
		t.Skipf("no NVRTC here: %v", err)
	}
	src, err := kernelSource("viterbi.cu", true)
	if err != nil {
		t.Fatal(err)
	}
	opts := append(append([]string(nil), kernelOptions...), "--ptxas-options=-v")
	_, log, err := driver.CompileLog("viterbi.cu", src, "sm_90", opts...)
	if err != nil {
		t.Fatalf("compiling viterbi.cu: %v", err)
	}
	fn := regexp.MustCompile(`Function properties for (\w+)`)
	nonzero := regexp.MustCompile(`\b[1-9][0-9]* bytes (stack frame|spill)`)
	var kernel string
	seen := 0
	for _, l := range strings.Split(log, "\n") {
		if m := fn.FindStringSubmatch(l); m != nil {
			kernel = m[1]
			continue
		}
		if strings.HasPrefix(kernel, "viterbi_") && strings.Contains(l, "stack frame") {
			seen++
			if nonzero.MatchString(l) {
				t.Errorf("%s: %s", kernel, strings.TrimSpace(l))
			}
		}
	}
	if want := len(viterbiInstantiations()); seen != want {
		t.Errorf("ptxas reported %d viterbi kernels, want %d", seen, want)
	}
}
