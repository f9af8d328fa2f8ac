// Quantized linear weights on the CPU: binds trellis and affine weights to the MatMul of their format package.
package cpu

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func loadQuantized(spec backend.LinearSpec) (quantized, error) {
	return nil, fmt.Errorf("linear %s: quantized weights: %w", spec.Name, backend.ErrUnsupported)
}
