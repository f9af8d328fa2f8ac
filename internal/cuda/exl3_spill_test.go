// The EXL3 GEMV's register caps (EXL3_GEMV_MIN_BLOCKS in exl3.cu) are tight: one row at 32 registers, 3inst and
// K 7 at 40 because 32 spilled. TestEXL3NoSpill compiles exl3.cu for sm_90 with a few instantiations (the 3-bit
// one-row GEMVs of every codebook, K 7, the sides; MLXBUN_EXL3_INST overrides the list, ';' between lines) and
// fails on any spill ptxas reports; with MLXBUN_EXL3_CUBIN=FILE it also writes the CUBIN there for
// `cuobjdump -sass`. One small compile instead of TestKernelsCompile's whole tree; skipped where no NVRTC is.

package cuda

import (
	"os"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

func TestEXL3NoSpill(t *testing.T) {
	if _, _, err := driver.NVRTCVersion(); err != nil {
		t.Skipf("no NVRTC here: %v", err)
	}
	inst := []string{"EXL3_HAD(exl3_had)", "EXL3_GEMV(exl3_gemv_k3_mul1_n1, 3, 2, 1)",
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
	if out := os.Getenv("MLXBUN_EXL3_CUBIN"); out != "" {
		if err := os.WriteFile(out, cubin, 0o644); err != nil {
			t.Fatalf("writing the CUBIN: %v", err)
		}
	}
}
