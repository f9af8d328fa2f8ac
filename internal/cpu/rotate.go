// The reference of the Hadamard rotation (backend.Rotator): rht.Apply per row, rows in parallel.
package cpu

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rht"
)

func init() { extraOps[backend.OpHadamard] = true }

// Hadamard: dst = post ⊙ H_b(pre ⊙ x)/√b per row and block (pre, post nil or F32 [cols]).
func (b *Backend) Hadamard(dst, x, pre, post backend.Tensor, block int) {
	xs, ds := f32(x), f32(dst)
	rows, cols := dims(x)
	if len(ds) != len(xs) {
		backend.ShapeError("Hadamard", "dst", dst.Shape(), x.Shape())
	}
	signs := func(t backend.Tensor, what string) []float32 {
		if t == nil {
			return nil
		}
		s := f32(t)
		if len(s) != cols {
			backend.ShapeError("Hadamard", what, t.Shape(), []int{cols})
		}
		return s
	}
	ps, qs := signs(pre, "pre"), signs(post, "post")
	if err := rht.Check(cols, block, ps, qs); err != nil {
		panic(fmt.Sprintf("backend: Hadamard: %v", err))
	}
	b.parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			rht.Apply(ds[r*cols:(r+1)*cols], xs[r*cols:(r+1)*cols], ps, qs, block)
		}
	})
}
