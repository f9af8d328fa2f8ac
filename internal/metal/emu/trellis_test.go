// The trellis and affine kernels against internal/trellis and internal/affine (the CPU reference arithmetic) on
// random codes — any bitstream is a valid trellis stream — at the fixture's projection shapes (gate/up 256→768,
// down 768→256, q/o 256→256) and Qwen3-14B slices: a few output rows of the real 5120-wide input (q/gate/up),
// and for the down projection (17408 inputs) a 512-output slice in the 3-bit block interleave, with split-K.
package emu

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/metal"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

func randTrellis(t T, r *rand.Rand, k, L, T, axis, rows, cols int, il bool) *trellis.Weights {
	t.Helper()
	g := trellis.Geometry{Spec: trellis.Spec{K: k, L: L, T: T, Code: "1mad", Axis: axis}, Rows: rows, Cols: cols, Interleaved: il}
	words := make([]uint32, g.Words())
	for i := range words {
		words[i] = r.Uint32()
	}
	scales := make([]float32, rows)
	for i := range scales {
		scales[i] = dtype.RoundF16(0.005 + 0.05*r.Float32())
	}
	w, err := trellis.NewWeights(g, words, scales)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runTrellis plans and runs y = x·Wᵀ and compares with trellis.MatMul under the plan's arithmetic.
func runTrellis(t T, h *Harness, name string, w *trellis.Weights, n int, v trellis.Variant, bias bool, wantForm string) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), uint64(w.Rows*w.Cols)))
	p := must(metal.PlanTrellis(metal.M1, w.Geometry, n, v, bias))(t)
	if p.Form != wantForm {
		t.Fatalf("%s: planned %s, want %s", name, p.Form, wantForm)
	}
	in, out := w.InFeatures(), w.OutFeatures()
	x := randn(r, n*in, 1)
	b := bufs{metal.RoleDst: nanBytes(n * out), metal.RoleX: f32b(x), metal.RoleWords: u32b(w.Words), metal.RoleScales: f32b(w.Scales)}
	var bv []float32
	if bias {
		bv = randn(r, out, 0.1)
		b[metal.RoleBias] = f32b(bv)
	}
	mustRun(t, h, p, b)
	if p.Form == "trellis_prefill" {
		v = trellis.Reciprocal // the tiled form's arithmetic
	}
	want := make([]float32, n*out)
	w.MatMul(want, x, n, v)
	for i := range want {
		if bias {
			want[i] += bv[i%out]
		}
	}
	check(t, name, p, bf32(b[metal.RoleDst]), want, 1e-5)
}

func testTrellisAxis1(t T, h *Harness) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, k := range []int{2, 3, 4} {
		w := randTrellis(t, r, k, 12, 256, 1, 768, 256, false) // fixture gate/up: 256 → 768
		for _, n := range []int{1, 2, 3, 4} {
			v := []trellis.Variant{trellis.Factored, trellis.Reciprocal}[n%2]
			runTrellis(t, h, "reduce fixture", w, n, v, n == 3, "trellis_reduce")
		}
		runTrellis(t, h, "reduce 8 rows exact", w, 8, trellis.Reciprocal, false, "trellis_reduce")
		runTrellis(t, h, "mma fixture", w, 8, trellis.Factored, false, "trellis_mma")
		wq := randTrellis(t, r, k, 16, 128, 1, 20, 256, false) // rows not a multiple of 8, L 16, T 128
		runTrellis(t, h, "mma ragged", wq, 5, trellis.Factored, true, "trellis_mma")
		runTrellis(t, h, "prefill axis 1", w, 40, trellis.Reciprocal, true, "trellis_prefill")
	}
	// The MMA form serves 1..8 rows; selection sends it 5..8, so 1 and 3 rows run the 8-row plan with n rewritten.
	wm := randTrellis(t, r, 3, 12, 256, 1, 64, 512, false)
	for _, n := range []int{1, 3} {
		p := must(metal.PlanTrellis(metal.M1, wm.Geometry, 8, trellis.Factored, false))(t)
		runPlanRows(t, h, "mma "+string(rune('0'+n))+" rows", p, wm, n)
	}
	w14 := randTrellis(t, r, 3, 12, 256, 1, 16, 5120, false) // 14B q/gate/up slice: 16 rows of 5120 inputs
	runTrellis(t, h, "reduce 14B", w14, 1, trellis.Factored, false, "trellis_reduce")
	runTrellis(t, h, "reduce 14B exact", w14, 1, trellis.Reciprocal, false, "trellis_reduce")
	runTrellis(t, h, "mma 14B", w14, 8, trellis.Factored, false, "trellis_mma")
}

