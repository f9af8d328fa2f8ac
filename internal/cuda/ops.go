// The elementwise and row ops of the backend (kernels in shaders/cuda/ops.cu): each checks shapes and dtypes on
// the caller's goroutine (a mismatch is a programmer error and panics there) and queues one launch. Activations
// are F32 (ActDType) or BF16 (tests, tools): every operand of an op has the same one, which picks the kernel.

package cuda

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/rope"
)

func (b *Backend) Embed(dst, table, ids backend.Tensor) {
	d, tab, id := tensorOf("Embed", dst), tensorOf("Embed", table), tensorOf("Embed", ids)
	wantDType("Embed", "table", tab, backend.BF16)
	wantDType("Embed", "ids", id, backend.I32)
	wantDType("Embed", "dst", d, backend.F32, backend.BF16)
	vocab, width := dims(tab)
	n := id.elems()
	if d.elems() != n*width {
		backend.ShapeError("Embed", "dst", d.shape, []int{n, width})
	}
	if n == 0 {
		return
	}
	dp, tp, ip := d.ptr, tab.ptr, id.ptr
	name := opName("embed", d.dt)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(dp).Ptr(tp).Ptr(ip).I32(int32(width)).I32(int32(vocab))
		return b.launch(name, driver.Dim3{X: n}, driver.Dim3{X: 256}, 0, args, float64(n*(4+(2+d.dt.Size())*width)))
	})
}

// rmsnormWarpMax is the widest group the warp form normalizes; wider groups take a block each.
const rmsnormWarpMax = 1024

// rowThreads is the block size of the row-norm kernels for a group of g values: one 16-byte chunk per thread
// where the row allows (at most 1024 threads).
func rowThreads(g int) int {
	n := g
	if g%8 == 0 {
		n = g / 8
	}
	return min(1024, max(32, (n+31)/32*32))
}

func (b *Backend) RMSNorm(dst, x, w backend.Tensor, eps float32) {
	d, xs, ws := tensorOf("RMSNorm", dst), tensorOf("RMSNorm", x), tensorOf("RMSNorm", w)
	wantDType("RMSNorm", "x", xs, backend.F32, backend.BF16)
	wantDType("RMSNorm", "dst", d, xs.dt)
	wantDType("RMSNorm", "weight", ws, backend.F32)
	g := ws.elems()
	if g == 0 || xs.elems()%g != 0 || d.elems() != xs.elems() {
		backend.ShapeError("RMSNorm", "x", xs.shape, fmt.Sprintf("columns a multiple of %d", g))
	}
	groups := xs.elems() / g
	if groups == 0 {
		return
	}
	dp, xp, wp := d.ptr, xs.ptr, ws.ptr
	bytes := float64(2*xs.elems()*xs.dt.Size() + 4*g)
	if g < rmsnormWarpMax {
		grid := driver.Dim3{X: (groups + 3) / 4}
		name := opName("rmsnorm_warp", xs.dt)
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(dp).Ptr(xp).Ptr(wp).I32(int32(groups)).I32(int32(g)).F32(eps)
			return b.launch(name, grid, driver.Dim3{X: 128}, 0, args, bytes)
		})
		return
	}
	threads := rowThreads(g)
	name := opName("rmsnorm_row", xs.dt)
	b.enqueueShadow(d, func(y16 driver.DevPtr) func() error {
		return func() error {
			args := driver.NewArgs().Ptr(dp).Ptr(y16).Ptr(xp).Ptr(wp).I32(int32(g)).F32(eps)
			return b.launch(name, driver.Dim3{X: groups}, driver.Dim3{X: threads}, 0, args, bytes)
		}
	})
}

// elementwise3 checks three equal-length tensors (dst, a, c) of one activation dtype and returns the kernel
// name, the grid and the element count (0: nothing to do).
func (b *Backend) elementwise3(op, kernel string, d, x, y *Tensor) (string, driver.Dim3, int) {
	wantDType(op, "a", x, backend.F32, backend.BF16)
	for _, t := range []*Tensor{d, y} {
		wantDType(op, "operand", t, x.dt)
	}
	n := x.elems()
	if y.elems() != n || d.elems() != n {
		backend.ShapeError(op, "a, b", x.shape, y.shape)
	}
	return opName(kernel, x.dt), b.grid1D(int64((n+7)/8), 256), n
}

func (b *Backend) Add(dst, a, c backend.Tensor) {
	d, x, y := tensorOf("Add", dst), tensorOf("Add", a), tensorOf("Add", c)
	name, grid, n := b.elementwise3("Add", "add", d, x, y)
	if n == 0 {
		return
	}
	dp, xp, yp := d.ptr, x.ptr, y.ptr
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(dp).Ptr(xp).Ptr(yp).I64(int64(n))
		return b.launch(name, grid, driver.Dim3{X: 256}, 0, args, float64(3*n*x.dt.Size()))
	})
}

