// Binding quantized checkpoint tensors (trellis codes, MLX affine) to linear specs.
package model

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func (w *binder) quantized(spec *backend.LinearSpec, path string) bool {
	w.fail(fmt.Errorf("tensor %q: quantized weights: %w", path+".weight", backend.ErrUnsupported))
	return false
}

func (w *binder) dequantized(name string, shape ...int) (backend.Host, bool) {
	w.fail(fmt.Errorf("tensor %q: quantized embeddings: %w", name, backend.ErrUnsupported))
	return backend.Host{}, false
}
