// The Gram accumulation (backend.Grammer): the calibration Hessians' acc += xᵀ·x as one cuBLASLt f32 GEMM per
// call (driver.BlasLt.GramF32, CUBLAS_COMPUTE_32F: no TF32), so the quantizer's taps never copy activations to
// the host; and the free device memory (backend.MemoryFree) the quantizer sizes its accumulators by.

package cuda

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// Gram: acc F32 [n, n] = (overwrite) or += xᵀ·x for x F32 [rows, n]. The whole square is written (the GEMM does
// not know it is symmetric); the contract promises only the upper triangle.
func (b *Backend) Gram(acc, x backend.Tensor, overwrite bool) {
	a, xs := tensorOf("Gram", acc), tensorOf("Gram", x)
	wantDType("Gram", "acc", a, backend.F32)
	wantDType("Gram", "x", xs, backend.F32)
	rows, n := dims(xs)
	if a.elems() != n*n {
		backend.ShapeError("Gram", "acc", a.shape, []int{n, n})
	}
	beta := float32(1)
	if overwrite {
		beta = 0
	}
	c, p := a.ptr, xs.ptr
	flops := 2 * float64(rows) * float64(n) * float64(n)
	b.enqueue(func() error {
		err := b.timed("gram_cublaslt_f32", float64(4*rows*n+8*n*n), func() error {
			return b.blas.GramF32(b.stream, c, p, rows, n, beta)
		})
		if err != nil {
			return fmt.Errorf("cuda backend: Gram of %d × %d (%.3g flops): %w", rows, n, flops, err)
		}
		return nil
	})
}

// MemoryFree is the driver's free memory plus the blocks the allocator keeps on its free lists (an allocation
// that finds the driver short releases those and retries), and the device's total.
func (b *Backend) MemoryFree() (free, total int64, err error) {
	var f, t uint64
	if err := b.dev.Do(func() error {
		var err error
		f, t, err = b.dev.MemInfo()
		return err
	}); err != nil {
		return 0, 0, fmt.Errorf("cuda backend: free memory: %w", err)
	}
	return int64(f) + b.mem.freeListed(), int64(t), nil
}