func (b *Backend) SwiGLU(dst, gate, up backend.Tensor) {
	d, x, y := tensorOf("SwiGLU", dst), tensorOf("SwiGLU", gate), tensorOf("SwiGLU", up)
	name, grid, n := b.elementwise3("SwiGLU", "swiglu", d, x, y)
	if n == 0 {
		return
	}
	dp, xp, yp := d.ptr, x.ptr, y.ptr
	b.enqueueShadow(d, func(y16 driver.DevPtr) func() error {
		return func() error {
			args := driver.NewArgs().Ptr(dp).Ptr(y16).Ptr(xp).Ptr(yp).I64(int64(n))
			return b.launch(name, grid, driver.Dim3{X: 256}, 0, args, float64(3*n*x.dt.Size()))
		}
	})
}

// ropeFreqs returns the device copy of a table's inverse frequencies, uploading it on first use (outside any
// capture: ops run this on the caller's goroutine).
func (b *Backend) ropeFreqs(t *rope.Table) (driver.DevPtr, error) {
	if p, ok := b.ropes[t]; ok {
		return p, nil
	}
	half := t.Dims / 2
	if len(t.InvFreq) < half {
		return 0, fmt.Errorf("rope table has %d inverse frequencies for %d dims", len(t.InvFreq), t.Dims)
	}
	p, err := b.allocExact(4 * half)
	if err != nil {
		return 0, err
	}
	if err := b.dev.Do(func() error { return driver.CopyToDevice(b.dev, p, t.InvFreq[:half]) }); err != nil {
		return 0, err
	}
	b.ropes[t] = p
	return p, nil
}

func (b *Backend) Rope(x, pos backend.Tensor, heads int, table *rope.Table) {
	if table == nil {
		return // NoPE layer
	}
	xs, ps := tensorOf("Rope", x), tensorOf("Rope", pos)
	wantDType("Rope", "x", xs, backend.F32, backend.BF16)
	wantDType("Rope", "pos", ps, backend.I32)
	n, c := dims(xs)
	if ps.elems() != n || heads <= 0 || c%heads != 0 || table.Dims > c/heads || table.Dims%2 != 0 {
		backend.ShapeError("Rope", "x", xs.shape, fmt.Sprintf("[%d, heads(%d)·headDim ≥ %d]", ps.elems(), heads, table.Dims))
	}
	if n == 0 {
		return
	}
	freqs, err := b.ropeFreqs(table)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: rope table: %w", err))
		return
	}
	hd := c / heads
	xp, pp := xs.ptr, ps.ptr
	trad := int32(0)
	if table.Traditional {
		trad = 1
	}
	dimsRot, pre := table.Dims, table.PreScale
	name := opName("rope", xs.dt)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(xp).Ptr(pp).Ptr(freqs).I32(int32(heads)).I32(int32(hd)).I32(int32(dimsRot)).I32(trad).F32(pre)
		return b.launch(name, driver.Dim3{X: n * heads}, driver.Dim3{X: 64}, 0, args, float64(n*(4+2*xs.dt.Size()*heads*dimsRot)))
	})
}

// Argmax picks each row's greedy token on the device (sample.GreedyNormalizedArgmax with F32 rounding).
func (b *Backend) Argmax(dst, logits backend.Tensor) {
	d, l := tensorOf("Argmax", dst), tensorOf("Argmax", logits)
	wantDType("Argmax", "logits", l, backend.F32)
	wantDType("Argmax", "dst", d, backend.I32)
	rows, vocab := dims(l)
	if d.elems() != rows {
		backend.ShapeError("Argmax", "dst", d.shape, []int{rows})
	}
	d.shadow = nil
	if rows == 0 {
		return
	}
	P := (vocab + argmaxSlice - 1) / argmaxSlice
	part, err := b.grow(&b.argPart, &b.argLen, 12*rows*P)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: argmax partials: %w", err))
		return
	}
	dp, lp := d.ptr, l.ptr
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(part).Ptr(lp).I32(int32(vocab))
		if err := b.launch("argmax_part_f32", driver.Dim3{X: P, Y: rows}, driver.Dim3{X: 256}, 0, args, float64(4*rows*vocab)); err != nil {
			return err
		}
		args = driver.NewArgs().Ptr(dp).Ptr(part).Ptr(lp).I32(int32(vocab)).I32(int32(P))
		return b.launch("argmax_f32", driver.Dim3{X: rows}, driver.Dim3{X: 256}, 0, args, float64(12*rows*P+4*rows*argmaxSlice))
	})
}

// argmaxSlice is the logits a block of argmax_part_f32 takes (ARGMAX_SLICE in ops.cu): 37–61 blocks a row at
// vocabularies of 150–250k, each holding its slice in registers (16 a thread).
const argmaxSlice = 4096
