// Cases of what LoRA adapters add to a projection (internal/model/lora.go): AddScaled (dst = a + f32(s·b)) on
// its own, in place and at model shapes, and the whole delta y = W·x + s·B(A·x) as model code issues it (base
// MatMul, A [r, in], B [out, r], AddScaled) at the fixture's and Qwen3-14B's shapes, for decode rows and a prompt.
package verify

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// scaledAdder is the device's AddScaled, or the case is skipped: a backend without it serves no adapter.
func scaledAdder(h *harness, b backend.Backend) backend.ScaledAdder {
	s, ok := b.(backend.ScaledAdder)
	if !ok {
		h.check(fmt.Errorf("%s has no AddScaled: %w", b.Name(), errSkip))
	}
	return s
}

// loraCases are the adapter cases in activation dtype act.
func loraCases(act backend.DType) []Case {
	var cs []Case
	for _, s := range []struct {
		tag string
		n   int
	}{{"odd", 7}, {"fixture", 256}, {"odd", 1001}, {"qwen3-14b 3 × 5120 =", 3 * 5120}} {
		for _, inPlace := range []bool{false, true} {
			cs = append(cs, addScaledSweep(s.tag, s.n, inPlace, act))
		}
	}
	for _, d := range []struct {
		tag        string
		in, out, r int
	}{{"fixture gate", 256, 768, 8}, {"fixture down", 768, 256, 4}, {"qwen3-14b q", 5120, 5120, 16}} {
		for _, n := range []int{1, 3, 24} {
			cs = append(cs, loraDeltaCase(d.tag, d.in, d.out, d.r, n, act))
		}
	}
	return cs
}

func addScaledSweep(tag string, n int, inPlace bool, act backend.DType) Case {
	op := "AddScaled"
	if inPlace {
		op += "/in-place"
	}
	return Case{Op: op, Shape: fmt.Sprintf("%s %d, s = 2.5%s", tag, n, actName(act)), Act: act,
		Promise: "a + f32(s·b) in f32, one rounding to the activation dtype", Tol: pick(act, tolEltF32, tolEltBF16),
		run: func(h *harness) float64 {
			ra, da := scaledAdder(h, h.ref), scaledAdder(h, h.dut)
			a, b := h.act(h.randn(n, 2), n), h.act(h.randn(n, 2), n)
			out := a
			if !inPlace {
				out = h.out(backend.Invalid, n)
			}
			ra.AddScaled(out.ref, a.ref, b.ref, 2.5)
			da.AddScaled(out.dut, a.dut, b.dut, 2.5)
			return h.compare(out)
		}}
}

// loraDeltaCase: y = x·Wᵀ + s·(x·Aᵀ)·Bᵀ for n rows, the ops in model code's order.
func loraDeltaCase(tag string, in, out, r, n int, act backend.DType) Case {
	tol := tolMatF32
	switch {
	case act == backend.BF16:
		tol = tolMatBF16Out // every output rounded to bf16
	case n > backend.MaxDecodeRows:
		tol = tolMatRounded // a prompt GEMM may round its f32 input to bf16
	}
	return Case{Op: "LoRA/delta", Shape: fmt.Sprintf("%s %d→%d, rank %d, n=%d%s", tag, in, out, r, n, actName(act)), Act: act,
		Promise: "the base MatMul plus s·B(A·x): f32 sums over bf16 weights, an f32 scaled add", Tol: tol,
		run: func(h *harness) float64 {
			ra, da := scaledAdder(h, h.ref), scaledAdder(h, h.dut)
			x := h.act(h.randn(n*in, 1), n, in)
			w, a, b := h.linear(in, out, false, backend.BF16), h.linear(in, r, false, backend.BF16), h.linear(r, out, false, backend.BF16)
			t, u, y := h.out(backend.Invalid, n, r), h.out(backend.Invalid, n, out), h.out(backend.Invalid, n, out)
			for _, s := range h.sides() {
				s.MatMul(s.of(y), s.of(x), s.lin(w))
				s.MatMul(s.of(t), s.of(x), s.lin(a))
				s.MatMul(s.of(u), s.of(t), s.lin(b))
			}
			ra.AddScaled(y.ref, y.ref, u.ref, 0.75)
			da.AddScaled(y.dut, y.dut, u.dut, 0.75)
			return h.compare(y)
		}}
}