// runPlanRows runs an 8-row trellis plan for n rows (the parameter struct's N, its third field, rewritten).
func runPlanRows(t T, h *Harness, name string, p metal.Plan, w *trellis.Weights, n int) {
	t.Helper()
	binary.LittleEndian.PutUint32(p.Launches[0].Params[8:], uint32(n))
	r := rand.New(rand.NewPCG(uint64(n), 99))
	x := randn(r, n*w.InFeatures(), 1)
	b := bufs{metal.RoleDst: nanBytes(n * w.OutFeatures()), metal.RoleX: f32b(x), metal.RoleWords: u32b(w.Words), metal.RoleScales: f32b(w.Scales)}
	mustRun(t, h, p, b)
	want := make([]float32, n*w.OutFeatures())
	w.MatMul(want, x, n, trellis.Factored)
	check(t, name, p, bf32(b[metal.RoleDst]), want, 1e-5)
}

func testTrellisAxis0(t T, h *Harness) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, k := range []int{2, 3, 4} {
		w := randTrellis(t, r, k, 12, 256, 0, 768, 256, false) // fixture down: 768 → 256
		for i, n := range []int{1, 2, 4, 8, 3} {
			v := []trellis.Variant{trellis.Factored, trellis.Reciprocal}[i%2]
			runTrellis(t, h, "scatter fixture", w, n, v, n == 2, "trellis_scatter")
		}
		runTrellis(t, h, "mma0 fixture", w, 8, trellis.Factored, false, "trellis_mma0")
		for _, n := range []int{1, 3} { // below the rows selection sends it: the 8-row plan with n rewritten
			p := must(metal.PlanTrellis(metal.M1, w.Geometry, 8, trellis.Factored, false))(t)
			runPlanRows(t, h, "mma0 "+string(rune('0'+n))+" rows", p, w, n)
		}
		// Coded rows not a multiple of 8 in either split, and a bias.
		runTrellis(t, h, "mma0 ragged splits", randTrellis(t, r, k, 12, 128, 0, 1030, 256, false), 5, trellis.Factored, true, "trellis_mma0")
		runTrellis(t, h, "prefill axis 0", w, 40, trellis.Reciprocal, false, "trellis_prefill")
	}
	// 14B down (17408 → 5120): a 512-output slice, interleaved, 17 splits; and a smaller interleaved matrix for
	// the other row counts.
	w14 := randTrellis(t, r, 3, 12, 256, 0, 17408, 512, true)
	runTrellis(t, h, "scatter_il 14B", w14, 1, trellis.Factored, false, "trellis_scatter_il")
	runTrellis(t, h, "scatter_il 14B exact", w14, 8, trellis.Reciprocal, true, "trellis_scatter_il")
	runTrellis(t, h, "mma0_il 14B", w14, 6, trellis.Factored, false, "trellis_mma0_il")
	wil := randTrellis(t, r, 3, 12, 256, 0, 1536, 1024, true)
	for i, n := range []int{2, 4} {
		runTrellis(t, h, "scatter_il", wil, n, []trellis.Variant{trellis.Factored, trellis.Reciprocal}[i], false, "trellis_scatter_il")
	}
	runTrellis(t, h, "prefill interleaved", randTrellis(t, r, 3, 12, 256, 0, 64, 512, true), 33, trellis.Reciprocal, false, "trellis_prefill")
	runTrellis(t, h, "scatter 14B plain", randTrellis(t, r, 3, 12, 256, 0, 17408, 256, false), 1, trellis.Factored, false, "trellis_scatter")
}

// gateUpBufs binds gate, up and x for a fused gate/up plan of n rows (the three outputs NaN-poisoned).
func gateUpBufs(gate, up *trellis.Weights, x []float32, n int) bufs {
	return bufs{metal.RoleDst: nanBytes(n * gate.Rows), metal.RoleX: f32b(x), metal.RoleGateW: u32b(gate.Words),
		metal.RoleGateS: f32b(gate.Scales), metal.RoleUpW: u32b(up.Words), metal.RoleUpS: f32b(up.Scales),
		metal.RoleGate: nanBytes(n * gate.Rows), metal.RoleUp: nanBytes(n * gate.Rows)}
}

