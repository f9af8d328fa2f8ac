// The quantized MatMul cases: trellis codes (random words are valid codes) and MLX affine weights (random packed
// words) at the fixture and Qwen3-14B shapes, built on both backends through LoadLinear, for decode batches and a
// prompt. Promises (docs/kernels.md): the decode forms use f32 weights — exact mode (the CPU's per-weight
// arithmetic, trellis.Reciprocal) and the default (trellis.Factored: the scale applied once per sum) both within
// f32 accumulation-order rounding, 1e-5 of max|ref|; prompts may run on a bf16 expansion of the layer (weights
// rounded to bf16, ~2^-9 each), bounded by 5e-3; the int8-activation decode forms (MatMul/trellis/i8; CUDA's
// default for axis 0) by 1e-2. Each case pins the activation form it checks (SetQuantAct8).
package verify

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

const (
	tolQuantF32    = 1e-5
	tolQuantPrompt = 5e-3
	tolQuantAct8   = 1e-2 // int8 activations per run of 32 (Q8_0): each activation within 1/254 of its run's max
	// tolQuantMMA bounds the tensor-core form, whose int8 activations share a scale per group of 128: the group's
	// max|x| is larger than a run's (~2.8σ against ~2.2σ for Gaussian x), and so is the rounding (H200: 1.02e-2 at
	// the fixture k/v shape, 512→128, n = 1, where few outputs make the max error noisy).
	tolQuantMMA = 1.5e-2
)

// quantExacter is a backend whose quantized layers can be loaded in a reference-arithmetic mode (CUDA's
// SetQuantExact); the exact cases switch it on around their LoadLinear. Backends without it (the CPU) always
// compute the reference.
type quantExacter interface{ SetQuantExact(bool) }

// quantMMAer is a backend with a tensor-core form for int8-activation trellis layers (CUDA's SetQuantMMA): the
// MatMul/trellis/i8 cases pin it off (the dp4a forms), the MatMul/trellis/mma and fused cases on.
type quantMMAer interface{ SetQuantMMA(bool) }

// quantAct8er is a backend with int8-activation decode forms for trellis layers (CUDA's SetQuantAct8):
// the MatMul/trellis cases pin it off (f32 activations, the f32 promise), the MatMul/trellis/i8 cases on.
type quantAct8er interface{ SetQuantAct8(bool) }

// quantLayer is one quantized projection: its trellis spec (K > 0) or affine bits and group.
type quantLayer struct {
	in, out    int
	k, axis    int  // trellis
	interleave bool // the 3-bit axis-0 block interleave
	bits       int  // affine
}

func (q quantLayer) String() string {
	if q.bits > 0 {
		return fmt.Sprintf("affine %d-bit g64 %d→%d", q.bits, q.in, q.out)
	}
	s := fmt.Sprintf("k%d axis %d", q.k, q.axis)
	if q.interleave {
		s += " interleaved"
	}
	return fmt.Sprintf("%s %d→%d", s, q.in, q.out)
}

