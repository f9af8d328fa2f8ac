// The Hadamard rotation op (backend.Rotator) on the device: kernel hadamard_{f32,bf16} of shaders/cuda/ops.cu, one
// thread block per run of b columns, bit-exact to the CPU reference (rht.Apply).

package cuda

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/rht"
)

// hadamardThreads is the thread count of a run of b columns: one butterfly pair per thread up to 512 (the pairs
// of larger runs are strided; measured cost is not the point here: the op is memory-light and one launch per
// rotated activation).
func hadamardThreads(b int) int { return min(b/2, 512) }

// Hadamard: dst = post ⊙ H_b(pre ⊙ x)/√b per row and run of b columns (pre, post nil or F32 [cols]).
func (b *Backend) Hadamard(dst, x, pre, post backend.Tensor, block int) {
	d, xs := tensorOf("Hadamard", dst), tensorOf("Hadamard", x)
	wantDType("Hadamard", "x", xs, backend.F32, backend.BF16)
	wantDType("Hadamard", "dst", d, xs.dt)
	rows, cols := dims(xs)
	if d.elems() != xs.elems() {
		backend.ShapeError("Hadamard", "dst", d.shape, xs.shape)
	}
	signs := func(t backend.Tensor, what string) driver.DevPtr {
		if t == nil {
			return 0
		}
		s := tensorOf("Hadamard", t)
		wantDType("Hadamard", what, s, backend.F32)
		if s.elems() != cols {
			backend.ShapeError("Hadamard", what, s.shape, []int{cols})
		}
		return s.ptr
	}
	pp, qp := signs(pre, "pre"), signs(post, "post")
	if err := rht.Check(cols, block, nil, nil); err != nil || block > rht.MaxBlock {
		panic(fmt.Sprintf("backend: Hadamard: %d columns in blocks of %d (at most %d): %v", cols, block, rht.MaxBlock, err))
	}
	if rows == 0 {
		return
	}
	dp, xp := d.ptr, xs.ptr
	name := opName("hadamard", xs.dt)
	grid := driver.Dim3{X: rows * (cols / block)}
	threads := driver.Dim3{X: hadamardThreads(block)}
	scale := rht.Scale(block)
	bytes := float64(2*rows*cols*xs.dt.Size() + 8*cols)
	b.enqueueShadow(d, func(y16 driver.DevPtr) func() error {
		return func() error {
			args := driver.NewArgs().Ptr(dp).Ptr(y16).Ptr(xp).Ptr(pp).Ptr(qp).I32(int32(cols)).I32(int32(block)).F32(scale)
			return b.launch(name, grid, threads, 4*block, args, bytes)
		}
	})
}