type gateUpRun struct{ x, got []float32 }

// runGateUp compares the fused kernel with trellis.MatMul (factored) of gate and up, then the CPU's SwiGLU order;
// the gate and up outputs it also writes are held to the same bound.
func runGateUp(t T, h *Harness, name string, gate, up *trellis.Weights, n int, wantForm string) gateUpRun {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), uint64(gate.K*10+up.K)))
	p := must(metal.PlanGateUp(metal.M1, gate.Geometry, up.Geometry, n))(t)
	if p.Form != wantForm {
		t.Fatalf("%s: planned %s, want %s", name, p.Form, wantForm)
	}
	x := randn(r, n*gate.Cols, 1)
	b := gateUpBufs(gate, up, x, n)
	mustRun(t, h, p, b)
	g, u := make([]float32, n*gate.Rows), make([]float32, n*gate.Rows)
	gate.MatMul(g, x, n, trellis.Factored)
	up.MatMul(u, x, n, trellis.Factored)
	for _, o := range []struct {
		role metal.Role
		want []float32
	}{{metal.RoleGate, g}, {metal.RoleUp, u}} {
		if e := relErr(bf32(b[o.role]), o.want); !(e <= 1e-5) {
			t.Fatalf("%s (%s): the %s output: max|err|/max|ref| = %.3g > 1e-5", name, fnames(p), o.role, e)
		}
	}
	got := bf32(b[metal.RoleDst])
	check(t, name, p, got, swiglu(g, u), 1e-5)
	return gateUpRun{x, got}
}

func testGateUp(t T, h *Harness) {
	r := rand.New(rand.NewPCG(25, 26))
	ws, ws16 := map[int]*trellis.Weights{}, map[int]*trellis.Weights{}
	for _, k := range []int{2, 3, 4} {
		ws[k] = randTrellis(t, r, k, 12, 256, 1, 768, 256, false)
		ws16[k] = randTrellis(t, r, k, 16, 256, 1, 768, 256, false) // L 16: no codebook, the one-row reduce form
	}
	for _, kg := range []int{2, 3, 4} {
		for _, ku := range []int{2, 3, 4} {
			form := "trellis_gateup"
			if kg != ku {
				form = "trellis_gateup_mixed"
			}
			runGateUp(t, h, form+" fixture L16", ws16[kg], ws16[ku], 1, form)
			for _, n := range []int{2, 4} {
				runGateUp(t, h, form+" fixture", ws[kg], ws[ku], n, form)
			}
			cb := runGateUp(t, h, "gateup_cb fixture", ws[kg], ws[ku], 1, "trellis_gateup_cb")
			// The codebook form promises the one-row reduce form's bits: run that kernel on the same inputs.
			one := must(metal.PlanGateUp(metal.M1, ws[kg].Geometry, ws[ku].Geometry, 2))(t)
			one.Launches[0].Function = strings.Replace(one.Launches[0].Function, "_m2", "_m1", 1)
			binary.LittleEndian.PutUint32(one.Launches[0].Params[8:], 1)
			b := gateUpBufs(ws[kg], ws[ku], cb.x, 1)
			mustRun(t, h, one, b)
			if i := sameBits(bf32(b[metal.RoleDst]), cb.got); i >= 0 {
				t.Fatalf("trellis_gateup_cb_k%d%d: output [%d] differs from %s's", kg, ku, i, one.Launches[0].Function)
			}
			runGateUp(t, h, "gateup_mma fixture", ws[kg], ws[ku], 8, "trellis_gateup_mma")
		}
	}
	g14, u14 := randTrellis(t, r, 3, 12, 256, 1, 8, 5120, false), randTrellis(t, r, 3, 12, 256, 1, 8, 5120, false)
	runGateUp(t, h, "gateup_cb 14B", g14, u14, 1, "trellis_gateup_cb")
	runGateUp(t, h, "gateup 14B", g14, u14, 3, "trellis_gateup")
	u14b := randTrellis(t, r, 4, 12, 256, 1, 8, 5120, false)
	runGateUp(t, h, "gateup_mixed 14B", g14, u14b, 2, "trellis_gateup_mixed")
	g20, u20 := randTrellis(t, r, 2, 12, 256, 1, 20, 5120, false), randTrellis(t, r, 3, 12, 256, 1, 20, 5120, false)
	runGateUp(t, h, "gateup_mma 14B ragged", g20, u20, 6, "trellis_gateup_mma")
}