// quantCases lists the quantized MatMul cases.
func quantCases() []Case {
	var cs []Case
	small, big := Shapes[0], Shapes[1]
	for _, k := range []int{2, 3, 4} {
		layers := []quantLayer{
			{in: small.Hidden, out: small.Inter, k: k, axis: 1},
			{in: small.Hidden, out: small.KVHeads * small.HD, k: k, axis: 1},
			{in: small.Inter, out: small.Hidden, k: k, axis: 0, interleave: k == 3},
		}
		for _, l := range layers {
			for _, n := range []int{1, 2, 3, 4, 8, 512} {
				cs = append(cs, quantCase(small.Name, l, n, false, false))
			}
			for _, n := range []int{1, 8, 40} {
				cs = append(cs, quantCase(small.Name, l, n, true, false))
			}
		}
		for _, n := range []int{1, 2, 3, 8} {
			cs = append(cs, quantCaseI8(small.Name, layers[0], n), quantCaseI8(big.Name, quantLayer{in: big.Hidden, out: big.Inter, k: k, axis: 1}, n))
		}
		cs = append(cs, quantCaseI8(small.Name, layers[1], 1), quantCaseI8(big.Name, quantLayer{in: big.Hidden, out: big.KVHeads * big.HD, k: k, axis: 1}, 1))
		for _, n := range []int{1, 2, 8} {
			cs = append(cs, quantCaseI8(small.Name, layers[2], n), quantCaseI8(big.Name, quantLayer{in: big.Inter, out: big.Hidden, k: k, axis: 0, interleave: k == 3}, n))
		}
		// 12 and 16: the prompt-chunk instantiation (two n-fragments a weight, qmmaWideRows).
		for _, n := range []int{1, 2, 3, 8, 12, 16} {
			cs = append(cs, quantCaseMMA(small.Name, layers[0], n), quantCaseMMA(big.Name, quantLayer{in: big.Hidden, out: big.Inter, k: k, axis: 1}, n))
		}
		cs = append(cs, quantCaseMMA(small.Name, layers[1], 1), quantCaseMMA(big.Name, quantLayer{in: big.Hidden, out: big.KVHeads * big.HD, k: k, axis: 1}, 4))
		cs = append(cs, quantCaseMMA(big.Name, quantLayer{in: big.Hidden, out: big.KVHeads * big.HD, k: k, axis: 1}, 16))
		cs = append(cs, quantCaseMMA(big.Name, quantLayer{in: big.Heads * big.HD, out: big.Hidden, k: k, axis: 1}, 1))
		// The axis-0 tensor-core form (trellis_mma0): the down projection of a batch, plain and (3-bit) interleaved.
		for _, n := range []int{2, 3, 4, 8, 16} { // 16: two passes of 8 (gemv_chunks: a 16-row prompt chunk's down)
			for _, il := range []bool{false, true} {
				if il && k != 3 {
					continue
				}
				cs = append(cs, quantCaseMMA0(small.Name, quantLayer{in: small.Inter, out: small.Hidden, k: k, axis: 0, interleave: il}, n),
					quantCaseMMA0(big.Name, quantLayer{in: big.Inter, out: big.Hidden, k: k, axis: 0, interleave: il}, n))
			}
		}
		for _, l := range []quantLayer{
			{in: big.Hidden, out: big.Inter, k: k, axis: 1},
			{in: big.Inter, out: big.Hidden, k: k, axis: 0, interleave: k == 3},
		} {
			for _, n := range []int{1, 2, 4, 8} {
				cs = append(cs, quantCase(big.Name, l, n, false, false))
			}
			cs = append(cs, quantCase(big.Name, l, 1, true, false))
			if k == 3 {
				cs = append(cs, quantCase(big.Name, l, 512, false, true))
			}
		}
	}
	// The 3-bit down projection without the interleave, and k/v-sized layers (few outputs: split across warps).
	cs = append(cs, quantCase(big.Name, quantLayer{in: big.Inter, out: big.Hidden, k: 3, axis: 0}, 1, false, false))
	cs = append(cs, quantCase(big.Name, quantLayer{in: big.Hidden, out: big.KVHeads * big.HD, k: 3, axis: 1}, 1, false, false))
	for _, bits := range []int{4, 8} {
		for _, n := range []int{1, 2, 4, 8, 512} {
			cs = append(cs, quantCase(small.Name, quantLayer{in: small.Hidden, out: small.Inter, bits: bits}, n, false, false))
		}
		for _, n := range []int{1, 8} {
			cs = append(cs, quantCase(big.Name, quantLayer{in: big.Hidden, out: big.Inter, bits: bits}, n, false, false))
		}
	}
	for _, bits := range []int{2, 3, 5, 6} {
		cs = append(cs, quantCase(small.Name, quantLayer{in: small.Hidden, out: small.Inter, bits: bits}, 3, false, false))
	}
	return cs
}

