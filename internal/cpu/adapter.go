// The reference of AddScaled (internal/backend/adapter.go), the sum LoRA adapters add to a projection.
package cpu

import "github.com/mlxbun/mlxbun/internal/backend"

func init() { extraOps[backend.OpAddScaled] = true }

// AddScaled: dst = a + f32(s·b).
func (b *Backend) AddScaled(dst, a, x backend.Tensor, s float32) {
	as, xs, ds := f32(a), f32(x), f32(dst)
	if len(as) != len(xs) || len(ds) != len(as) {
		backend.ShapeError("AddScaled", "a, b", a.Shape(), x.Shape())
	}
	for k := range ds {
		ds[k] = as[k] + float32(s*xs[k]) // the conversion rounds the product: Go may not fuse it into an FMA
	}
}
