// The case list: every op at the fixture and Qwen3-14B model shapes in the device's own activation dtype
// (modelCases), then sweeps over the kernel forms in both activation dtypes the contract knows (f32 and bf16):
// ops, MatMul, Attention, the fused op sequences and graph replay (cases_*.go). Tolerances are relative to
// max|ref| and are the promises of docs/kernels.md: a bf16 output is rounded to 8 significant bits (≤ 2^-9
// relative) and summed in another order than the reference, an f32 one differs by f32 summation order only.
package verify

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// Dims is a transformer's shape as the cases need it.
type Dims struct {
	Name                              string
	Hidden, Inter, Heads, KVHeads, HD int
	Vocab                             int
}

// Shapes are the model shapes verified in the device's activation dtype: the trained fixture's and Qwen3-14B's.
var Shapes = []Dims{
	{Name: "pycoder-12m", Hidden: 512, Inter: 1536, Heads: 8, KVHeads: 2, HD: 64, Vocab: 384},
	{Name: "qwen3-14b", Hidden: 5120, Inter: 17408, Heads: 40, KVHeads: 8, HD: 128, Vocab: 151936},
}

// Acts are the activation dtypes the sweeps run in.
var Acts = []backend.DType{backend.F32, backend.BF16}

// Tolerances of the model-shape cases, whose activation dtype is the device's own (bf16 on some devices).
const (
	tolBF16 = 1e-2
	tolF32  = 5e-3
)

// Cases lists every case; quick drops the heavy ones (large prompts at 14B shapes on the CPU reference).
func Cases(quick bool) []Case {
	cs := modelCases()
	for _, act := range Acts {
		cs = append(cs, opCases(act)...)
		cs = append(cs, matmulCases(act)...)
		cs = append(cs, attentionCases(act)...)
		cs = append(cs, fusionCases(act)...)
		cs = append(cs, recordCases(act)...)
		cs = append(cs, loraCases(act)...)   // cases_lora.go
		cs = append(cs, gemmaCases(act)...)  // cases_gemma.go
		cs = append(cs, rotateCases(act)...) // cases_rotate.go
		cs = append(cs, hybridCases(act)...) // cases_hybrid.go
	}
	cs = append(cs, argmaxSweep())
	cs = append(cs, quantCases()...) // quant_cases.go
	cs = append(cs, exl3Cases()...)  // cases_exl3.go
	cs = append(cs, quantFusedCases()...)
	cs = append(cs, gramCases()...) // cases_gram.go
	if quick {
		cs = slices.DeleteFunc(cs, func(c Case) bool { return c.Heavy })
	}
	return cs
}

// Ops lists the distinct ops and fused sequences the cases cover, in case order (for help texts).
func Ops() []string {
	var ops []string
	for _, c := range Cases(false) {
		if !slices.Contains(ops, c.Op) {
			ops = append(ops, c.Op)
		}
	}
	return ops
}

// actName labels an activation dtype in a shape ("" for the device's own).
func actName(act backend.DType) string {
	if act == backend.Invalid {
		return ""
	}
	return ", x " + act.String()
}

// pick returns f32 for f32 activations and bf for bf16 ones.
func pick(act backend.DType, f32, bf float64) float64 {
	if act == backend.F32 {
		return f32
	}
	return bf
}

// modelCases are the ops at the fixture's and Qwen3-14B's shapes in the device's activation dtype.
func modelCases() []Case {
	var cs []Case
	for _, d := range Shapes {
		big := d.Hidden >= 4096
		cs = append(cs,
			embedCase(d),
			rmsCase(d, "row", d.Hidden, d.Hidden),
			rmsCase(d, "head", d.Heads*d.HD, d.HD),
			eltCase(d, "Add"), eltCase(d, "SwiGLU"),
		)
		linears := [][2]int{{d.Hidden, d.Inter}, {d.Inter, d.Hidden}, {d.Hidden, d.Heads * d.HD}, {d.Hidden, d.KVHeads * d.HD}}
		for _, io := range linears {
			for _, n := range []int{1, 2, 4, 8, 512} {
				cs = append(cs, matmulCase(d, io[0], io[1], n, false, backend.Invalid, big && n > 8))
			}
		}
		cs = append(cs, matmulCase(d, d.Hidden, d.KVHeads*d.HD, 3, true, backend.Invalid, false))
		cs = append(cs, matmulCase(d, d.Hidden, min(d.Vocab, 32768), 1, false, backend.F32, false))
		for _, kind := range []string{"default", "llama3", "yarn"} {
			cs = append(cs, ropeCase(d, kind))
		}
		for _, n := range []int{1, 4, 77} {
			cs = append(cs, attentionCase(d, n, 300, big && n > 8))
		}
		cs = append(cs, argmaxCase(d))
	}
	return cs
}

func embedCase(d Dims) Case {
	return Case{Op: "Embed", Shape: fmt.Sprintf("%s vocab %d × %d, 9 ids", d.Name, d.Vocab, d.Hidden),
		Promise: "exact copy of the table rows (in the activation dtype)", Tol: tolBF16,
		run: func(h *harness) float64 {
			tab := h.upload(h.randn(d.Vocab*d.Hidden, 1), d.Vocab, d.Hidden)
			ids := h.ints([]int32{0, 1, int32(d.Vocab - 1), 5, 5, 17, 3, int32(d.Vocab / 2), 2})
			out := h.out(backend.Invalid, 9, d.Hidden)
			h.ref.Embed(out.ref, tab.ref, ids.ref)
			h.dut.Embed(out.dut, tab.dut, ids.dut)
			return h.compare(out)
		}}
}

func rmsCase(d Dims, kind string, width, group int) Case {
	return Case{Op: "RMSNorm/" + kind, Shape: fmt.Sprintf("%s 7 × %d, groups of %d", d.Name, width, group),
		Promise: "f32 sum of squares, output rounded to the activation dtype", Tol: tolBF16,
		run: func(h *harness) float64 {
			x := h.act(h.randn(7*width, 2), 7, width)
			w := h.upload(h.randn(group, 1), group)
			out := h.out(backend.Invalid, 7, width)
			h.ref.RMSNorm(out.ref, x.ref, w.ref, 1e-6)
			h.dut.RMSNorm(out.dut, x.dut, w.dut, 1e-6)
			return h.compare(out)
		}}
}

func eltCase(d Dims, op string) Case {
	return Case{Op: op, Shape: fmt.Sprintf("%s 5 × %d", d.Name, d.Inter), Promise: "f32 math, output rounded to the activation dtype",
		Tol: tolBF16, run: func(h *harness) float64 {
			a := h.act(h.randn(5*d.Inter, 2), 5, d.Inter)
			b := h.act(h.randn(5*d.Inter, 2), 5, d.Inter)
			out := h.out(backend.Invalid, 5, d.Inter)
			binary(h, op, out, a, b)
			return h.compare(out)
		}}
}

// binary runs Add or SwiGLU on both backends.
func binary(h *harness, op string, out, a, b pair) {
	if op == "Add" {
		h.ref.Add(out.ref, a.ref, b.ref)
		h.dut.Add(out.dut, a.dut, b.dut)
		return
	}
	h.ref.SwiGLU(out.ref, a.ref, b.ref)
	h.dut.SwiGLU(out.dut, a.dut, b.dut)
}
