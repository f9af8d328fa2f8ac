// The reference of the Gram accumulation (backend.Grammer, the quantizer's calibration Hessians): the columns of
// x transposed once, then each upper-triangle entry one f32 dot product of two columns (vec.Dot) added to the
// f32 accumulator. With overwrite it is exactly the per-window product the quantizer's host path adds into its
// f64 sums, so a flush after every window gives that path's Hessians bit for bit.
package cpu

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// Gram: acc [n, n] (upper triangle) = or += xᵀ·x for x [rows, n]; the lower triangle is left as it was.
func (b *Backend) Gram(acc, x backend.Tensor, overwrite bool) {
	rows, n := dims(x)
	xs, as := f32(x), f32(acc)
	if x.DType() != backend.F32 || acc.DType() != backend.F32 {
		panic(fmt.Sprintf("backend: Gram: acc %s and x %s, want f32 both", acc.DType(), x.DType()))
	}
	if len(as) != n*n {
		backend.ShapeError("Gram", "acc", acc.Shape(), []int{n, n})
	}
	xt := make([]float32, rows*n)
	for r := range rows {
		for i, v := range xs[r*n : (r+1)*n] {
			xt[i*rows+r] = v
		}
	}
	// Rows of the triangle shrink with i; ParallelFor hands out chunks of rows as cores free up, so they stay even.
	vec.ParallelFor(n, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a := xt[i*rows : (i+1)*rows]
			row := as[i*n : (i+1)*n]
			for j := i; j < n; j++ {
				d := vec.Dot(a, xt[j*rows:(j+1)*rows])
				if overwrite {
					row[j] = d
				} else {
					row[j] += d
				}
			}
		}
	})
}
