// The pointwise kernels beyond a Llama layer (LoRA's AddScaled; Gemma's Scale, Softcap, GeGLU) and the Hadamard
// rotation against the CPU backend (internal/cpu) and rht.Apply, at the fixture's widths, a Qwen3-14B slice and
// the largest rotation block (8192, the whole 32 KiB of threadgroup memory).
package emu

import (
	"math/rand/v2"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/metal"
	"github.com/mlxbun/mlxbun/internal/rht"
)

func testPointwise(t T, h *Harness) {
	r := rand.New(rand.NewPCG(21, 22))
	c := cpu.New()
	for _, n := range []int{3 * 256, 5120 + 7} {
		a, bb := randn(r, n, 2), randn(r, n, 2)
		// AddScaled and Scale: the CPU's f32 arithmetic, bit for bit.
		p := metal.PlanAddScaled(n, 2.5)
		b := bufs{metal.RoleDst: nanBytes(n), metal.RoleA: f32b(a), metal.RoleB: f32b(bb)}
		mustRun(t, h, p, b)
		ref := cpuTensor(t, c, make([]float32, n), n)
		c.AddScaled(ref, cpuTensor(t, c, a, n), cpuTensor(t, c, bb, n), 2.5)
		check(t, "add_scaled", p, bf32(b[metal.RoleDst]), ref.(*cpu.Tensor).Float32s(), 0)

		p = metal.PlanScale(n, 0.3)
		b = bufs{metal.RoleDst: nanBytes(n), metal.RoleX: f32b(a)}
		mustRun(t, h, p, b)
		c.Scale(ref, cpuTensor(t, c, a, n), 0.3)
		check(t, "scale", p, bf32(b[metal.RoleDst]), ref.(*cpu.Tensor).Float32s(), 0)

		// Softcap over values spread past the cap's knee (std 20, cap 30); GeGLU over gates of std 3.
		x := randn(r, n, 20)
		p = metal.PlanSoftcap(n, 30)
		b = bufs{metal.RoleDst: nanBytes(n), metal.RoleX: f32b(x)}
		mustRun(t, h, p, b)
		c.Softcap(ref, cpuTensor(t, c, x, n), 30)
		check(t, "softcap", p, bf32(b[metal.RoleDst]), ref.(*cpu.Tensor).Float32s(), 1e-6)

		g := randn(r, n, 3)
		p = metal.PlanGeGLU(n)
		b = bufs{metal.RoleDst: nanBytes(n), metal.RoleA: f32b(g), metal.RoleB: f32b(bb)}
		mustRun(t, h, p, b)
		c.GeGLU(ref, cpuTensor(t, c, g, n), cpuTensor(t, c, bb, n))
		check(t, "geglu", p, bf32(b[metal.RoleDst]), ref.(*cpu.Tensor).Float32s(), 1e-6)
	}
}

func testHadamard(t T, h *Harness) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, k := range []struct {
		rows, cols, block int
		pre, post         bool
	}{
		{3, 512, 512, true, false},    // pycoder-12m q/k/v input
		{2, 1536, 512, false, true},   // pycoder-12m MLP width
		{2, 5120, 1024, true, true},   // Qwen3-14B hidden
		{1, 17408, 1024, false, true}, // Qwen3-14B intermediate
		{2, 384, 128, true, true},     // the smallest block
		{1, 8192, 8192, true, false},  // the largest: all of threadgroup memory, strided pairs
	} {
		x := randn(r, k.rows*k.cols, 2)
		var pre, post []float32
		b := bufs{metal.RoleDst: nanBytes(len(x)), metal.RoleX: f32b(x), metal.RolePre: f32b(x[:1]), metal.RolePost: f32b(x[:1])}
		if k.pre {
			pre = rht.Signs(uint64(k.cols), k.cols)
			b[metal.RolePre] = f32b(pre)
		}
		if k.post {
			post = rht.Signs(uint64(k.cols)+1, k.cols)
			b[metal.RolePost] = f32b(post)
		}
		p := must(metal.PlanHadamard(k.rows, k.cols, k.block, k.pre, k.post))(t)
		mustRun(t, h, p, b)
		want := make([]float32, len(x))
		for i := range k.rows {
			rht.Apply(want[i*k.cols:(i+1)*k.cols], x[i*k.cols:(i+1)*k.cols], pre, post, k.block)
		}
		check(t, "hadamard", p, bf32(b[metal.RoleDst]), want, 0)
	}
	if _, err := metal.PlanHadamard(1, 16384, 16384, false, false); err == nil {
		t.Fatal("a 16384 block was planned; threadgroup memory holds 8192 values")
	}
}
