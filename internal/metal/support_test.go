// Supports on any platform: against a library holding every function the table names, trellis, dense and
// affine layers (every width, decode and prompts) are served, ops and widths the table lacks are not; a library missing one
// function refuses the layers that need it, naming it. The darwin backend asks the compiled library itself.
package metal

import (
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
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
		"affine 3-bit g128":  {Op: backend.OpMatMul, Name: "a", Weight: backend.Weight{Format: backend.FormatAffine, Bits: 3, Group: 128}, Out: 1024, In: 512},
		"affine 7-bit":       {Op: backend.OpMatMul, Name: "a", Weight: backend.Weight{Format: backend.FormatAffine, Bits: 7, Group: 64}, Out: 1024, In: 512},
		"dense":              {Op: backend.OpMatMul, Name: "d", Weight: backend.Weight{Format: backend.FormatDense, DType: backend.BF16}, Out: 1024, In: 512},
		"trellis 5-bit":      {Op: backend.OpMatMul, Name: "x", Weight: tr(1, 5, false), Out: 512, In: 512},
		"softcap (Gemma op)": {Op: backend.OpSoftcap, Name: "logits"},
		"add_scaled (LoRA)":  {Op: backend.OpAddScaled, Name: "q"},
		"hadamard":           {Op: backend.OpHadamard, Name: "q"},
		"geglu":              {Op: backend.OpGeGLU, Name: "mlp"},
		"window attention":   {Op: backend.OpWindowAttention, Name: "layer 0"},
		"attention 256":      {Op: backend.OpAttention, Name: "layer 3", Attn: backend.AttnShape{Heads: 24, KVHeads: 4, HeadDim: 256}},
		"windowed 256":       {Op: backend.OpAttention, Name: "layer 0", Attn: backend.AttnShape{Heads: 32, KVHeads: 16, HeadDim: 256, Window: true}},
		"attention 512":      {Op: backend.OpAttention, Name: "layer 5", Attn: backend.AttnShape{Heads: 32, KVHeads: 4, HeadDim: 512}},
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
		"affine any rows": "", "affine 3-bit g128": "", "affine 7-bit": "kernels exist for bits 2, 3, 4, 5, 6, 8", "dense": "", "trellis 5-bit": "kernels exist for k 2, 3, 4",
		"softcap (Gemma op)": "", "add_scaled (LoRA)": "", "hadamard": "", "geglu": "",
		"window attention": "", "attention 256": "", "windowed 256": "", "attention 512": "attention with head dim 512",
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
	// Affine prompts run the tiled GEMM of the layer's width.
	if fns, err := Required(M1, queries()["affine 3-bit g128"]); err != nil || !slices.Contains(fns, "affine_gemm_b3") || !slices.Contains(fns, "affine_gemv_b3_m8") {
		t.Errorf("affine 3-bit: %v %v", fns, err)
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
	// The optional ops likewise: no hadamard_f32 in the library, no rotated model.
	err = Supports(func(fn string) bool { return fn != "hadamard_f32" && all[fn] }, M1, queries()["hadamard"])
	if err == nil || !strings.Contains(err.Error(), "hadamard_f32") {
		t.Errorf("without hadamard_f32: %v", err)
	}
}

// TestSupportsTrellisModel asks about every layer of the 3-bit Qwen3-14B-shape synthetic model (280 trellis
// projections and the affine 8-bit output head quantize writes; the bf16 head of --head bf16 too): with every table
// function present, each is served.
func TestSupportsTrellisModel(t *testing.T) {
	all := map[string]bool{}
	for _, f := range Forms() {
		for _, fn := range f.Functions {
			all[fn] = true
		}
	}
	for _, bf16Head := range []bool{false, true} {
		qs, err := model.SyntheticTrellisQueries("qwen3-14b", model.SyntheticQuant{Bits: 3, BF16Head: bf16Head})
		if err != nil {
			t.Fatal(err)
		}
		formats := map[backend.Format]int{}
		for _, q := range qs {
			if err := Supports(func(fn string) bool { return all[fn] }, M1, q); err != nil {
				t.Errorf("%s refused: %v", q, err)
			}
			if q.Op == backend.OpMatMul {
				formats[q.Weight.Format]++
			}
		}
		head := map[bool]backend.Format{false: backend.FormatAffine, true: backend.FormatDense}[bf16Head]
		if formats[backend.FormatTrellis] != 280 || formats[head] != 1 || len(formats) != 2 {
			t.Errorf("queries by format %v, want the 40 layers × 7 trellis projections and one %v head", formats, head)
		}
	}
}

func TestFamilyOf(t *testing.T) {
	for _, c := range []struct {
		fam, name string
		want      Family
	}{{"MTLGPUFamilyApple7", "Apple M1 Max", M1}, {"MTLGPUFamilyApple8", "Apple M2 Pro", M2},
		{"MTLGPUFamilyApple9", "Apple M3", M3}, {"MTLGPUFamilyApple9", "Apple M4 Pro", M4}} {
		if got, err := FamilyOf(c.fam, c.name); err != nil || got != c.want {
			t.Errorf("%s %s: %v %v, want %v", c.fam, c.name, got, err, c.want)
		}
	}
	if _, err := FamilyOf("MTLGPUFamilyMac2", "AMD Radeon Pro 5500M"); err == nil {
		t.Error("an AMD GPU got a table row")
	}
}
