// The reference of the pointwise ops beside the Backend's (internal/backend/pointwise.go): Scale, Softcap and
// GeGLU, float32 per element with tanh evaluated in float64 and rounded once.
package cpu

import (
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func init() {
	for _, op := range []backend.Op{backend.OpScale, backend.OpSoftcap, backend.OpGeGLU} {
		extraOps[op] = true
	}
}

// Scale: dst = x·s.
func (b *Backend) Scale(dst, x backend.Tensor, s float32) {
	xs, ds := f32(x), f32(dst)
	if len(xs) != len(ds) {
		backend.ShapeError("Scale", "dst", dst.Shape(), x.Shape())
	}
	for k, e := range xs {
		ds[k] = e * s
	}
}

// Softcap: dst = tanh(x/c)·c.
func (b *Backend) Softcap(dst, x backend.Tensor, c float32) {
	xs, ds := f32(x), f32(dst)
	if len(xs) != len(ds) {
		backend.ShapeError("Softcap", "dst", dst.Shape(), x.Shape())
	}
	b.parallel(len(ds), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			ds[k] = softcap(xs[k], c)
		}
	})
}

// softcap is tanh(x/c)·c with each step rounded to float32, as HF computes it on float32 tensors.
func softcap(x, c float32) float32 {
	return float32(math.Tanh(float64(x/c))) * c
}

// GeGLU: dst = gelu_tanh(gate)·up.
func (b *Backend) GeGLU(dst, gate, up backend.Tensor) {
	gs, us, ds := f32(gate), f32(up), f32(dst)
	if len(gs) != len(us) || len(ds) != len(gs) {
		backend.ShapeError("GeGLU", "gate, up", gate.Shape(), up.Shape())
	}
	b.parallel(len(ds), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			ds[k] = geluTanh(gs[k]) * us[k]
		}
	})
}

// geluTanh is PyTorch's gelu(x, approximate="tanh"): ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), in float64.
func geluTanh(x float32) float32 {
	v := float64(x)
	return float32(0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v))))
}
