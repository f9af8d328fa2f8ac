// Quantized linear weights on the CPU: trellis and affine weights multiply through their format packages, which
// own the reference decode arithmetic (decoding on the fly, each coded row once per call).
package cpu

import (
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// TrellisVariant is the decode arithmetic the CPU backend uses for trellis weights: the reciprocal form
// (y·(1/147.8) in f32, ≤ 1 ulp from exact) that the seeds' production layers run.
const TrellisVariant = trellis.Reciprocal

type trellisLinear struct{ w *trellis.Weights }

func (t trellisLinear) MatMul(y, x []float32, n int) { t.w.MatMul(y, x, n, TrellisVariant) }
func (t trellisLinear) Dense() []float32             { return t.w.Dense(TrellisVariant) }

func loadQuantized(spec backend.LinearSpec) (quantized, error) {
	if spec.Trellis != nil {
		return trellisLinear{spec.Trellis}, nil
	}
	return spec.Affine, nil
}
