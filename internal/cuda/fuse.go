// Peephole fusion: some ops merge into the launch queued just before them when the pair has a fused kernel, so
// model code keeps calling the plain ops. Each fused launch computes exactly what the pair computes (the same
// roundings in the same places); the pairs are
//
//   - MatMul, MatMul (, MatMul) on the same activations (q, k, v; gate, up): one multi-segment GEMV launch
//     (linear.go, gemvGroup);
//   - Add(sum, a, b), RMSNorm(y, sum, w): add_rmsnorm_{f32,bf16};
//   - RMSNorm(x, x, w) per head, Rope(x, ...): rmsnorm_rope_{f32,bf16} (the q and k norms and ropes of Qwen3 arrive
//     as norm q, norm k, rope q, rope k; each rope finds its norm among the head norms queued since the last other
//     op);
//   - a row RMSNorm (or Add + RMSNorm), SwiGLU or tensor-core prompt Attention writing f32, then a prompt MatMul
//     of that output: the launch also writes the bf16 copy cuBLASLt reads (its y16 argument; shadowOut, gemmInput
//     in linear.go).
//
// A candidate stays valid only while nothing else is queued after it (enqueue forgets them), never across a flush,
// and never across the start of a recording (fusion.floor).

package cuda

import (
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// fusion is the peephole state: the queued launches a following op may still merge into. Each is valid only
// while it is the last pending op at or above floor; enqueue, flush and Record forget them all through reset.
type fusion struct {
	gemv      *gemvGroup  // a vector-GEMV launch that more MatMuls on its activations may join
	qmma      *qmmaGroup  // a trellis_mma launch that more MatMuls (and a SwiGLU of gate and up) may join
	add       *addOp      // an Add that an RMSNorm of its sum may absorb
	headNorms []*headNorm // per-head RMSNorms queued since the last other op, which a Rope of their output may absorb
	out       *shadowOut  // a launch that can also write its f32 output as bf16 (a prompt GEMM's input)
	gemmIn    *gemmIn     // the bf16 input of the GEMM queued last
	floor     int         // first pending index of the recording in progress: nothing fuses across it
}

// reset forgets every candidate; floor is the first pending index a candidate may have from now on.
func (f *fusion) reset(floor int) { *f = fusion{floor: floor} }

// last reports whether the launch at pending index idx is the last of n queued and at or above the floor.
func (f *fusion) last(idx, n int) bool { return idx == n-1 && idx >= f.floor }

// addOp is a queued Add that a following RMSNorm of its sum may absorb.
type addOp struct {
	idx       int
	sum, a, b *Tensor
}

// headNorm is a queued per-head RMSNorm that a following Rope of its output may absorb.
type headNorm struct {
	idx       int
	dst, x, w *Tensor
	groups, g int
	eps       float32
}

// shadowOut is a queued launch writing f32 elems at out that can also write them rounded to bf16 at a y16 pointer:
// with gives that launch.
type shadowOut struct {
	idx, elems int
	out        driver.DevPtr
	with       func(y16 driver.DevPtr) func() error
}

// enqueueShadow queues mk(0) and, for f32 outputs, keeps it open for a prompt GEMM that needs its output in bf16.
func (b *Backend) enqueueShadow(out *Tensor, mk func(y16 driver.DevPtr) func() error) {
	b.enqueue(mk(0))
	if out.dt != backend.F32 {
		return
	}
	b.mu.Lock()
	b.fuse.out = &shadowOut{idx: len(b.pending) - 1, elems: out.elems(), out: out.ptr, with: mk}
	b.mu.Unlock()
}

// fuseAddNorm replaces the queued Add whose sum x is with add_rmsnorm writing both the sum and d.
func (b *Backend) fuseAddNorm(d, x, w *Tensor, g int, eps float32) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.fuse.add
	if a == nil || !b.fuse.last(a.idx, len(b.pending)) || a.sum.ptr != x.ptr || a.sum.elems() != x.elems() {
		return false
	}
	sum, ap, bp, yp, wp := a.sum.ptr, a.a.ptr, a.b.ptr, d.ptr, w.ptr
	groups, threads := x.elems()/g, rowThreads(g)
	bytes := float64(4*x.elems()*x.dt.Size() + 4*g)
	name := opName("add_rmsnorm", x.dt)
	mk := func(y16 driver.DevPtr) func() error {
		return func() error {
			args := driver.NewArgs().Ptr(sum).Ptr(yp).Ptr(y16).Ptr(ap).Ptr(bp).Ptr(wp).I32(int32(g)).F32(eps)
			return b.launch(name, driver.Dim3{X: groups}, driver.Dim3{X: threads}, 0, args, bytes)
		}
	}
	b.pending[a.idx] = mk(0)
	b.fuse.add = nil
	if d.dt == backend.F32 {
		b.fuse.out = &shadowOut{idx: a.idx, elems: d.elems(), out: d.ptr, with: mk}
	}
	b.logf("Add + RMSNorm fused")
	return true
}

// enqueueHeadNorm queues a per-head RMSNorm launch and keeps it open for a Rope of its output.
func (b *Backend) enqueueHeadNorm(f func() error, n *headNorm) {
	b.mu.Lock()
	open := b.fuse.headNorms
	b.mu.Unlock()
	b.enqueue(f)
	b.mu.Lock()
	n.idx = len(b.pending) - 1
	if n.g <= 256 {
		b.fuse.headNorms = append(open, n)
	}
	b.mu.Unlock()
}

// fuseNormRope replaces the open head norm that wrote x with rmsnorm_rope_bf16.
func (b *Backend) fuseNormRope(x, pos *Tensor, heads int, table *rope.Table, freqs driver.DevPtr) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, n := range b.fuse.headNorms {
		if n.idx < b.fuse.floor || n.idx >= len(b.pending) || n.dst.ptr != x.ptr || n.dst.elems() != x.elems() {
			continue
		}
		_, cols := dims(x)
		if cols/heads != n.g || cols%heads != 0 {
			continue
		}
		yp, xp, wp, pp := n.dst.ptr, n.x.ptr, n.w.ptr, pos.ptr
		groups, g, eps := n.groups, n.g, n.eps
		trad := int32(0)
		if table.Traditional {
			trad = 1
		}
		dimsRot, pre := table.Dims, table.PreScale
		bytes := float64(2*x.elems()*x.dt.Size() + 4*g)
		name := opName("rmsnorm_rope", x.dt)
		b.pending[n.idx] = func() error {
			args := driver.NewArgs().Ptr(yp).Ptr(xp).Ptr(wp).Ptr(pp).Ptr(freqs).I32(int32(groups)).I32(int32(heads)).
				I32(int32(g)).I32(int32(dimsRot)).I32(trad).F32(pre).F32(eps)
			return b.launch(name, driver.Dim3{X: (groups + 3) / 4}, driver.Dim3{X: 128}, 0, args, bytes)
		}
		b.fuse.headNorms = append(b.fuse.headNorms[:i:i], b.fuse.headNorms[i+1:]...)
		b.logf("RMSNorm + Rope fused")
		return true
	}
	return false
}
