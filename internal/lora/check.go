// The --check-tensors scan of an adapter: every A and B matrix for NaN and ±Inf, named as the adapter's file
// names it, so a poisoned adapter is found before it turns a step's logits into NaN.
package lora

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// CheckFinite returns an error naming the first tensor holding NaN or ±Inf and the element, counted in the
// file's own layout (mlx-lm's matrices are stored transposed to the [r, in] and [out, r] held here).
func (a *Adapter) CheckFinite() error {
	file := PEFTWeights
	if a.Layout == MLXLM {
		file = MLXWeights
	}
	for _, t := range a.Targets {
		for _, m := range []struct {
			name string
			h    []byte
			dt   dtype.DType
			rows int
			cols int
		}{
			{t.ATensor, t.A.Data, t.A.DType, t.A.Shape[0], t.A.Shape[1]},
			{t.BTensor, t.B.Data, t.B.DType, t.B.Shape[0], t.B.Shape[1]},
		} {
			e, v, bad := dtype.FirstNonFinite(m.dt, m.h)
			if !bad {
				continue
			}
			if a.Layout == MLXLM { // held [rows, cols], stored [cols, rows]
				e = (e%m.cols)*m.rows + e/m.cols
			}
			return fmt.Errorf("%w %s: %s: tensor %s holds %v at element %d", ErrAdapter, a.Dir, file, m.name, v, e)
		}
	}
	return nil
}
