// Package backend is the device-neutral contract the model code is written against: tensors living on a device,
// the handful of ops a decoder-only transformer needs, and the weight descriptions a loader hands over. CPU, CUDA
// and Metal implement it; none of them knows a model family, and the model code never knows which one runs it.
package backend

import (
	"errors"
	"fmt"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// ErrUnsupported is wrapped by a backend that cannot serve a weight format or op.
var ErrUnsupported = errors.New("not supported by this backend")

// Tensor is a dense row-major array on a device. Activations are 2-D [rows, cols]; ids and positions are 1-D.
type Tensor interface {
	Shape() []int
	DType() DType
}

// Linear is a linear layer's weights as a backend stores them (dense, trellis-coded or affine-quantized).
// MatMul computes y = x·Wᵀ (+ bias) with W of shape [Out, In].
type Linear interface {
	In() int
	Out() int
}

// LinearSpec describes a linear layer's weights in host memory. Exactly one of Dense, Trellis, Affine or EXL3 is
// set.
type LinearSpec struct {
	Name    string
	Out, In int
	Dense   *Host            // [Out, In] in bf16, f16 or f32
	Trellis *trellis.Weights // QTIP trellis codes (either axis)
	Affine  *affine.Weights  // MLX affine quantization
	EXL3    *exl3.Weights    // exllamav3's EXL3 codes with their Hadamard sides (y = x·Wᵀ in the original basis)
	Bias    *Host            // optional [Out]
}

// KVConfig sizes a key/value cache: one slot per (layer, sequence, position).
type KVConfig struct {
	Layers, Seqs, MaxLen, KVHeads, HeadDim int
	// PerLayer, when set, holds one entry per layer and overrides KVHeads and HeadDim (windowed.go: layers of
	// different widths, sliding-window rings, layers without slots). Only backends answering OpKVLayers take it.
	PerLayer []KVLayer
}

// KVCache holds keys and values for every layer and sequence of a batch. Sequences are independent: row r of a
// step writes and reads only the slots of its own sequence, so batched decode needs no padding.
type KVCache interface {
	Config() KVConfig
	// Release frees the cache's memory; the cache must not be used afterwards.
	Release()
}

// Backend is one device. Ops take their destination first, panic on shape mismatches (a programmer error) and
// record device failures in a sticky error returned by Sync, so model code stays a plain list of calls.
// Unless an op says otherwise dst may alias an input.
type Backend interface {
	Name() string
	// Supports returns nil when the backend serves q, else an *UnsupportedError saying why. It is asked before
	// any weight is read (support.go), so LoadLinear of a served layer does not fail for its format.
	Supports(q Query) error

	// Upload places a host tensor (embedding table, norm weight, ...) on the device in its own dtype.
	Upload(h Host) (Tensor, error)
	// LoadLinear places a linear layer's weights on the device in the form its kernels consume.
	LoadLinear(spec LinearSpec) (Linear, error)
	// Alloc returns an uninitialized tensor; ActDType is the dtype the backend computes activations in.
	Alloc(dt DType, shape ...int) (Tensor, error)
	ActDType() DType
	Free(t Tensor)
	// Rows is a view of rows [start, start+n) of a 2-D tensor, sharing its memory.
	Rows(t Tensor, start, n int) Tensor
	WriteInt32(t Tensor, v []int32) error
	ReadFloat32(t Tensor, dst []float32) error
	NewKVCache(cfg KVConfig) (KVCache, error)
	// Sync waits for queued work and returns the first error any op met since the last Sync.
	Sync() error
	Close() error

	// Embed: dst[r] = table[ids[r]]; table [vocab, d], ids int32 [n], dst [n, d].
	Embed(dst, table, ids Tensor)
	// RMSNorm normalizes each group of len(w) consecutive columns of x (a whole row, or one head of it):
	// dst = x / sqrt(mean(x²) + eps) · w.
	RMSNorm(dst, x, w Tensor, eps float32)
	// MatMul: dst [n, Out] = x [n, In] · Wᵀ (+ bias).
	MatMul(dst, x Tensor, w Linear)
	// Add: dst = a + b, elementwise, same shapes.
	Add(dst, a, b Tensor)
	// SwiGLU: dst = silu(gate) · up, elementwise.
	SwiGLU(dst, gate, up Tensor)
	// Rope rotates each head of x [n, heads·headDim] in place by the angle of its row's position pos[r] (int32 [n]).
	Rope(x, pos Tensor, heads int, table *rope.Table)
	// Attention stores k, v (rows [n, KVHeads·HeadDim]) into the cache at (seq[r], pos[r]) for layer, then for each row
	// r attends q's heads ([n, heads·HeadDim], GQA) causally over positions 0..pos[r] of sequence seq[r] with the
	// given softmax scale. dst [n, heads·HeadDim] must not alias q.
	Attention(dst, q, k, v Tensor, cache KVCache, layer int, seq, pos Tensor, scale float32)
}

// ShapeError panics with both operands named; backends call it when model code passes mismatched shapes.
func ShapeError(op string, what string, got, want any) {
	panic(fmt.Sprintf("backend: %s: %s has shape %v, want %v", op, what, got, want))
}
