// The EXL3 MatMul cases (exllamav3's format, docs/exl3-format.md): random codes in every tile (every bitstream is
// a valid code) with fp16 sign-and-scale vectors, at the fixture and Qwen3-14B shapes, every K of the format and
// every codebook, a padded layer, built on both backends through LoadLinear, for decode batches and prompts.
// Promises (docs/kernels.md): the decode forms use the f32 weights the reference decodes and f32 sums (1e-5 of
// max|ref|), as do prompts small enough to run them in chunks; larger prompts multiply a bf16 expansion of the
// inner matrix by the bf16 rotated input (5e-3). A device that does not serve EXL3 (Supports) skips the cases.
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/exl3"
)

// exl3Layer is one EXL3 projection of the cases.
type exl3Layer struct {
	in, out, k int
	cb         exl3.Codebook
}

func (l exl3Layer) String() string { return fmt.Sprintf("exl3 k%d %v %d→%d", l.k, l.cb, l.in, l.out) }

// exl3Cases lists the EXL3 MatMul cases.
func exl3Cases() []Case {
	small, big := Shapes[0], Shapes[1]
	var cs []Case
	for _, k := range []int{2, 3, 4} {
		for _, l := range []exl3Layer{
			{in: small.Hidden, out: small.Inter, k: k, cb: exl3.Mul1},
			{in: small.Hidden, out: small.KVHeads * small.HD, k: k, cb: exl3.Mul1},
			{in: small.Inter, out: small.Hidden, k: k, cb: exl3.Mul1},
		} {
			for _, n := range []int{1, 2, 3, 8, 40, 512} {
				cs = append(cs, exl3Case(small.Name, l, n))
			}
		}
		for _, l := range []exl3Layer{
			{in: big.Hidden, out: big.Inter, k: k, cb: exl3.Mul1},
			{in: big.Inter, out: big.Hidden, k: k, cb: exl3.Mul1},
		} {
			for _, n := range []int{1, 4, 8} {
				cs = append(cs, exl3Case(big.Name, l, n))
			}
			if k == 3 {
				c := exl3Case(big.Name, l, 512)
				c.Heavy = true
				cs = append(cs, c)
			}
		}
	}
	// Every K and codebook once, the other codebooks at the prompt form too, and a layer padded on both sides.
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		for _, cb := range []exl3.Codebook{exl3.ThreeInst, exl3.MCG, exl3.Mul1} {
			cs = append(cs, exl3Case(small.Name, exl3Layer{in: small.Hidden, out: small.Hidden, k: k, cb: cb}, 1))
		}
	}
	for _, cb := range []exl3.Codebook{exl3.ThreeInst, exl3.MCG} {
		cs = append(cs, exl3Case(small.Name, exl3Layer{in: small.Hidden, out: small.Inter, k: 3, cb: cb}, 512))
	}
	for _, n := range []int{1, 5, 512} {
		cs = append(cs, exl3Case(small.Name, exl3Layer{in: 700, out: 200, k: 5, cb: exl3.ThreeInst}, n))
	}
	return cs
}

func exl3Case(model string, l exl3Layer, n int) Case {
	promise, tol := "f32 weights as the reference decodes them (exl3.Weights.Inner), f32 sums", tolQuantF32
	if n > backend.MaxDecodeRows {
		promise, tol = "prompt: the inner matrix and the rotated input in bf16 + cuBLASLt (f32 GEMV chunks where small)", tolQuantPrompt
	}
	return Case{Op: "MatMul/exl3", Shape: fmt.Sprintf("%s %s, n=%d", model, l, n), Promise: promise, Tol: tol,
		Act: backend.F32, // quantized forms take f32 activations (the backends' activation dtype)
		run: func(h *harness) float64 {
			lp := h.exl3Linear(l)
			x := h.act(h.randn(n*l.in, 1), n, l.in)
			y := h.out(backend.F32, n, l.out)
			h.ref.MatMul(y.ref, x.ref, lp.ref)
			h.dut.MatMul(y.dut, x.dut, lp.dut)
			return h.compare(y)
		}}
}

// exl3Linear loads one random EXL3 layer on both backends (the case is skipped on a device that does not serve it).
func (h *harness) exl3Linear(l exl3Layer) linearPair {
	w := h.randomEXL3(l)
	spec := backend.LinearSpec{Name: "verify." + l.String(), Out: l.out, In: l.in, EXL3: w}
	q := backend.Query{Op: backend.OpMatMul, Name: spec.Name, Weight: spec.Describe(), Out: l.out, In: l.in}
	if err := h.dut.Supports(q); err != nil {
		h.check(fmt.Errorf("%w: %w", errSkip, err))
	}
	lr, err := h.ref.LoadLinear(spec)
	h.check(wrap("reference", err))
	ld, err := h.dut.LoadLinear(spec)
	h.check(wrap(h.dut.Name(), err))
	return linearPair{lr, ld}
}

// randomEXL3: random tiles and fp16 vectors of signed scales around (in)^-¼ on both sides, so a unit-variance
// input gives outputs of about unit variance (the codebooks' values have RMS 1 to 1.25).
func (h *harness) randomEXL3(l exl3Layer) *exl3.Weights {
	g := exl3.Geometry{TilesK: exl3.Padded(l.in) / exl3.TileSide, TilesN: exl3.Padded(l.out) / exl3.TileSide, K: l.k}
	tiles := make([]uint16, g.Len())
	for i := range tiles {
		tiles[i] = uint16(h.rng.Uint32())
	}
	s := math.Pow(float64(l.in), -0.25)
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = dtype.RoundF16(float32(s * (0.5 + h.rng.Float64()) * float64(1-2*h.rng.IntN(2))))
		}
		return v
	}
	w, err := exl3.New(g, l.cb, l.in, l.out, tiles, vec(g.PadIn()), vec(g.PadOut()))
	h.check(err)
	return w
}
