// Quantized linear weights on the CPU: trellis, affine and EXL3 weights multiply through their format packages,
// which own the reference decode arithmetic (decoding on the fly, each coded row or column once per call).
package cpu

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// TrellisVariant is the decode arithmetic the CPU backend uses for trellis weights: the reciprocal form
// (y·(1/147.8) in f32, ≤ 1 ulp from exact) that the seeds' production layers run.
const TrellisVariant = trellis.Reciprocal

type trellisLinear struct{ w *trellis.Weights }

func (t trellisLinear) MatMul(y, x []float32, n int) { t.w.MatMul(y, x, n, TrellisVariant) }
func (t trellisLinear) Dense() []float32             { return t.w.Dense(TrellisVariant) }

// loadQuantized is the CPU form of a quantized spec. EXL3 weights multiply in their rotated basis
// (x' = H(su ⊙ x), y = sv ⊙ H(x'·Ŵ)) while their Dense is the reconstruction in the original basis: the same
// layer, rounded differently in f32 (docs/exl3-format.md section 5), either well inside the tolerance against
// exllamav3's fp16 arithmetic.
func (b *Backend) loadQuantized(spec backend.LinearSpec) (quantized, error) {
	switch {
	case spec.Trellis != nil:
		return trellisLinear{spec.Trellis}, nil
	case spec.EXL3 != nil:
		if w := spec.EXL3; w.In != spec.In || w.Out != spec.Out {
			return nil, fmt.Errorf("linear %s: EXL3 weights of %d→%d for a %d→%d layer", spec.Name, w.In, w.Out, spec.In, spec.Out)
		}
		return exl3Linear{spec.EXL3, b.denseMatMul}, nil
	}
	return spec.Affine, nil
}

// exl3Linear multiplies through the backend's dense kernel, strip by strip of the decoded inner matrix.
type exl3Linear struct {
	w     *exl3.Weights
	dense exl3.DenseFunc
}

func (e exl3Linear) MatMul(y, x []float32, n int) { e.w.MatMulWith(y, x, n, e.dense) }
func (e exl3Linear) Dense() []float32             { return e.w.Dense() }