func swiglu(g, u []float32) []float32 {
	out := make([]float32, len(g))
	for i := range g {
		// internal/cpu's SwiGLU: g / (1 + f32(exp(−g))) · u
		out[i] = g[i] / (1 + float32(exp64(-float64(g[i])))) * u[i]
	}
	return out
}

func testExpand(t T, h *Harness) {
	r := rand.New(rand.NewPCG(27, 28))
	cases := []*trellis.Weights{
		randTrellis(t, r, 2, 12, 256, 1, 256, 256, false),
		randTrellis(t, r, 3, 16, 256, 1, 64, 512, false),
		randTrellis(t, r, 4, 12, 256, 0, 96, 256, false),
		randTrellis(t, r, 3, 12, 256, 0, 64, 512, true),
	}
	for _, w := range cases {
		bf := w.Dense(trellis.BF16)
		ex := w.Dense(trellis.Exact)
		for _, f16 := range []bool{true, false} {
			p := must(metal.PlanExpand(w.Geometry, f16))(t)
			b := bufs{metal.RoleExpanded: u16b(make([]uint16, len(bf))), metal.RoleWords: u32b(w.Words), metal.RoleScales: f32b(w.Scales)}
			mustRun(t, h, p, b)
			got := bu16(b[metal.RoleExpanded])
			for i := range bf {
				want := dtype.F32ToBF16(bf[i])
				if f16 {
					want = dtype.F32ToF16(ex[i])
				}
				if got[i] != want {
					t.Fatalf("%s: [%d] = %#04x, want %#04x", fnames(p), i, got[i], want)
				}
			}
			t.Logf("expand (%s, axis %d, interleaved %v): %d weights bit-exact", fnames(p), w.Axis, w.Interleaved, len(bf))
			markVerified(p)
		}
	}
}

// testAffine runs the GEMV (every width at a decode row count, groups rotating 32/64/128, one 14B-width slice)
// and the prompt GEMM (every width, ragged tiles) against affine.Weights.MatMul.
func testAffine(t T, h *Harness) {
	r := rand.New(rand.NewPCG(29, 30))
	groups := []int{32, 64, 128}
	type affCase struct{ bits, n, out, in int }
	var cases []affCase
	i := 0
	for _, bits := range []int{2, 3, 4, 5, 6, 8} {
		for _, n := range []int{1, 2, 3, 4, 8} {
			if bits != 4 && bits != 8 && n == 4 {
				continue // the other widths at one row count per instantiation (1, 2, 4 by n 3, 8)
			}
			out, in := 72, 256
			if n == 1 && bits == 4 {
				out, in = 8, 5120 // 14B slice
			}
			cases = append(cases, affCase{bits, n, out, in})
		}
		cases = append(cases, affCase{bits, 33, 40, 384}) // the GEMM: ragged output and row tiles
	}
	cases = append(cases, affCase{4, 9, 8, 5120}) // the GEMM at the 14B width
	for _, c := range cases {
		grp := groups[i%3]
		i++
		w, err := affine.Quantize(randn(r, c.out*c.in, 0.05), c.out, c.in, c.bits, grp)
		if err != nil {
			t.Fatal(err)
		}
		hasBias := c.n == 2 || c.n == 33
		p := must(metal.PlanAffine(metal.M1, c.bits, grp, c.out, c.in, c.n, hasBias))(t)
		x := randn(r, c.n*c.in, 1)
		b := bufs{metal.RoleDst: nanBytes(c.n * c.out), metal.RoleX: f32b(x), metal.RoleWords: u32b(w.Packed),
			metal.RoleScales: f32b(w.Scales), metal.RoleBiases: f32b(w.Biases)}
		var bias []float32
		if hasBias {
			bias = randn(r, c.out, 0.1)
			b[metal.RoleBias] = f32b(bias)
		}
		mustRun(t, h, p, b)
		want := make([]float32, c.n*c.out)
		w.MatMul(want, x, c.n)
		for j := range want {
			if bias != nil {
				want[j] += bias[j%c.out]
			}
		}
		check(t, fmt.Sprintf("affine %d-bit g%d %d→%d n=%d", c.bits, grp, c.in, c.out, c.n), p, bf32(b[metal.RoleDst]), want, 1e-5)
	}
}
