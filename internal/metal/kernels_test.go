// Tests of the kernel table that need no compiler: every family's selection names forms that exist, the rows
// other than M1 say they are unmeasured, plans pick the documented form by row count and layout, and unsupported
// shapes are refused with an error rather than a launch. The kernels themselves are verified by internal/metal/emu.
package metal

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/trellis"
)

func TestTable(t *testing.T) {
	forms := map[string]bool{}
	for _, f := range Forms() {
		if forms[f.Name] {
			t.Fatalf("form %s listed twice", f.Name)
		}
		forms[f.Name] = true
		if len(f.Functions) == 0 || f.Promise == "" {
			t.Fatalf("form %s has no functions or no promise", f.Name)
		}
	}
	_, m1 := Table(M1)
	for _, fam := range Families() {
		status, rows := Table(fam)
		if fam != M1 && !strings.Contains(status, "unmeasured") {
			t.Fatalf("%s: status %q does not say unmeasured", fam, status)
		}
		if len(rows) != len(m1) {
			t.Fatalf("%s: %d rows, M1 has %d", fam, len(rows), len(m1))
		}
		for i, c := range rows {
			if c != m1[i] || !forms[c.Form] {
				t.Fatalf("%s row %d: %+v (M1: %+v; form known: %v)", fam, i, c, m1[i], forms[c.Form])
			}
		}
	}
}

func TestPlanSelection(t *testing.T) {
	geo := func(axis, rows, cols int, il bool) trellis.Geometry {
		return trellis.Geometry{Spec: trellis.Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: axis}, Rows: rows, Cols: cols, Interleaved: il}
	}
	cases := []struct {
		g    trellis.Geometry
		n    int
		v    trellis.Variant
		form string
		fn   string
	}{
		{geo(1, 17408, 5120, false), 1, trellis.Factored, "trellis_reduce", "trellis_reduce_k3_m1"},
		{geo(1, 17408, 5120, false), 3, trellis.Reciprocal, "trellis_reduce", "trellis_reduce_k3_m4"},
		{geo(1, 17408, 5120, false), 6, trellis.Factored, "trellis_mma", "trellis_mma_k3"},
		{geo(1, 17408, 5120, false), 6, trellis.Reciprocal, "trellis_reduce", "trellis_reduce_k3_m8"},
		{geo(1, 17408, 5120, false), 512, trellis.Factored, "trellis_prefill", "trellis_prefill_k3"},
		{geo(0, 17408, 5120, true), 1, trellis.Factored, "trellis_scatter_il", "trellis_scatter_il_k3_m1"},
		{geo(0, 17408, 5120, false), 5, trellis.Factored, "trellis_mma0", "trellis_mma0_k3"},
		{geo(0, 17408, 5120, false), 5, trellis.Reciprocal, "trellis_scatter", "trellis_scatter_k3_m8"},
		{geo(0, 17408, 5120, true), 8, trellis.Factored, "trellis_mma0_il", "trellis_mma0_il_k3"},
		{geo(0, 17408, 5120, false), 4, trellis.Factored, "trellis_scatter", "trellis_scatter_k3_m4"},
		{geo(0, 17408, 5120, true), 9, trellis.Factored, "trellis_prefill", "trellis_prefill_k3"},
	}
	for _, c := range cases {
		p, err := PlanTrellis(M2, c.g, c.n, c.v, false)
		if err != nil {
			t.Fatal(err)
		}
		if p.Form != c.form || p.Launches[0].Function != c.fn {
			t.Fatalf("axis %d, %d rows, %s: %s/%s, want %s/%s", c.g.Axis, c.n, c.v, p.Form, p.Launches[0].Function, c.form, c.fn)
		}
	}
	// The 14B down projection splits its 17408 rows and reduces the partials in a second launch.
	p, _ := PlanTrellis(M1, geo(0, 17408, 5120, true), 1, trellis.Factored, false)
	if len(p.Launches) != 2 || p.Launches[1].Function != "trellis_splitk_reduce" || p.ScratchBytes != 17*5120*4 {
		t.Fatalf("down projection plan: %+v", p)
	}
	if got := binary.LittleEndian.Uint32(p.Launches[0].Params[32:]); got != 17 {
		t.Fatalf("splits = %d, want 17", got)
	}
	if _, err := PlanTrellis(M1, geo(1, 8, 256, false), 1, trellis.Exact, false); err == nil {
		t.Fatal("the exact variant was planned; no kernel computes it")
	}
	bad := geo(1, 8, 256, false)
	bad.K = 5
	if _, err := PlanTrellis(M1, bad, 1, trellis.Factored, false); err == nil {
		t.Fatal("5-bit codes were planned; kernels exist for 2, 3, 4")
	}
	if _, err := PlanGateUp(M1, geo(1, 8, 256, false), geo(1, 16, 256, false), 1); err == nil {
		t.Fatal("gate and up of different shapes were fused")
	}
	if _, err := PlanAffine(M1, 7, 64, 8, 256, 1, false); err == nil {
		t.Fatal("7-bit affine was planned; kernels exist for 2, 3, 4, 5, 6, 8")
	}
	if _, err := PlanAffine(M1, 4, 96, 8, 288, 1, false); err == nil {
		t.Fatal("affine groups of 96 were planned; kernels exist for 32, 64, 128")
	}
	for _, c := range []struct {
		bits, n  int
		form, fn string
	}{{3, 1, "affine_gemv", "affine_gemv_b3_m1"}, {5, 6, "affine_gemv", "affine_gemv_b5_m8"}, {6, 9, "affine_gemm", "affine_gemm_b6"}, {2, 512, "affine_gemm", "affine_gemm_b2"}} {
		p, err := PlanAffine(M3, c.bits, 128, 64, 256, c.n, false)
		if err != nil || p.Form != c.form || p.Launches[0].Function != c.fn {
			t.Fatalf("affine %d-bit, %d rows: %+v, %v; want %s/%s", c.bits, c.n, p, err, c.form, c.fn)
		}
	}
	if p, _ := PlanAttention(M1, AttnCase{N: 9, Heads: 4, KV: KVGeometry{1, 1, 64, 2, 64}, Scale: 1}); p.Form != "attn_rows" {
		t.Fatalf("9 attention rows planned as %s", p.Form)
	}
}
