// Cases of the Hadamard rotation (backend.Rotator, the random Hadamard transforms of rotated trellis models): row
// widths and blocks of pycoder-12m and the Qwen3-14B shape (5120 and 17408 in blocks of 1024) up to the largest
// block (8192), input signs, output signs, both, in place; bit-exact in f32 (the butterfly order is the contract).
package verify

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rht"
)

// rotateCases sweeps the rotation in activation dtype act.
func rotateCases(act backend.DType) []Case {
	var cs []Case
	for _, s := range []struct {
		tag        string
		rows, cols int
		pre, post  bool
		inPlace    bool
	}{
		{"pycoder-12m q/k/v input", 3, 512, true, false, false},
		{"pycoder-12m down input", 7, 1536, true, false, false},
		{"pycoder-12m gate output", 1, 1536, false, true, true},
		{"qwen3-14b hidden", 8, 5120, true, true, false},
		{"qwen3-14b inter", 1, 17408, false, true, true},
		{"qwen3-14b prompt", 512, 5120, true, false, false},
		{"odd block 128", 5, 384, true, true, true},
		{"block 4096", 2, 4096, true, false, false},
		{"block 8192", 2, 8192, false, true, false},
	} {
		b := rht.Block(s.cols)
		what := map[[2]bool]string{{true, false}: "input signs", {false, true}: "output signs", {true, true}: "both signs"}[[2]bool{s.pre, s.post}]
		if s.inPlace {
			what += ", in place"
		}
		cs = append(cs, Case{Op: "Hadamard", Shape: fmt.Sprintf("%s %d × %d, block %d, %s%s", s.tag, s.rows, s.cols, b, what, actName(act)), Act: act,
			Promise: "rht.Apply bit for bit (f32 butterflies in stage order), one rounding to the activation dtype",
			Tol:     pick(act, 0, tolEltBF16),
			run: func(h *harness) float64 {
				ref, rok := h.ref.(backend.Rotator)
				dut, dok := h.dut.(backend.Rotator)
				if !rok || !dok {
					h.check(fmt.Errorf("no rotation op (reference %v, %s %v): %w", rok, h.dut.Name(), dok, backend.ErrUnsupported))
				}
				x := h.act(h.randn(s.rows*s.cols, 2), s.rows, s.cols)
				var pre, post pair
				if s.pre {
					pre = h.upload(rht.Signs(uint64(s.cols), s.cols), s.cols)
				}
				if s.post {
					post = h.upload(rht.Signs(uint64(s.cols)+1, s.cols), s.cols)
				}
				out := x
				if !s.inPlace {
					out = h.out(backend.Invalid, s.rows, s.cols)
				}
				ref.Hadamard(out.ref, x.ref, pre.ref, post.ref, b)
				dut.Hadamard(out.dut, x.dut, pre.dut, post.dut, b)
				return h.compare(out)
			}})
	}
	return cs
}
