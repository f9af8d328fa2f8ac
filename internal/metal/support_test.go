// Supports on any platform: against a library holding every function the table names, trellis and decode-row
// affine layers are served and dense layers are not (the table has no dense form); against the functions the
// embedded shaders define today, every refusal names a function that is indeed missing from them.
package metal

import (
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	metalshaders "github.com/mlxbun/mlxbun/shaders/metal"
)

func queries() map[string]backend.Query {
	tr := func(axis, bits int, il bool) backend.Weight {
		return backend.Weight{Format: backend.FormatTrellis, Bits: bits, Group: 256, L: 12, Code: "1mad", Axis: axis, Interleaved: il}
	}
	return map[string]backend.Query{
		"trellis q":          {Op: backend.OpMatMul, Name: "q", Weight: tr(1, 3, false), Out: 5120, In: 5120},
		"trellis down":       {Op: backend.OpMatMul, Name: "down", Weight: tr(0, 3, true), Out: 5120, In: 17408},
		"trellis 2-bit":      {Op: backend.OpMatMul, Name: "up", Weight: tr(1, 2, false), Out: 17408, In: 5120},
		"affine decode":      {Op: backend.OpMatMul, Name: "a", Weight: backend.Weight{Format: backend.FormatAffine, Bits: 4, Group: 64}, Out: 1024, In: 512, Rows: 1},
		"affine any rows":    {Op: backend.OpMatMul, Name: "a", Weight: backend.Weight{Format: backend.FormatAffine, Bits: 4, Group: 64}, Out: 1024, In: 512},
		"dense":              {Op: backend.OpMatMul, Name: "d", Weight: backend.Weight{Format: backend.FormatDense, DType: backend.BF16}, Out: 1024, In: 512},
		"trellis 5-bit":      {Op: backend.OpMatMul, Name: "x", Weight: tr(1, 5, false), Out: 512, In: 512},
		"softcap (Gemma op)": {Op: backend.OpSoftcap, Name: "logits"},
	}
}

func TestSupportsWithEveryKernel(t *testing.T) {
	all := map[string]bool{}
	for _, f := range Forms() {
		for _, fn := range f.Functions {
			all[f.Name+"/"+fn] = true
			all[fn] = true
		}
	}
	has := func(fn string) bool { return all[fn] }
	want := map[string]string{ // "" served, else a phrase of the refusal
		"trellis q": "", "trellis down": "", "trellis 2-bit": "", "affine decode": "",
		"affine any rows": "9 rows", "dense": "no Metal kernel for dense", "trellis 5-bit": "kernels exist for k 2, 3, 4",
		"softcap (Gemma op)": "no Metal kernel for softcap",
	}
	for name, q := range queries() {
		err := Supports(has, M1, q)
		switch w := want[name]; {
		case w == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case w != "" && (err == nil || !strings.Contains(err.Error(), w)):
			t.Errorf("%s: %v, want a refusal mentioning %q", name, err, w)
		}
	}
	// A library missing one function the decode form launches refuses the layer, naming it.
	fns, err := Required(M1, queries()["trellis q"])
	if err != nil || len(fns) == 0 {
		t.Fatalf("Required: %v %v", fns, err)
	}
	missing := fns[0]
	err = Supports(func(fn string) bool { return fn != missing && all[fn] }, M1, queries()["trellis q"])
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("without %s: %v", missing, err)
	}
}

func TestSupportsAgainstEmbeddedShaders(t *testing.T) {
	declared := DeclaredKernels(metalshaders.Source())
	if !slices.Contains(declared, "embed_f32") {
		t.Fatalf("the embedded shaders declare no embed_f32: %v", declared)
	}
	has := func(fn string) bool { return slices.Contains(declared, fn) }
	for name, q := range queries() {
		err := Supports(has, M1, q)
		if err == nil {
			continue
		}
		msg := err.Error()
		if i := strings.Index(msg, "has no kernel "); i >= 0 {
			fn := strings.Fields(msg[i+len("has no kernel "):])[0]
			if has(fn) {
				t.Errorf("%s: refused for %s, which the shaders declare", name, fn)
			}
		}
	}
	if got := DeclaredKernels("kernel void a(device float* x) {}\ntemplate [[host_name(\"b_k3\")]] kernel void b<3>(uint);\n  kernel void  c ("); !slices.Equal(got, []string{"a", "b_k3", "c"}) {
		t.Errorf("DeclaredKernels %v", got)
	}
}