// quantCaseI8 is a trellis decode case of the int8-activation dp4a forms.
func quantCaseI8(model string, l quantLayer, n int) Case {
	c := quantCaseAct(model, l, n, false, false, true, false)
	c.Op, c.Tol = "MatMul/trellis/i8", tolQuantAct8
	c.Promise = promiseI8
	return c
}

// quantCaseMMA is a trellis decode case of the tensor-core form (axis 1, in % 128 == 0).
func quantCaseMMA(model string, l quantLayer, n int) Case {
	c := quantCaseAct(model, l, n, false, false, true, true)
	c.Op, c.Tol = "MatMul/trellis/mma", tolQuantMMA
	c.Promise = promiseMMA
	return c
}

// quantCaseMMA0 is a trellis decode case of the axis-0 tensor-core form (trellis_mma0: in % 8 == 0, out % 32 == 0).
func quantCaseMMA0(model string, l quantLayer, n int) Case {
	c := quantCaseAct(model, l, n, false, false, true, true)
	c.Op, c.Tol = "MatMul/trellis/mma0", tolQuantMMA
	c.Promise = promiseMMA0
	return c
}

const promiseMMA0 = "axis 0: int8 activations per warp's rows of a split (as the dp4a form), LCG bytes × activation on the int8 tensor cores, weights as trellis.Factored, exact int32 sums per warp"

const promiseMMA = "int8 activations per group of 128, LCG bytes × activation on the int8 tensor cores, weights as trellis.Factored, exact int32 sums"

func quantCase(model string, l quantLayer, n int, exact, heavy bool) Case {
	return quantCaseAct(model, l, n, exact, heavy, false, false)
}

// quantLinear loads one quantized layer on both backends with the dut's forms pinned (exact arithmetic, int8
// activations, tensor-core form).
func (h *harness) quantLinear(l quantLayer, exact, act8, mma bool) linearPair {
	spec := backend.LinearSpec{Name: "verify." + l.String(), Out: l.out, In: l.in}
	if l.bits > 0 {
		spec.Affine = h.randomAffine(l)
	} else {
		t, err := h.randomTrellis(l)
		h.check(err)
		spec.Trellis = t
	}
	lr, err := h.ref.LoadLinear(spec)
	h.check(wrap("reference", err))
	if a, ok := h.dut.(quantAct8er); ok {
		a.SetQuantAct8(act8)
	}
	if m, ok := h.dut.(quantMMAer); ok {
		m.SetQuantMMA(mma)
	}
	ex, _ := h.dut.(quantExacter)
	if ex != nil && exact {
		ex.SetQuantExact(true)
	}
	ld, err := h.dut.LoadLinear(spec)
	if ex != nil && exact {
		ex.SetQuantExact(false)
	}
	h.check(wrap(h.dut.Name(), err))
	return linearPair{lr, ld}
}

func quantCaseAct(model string, l quantLayer, n int, exact, heavy, act8, mma bool) Case {
	op, promise, tol := "MatMul/trellis", "f32 weights, f32 sums (default: trellis.Factored)", tolQuantF32
	if l.bits > 0 {
		op, promise = "MatMul/affine", "f32 weights as affine.DecodeRow, f32 sums"
	}
	if exact {
		op += "/exact"
		promise = "f32 weights as the CPU's (trellis.Reciprocal), f32 sums"
	}
	if n > backend.MaxDecodeRows && !exact {
		promise, tol = "prompt: bf16 expansion + cuBLASLt (f32 GEMV chunks where small)", tolQuantPrompt
	}
	return Case{Op: op, Shape: fmt.Sprintf("%s %s, n=%d", model, l, n), Promise: promise, Tol: tol, Heavy: heavy,
		Act: backend.F32, // quantized forms take f32 activations (the backends' activation dtype)
		run: func(h *harness) float64 {
			lp := h.quantLinear(l, exact, act8, mma)
			x := h.act(h.randn(n*l.in, 1), n, l.in)
			y := h.out(backend.F32, n, l.out)
			h.ref.MatMul(y.ref, x.ref, lp.ref)
			h.dut.MatMul(y.dut, x.dut, lp.dut)
			return h.compare(y)
		}}
}

