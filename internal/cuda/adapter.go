// AddScaled, the op LoRA adapters add beside MatMul (backend.ScaledAdder; kernel add_scaled_{f32,bf16} in
// shaders/cuda/ops.cu). The adapters' two small products are plain MatMuls over dense bf16 linears, served by the
// GEMV and cuBLASLt forms of linear.go.

package cuda

import (
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// AddScaled: dst = a + f32(s·b) elementwise, in one launch.
func (b *Backend) AddScaled(dst, a, c backend.Tensor, s float32) {
	d, x, y := tensorOf("AddScaled", dst), tensorOf("AddScaled", a), tensorOf("AddScaled", c)
	name, grid, n := b.elementwise3("AddScaled", "add_scaled", d, x, y)
	if n == 0 {
		return
	}
	dp, xp, yp := d.ptr, x.ptr, y.ptr
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(dp).Ptr(xp).Ptr(yp).F32(s).I64(int64(n))
		return b.launch(name, grid, driver.Dim3{X: 256}, 0, args, float64(3*n*x.dt.Size()))
	})
}
