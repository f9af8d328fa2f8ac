package model_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/loratest"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

// loraBound is the CPU's bound against a float32 reference, the base goldens' (TestGoldens): 1e-4 of max|ref|.
const loraBound = 1e-4

var (
	attnMods = []string{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj"}
	mlpMods  = []string{"mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}
	allMods  = append(slices.Clone(attnMods), mlpMods...)
)

func openAdapter(t *testing.T, dir string, scale float64) *lora.Adapter {
	t.Helper()
	a, err := lora.Open(dir, scale)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// adaptedRun loads dir on b with the adapters attached, and returns the logits of every prompt position and the
// greedy continuation of gen tokens (decode steps run on the kept one-row workspace).
func adaptedRun(t *testing.T, dir string, b backend.Backend, prompt []int, gen int, ads ...*lora.Adapter) ([]float32, []int) {
	t.Helper()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.AttachAdapters(ads); err != nil {
		t.Fatal(err)
	}
	cache, err := m.NewCache(1, len(prompt))
	if err != nil {
		t.Fatal(err)
	}
	s := model.Step{}
	for p, id := range prompt {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	logits, err := m.Forward(s, cache, len(prompt))
	if err != nil {
		t.Fatal(err)
	}
	m.ReleaseCache(cache)
	var ids []int
	if gen > 0 {
		res, err := m.Generate(prompt, model.GenOptions{MaxTokens: gen, Picker: argmax{}})
		if err != nil {
			t.Fatal(err)
		}
		ids = res.Generated
	}
	return logits, ids
}

// checkAdapted holds got to ref within loraBound and requires the adapters to have moved the logits well beyond
// it (base: the same model without adapters), so the comparison cannot pass with the deltas left out.
func checkAdapted(t *testing.T, what string, got, ref, base []float32, bound float64) {
	t.Helper()
	rel, maxRef := loratest.MaxRelErr(got, ref)
	moved, _ := loratest.MaxRelErr(base, ref)
	t.Logf("%s: max|err| %.3g of max|ref| %.3g (bound %.0e); the adapters move the logits by %.3g of max|ref|", what, rel, maxRef, bound, moved)
	if !(rel <= bound) {
		t.Errorf("%s: max|err| %.4g·max|ref| > %.0e", what, rel, bound)
	}
	if !(moved > 100*bound) {
		t.Errorf("%s: the adapters moved the logits by only %.3g of max|ref|: the test would not see them missing", what, moved)
	}
}

// TestAdapterMerged: on the CPU, a model with adapters attached computes what the same model with the adapted
// weights merged (W + s·B·A in float64, loratest.Merged) computes, on bf16 bases: every projection of tiny-qwen3
// (PEFT layout, bf16 matrices); Phi-3's fused qkv_proj and gate_up_proj split by rows (mlx-lm layout); and two
// adapters of different layouts, ranks and --adapter-scale stacked on tiny-llama3. Greedy continuations agree.
func TestAdapterMerged(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	type spec struct {
		layout lora.Layout
		mods   []string
		r      int
		scale  float64 // the adapter's own
		mult   float64 // --adapter-scale
	}
	for _, c := range []struct {
		name, family string
		adapters     []spec
	}{
		{"qwen3 peft all", "qwen3", []spec{{lora.PEFT, allMods, 8, 2, 1}}},
		{"phi3 mlx fused", "phi3", []spec{{lora.MLXLM, []string{"self_attn.qkv_proj", "mlp.gate_up_proj", "self_attn.o_proj", "mlp.down_proj"}, 4, 1.5, 1}}},
		{"llama stacked", "llama", []spec{{lora.PEFT, []string{"self_attn.q_proj", "self_attn.v_proj", "mlp.down_proj"}, 8, 2, 1},
			{lora.MLXLM, []string{"self_attn.k_proj", "self_attn.o_proj", "mlp.up_proj"}, 4, 10, 0.5}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := variant.For(t, c.family)
			g, _ := readGolden(t, v.Fixture)
			var ads []*lora.Adapter
			for i, s := range c.adapters {
				dir := loratest.Random(t, v.Dir, s.layout, s.mods, s.r, s.scale, uint64(7+i))
				ads = append(ads, openAdapter(t, dir, s.mult))
			}
			got, gotIDs := adaptedRun(t, v.Dir, b, g.PromptIDs, 4, ads...)
			ref, refIDs := adaptedRun(t, loratest.Merged(t, v.Dir, ads...), b, g.PromptIDs, 4)
			base, _ := adaptedRun(t, v.Dir, b, g.PromptIDs, 0)
			checkAdapted(t, c.name, got, ref, base, loraBound)
			if !slices.Equal(gotIDs, refIDs) {
				t.Errorf("greedy continuation %v, merged model's %v", gotIDs, refIDs)
			}
		})
	}
}

// TestAdapterQuantized: the same on quantized bases, against the quantized model decoded by the CPU's arithmetic
// with the deltas merged: tiny-qwen3 trellis-coded by the quantizer (3 bits, down_proj on axis 0 in the block
// interleave) and MLX affine 4-bit (group 64), every projection adapted; on the trellis base also each golden
// adapter of tiny-qwen3 (TestAdapterGoldens).
func TestAdapterQuantized(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	src := testutil.Fixture(t, "models/tiny-qwen3")
	g, _ := readGolden(t, src)
	ad := openAdapter(t, loratest.Random(t, src, lora.PEFT, allMods, 8, 2, 11), 1)
	t.Run("trellis", func(t *testing.T) {
		qdir := filepath.Join(t.TempDir(), "q3")
		if _, err := quantize.Run(src, qdir, quantize.Options{Bits: 3}, nil); err != nil {
			t.Fatal(err)
		}
		base, _ := adaptedRun(t, qdir, b, g.PromptIDs, 0)
		decoded := loratest.Decoded(t, qdir)
		ads := map[string]*lora.Adapter{"random": ad}
		for _, dir := range goldenAdapters() {
			if strings.HasPrefix(filepath.Base(dir), "tiny-qwen3_") {
				ads[filepath.Base(dir)] = openAdapter(t, dir, 1)
			}
		}
		for name, a := range ads {
			got, _ := adaptedRun(t, qdir, b, g.PromptIDs, 0, a)
			ref, _ := adaptedRun(t, loratest.Merged(t, decoded, a), b, g.PromptIDs, 0)
			checkAdapted(t, "trellis 3-bit base, adapter "+name, got, ref, base, loraBound)
		}
	})
	t.Run("affine", func(t *testing.T) {
		qdir, _ := quantizeFixture(t, src, func(path string, w []float32, out, in int) ([]backend.Host, []float32, map[string]any) {
			a, err := affine.Quantize(w, out, in, 4, 64)
			if err != nil {
				t.Fatal(err)
			}
			hosts := []backend.Host{u32Host(path+".weight", a.Packed, out, in*4/32),
				backend.HostF32(path+".scales", a.Scales, out, in/64), backend.HostF32(path+".biases", a.Biases, out, in/64)}
			return hosts, a.Dense(), map[string]any{"mode": "affine", "bits": 4, "group_size": 64}
		})
		got, _ := adaptedRun(t, qdir, b, g.PromptIDs, 0, ad)
		base, _ := adaptedRun(t, qdir, b, g.PromptIDs, 0)
		ref, _ := adaptedRun(t, loratest.Merged(t, loratest.Decoded(t, qdir), ad), b, g.PromptIDs, 0)
		checkAdapted(t, "affine 4-bit base", got, ref, base, loraBound)
	})
}

// TestAdapterMismatch: an adapter that does not fit the model is one error wrapping ErrAdapterMismatch that
// names the tensor: another family's shapes, a layer the model lacks, and a module that takes no adapter.
func TestAdapterMismatch(t *testing.T) {
	qwen := testutil.Fixture(t, "models/tiny-qwen3")
	llama := testutil.Fixture(t, "models/tiny-llama3")
	raw, err := os.ReadFile(filepath.Join(qwen, config.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	one := func(mod string, out, in int) *lora.Adapter {
		return &lora.Adapter{Dir: "ad", Targets: []lora.Target{{Module: mod, ATensor: mod + ".lora_A.weight", BTensor: mod + ".lora_B.weight",
			A: backend.HostF32("", make([]float32, 4*in), 4, in), B: backend.HostF32("", make([]float32, out*4), out, 4), Scale: 1}}}
	}
	for _, c := range []struct {
		name string
		ad   *lora.Adapter
		want []string
	}{
		// tiny-llama3's k_proj is 256→64 (2 heads of 32), tiny-qwen3's 256→128.
		{"other model", openAdapter(t, loratest.Random(t, llama, lora.PEFT, []string{"self_attn.k_proj"}, 8, 2, 1), 1),
			[]string{"base_model.model.model.layers.0.self_attn.k_proj.lora_B.weight", "256→64", "256→128"}},
		{"missing layer", one("model.layers.7.self_attn.q_proj", 256, 256), []string{"model.layers.7.self_attn.q_proj.lora_A.weight", "does not have"}},
		{"unknown module", one("model.layers.0.self_attn.qkv_proj", 512, 256), []string{"qkv_proj.lora_A.weight", "does not have"}},
		{"output head", one("lm_head", 2048, 256), []string{"lm_head.lora_A.weight", "only the layers'"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := model.AdapterQueries(cfg, []*lora.Adapter{c.ad})
			if !errors.Is(err, model.ErrAdapterMismatch) {
				t.Fatalf("error %v, want ErrAdapterMismatch", err)
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

// opLog is a CPU backend that logs the linear ops model code issues, in order.
type opLog struct {
	*cpu.Backend
	ops []string
}

func (o *opLog) MatMul(dst, x backend.Tensor, w backend.Linear) {
	o.ops = append(o.ops, "matmul")
	o.Backend.MatMul(dst, x, w)
}

func (o *opLog) AddScaled(dst, a, x backend.Tensor, s float32) {
	o.ops = append(o.ops, "add_scaled")
	o.Backend.AddScaled(dst, a, x, s)
}

// TestAdapterOpOrder: the base products of projections sharing an input (q, k, v; gate, up) stay back to back, so
// a fusing backend may still merge them into one launch; each adapter's two products and scaled add follow before
// anything reads the output, so nothing folds an op over an unadapted output (gate/up's SwiGLU no longer follows
// the pair directly); a layer without adapters issues exactly the plain sequence.
func TestAdapterOpOrder(t *testing.T) {
	dir := testutil.Fixture(t, "models/tiny-qwen3")
	b := &opLog{Backend: cpu.New()}
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	run := func() []string {
		b.ops = nil
		cache, _ := m.NewCache(1, 2)
		defer m.ReleaseCache(cache)
		if _, err := m.Forward(model.Step{IDs: []int32{1, 2}, Seq: []int32{0, 0}, Pos: []int32{0, 1}}, cache, 1); err != nil {
			t.Fatal(err)
		}
		return b.ops
	}
	plain := strings.Join(run(), " ")
	layer := "matmul matmul matmul matmul matmul matmul matmul" // q k v o gate up down
	if want := layer + " " + layer + " matmul"; plain != want {
		t.Fatalf("plain forward issues %q, want %q", plain, want)
	}
	ad := &lora.Adapter{Dir: "ad"}
	for _, mod := range []string{"model.layers.1.self_attn.q_proj", "model.layers.1.mlp.gate_proj"} {
		out := 768
		if strings.HasSuffix(mod, "q_proj") {
			out = 256
		}
		ad.Targets = append(ad.Targets, lora.Target{Module: mod, ATensor: mod + ".A", BTensor: mod + ".B", Scale: 1,
			A: backend.HostF32("", make([]float32, 2*256), 2, 256), B: backend.HostF32("", make([]float32, out*2), out, 2)})
	}
	if err := m.AttachAdapters([]*lora.Adapter{ad}); err != nil {
		t.Fatal(err)
	}
	delta := "matmul matmul add_scaled"
	// The base products of q, k, v (and of gate, up) stay back to back on their shared input; each adapted
	// projection's delta follows them, before anything reads its output.
	want := layer + " matmul matmul matmul " + delta + " matmul matmul matmul " + delta + " matmul matmul"
	if got := strings.Join(run(), " "); got != want {
		t.Errorf("adapted forward issues\n%q, want\n%q", got, want)
	}
}

// goldenAdapters lists the golden cases under testdata/lora (scripts/device/lora_goldens.py writes them): each
// directory, named <fixture>_<layout>, holds an adapter beside its golden.json and logits.
func goldenAdapters() []string {
	paths, _ := filepath.Glob(filepath.Join("testdata", "lora", "*", "golden.json"))
	var dirs []string
	for _, p := range paths {
		dirs = append(dirs, filepath.Dir(p))
	}
	return dirs
}

// TestAdapterGoldens holds the CPU to HF transformers' float32 logits of the merged models (W + s·B·A) within the
// base goldens' bound, and to their greedy continuation token for token, on the bf16 fixtures. (The trellis base
// is TestAdapterQuantized's.)
func TestAdapterGoldens(t *testing.T) {
	cases := goldenAdapters()
	if len(cases) == 0 {
		msg := "no LoRA goldens under internal/model/testdata/lora (scripts/device/lora_goldens.py writes them)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	b := cpu.New()
	defer b.Close()
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			g, ref := testutil.ReadGolden(t, dir)
			base := testutil.Fixture(t, "models/"+strings.SplitN(filepath.Base(dir), "_", 2)[0])
			ad := openAdapter(t, dir, 1)
			got, ids := adaptedRun(t, base, b, g.PromptIDs, len(g.GreedyNewIDs), ad)
			plain, _ := adaptedRun(t, base, b, g.PromptIDs, 0)
			checkAdapted(t, "bf16 base vs HF merged", got, ref, plain, loraBound)
			if !slices.Equal(ids, g.GreedyNewIDs) {
				t.Errorf("greedy continuation %v, golden %v", ids, g.GreedyNewIDs)
			}
		})
	}
}
