package lora

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// targets are two modules of a 6→4 layer with rank 2 and distinct values everywhere.
func targets(scale float64) []Target {
	mk := func(off float32, rows, cols int) backend.Host {
		v := make([]float32, rows*cols)
		for i := range v {
			v[i] = off + float32(i)/8
		}
		return backend.HostF32("", v, rows, cols)
	}
	return []Target{
		{Module: "model.layers.0.self_attn.q_proj", A: mk(1, 2, 6), B: mk(-3, 4, 2), Scale: scale},
		{Module: "model.layers.1.mlp.down_proj", A: mk(5, 2, 6), B: mk(7, 4, 2), Scale: scale},
	}
}

// TestRoundTrip: both layouts read back the matrices written, in the [out, in] orientation, with the scale times
// the multiplier; PEFT's scale is lora_alpha / r as written.
func TestRoundTrip(t *testing.T) {
	for _, layout := range []Layout{PEFT, MLXLM} {
		t.Run(string(layout), func(t *testing.T) {
			dir := t.TempDir()
			want := targets(2.5)
			if err := Write(dir, layout, want); err != nil {
				t.Fatal(err)
			}
			a, err := Open(dir, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			if a.Layout != layout || len(a.Targets) != 2 {
				t.Fatalf("layout %s, %d targets", a.Layout, len(a.Targets))
			}
			for i, got := range a.Targets {
				w := want[i]
				if got.Module != w.Module || got.Scale != 1.25 || got.Rank() != 2 {
					t.Errorf("target %d: %s scale %g rank %d", i, got.Module, got.Scale, got.Rank())
				}
				for _, m := range []struct{ got, want backend.Host }{{got.A, w.A}, {got.B, w.B}} {
					g, _ := m.got.Float32s()
					v, _ := m.want.Float32s()
					if !slices.Equal(m.got.Shape, m.want.Shape) || !slices.Equal(g, v) {
						t.Errorf("%s: %v %v, want %v %v", got.Module, m.got.Shape, g, m.want.Shape, v)
					}
				}
			}
			if layout == MLXLM && !strings.HasSuffix(a.Targets[0].ATensor, ".lora_a") {
				t.Errorf("A tensor named %q", a.Targets[0].ATensor)
			}
		})
	}
}

// editConfig rewrites dir's adapter_config.json through edit.
func editConfig(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	edit(c)
	raw, _ = json.Marshal(c)
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPEFTScales: use_rslora scales by alpha/√r; rank_pattern and alpha_pattern override r and alpha for the
// modules their keys match as PEFT matches them (a trailing run of dotted components).
func TestPEFTScales(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, PEFT, targets(1)); err != nil {
		t.Fatal(err)
	}
	editConfig(t, dir, func(c map[string]any) {
		c["lora_alpha"], c["use_rslora"] = 8.0, true
		c["alpha_pattern"] = map[string]any{"layers.1.mlp.down_proj": 3.0}
	})
	a, err := Open(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Targets[0].Scale, 8/math.Sqrt(2); got != want {
		t.Errorf("rslora scale %g, want %g", got, want)
	}
	if got, want := a.Targets[1].Scale, 3/math.Sqrt(2); got != want {
		t.Errorf("alpha_pattern scale %g, want %g", got, want)
	}
	editConfig(t, dir, func(c map[string]any) { c["rank_pattern"] = map[string]any{"q_proj": 4} })
	if _, err := Open(dir, 1); err == nil || !strings.Contains(err.Error(), "lora_A.weight") || !strings.Contains(err.Error(), "r = 4") {
		t.Errorf("rank_pattern r = 4 against rank-2 matrices: %v", err)
	}
}

// TestOpenErrors: each malformed adapter is one error naming the file, tensor or setting at fault.
func TestOpenErrors(t *testing.T) {
	cases := []struct {
		name   string
		layout Layout
		edit   func(t *testing.T, dir string)
		want   []string
	}{
		{"no weights", PEFT, func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, PEFTWeights)) },
			[]string{PEFTWeights, MLXWeights}},
		{"no config", MLXLM, func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, ConfigFile)) },
			[]string{ConfigFile}},
		{"DoRA", PEFT, func(t *testing.T, dir string) { editConfig(t, dir, func(c map[string]any) { c["use_dora"] = true }) },
			[]string{"use_dora"}},
		{"mlx dora", MLXLM, func(t *testing.T, dir string) {
			editConfig(t, dir, func(c map[string]any) { c["fine_tune_type"] = "dora" })
		}, []string{`fine_tune_type "dora"`}},
		{"rank", MLXLM, func(t *testing.T, dir string) {
			editConfig(t, dir, func(c map[string]any) { c["lora_parameters"].(map[string]any)["rank"] = 3 })
		}, []string{"model.layers.0.self_attn.q_proj.lora_a", "rank 2", "rank = 3"}},
		{"target_modules", PEFT, func(t *testing.T, dir string) {
			editConfig(t, dir, func(c map[string]any) { c["target_modules"] = []string{"q_proj", "v_proj"} })
		}, []string{"base_model.model.model.layers.1.mlp.down_proj.lora_A.weight", "target_modules"}},
		{"foreign tensor", PEFT, func(t *testing.T, dir string) {
			addTensor(t, filepath.Join(dir, PEFTWeights), "base_model.model.model.layers.0.self_attn.q_proj.lora_magnitude_vector")
		}, []string{"lora_magnitude_vector", "not a LoRA matrix"}},
		{"missing B", MLXLM, func(t *testing.T, dir string) {
			addTensor(t, filepath.Join(dir, MLXWeights), "model.layers.0.mlp.up_proj.lora_a")
		}, []string{"model.layers.0.mlp.up_proj.lora_a", "no B matrix"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := Write(dir, c.layout, targets(1)); err != nil {
				t.Fatal(err)
			}
			c.edit(t, dir)
			_, err := Open(dir, 1)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name the adapter directory", err)
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "absent"), 1); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: %v", err)
	}
}

// addTensor rewrites the safetensors file at path with one more 2×6 f32 tensor named name.
func addTensor(t *testing.T, path, name string) {
	t.Helper()
	f, err := safetensors.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var hs []backend.Host
	for _, n := range f.Names() {
		h, _ := f.Tensor(n)
		h.Data = slices.Clone(h.Data)
		hs = append(hs, h)
	}
	f.Close()
	hs = append(hs, backend.HostF32(name, make([]float32, 12), 2, 6))
	if err := safetensors.WriteFile(path, hs, nil); err != nil {
		t.Fatal(err)
	}
}