// randomTrellis: random words (every bitstream is a valid code) and fp16 scales around 1/√in, so outputs have
// about unit variance for unit-variance inputs.
func (h *harness) randomTrellis(l quantLayer) (*trellis.Weights, error) {
	spec := trellis.Spec{K: l.k, L: 12, T: 256, Code: "1mad", Axis: l.axis}
	rows, cols := l.out, l.in
	if l.axis == 0 {
		rows, cols = l.in, l.out
	}
	shape := []int{rows, cols * l.k / 32}
	if l.interleave {
		shape = []int{cols / trellis.InterleaveCols, rows, trellis.InterleaveWords}
	}
	g, err := trellis.NewGeometry(spec, shape)
	if err != nil {
		return nil, err
	}
	words := make([]uint32, g.Words())
	for i := range words {
		words[i] = h.rng.Uint32()
	}
	scales := make([]float32, g.Rows)
	s := 1 / math.Sqrt(float64(l.in))
	for i := range scales {
		scales[i] = dtype.RoundF16(float32(s * (0.5 + h.rng.Float64())))
	}
	return trellis.NewWeights(g, words, scales)
}

// randomAffine: random packed words, bf16 scales and biases making weights uniform in about ±1/√in.
func (h *harness) randomAffine(l quantLayer) *affine.Weights {
	const group = 64
	w := &affine.Weights{Bits: l.bits, GroupSize: group, Out: l.out, In: l.in}
	w.Packed = make([]uint32, l.out*w.WordsPerRow())
	for i := range w.Packed {
		w.Packed[i] = h.rng.Uint32()
	}
	ng := l.out * l.in / group
	w.Scales, w.Biases = make([]float32, ng), make([]float32, ng)
	levels := float64(int(1)<<l.bits - 1)
	a := 1 / math.Sqrt(float64(l.in))
	for i := range w.Scales {
		s := 2 * a * (0.5 + h.rng.Float64()) / levels
		w.Scales[i] = backend.BF16ToF32(backend.F32ToBF16(float32(s)))
		w.Biases[i] = backend.BF16ToF32(backend.F32ToBF16(float32(-s * levels / 2)))
	}
	return w
}

// quantFusedCases are the tensor-core form's launch groups: three layers on the same activations (q, k, v) in
// one launch, and gate, up and SwiGLU in one launch at equal and at mixed widths (mixed widths fuse for one row;
// a batch runs them as two launches and a SwiGLU).
func quantFusedCases() []Case {
	small, big := Shapes[0], Shapes[1]
	var cs []Case
	for _, d := range []struct {
		dims Dims
		n    int
	}{{small, 4}, {big, 1}, {big, 16}} { // 16: a prompt chunk's q/k/v in the wide instantiation
		for seg := range 3 {
			cs = append(cs, quantQKVCase(d.dims, d.n, seg, true))
			if d.n == 1 {
				cs = append(cs, quantQKVCase(d.dims, d.n, seg, false))
			}
		}
	}
	for _, g := range []struct {
		dims   Dims
		n      int
		k0, k1 int
		out    string
	}{{small, 1, 3, 3, "h"}, {small, 4, 3, 3, "h"}, {big, 1, 3, 3, "h"}, {big, 1, 3, 3, "gate"}, {big, 1, 2, 4, "h"},
		{small, 1, 4, 2, "up"}, {small, 4, 2, 4, "h"}, {big, 8, 4, 4, "h"}, {big, 16, 3, 3, "h"}} {
		cs = append(cs, quantSwiGLUCase(g.dims, g.n, g.k0, g.k1, g.out, true))
	}
	// The one-row grouped dp4a form (trellis_gemvg): the same groups with the tensor-core form off.
	for _, g := range []struct {
		dims   Dims
		k0, k1 int
		out    string
	}{{small, 3, 3, "h"}, {big, 3, 3, "h"}, {big, 3, 3, "gate"}, {big, 2, 2, "up"}, {big, 4, 4, "h"}, {big, 2, 4, "h"}, {small, 4, 2, "up"}} {
		cs = append(cs, quantSwiGLUCase(g.dims, 1, g.k0, g.k1, g.out, false))
	}
	// The residual seam (backend.OpMatMulAdd, OpNormMatMulGroup, OpNormGateUpSwiGLU): trellis_gemvg's epilogue
	// (axis 1, one row), the split-K reduce's (axis 0: the one-row dp4a form, a batch's tensor-core form), a batch
	// of the axis-1 dp4a form that adds no residual (MatMul and an add); the input norm folded into one-row
	// trellis_gemvg launches.
	for _, a := range []struct {
		dims     Dims
		n, axis  int
		mma      bool
		launches int64
	}{{big, 1, 1, false, 1}, {small, 1, 1, false, 1}, {big, 1, 0, false, 2}, {small, 4, 0, true, 2}, {small, 4, 1, false, 2}} {
		cs = append(cs, quantMatMulAddCase(a.dims, a.n, a.axis, a.mma, a.launches))
	}
	for _, d := range []Dims{small, big} {
		for seg := range 4 {
			cs = append(cs, quantNormQKVCase(d, seg))
		}
		for _, out := range []string{"h", "xn"} {
			cs = append(cs, quantNormSwiGLUCase(d, out))
		}
	}
	return cs
}

