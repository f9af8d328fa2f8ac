// Scanning a checkpoint's floating-point tensors for NaN and ±Inf (generate --check-tensors, as llama.cpp's
// option): a poisoned weight is named at load instead of surfacing as NaN logits at the first step.
package safetensors

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// ErrNonFinite is wrapped by CheckFinite's error.
var ErrNonFinite = errors.New("tensor holds NaN or Inf")

// CheckFinite scans every floating-point tensor of the archive (F16, BF16, F32, F64: dense weights and norms,
// trellis scales, affine scales and biases; packed integer codes hold no NaN) in name order and returns an error
// naming the first that holds a NaN or ±Inf, with the file, the element's index and its value. It reads every
// byte of those tensors once.
func (a *Archive) CheckFinite() error {
	for _, name := range a.names {
		f, in, _ := a.file(name)
		t, ok := f.Tensor(in)
		if !ok {
			return fmt.Errorf("%s: tensor %q: archive is closed", a.dir, name)
		}
		if i, v, bad := dtype.FirstNonFinite(t.DType, t.Data); bad {
			return &nonFinite{file: filepath.Base(f.Path()), name: in, dt: t.DType, index: i, value: v}
		}
	}
	return nil
}

type nonFinite struct {
	file, name string
	dt         dtype.DType
	index      int
	value      float64
}

func (e *nonFinite) Error() string {
	return fmt.Sprintf("%s: tensor %s (%s) holds %v at element %d", e.file, e.name, e.dt, e.value, e.index)
}

func (e *nonFinite) Unwrap() error { return ErrNonFinite }
