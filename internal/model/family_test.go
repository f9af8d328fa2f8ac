package model_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// rewrite copies the tiny-llama3 fixture into a new directory, editing its config and tensors.
func rewrite(t *testing.T, editCfg func(map[string]any), editTensors func([]backend.Host) []backend.Host) string {
	t.Helper()
	src := testutil.Fixture(t, "models/tiny-llama3")
	arch, err := safetensors.OpenDir(src)
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	var ts []backend.Host
	for _, n := range arch.Names() {
		h, _ := arch.Tensor(n)
		ts = append(ts, h)
	}
	dir := t.TempDir()
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), editTensors(ts), nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(src, "config.json"))
	var c map[string]any
	json.Unmarshal(b, &c)
	editCfg(c)
	b, _ = json.Marshal(c)
	os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644)
	return dir
}

func promptLogits(t *testing.T, dir string, ids []int) []float32 {
	t.Helper()
	b := cpu.New()
	defer b.Close()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cache, _ := m.NewCache(1, len(ids))
	s := model.Step{}
	for p, id := range ids {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	out, err := m.Forward(s, cache, len(ids))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestPhi3FusedEqualsLlama: Phi-3's fused qkv_proj / gate_up_proj, split by rows, give exactly the Llama
// forward of the unfused weights (the rope and norms being the same).
func TestPhi3FusedEqualsLlama(t *testing.T) {
	g, ref := readGolden(t, testutil.Fixture(t, "models/tiny-llama3"))
	fused := rewrite(t, func(c map[string]any) { c["model_type"] = "phi3" }, func(ts []backend.Host) []backend.Host {
		byName := map[string]backend.Host{}
		var out []backend.Host
		for _, h := range ts {
			byName[h.Name] = h
		}
		concat := func(name string, parts ...string) backend.Host {
			h := backend.Host{Name: name, DType: byName[parts[0]].DType, Shape: []int{0, byName[parts[0]].Shape[1]}}
			for _, p := range parts {
				h.Data = append(h.Data, byName[p].Data...)
				h.Shape[0] += byName[p].Shape[0]
			}
			return h
		}
		for _, h := range ts {
			switch {
			case strings.HasSuffix(h.Name, "q_proj.weight"):
				p := strings.TrimSuffix(h.Name, "q_proj.weight")
				out = append(out, concat(p+"qkv_proj.weight", p+"q_proj.weight", p+"k_proj.weight", p+"v_proj.weight"))
			case strings.HasSuffix(h.Name, "gate_proj.weight"):
				p := strings.TrimSuffix(h.Name, "gate_proj.weight")
				out = append(out, concat(p+"gate_up_proj.weight", p+"gate_proj.weight", p+"up_proj.weight"))
			case strings.HasSuffix(h.Name, "k_proj.weight"), strings.HasSuffix(h.Name, "v_proj.weight"), strings.HasSuffix(h.Name, "up_proj.weight"):
			default:
				out = append(out, h)
			}
		}
		return out
	})
	got := promptLogits(t, fused, g.PromptIDs)
	if d := maxDiff(got, ref); d > 1e-4*4 {
		t.Errorf("phi3 (fused) logits differ from the llama golden by %.3g", d)
	}
}

// TestSmolLM3NoPE: with no_rope_layers all 1 SmolLM3 is Llama; marking a layer NoPE changes the logits.
func TestSmolLM3NoPE(t *testing.T) {
	g, ref := readGolden(t, testutil.Fixture(t, "models/tiny-llama3"))
	keep := func(ts []backend.Host) []backend.Host { return ts }
	allRope := rewrite(t, func(c map[string]any) { c["model_type"] = "smollm3"; c["no_rope_layers"] = []int{1, 1} }, keep)
	if d := maxDiff(promptLogits(t, allRope, g.PromptIDs), ref); d > 4e-4 {
		t.Errorf("smollm3 with rope on every layer differs from the llama golden by %.3g", d)
	}
	nope := rewrite(t, func(c map[string]any) { c["model_type"] = "smollm3"; c["no_rope_layers"] = []int{1, 0} }, keep)
	if d := maxDiff(promptLogits(t, nope, g.PromptIDs), ref); d < 1e-2 {
		t.Errorf("a NoPE layer left the logits unchanged (max diff %.3g)", d)
	}
}