// quantMatMulAddCase is MatMulAdd of a 3-bit layer (axis 1: o, heads·hd → hidden; axis 0: down, inter → hidden)
// over n rows into the residual in place (y = r), comparing the new residual.
func quantMatMulAddCase(d Dims, n, axis int, mma bool, launches int64) Case {
	in, name := d.Heads*d.HD, "o"
	if axis == 0 {
		in, name = d.Inter, "down"
	}
	op, promise, tol := fusedForm(mma)
	return Case{Op: op + "/MatMul+Add", Shape: fmt.Sprintf("%s %s 3-bit axis %d %d→%d, n=%d, in place", d.Name, name, axis, in, d.Hidden, n),
		Act: backend.F32, Promise: promise + "; the residual added to the product as Add", Tol: tol, Launches: &Launches{Kernels: launches},
		run: func(h *harness) float64 {
			x, r := h.act(h.randn(n*in, 1), n, in), h.act(h.randn(n*d.Hidden, 1), n, d.Hidden)
			t := h.out(backend.F32, n, d.Hidden)
			l := h.quantLinear(quantLayer{in: in, out: d.Hidden, k: 3, axis: axis}, false, true, mma)
			for _, b := range h.sides() {
				backend.MatMulAdd(b.Backend, b.of(r), b.of(t), b.of(x), b.lin(l), b.of(r))
			}
			return h.compare(r)
		}}
}

// quantNormQKVCase is NormMatMulGroup of one row into q, k, v (3-bit, the dp4a form), comparing segment seg, or
// with seg 3 the norm itself.
func quantNormQKVCase(d Dims, seg int) Case {
	outs := []int{d.Heads * d.HD, d.KVHeads * d.HD, d.KVHeads * d.HD}
	op, promise, tol := fusedForm(false)
	what := fmt.Sprintf("segment %d", seg)
	if seg == 3 {
		what, promise, tol = "the norm", "RMSNorm's f32 sum of squares (each block's), then its rounding", tolRowF32
	}
	return Case{Op: op + "/RMSNorm+MatMul×3", Shape: fmt.Sprintf("%s q, k, v 3-bit %d→%v, n=1, %s", d.Name, d.Hidden, outs, what),
		Act: backend.F32, Promise: promise + "; the norm as RMSNorm, each MatMul as alone", Tol: tol, Launches: &Launches{Kernels: 1},
		run: func(h *harness) float64 {
			x, w := h.act(h.randn(d.Hidden, 2), 1, d.Hidden), h.upload(h.randn(d.Hidden, 0.3), d.Hidden)
			xn := h.out(backend.F32, 1, d.Hidden)
			var ys []pair
			var ls []linearPair
			for _, out := range outs {
				ls = append(ls, h.quantLinear(quantLayer{in: d.Hidden, out: out, k: 3, axis: 1}, false, true, false))
				ys = append(ys, h.out(backend.F32, 1, out))
			}
			for _, b := range h.sides() {
				var bys []backend.Tensor
				var bls []backend.Linear
				for i := range ys {
					bys, bls = append(bys, b.of(ys[i])), append(bls, b.lin(ls[i]))
				}
				backend.NormMatMulGroup(b.Backend, bys, b.of(xn), b.of(x), b.of(w), 1e-6, bls)
			}
			if seg == 3 {
				return h.compare(xn)
			}
			return h.compare(ys[seg])
		}}
}

