// The EXL3 GEMV's register caps (EXL3_GEMV_MIN_BLOCKS in exl3.cu) are tight: one row at 32 registers, 3inst and
// K 7 at 40 because 32 spilled. TestEXL3NoSpill compiles exl3.cu for sm_90 with a few instantiations (the 3-bit
// one-row GEMVs of every codebook, K 7, the sides; MLXBUN_EXL3_INST overrides the list, ';' between lines) and
// fails on any spill ptxas reports; with MLXBUN_EXL3_CUBIN=FILE it also writes the CUBIN there for
// `cuobjdump -sass`. One small compile instead of TestKernelsCompile's whole tree; skipped where no NVRTC is.

package cuda

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/exl3"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

func TestEXL3NoSpill(t *testing.T) {
	if _, _, err := driver.NVRTCVersion(); err != nil {
		t.Skipf("no NVRTC here: %v", err)
	}
	inst := []string{"EXL3_HAD(exl3_had, 1)", "EXL3_HAD(exl3_had_sum, 8)", "EXL3_GEMV(exl3_gemv_k3_mul1_n1, 3, 2, 1)",
		"EXL3_GEMV(exl3_gemv_k3_mcg_n1, 3, 1, 1)", "EXL3_GEMV(exl3_gemv_k3_3inst_n1, 3, 0, 1)",
		"EXL3_GEMV(exl3_gemv_k7_mul1_n1, 7, 2, 1)", "EXL3_GEMV(exl3_gemv_k3_mul1_n8, 3, 2, 8)"}
	if s := os.Getenv("MLXBUN_EXL3_INST"); s != "" {
		inst = strings.Split(s, ";")
	}
	src := cudashaders.Sources["common.cuh"] + "\n#line 1 \"exl3.cu\"\n" + cudashaders.Sources["exl3.cu"] + "\n" +
		strings.Join(inst, "\n") + "\n"
	opts := append(append([]string(nil), kernelOptions...), "--ptxas-options=-v")
	cubin, log, err := driver.CompileLog("exl3.cu", src, "sm_90", opts...)
	if err != nil {
		t.Fatalf("compiling exl3.cu: %v", err)
	}
	sum := summarizePtxas(log)
	t.Logf("ptxas:\n%s", sum)
	if strings.Contains(sum, "spill") {
		t.Errorf("ptxas spills in exl3.cu under the register caps:\n%s", sum)
	}
	checkEXL3GemvOccupancy(t, sum)
	if out := os.Getenv("MLXBUN_EXL3_CUBIN"); out != "" {
		if err := os.WriteFile(out, cubin, 0o644); err != nil {
			t.Fatalf("writing the CUBIN: %v", err)
		}
	}
}

// checkEXL3GemvOccupancy: for every exl3_gemv in the ptxas summary, the registers fit exl3GemvMinBlocks blocks of
// 256 threads in 64 Ki registers and the static shared memory is exl3GemvSmem: what exl3GemvBlocksPerSM (the grid)
// assumes. A grid above what an SM holds would leave blocks, and the units dealt to them, for a second wave.
func checkEXL3GemvOccupancy(t *testing.T, sum string) {
	t.Helper()
	re := regexp.MustCompile(`exl3_gemv_k(\d)_(\w+?)_n(\d): ptxas info\s*: Used (\d+) registers, (\d+) bytes smem`)
	found := 0
	for _, m := range re.FindAllStringSubmatch(sum, -1) {
		k, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[3])
		regs, _ := strconv.Atoi(m[4])
		smem, _ := strconv.Atoi(m[5])
		cb, err := exl3.ParseCodebook(m[2])
		if err != nil {
			t.Fatalf("%s: %v", m[0], err)
		}
		found++
		if per := exl3GemvMinBlocks(k, cb, n); regs*256*per > 65536 {
			t.Errorf("%s: %d registers do not fit exl3GemvMinBlocks = %d blocks an SM", m[0], regs, per)
		}
		if want := exl3GemvSmem(k); smem != want {
			t.Errorf("%s: %d bytes of shared memory, exl3GemvSmem says %d", m[0], smem, want)
		}
	}
	if found == 0 {
		t.Errorf("no exl3_gemv in the ptxas summary:\n%s", sum)
	}
}
