// A helper for reading exl3.cu's machine code: with MLXBUN_EXL3_CUBIN=FILE, TestEXL3Cubin compiles exl3.cu for
// sm_90 with a few instantiations (the 3-bit one-row GEMVs, the sides; MLXBUN_EXL3_INST overrides the list, ';'
// between lines) and writes the CUBIN to FILE for `cuobjdump -sass`, with ptxas's register report in the log: one
// small compile instead of TestKernelsCompile's whole tree.

package cuda

import (
	"os"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

func TestEXL3Cubin(t *testing.T) {
	out := os.Getenv("MLXBUN_EXL3_CUBIN")
	if out == "" {
		t.Skip("MLXBUN_EXL3_CUBIN not set")
	}
	if _, _, err := driver.NVRTCVersion(); err != nil {
		t.Skipf("no NVRTC here: %v", err)
	}
	inst := []string{"EXL3_HAD(exl3_had)", "EXL3_GEMV(exl3_gemv_k3_mul1_n1, 3, 2, 1)",
		"EXL3_GEMV(exl3_gemv_k3_mcg_n1, 3, 1, 1)", "EXL3_GEMV(exl3_gemv_k3_3inst_n1, 3, 0, 1)"}
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
	t.Logf("ptxas:\n%s", summarizePtxas(log))
	if err := os.WriteFile(out, cubin, 0o644); err != nil {
		t.Fatalf("writing the CUBIN: %v", err)
	}
}
