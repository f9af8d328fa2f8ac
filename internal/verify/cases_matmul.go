// MatMul cases: dense linears at the fixture, pycoder-12m, Qwen3-0.6B and Qwen3-14B shapes and an odd width,
// with and without bias, for every decode batch size up to backend.MaxDecodeRows, one more, and a 512-row
// prompt, writing f32 and bf16 outputs. The weights are bf16 on the host, as checkpoints store them.
package verify

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// MatMul tolerances: f32 sums of exact products (decode GEMV, bf16 activations into a GEMM) stay within
// in·2^-24·Σ|x·w|; a prompt GEMM on f32 activations may round them to bf16 first (docs/kernels.md), and a bf16
// output is rounded once more.
const (
	tolMatF32     = 1e-4
	tolMatRounded = 5e-3
	tolMatBF16Out = 8e-3
	heavyWeights  = 4 << 20 // weights of more elements make a 512-row prompt heavy on a CPU reference
)

var matmulShapes = []struct {
	tag     string
	in, out int
	bias    bool
}{
	{"fixture q", 256, 256, false}, {"fixture gate", 256, 768, false}, {"fixture down", 768, 256, true},
	{"pycoder-12m lm_head", 512, 384, false}, {"odd width", 100, 37, true},
	{"qwen3-14b gate/up", 5120, 17408, false}, {"qwen3-14b down", 17408, 5120, false}, {"qwen3-14b q/o", 5120, 5120, false},
	{"qwen3-14b k/v", 5120, 1024, true},
	{"qwen3-0.6b down", 3072, 1024, false}, {"qwen3-0.6b gate+up", 1024, 6144, false}, {"qwen3-0.6b o", 2048, 1024, true},
}

// matmulCases sweeps MatMul over matmulShapes × rows {1, 2, 3, 4, 8, 9, 512} × f32/bf16 output in activation
// dtype act.
func matmulCases(act backend.DType) []Case {
	var cs []Case
	for _, s := range matmulShapes {
		for _, n := range []int{1, 2, 3, 4, backend.MaxDecodeRows, backend.MaxDecodeRows + 1, 512} {
			for _, dst := range []backend.DType{backend.F32, backend.BF16} {
				cs = append(cs, matmulSweep(s.tag, s.in, s.out, n, s.bias, act, dst))
			}
		}
	}
	return cs
}

func matmulSweep(tag string, in, out, n int, bias bool, act, dst backend.DType) Case {
	op := "MatMul/dense"
	if bias {
		op += "+bias"
	}
	tol := tolMatF32
	promise := "f32 sums of exact products over bf16 weights"
	switch {
	case dst == backend.BF16:
		tol, promise = tolMatBF16Out, promise+", one rounding to bf16"
	case act == backend.F32 && n > backend.MaxDecodeRows:
		tol, promise = tolMatRounded, "f32 accumulation; a prompt GEMM may round f32 activations to bf16"
	}
	return Case{Op: op, Shape: fmt.Sprintf("%s %d→%d, n=%d, out %s%s", tag, in, out, n, dst, actName(act)), Act: act,
		Heavy: n > backend.MaxDecodeRows+1 && in*out > heavyWeights, Promise: promise, Tol: tol,
		run: func(h *harness) float64 {
			x := h.act(h.randn(n*in, 1), n, in)
			l := h.linear(in, out, bias, backend.BF16)
			y := h.out(dst, n, out)
			h.ref.MatMul(y.ref, x.ref, l.ref)
			h.dut.MatMul(y.dut, x.dut, l.dut)
			return h.compare(y)
		}}
}

// matmulCase is a MatMul at a model shape in the device's activation dtype, dst Invalid for activations.
func matmulCase(d Dims, in, out, n int, bias bool, dst backend.DType, heavy bool) Case {
	name := "MatMul/dense"
	if bias {
		name += "+bias"
	}
	tol := tolBF16
	if dst == backend.F32 {
		name += "/f32-out"
		tol = tolF32
	}
	return Case{Op: name, Shape: fmt.Sprintf("%s %d→%d, n=%d", d.Name, in, out, n), Heavy: heavy,
		Promise: "f32 accumulation over bf16 weights", Tol: tol,
		run: func(h *harness) float64 {
			x := h.act(h.randn(n*in, 1), n, in)
			l := h.linear(in, out, bias, backend.F32)
			y := h.out(dst, n, out)
			h.ref.MatMul(y.ref, x.ref, l.ref)
			h.dut.MatMul(y.dut, x.dut, l.dut)
			return h.compare(y)
		}}
}
