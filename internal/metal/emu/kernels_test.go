// TestKernels runs every kernel form of the Metal table through the emulator against the reference and then
// counts: the forms in metal.Forms must equal the forms whose every function was verified, and every kernel the
// shaders define must belong to a form. TestParamLayouts checks the Go parameter structs against the compiled
// ones; TestMutations proves the harness catches a removed or misplaced barrier and a wrong fragment index.
package emu

import (
	"context"
	"encoding/binary"
	"flag"
	"math"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/metal"
	metalshaders "github.com/mlxbun/mlxbun/shaders/metal"
)

func exp64(x float64) float64 { return math.Exp(x) }

var kernelTests = []struct {
	name string
	run  func(T, *Harness)
}{
	{"embed", testEmbed},
	{"rmsnorm", testRMSNorm},
	{"rope", testRope},
	{"rmsnorm_rope", testRMSNormRope},
	{"eltwise", testEltwise},
	{"dense", testDense},
	{"attention", testAttention},
	{"argmax", testArgmax},
	{"bitmask", testBitmask},
	{"trellis_axis1", testTrellisAxis1},
	{"trellis_axis0", testTrellisAxis0},
	{"gate_up", testGateUp},
	{"expand", testExpand},
	{"affine", testAffine},
	{"pointwise", testPointwise},
	{"hadamard", testHadamard},
	{"windowed", testWindowed},
	{"exl3", testEXL3},
}

func TestKernels(t *testing.T) {
	h := harness(t)
	for _, k := range kernelTests {
		t.Run(k.name, func(t *testing.T) { k.run(t, h) })
	}
	if run := flag.Lookup("test.run").Value.String(); strings.Contains(run, "/") {
		return // a subset of the subtests ran: the count below would be meaningless
	}
	inForm := map[string]bool{}
	done := 0
	for _, f := range metal.Forms() {
		all := true
		for _, fn := range f.Functions {
			inForm[fn] = true
			if _, ok := h.Kernels[fn]; !ok {
				t.Errorf("form %s names %s, which no shader defines", f.Name, fn)
			}
			if !verified[fn] {
				all = false
				t.Errorf("form %s: %s was not verified", f.Name, fn)
			}
		}
		if all {
			done++
		}
	}
	for name := range h.Kernels {
		if !inForm[name] {
			t.Errorf("kernel %s (%s) belongs to no form of the table", name, h.Kernels[name].File)
		}
	}
	if done != len(metal.Forms()) {
		t.Fatalf("%d forms in the Metal table, %d verified by the emulator", len(metal.Forms()), done)
	}
	t.Logf("%d forms in the Metal table, %d verified by the emulator (%d kernel functions)", len(metal.Forms()), done, len(verified))
}

// TestParamLayouts compares every parameter struct the kernels take with its Go mirror in kernels.go.
func TestParamLayouts(t *testing.T) {
	h := harness(t)
	seen := 0
	for _, k := range h.Kernels {
		for _, p := range k.Params {
			if p.Size == 0 {
				continue
			}
			name := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(p.Type, "const "), "&"))
			goType, ok := metal.ParamTypes[name]
			if !ok {
				t.Fatalf("kernel %s takes %s, which kernels.go does not mirror", k.Name, name)
			}
			if s := binary.Size(goType); s != p.Size {
				t.Fatalf("%s: %d bytes in Go, %d compiled", name, s, p.Size)
			}
			seen++
		}
	}
	if seen == 0 {
		t.Fatal("no parameter structs found")
	}
}

// TestThreadgroupMemory holds every kernel to Apple's 32 KiB of threadgroup memory.
func TestThreadgroupMemory(t *testing.T) {
	h := harness(t)
	for name, k := range h.Kernels {
		if k.ThreadgroupBytes > 32<<10 {
			t.Errorf("%s declares %d bytes of threadgroup memory (Apple GPUs allow 32768)", name, k.ThreadgroupBytes)
		}
	}
	// The accounting itself: the scatter tree is 4·32·32 floats, the codebook 4096.
	for name, want := range map[string]int{"trellis_scatter_k3_m1": 16384, "trellis_gateup_cb_k33": 16384, "rmsnorm_row_f32": 32} {
		if got := h.Kernels[name].ThreadgroupBytes; got != want {
			t.Errorf("%s: %d bytes of threadgroup memory counted, want %d", name, got, want)
		}
	}
}

// mutate returns the shader sources with old replaced by new in file (exactly once: the test fails otherwise), and
// only that file and the prelude kept.
func mutate(t *testing.T, file, old, new string) map[string]string {
	t.Helper()
	src := metalshaders.Sources[file]
	if strings.Count(src, old) != 1 {
		t.Fatalf("mutation target %q occurs %d times in %s", old, strings.Count(src, old), file)
	}
	return map[string]string{metalshaders.Prelude: metalshaders.Sources[metalshaders.Prelude], file: strings.Replace(src, old, new, 1)}
}

