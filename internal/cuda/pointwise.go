// The pointwise ops beyond the Backend interface (backend/pointwise.go; kernels in shaders/cuda/pointwise.cu):
// Scale, Softcap and GeGLU, one grid-stride launch each. The CPU backend (internal/cpu/pointwise.go) is their
// reference.

package cuda

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// pointwiseOps are the ops of this file Supports answers yes for.
var pointwiseOps = map[backend.Op]bool{backend.OpScale: true, backend.OpSoftcap: true, backend.OpGeGLU: true}

// pointwise queues one grid-stride launch of kernel (an _f32/_bf16 pair of pointwise.cu) over dst and its operands,
// all of one activation dtype and length; f adds the arguments after the pointers.
func (b *Backend) pointwise(op, kernel string, d *Tensor, xs []*Tensor, f func(*driver.Args) *driver.Args) {
	wantDType(op, "x", xs[0], backend.F32, backend.BF16)
	wantDType(op, "dst", d, xs[0].dt)
	n := d.elems()
	for _, x := range xs {
		wantDType(op, "operand", x, xs[0].dt)
		if x.elems() != n {
			backend.ShapeError(op, "dst", d.shape, x.shape)
		}
	}
	if n == 0 {
		return
	}
	name, grid := opName(kernel, d.dt), b.grid1D(int64(n), 256)
	ptrs := []driver.DevPtr{d.ptr}
	for _, x := range xs {
		ptrs = append(ptrs, x.ptr)
	}
	bytes := float64((len(xs) + 1) * n * d.dt.Size())
	b.enqueue(func() error {
		args := driver.NewArgs()
		for _, p := range ptrs {
			args = args.Ptr(p)
		}
		return b.launch(name, grid, driver.Dim3{X: 256}, 0, f(args).I64(int64(n)), bytes)
	})
}

// Scale: dst = x·s (backend.Scaler).
func (b *Backend) Scale(dst, x backend.Tensor, s float32) {
	b.pointwise("Scale", "scale", tensorOf("Scale", dst), []*Tensor{tensorOf("Scale", x)},
		func(a *driver.Args) *driver.Args { return a.F32(s) })
}

// Softcap: dst = tanh(x/c)·c in one launch (backend.Softcapper).
func (b *Backend) Softcap(dst, x backend.Tensor, c float32) {
	if !(c > 0) {
		panic(fmt.Sprintf("backend: Softcap: cap %v is not positive", c))
	}
	b.pointwise("Softcap", "softcap", tensorOf("Softcap", dst), []*Tensor{tensorOf("Softcap", x)},
		func(a *driver.Args) *driver.Args { return a.F32(c) })
}

// GeGLU: dst = gelu_tanh(gate)·up (backend.GeGLUer).
func (b *Backend) GeGLU(dst, gate, up backend.Tensor) {
	b.pointwise("GeGLU", "geglu", tensorOf("GeGLU", dst), []*Tensor{tensorOf("GeGLU", gate), tensorOf("GeGLU", up)},
		func(a *driver.Args) *driver.Args { return a })
}