// quantNormSwiGLUCase is NormGateUpSwiGLU of one row (3-bit gate and up, the dp4a form), comparing h (as
// compareSwiGLU) or the norm.
func quantNormSwiGLUCase(d Dims, out string) Case {
	op, promise, tol := fusedForm(false)
	promise += "; the norm as RMSNorm, SwiGLU as swiglu, h within the bound gate's and up's imply (compareSwiGLU)"
	if out == "xn" {
		promise, tol = "RMSNorm's f32 sum of squares (each block's), then its rounding", tolRowF32
	}
	return Case{Op: op + "/RMSNorm+gate+up+SwiGLU", Shape: fmt.Sprintf("%s %d→%d, 3-bit, n=1, %s", d.Name, d.Hidden, d.Inter, out),
		Act: backend.F32, Promise: promise, Tol: tol, Launches: &Launches{Kernels: 1},
		run: func(h *harness) float64 {
			x, w := h.act(h.randn(d.Hidden, 2), 1, d.Hidden), h.upload(h.randn(d.Hidden, 0.3), d.Hidden)
			xn := h.out(backend.F32, 1, d.Hidden)
			lg := h.quantLinear(quantLayer{in: d.Hidden, out: d.Inter, k: 3, axis: 1}, false, true, false)
			lu := h.quantLinear(quantLayer{in: d.Hidden, out: d.Inter, k: 3, axis: 1}, false, true, false)
			gate, up, hh := h.out(backend.F32, 1, d.Inter), h.out(backend.F32, 1, d.Inter), h.out(backend.F32, 1, d.Inter)
			for _, b := range h.sides() {
				backend.NormGateUpSwiGLU(b.Backend, b.of(hh), b.of(gate), b.of(up), b.of(xn), b.of(x), b.of(w), 1e-6, b.lin(lg), b.lin(lu))
			}
			if out == "xn" {
				return h.compare(xn)
			}
			return h.compareSwiGLU(gate, up, hh)
		}}
}

const promiseI8 = "int8 activations (axis 1 per run of 32, axis 0 per warp's rows of a split), weights as trellis.Factored, exact int32 sums"

// fusedForm names a fused case's form, its promise and bound: the tensor-core one (mma) or the dp4a one.
func fusedForm(mma bool) (op, promise string, tol float64) {
	if mma {
		return "Fused/trellis", promiseMMA, tolQuantMMA
	}
	return "Fused/trellis/gemvg", promiseI8, tolQuantAct8
}

func quantQKVCase(d Dims, n, seg int, mma bool) Case {
	outs := []int{d.Heads * d.HD, d.KVHeads * d.HD, d.KVHeads * d.HD}
	op, promise, tol := fusedForm(mma)
	return Case{Op: op + "/MatMul×3", Shape: fmt.Sprintf("%s q, k, v 3-bit %d→%v, n=%d, segment %d", d.Name, d.Hidden, outs, n, seg),
		Act: backend.F32, Promise: promise + "; each MatMul as alone", Tol: tol, Launches: &Launches{Kernels: 1},
		run: func(h *harness) float64 {
			x := h.act(h.randn(n*d.Hidden, 1), n, d.Hidden)
			var ys []pair
			var ls []linearPair
			for _, out := range outs {
				ls = append(ls, h.quantLinear(quantLayer{in: d.Hidden, out: out, k: 3, axis: 1}, false, true, mma))
				ys = append(ys, h.out(backend.F32, n, out))
			}
			for _, b := range h.sides() {
				b.group(ys, x, ls)
			}
			return h.compare(ys[seg])
		}}
}