func TestMutations(t *testing.T) {
	harness(t) // the unmutated kernels: TestKernels proves they pass
	cases := []struct {
		name, file, old, new string
		run                  func(T, *Harness)
		extra                []string
		culprit              string // the failure must name this kernel
	}{
		{"rmsnorm_row barrier removed", "ops.metal",
			"    if (lane == 0u) part[sg] = ss;\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n    float total = 0.0f;\n    for (uint i = 0; i < 8u; ++i) total += part[i];\n    const float inv = 1.0f / precise::sqrt(total / float(p.g) + p.eps);\n    for (uint j = t; j < p.g; j += 256u) ys[j]",
			"    if (lane == 0u) part[sg] = ss;\n    float total = 0.0f;\n    for (uint i = 0; i < 8u; ++i) total += part[i];\n    const float inv = 1.0f / precise::sqrt(total / float(p.g) + p.eps);\n    for (uint j = t; j < p.g; j += 256u) ys[j]",
			testRMSNorm, nil, "rmsnorm_row_f32"},
		{"rmsnorm_rope simdgroup barrier removed", "ops.metal",
			"    simdgroup_barrier(mem_flags::mem_threadgroup);\n",
			"",
			testRMSNormRope, nil, "rmsnorm_rope_f32"},
		{"attention barrier misplaced", "attention.metal",
			"    if (lane == 0u) { tm[sg] = m; tl[sg] = l; }\n    for (uint e = 0; e < ept; ++e) {\n        const uint d = lane + 32u * e;\n        if (d < hd) tacc[sg * 256u + d] = acc[e];\n    }\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n",
			"    threadgroup_barrier(mem_flags::mem_threadgroup);\n    if (lane == 0u) { tm[sg] = m; tl[sg] = l; }\n    for (uint e = 0; e < ept; ++e) {\n        const uint d = lane + 32u * e;\n        if (d < hd) tacc[sg * 256u + d] = acc[e];\n    }\n",
			testAttention, []string{"ops.metal"}, "attn_rows_f32"},
		{"scatter tree barrier removed", "trellis_gemv.metal",
			"            for (uint i = 0; i < 32u; ++i) acc[i] += red[(sg * 32u + lane) * 32u + i];\n        threadgroup_barrier(mem_flags::mem_threadgroup);\n",
			"            for (uint i = 0; i < 32u; ++i) acc[i] += red[(sg * 32u + lane) * 32u + i];\n",
			testTrellisAxis0, nil, "trellis_scatter_k2_m1"},
		{"mma fragment column index", "trellis_mma.metal",
			"inline uint frag_n(uint lane) { return ((lane / 4u) & 2u) * 2u + (lane % 2u) * 2u; }",
			"inline uint frag_n(uint lane) { return ((lane / 4u) & 2u) * 2u + (lane % 2u); }",
			testTrellisAxis1, []string{"trellis_gemv.metal"}, "trellis_mma_k2"},
		{"mma fragment element swapped", "trellis_mma.metal",
			"            b.thread_elements()[0] = m0 ? x[ulong(fn) * p.cols + xo + j] : 0.0f;\n            b.thread_elements()[1] = m1 ? x[ulong(fn + 1u) * p.cols + xo + j] : 0.0f;\n            simdgroup_multiply_accumulate(acc, a, b, acc);",
			"            b.thread_elements()[1] = m0 ? x[ulong(fn) * p.cols + xo + j] : 0.0f;\n            b.thread_elements()[0] = m1 ? x[ulong(fn + 1u) * p.cols + xo + j] : 0.0f;\n            simdgroup_multiply_accumulate(acc, a, b, acc);",
			testTrellisAxis1, []string{"trellis_gemv.metal"}, "trellis_mma_k2"},
		{"hadamard stage barrier removed", "pointwise.metal",
			"            hsh[j + h] = u - v;\n        }\n        threadgroup_barrier(mem_flags::mem_threadgroup);\n",
			"            hsh[j + h] = u - v;\n        }\n",
			testHadamard, nil, "hadamard_f32"},
		{"exl3 tile words barrier removed", "exl3.metal",
			"        for (uint i = lane; i < nw; i += 32u) w[i] = t[i];\n        simdgroup_barrier(mem_flags::mem_threadgroup);\n",
			"        for (uint i = lane; i < nw; i += 32u) w[i] = t[i];\n",
			testEXL3, nil, "exl3_gemv_k1_3inst_m1"},
		{"exl3 butterfly upper element", "exl3.metal",
			"            v[e] = upper ? q - v[e] : v[e] + q;",
			"            v[e] = upper ? v[e] - q : v[e] + q;",
			testEXL3, nil, "exl3_had_f32"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := mutate(t, c.file, c.old, c.new)
			for _, f := range c.extra {
				src[f] = metalshaders.Sources[f]
			}
			h, err := Build(context.Background(), t.TempDir(), src)
			if err != nil {
				t.Fatalf("building the mutated harness: %v", err)
			}
			// The mutated kernel must fail: a mismatch (t.Fatal in the check) or a harness error. Run the test body
			// on a throwaway T and require that it failed.
			failed, msg := runExpectingFailure(c.run, h)
			if !failed {
				t.Fatalf("the mutated kernel passed the emulator")
			}
			if !strings.Contains(msg, c.culprit) || strings.Contains(msg, "the plan") {
				t.Fatalf("the failure is not the mutated kernel's (%s): %s", c.culprit, msg)
			}
			t.Logf("caught: %s", msg)
		})
	}
}
