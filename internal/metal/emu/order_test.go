// TestThreadOrder runs the kernels that share data through threadgroup memory or combine SIMD groups under
// several thread orders and requires identical bytes: a result that depends on the order is a race the barriers
// do not close (the mutation tests show the converse: a removed barrier changes the result).
package emu

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/metal"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

func TestThreadOrder(t *testing.T) {
	h := harness(t)
	r := rand.New(rand.NewPCG(31, 32))
	wIL := randTrellis(t, r, 3, 12, 256, 0, 1536, 512, true)
	w1 := randTrellis(t, r, 3, 12, 256, 1, 64, 256, false)
	type job struct {
		plan metal.Plan
		b    bufs
		out  metal.Role
	}
	trellisJob := func(w *trellis.Weights, n int, v trellis.Variant) job {
		p := must(metal.PlanTrellis(metal.M1, w.Geometry, n, v, false))(t)
		return job{p, bufs{metal.RoleDst: nanBytes(n * w.OutFeatures()), metal.RoleX: f32b(randn(r, n*w.InFeatures(), 1)),
			metal.RoleWords: u32b(w.Words), metal.RoleScales: f32b(w.Scales)}, metal.RoleDst}
	}
	jobs := []job{
		{metal.PlanRMSNorm(3, 5120, 1e-6), bufs{metal.RoleDst: nanBytes(3 * 5120), metal.RoleX: f32b(randn(r, 3*5120, 1)), metal.RoleNormW: f32b(randn(r, 5120, 1))}, metal.RoleDst},
		{metal.PlanArgmax(2, 4096), bufs{metal.RoleDst: make([]byte, 8), metal.RoleX: f32b(randn(r, 2*4096, 3))}, metal.RoleDst},
		trellisJob(wIL, 1, trellis.Factored),
		trellisJob(wIL, 8, trellis.Factored),
		trellisJob(w1, 40, trellis.Reciprocal),
		{must(metal.PlanGateUp(metal.M1, w1.Geometry, w1.Geometry, 1))(t), gateUpBufs(w1, w1, randn(r, 256, 1), 1), metal.RoleDst},
	}
	for _, j := range jobs {
		var first []byte
		for _, seed := range []uint64{1, 0xdeadbeef, 12345} {
			b := bufs{}
			for k, v := range j.b {
				b[k] = append([]byte(nil), v...)
			}
			if err := runPlan(h, j.plan, b, seed); err != nil {
				t.Fatalf("%s: %v", fnames(j.plan), err)
			}
			if first == nil {
				first = b[j.out]
			} else if !bytes.Equal(first, b[j.out]) {
				t.Fatalf("%s: the output depends on the thread order (seed %#x)", fnames(j.plan), seed)
			}
		}
		t.Logf("%s: identical under 3 thread orders", fnames(j.plan))
	}
}
