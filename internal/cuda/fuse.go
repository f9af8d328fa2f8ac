// The bf16 copies of prompt GEMM inputs. The fused ops are the contract's (internal/backend/fused.go; fused.go
// here); what stays here is one launch-level saving that no op names: a launch writing an f32 activation (a row
// RMSNorm, AddRMSNorm, SwiGLU, tensor-core prompt Attention) that a prompt MatMul reads next also writes the bf16
// copy cuBLASLt reads (its y16 argument; shadowOut, gemmInput in linear.go), instead of a conversion launch.
// Same values either way: the copy is the f32 output rounded once.
//
// A candidate stays valid only while nothing else is queued after it (enqueue forgets them), never across a flush,
// and never across the start of a recording (fusion.floor).

package cuda

import (
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// fusion is the state of the bf16 copies: the queued launch that may still write one, and the copy the GEMM queued
// last read. Each is valid only while it is the last pending op at or above floor; enqueue, flush and Record
// forget them through reset.
type fusion struct {
	out    *shadowOut // a launch that can also write its f32 output as bf16 (a prompt GEMM's input)
	gemmIn *gemmIn    // the bf16 input of the GEMM queued last
	floor  int        // first pending index of the recording in progress: nothing fuses across it
}

// reset forgets every candidate; floor is the first pending index a candidate may have from now on.
func (f *fusion) reset(floor int) { *f = fusion{floor: floor} }

// last reports whether the launch at pending index idx is the last of n queued and at or above the floor.
func (f *fusion) last(idx, n int) bool { return idx == n-1 && idx >= f.floor }

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
