package verify

import (
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
)

// TestCPUAgainstItself: the reference agrees with itself on every quick case (the harness runs end to end).
func TestCPUAgainstItself(t *testing.T) {
	ref, dut := cpu.New(), cpu.New()
	defer ref.Close()
	defer dut.Close()
	// The fixture shapes only: at the 14B shapes the CPU would spend minutes agreeing with itself.
	var cases []Case
	for _, c := range Cases(true) {
		if strings.HasPrefix(c.Shape, "pycoder") {
			cases = append(cases, c)
		}
	}
	for _, r := range Run(ref, dut, cases, 1) {
		if !r.Pass {
			t.Errorf("%s %s: metric %g, err %v", r.Op, r.Shape, r.Metric, r.Err)
		}
	}
}

// skewed is a CPU backend whose MatMul is slightly wrong and whose attention ignores the cache's past.
type skewed struct{ *cpu.Backend }

func (s skewed) MatMul(dst, x backend.Tensor, w backend.Linear) {
	s.Backend.MatMul(dst, x, w)
	d := dst.(*cpu.Tensor).Float32s()
	d[len(d)/2] += 1
}

// TestHarnessCatchesBrokenKernels: a backend with a wrong MatMul fails exactly the MatMul cases.
func TestHarnessCatchesBrokenKernels(t *testing.T) {
	ref := cpu.New()
	defer ref.Close()
	dut := skewed{cpu.New()}
	defer dut.Close()
	var cases []Case
	for _, c := range Cases(true) {
		if strings.HasPrefix(c.Op, "MatMul") || c.Op == "RMSNorm/row" {
			if strings.HasPrefix(c.Shape, "pycoder") {
				cases = append(cases, c)
			}
		}
	}
	for _, r := range Run(ref, dut, cases, 2) {
		isMatMul := strings.HasPrefix(r.Op, "MatMul")
		if r.Pass == isMatMul {
			t.Errorf("%s %s: pass=%v metric %g; want pass only for non-MatMul", r.Op, r.Shape, r.Pass, r.Metric)
		}
	}
}
