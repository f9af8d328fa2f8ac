// The model-level gate of the quantized forms (issue 8): a model quantized by mlxbun, run by the CUDA backend
// with the f32-activation forms, the int8-activation dp4a forms and the tensor-core form (the default), against the CPU backend on the same artifact:
// mean per-position KL(cpu ‖ cuda) of the prompt's next-token distributions, and top-1 agreement.
package cuda

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/quantize"
)

// klGate is the bound on the mean per-token KL of the fast (default) forms; both the f32 and the int8
// activation forms are held to it.
const klGate = 1e-3

func TestQuantizedKL(t *testing.T) {
	g, c := bk(t)
	for _, fx := range []struct {
		dir  string
		bits []int
	}{{"models/tiny-qwen3", []int{2, 3, 4}}, {"trained/pycoder-12m", []int{3}}} {
		src := fixture(t, fx.dir)
		gold, _ := loadGolden(t, src)
		for _, bits := range fx.bits {
			out := filepath.Join(t.TempDir(), "q")
			if _, err := quantize.Run(src, out, quantize.Options{Bits: bits}, nil); err != nil {
				t.Fatal(err)
			}
			ref := promptLogits(t, out, c, gold.PromptIDs)
			for _, mode := range []struct {
				name      string
				act8, mma bool
			}{{"f32", false, false}, {"int8", true, false}, {"mma", true, true}} {
				g.SetQuantAct8(mode.act8)
				g.SetQuantMMA(mode.mma)
				got := promptLogits(t, out, g, gold.PromptIDs)
				g.quant.act8, g.quant.mma = 0, 0 // back to the environment and the defaults for later tests
				kl, agree := meanKL(ref, got, len(gold.PromptIDs))
				record("quant-kl    %-12s %d-bit %-7s: mean KL %.2e, top-1 equal at %d of %d positions",
					filepath.Base(fx.dir), bits, mode.name, kl, agree, len(gold.PromptIDs))
				if kl > klGate || math.IsNaN(kl) {
					t.Errorf("MISMATCH %s %d-bit %s forms: mean KL %.3g > %g", fx.dir, bits, mode.name, kl, klGate)
				}
			}
		}
	}
}

// promptLogits loads dir on b and returns the logits of every prompt position, [n, vocab].
func promptLogits(t *testing.T, dir string, b backend.Backend, ids []int) []float32 {
	t.Helper()
	l, _ := adaptedLogits(t, dir, b, ids, 0)
	return l
}

// meanKL is the mean over rows of KL(softmax(p) ‖ softmax(q)) in float64, and how many rows share their argmax.
func meanKL(p, q []float32, rows int) (float64, int) {
	vocab := len(p) / rows
	var sum float64
	agree := 0
	for r := 0; r < rows; r++ {
		pr, qr := p[r*vocab:(r+1)*vocab], q[r*vocab:(r+1)*vocab]
		lp, lq := logSoftmax(pr), logSoftmax(qr)
		var kl float64
		for i := range lp {
			kl += math.Exp(lp[i]) * (lp[i] - lq[i])
		}
		sum += kl
		if argmaxOf(pr) == argmaxOf(qr) {
			agree++
		}
	}
	return sum / float64(rows), agree
}

func logSoftmax(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - m)
	}
	lse := m + math.Log(s)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v) - lse
	}
	return out
}
