// LoRA adapters on the CUDA backend (MLXBUN_CUDA=1): the adapted fixture models against the CPU's float32
// references (the merged weights W + s·B·A, loratest.Merged) and against HF transformers' goldens of the merged
// models when internal/model/testdata/lora holds them. Bounds are the base models': prompt logits within
// 2e-2·max|ref| with the same top-1 at every position on a bf16 base (TestBackendModels), mean per-token KL ≤
// 1e-3 on a trellis base (TestQuantizedKL, the default int8-activation forms).
package cuda

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/loratest"
)

var loraAll = []string{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
	"mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}

// openAdapted loads dir on b with ads attached and a one-sequence cache of positions; the caller closes both.
func openAdapted(t *testing.T, dir string, b backend.Backend, positions int, ads []*lora.Adapter) (*model.Model, backend.KVCache) {
	t.Helper()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AttachAdapters(ads); err != nil {
		m.Close()
		t.Fatal(err)
	}
	cache, err := m.NewCache(1, positions)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, cache
}

// adaptedLogits loads dir on b with ads attached and returns the logits of every prompt position, then the greedy
// continuation of gen tokens (decode steps: kept workspaces, recorded graphs on CUDA).
func adaptedLogits(t *testing.T, dir string, b backend.Backend, ids []int, gen int, ads ...*lora.Adapter) ([]float32, []int) {
	t.Helper()
	m, cache := openAdapted(t, dir, b, len(ids)+1, ads)
	defer m.Close()
	s := model.Step{}
	for p, id := range ids {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	l, err := m.Forward(s, cache, len(ids))
	if err != nil {
		t.Fatal(fmt.Errorf("%s on %s: %w", dir, b.Name(), err))
	}
	m.ReleaseCache(cache)
	var genIDs []int
	if gen > 0 {
		res, err := m.Generate(ids, model.GenOptions{MaxTokens: gen, Picker: argmaxPicker{}})
		if err != nil {
			t.Fatal(err)
		}
		genIDs = res.Generated
	}
	return l, genIDs
}

// stepLogits loads dir on b with ads attached and feeds ids one row at a time (the decode forms: GEMV and
// tensor-core groups, recorded graphs), returning each position's logits, [len(ids), vocab].
func stepLogits(t *testing.T, dir string, b backend.Backend, ids []int, ads ...*lora.Adapter) []float32 {
	t.Helper()
	m, cache := openAdapted(t, dir, b, len(ids), ads)
	defer m.Close()
	defer m.ReleaseCache(cache)
	var out []float32
	for p, id := range ids {
		l, err := m.Forward(model.Step{IDs: []int32{int32(id)}, Seq: []int32{0}, Pos: []int32{int32(p)}}, cache, 1)
		if err != nil {
			t.Fatal(fmt.Errorf("%s on %s, position %d: %w", dir, b.Name(), p, err))
		}
		out = append(out, l...)
	}
	return out
}

// topOneAgree counts the prompt positions whose argmax got and ref share.
func topOneAgree(got, ref []float32, rows int) int {
	vocab, n := len(ref)/rows, 0
	for r := range rows {
		if argmaxOf(got[r*vocab:(r+1)*vocab]) == argmaxOf(ref[r*vocab:(r+1)*vocab]) {
			n++
		}
	}
	return n
}

func TestAdapters(t *testing.T) {
	g, c := bk(t)
	src := fixture(t, "models/tiny-qwen3")
	gold, _ := loadGolden(t, src)
	ids := gold.PromptIDs
	ad, err := lora.Open(loratest.Random(t, src, lora.PEFT, loraAll, 8, 2, 11), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("bf16", func(t *testing.T) {
		ref, refIDs := adaptedLogits(t, loratest.Merged(t, src, ad), c, ids, 8)
		got, gotIDs := adaptedLogits(t, src, g, ids, 8, ad)
		maxErr, maxRef := compare(t, "adapted tiny-qwen3 (bf16) vs CPU merged", got, ref, 2e-2)
		agree := topOneAgree(got, ref, len(ids))
		if agree != len(ids) {
			t.Errorf("MISMATCH top-1 equal at %d of %d positions", agree, len(ids))
		}
		if !slices.Equal(gotIDs, refIDs) {
			t.Errorf("MISMATCH greedy %v, CPU merged %v", gotIDs, refIDs)
		}
		record("lora        tiny-qwen3 bf16 PEFT r8 all: max|err| %.2e of max|ref| %.3g, top-1 %d/%d, greedy 8 %v",
			maxErr/maxRef, maxRef, agree, len(ids), slices.Equal(gotIDs, refIDs))
		steps := stepLogits(t, src, g, ids, ad)
		maxErr, maxRef = compare(t, "adapted tiny-qwen3 (bf16), one row a step, vs CPU merged", steps, ref, 2e-2)
		record("lora        tiny-qwen3 bf16 decode steps: max|err| %.2e of max|ref| %.3g, top-1 %d/%d",
			maxErr/maxRef, maxRef, topOneAgree(steps, ref, len(ids)), len(ids))
	})
	t.Run("trellis", func(t *testing.T) {
		qdir := filepath.Join(t.TempDir(), "q3")
		if _, err := quantize.Run(src, qdir, quantize.Options{Bits: 3}, nil); err != nil {
			t.Fatal(err)
		}
		ref, _ := adaptedLogits(t, loratest.Merged(t, loratest.Decoded(t, qdir), ad), c, ids, 0)
		got, _ := adaptedLogits(t, qdir, g, ids, 0, ad)
		kl, agree := meanKL(ref, got, len(ids))
		rel, maxRef := loratest.MaxRelErr(got, ref)
		record("lora        tiny-qwen3 trellis 3-bit PEFT r8 all: mean KL %.2e, top-1 %d/%d, max|err| %.2e of max|ref| %.3g",
			kl, agree, len(ids), rel, maxRef)
		if !(kl <= klGate) {
			t.Errorf("MISMATCH adapted trellis base: mean KL %.3g > %g", kl, klGate)
		}
		// Decode steps: the tensor-core groups (q/k/v, gate/up with SwiGLU folded in) fall back around the deltas.
		steps := stepLogits(t, qdir, g, ids, ad)
		kl, agree = meanKL(ref, steps, len(ids))
		record("lora        tiny-qwen3 trellis 3-bit decode steps: mean KL %.2e, top-1 %d/%d", kl, agree, len(ids))
		if !(kl <= klGate) {
			t.Errorf("MISMATCH adapted trellis base, decode steps: mean KL %.3g > %g", kl, klGate)
		}
	})
	// HF transformers' goldens of the merged models, when committed (scripts/device/lora_goldens.py).
	goldens, _ := filepath.Glob(filepath.Join(testutil.Root(t), "internal", "model", "testdata", "lora", "*", "golden.json"))
	for _, path := range goldens {
		dir := filepath.Dir(path)
		t.Run("golden/"+filepath.Base(dir), func(t *testing.T) {
			gd, ref := testutil.ReadGolden(t, dir)
			base := fixture(t, "models/"+strings.SplitN(filepath.Base(dir), "_", 2)[0])
			a, err := lora.Open(dir, 1)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := adaptedLogits(t, base, g, gd.PromptIDs, 0, a)
			maxErr, maxRef := compare(t, filepath.Base(dir)+" vs HF merged", got, ref, 2e-2)
			agree := topOneAgree(got, ref, len(gd.PromptIDs))
			if agree != len(gd.PromptIDs) {
				t.Errorf("MISMATCH top-1 equal at %d of %d positions", agree, len(gd.PromptIDs))
			}
			record("lora        golden %-16s: max|err| %.2e of max|ref| %.3g, top-1 %d/%d", filepath.Base(dir), maxErr/maxRef, maxRef, agree, len(gd.PromptIDs))
		})
	}
}