// quantSwiGLUCase is MatMul gate (k0 bits), MatMul up (k1 bits), SwiGLU, comparing out ("gate", "up" or "h").
func quantSwiGLUCase(d Dims, n, k0, k1 int, out string, mma bool) Case {
	launches := 1
	if k0 != k1 && (n > 1 || !mma) {
		launches = 3 // two launches (one per width) and the SwiGLU kernel: mixed widths fuse only on the tensor cores, one row
	}
	op, promise, tol := fusedForm(mma)
	return Case{Op: op + "/gate+up+SwiGLU", Shape: fmt.Sprintf("%s %d→%d, gate %d-bit, up %d-bit, n=%d, %s", d.Name, d.Hidden, d.Inter, k0, k1, n, out),
		Act: backend.F32, Promise: promise + "; SwiGLU as swiglu, h within the bound gate's and up's imply (compareSwiGLU)", Tol: tol, Launches: &Launches{Kernels: int64(launches)},
		run: func(h *harness) float64 {
			x := h.act(h.randn(n*d.Hidden, 1), n, d.Hidden)
			lg := h.quantLinear(quantLayer{in: d.Hidden, out: d.Inter, k: k0, axis: 1}, false, true, mma)
			lu := h.quantLinear(quantLayer{in: d.Hidden, out: d.Inter, k: k1, axis: 1}, false, true, mma)
			gate, up, hh := h.out(backend.F32, n, d.Inter), h.out(backend.F32, n, d.Inter), h.out(backend.F32, n, d.Inter)
			for _, b := range h.sides() {
				backend.GateUpSwiGLU(b.Backend, b.of(hh), b.of(gate), b.of(up), b.of(x), b.lin(lg), b.lin(lu))
			}
			switch out {
			case "gate":
				return h.compare(gate)
			case "up":
				return h.compare(up)
			}
			return h.compareSwiGLU(gate, up, hh)
		}}
}

// compareSwiGLU is h's error in units of the bound the form's promise on gate and up implies for h =
// silu(g)·u: with |e_g| ≤ tol·max|g| and |e_u| ≤ tol·max|u|, e_h ≈ silu'(g)·u·e_g + silu(g)·e_u and |silu'| < 1.1,
// so max|e_h| ≤ tol·(1.1·max|g| + max|silu(g)|)·max|u|. Returned as max|e_h|/max|h| divided by
// (1.1·max|g| + max|silu(g)|)·max|u|/max|h|, it passes under tol exactly when h is within that bound. (Compared as a
// plain relative error, h fails a correct form: its largest values are products of two outputs whose errors are
// each bounded relative to their own maxima — 2.4e-2 against 1.5e-2 once on the H200, 2026-12-01.)
func (h *harness) compareSwiGLU(gate, up, hh pair) float64 {
	g, _ := h.read(gate)
	u, _ := h.read(up)
	ref, dut := h.read(hh)
	var mg, mu, ms, mh float64
	for i := range g {
		gi := float64(g[i])
		mg, mu = max(mg, math.Abs(gi)), max(mu, math.Abs(float64(u[i])))
		ms, mh = max(ms, math.Abs(gi/(1+math.Exp(-gi)))), max(mh, math.Abs(float64(ref[i])))
	}
	factor := (1.1*mg + ms) * mu / mh
	if mh == 0 || factor < 1 {
		factor = 1 // never looser than the plain relative error
	}
	return relMaxErr(ref, dut) / factor
}
