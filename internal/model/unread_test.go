package model_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// loadEdited loads tiny-qwen3 with its config.json edited, on the CPU.
func loadEdited(t *testing.T, edit func(map[string]any)) (*model.Model, error) {
	t.Helper()
	dir := testutil.Fixture(t, "models/tiny-qwen3")
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	edit(raw)
	b, _ = json.Marshal(raw)
	cfg, err := config.Parse(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := modeldir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	arch, err := d.Weights()
	if err != nil {
		t.Fatal(err)
	}
	be := cpu.New()
	t.Cleanup(func() { be.Close() })
	m, err := model.LoadFrom(cfg, arch, be)
	if m != nil {
		t.Cleanup(func() { m.Close() })
	}
	return m, err
}

// TestUnreadTensors: weights the config would not read are an error naming them: the layers past
// num_hidden_layers, and another family's layout (tiny-qwen3's q/k norms under model_type qwen2). The config as
// published loads.
func TestUnreadTensors(t *testing.T) {
	if _, err := loadEdited(t, func(map[string]any) {}); err != nil {
		t.Fatalf("the fixture as published: %v", err)
	}
	_, err := loadEdited(t, func(r map[string]any) { r["num_hidden_layers"] = 1.0; delete(r, "layer_types") })
	if err == nil || !strings.Contains(err.Error(), "num_hidden_layers is 1, but the weights hold layers up to 1 (tensors model.layers.1.") {
		t.Errorf("one layer of two: %v", err)
	}
	_, err = loadEdited(t, func(r map[string]any) { r["model_type"] = "qwen2" })
	if err == nil || !strings.Contains(err.Error(), "model.layers.0.self_attn.k_norm.weight") || !strings.Contains(err.Error(), "qwen2 model") {
		t.Errorf("a qwen3 checkpoint read as qwen2: %v", err)
	}
}

// TestGeneratePromptIDRange: a prompt id is checked in full width, so 2³²+100 is refused, not run as id 100.
func TestGeneratePromptIDRange(t *testing.T) {
	m, err := loadEdited(t, func(map[string]any) {})
	if err != nil {
		t.Fatal(err)
	}
	pick := pickerFunc(func([]float32) int { return 0 })
	for _, id := range []int{1<<32 + 100, m.Config.VocabSize, -1} {
		_, err := m.Generate([]int{1, id}, model.GenOptions{MaxTokens: 1, Picker: pick})
		if err == nil || !strings.Contains(err.Error(), "prompt token 1 is id") || !strings.Contains(err.Error(), "vocabulary of") {
			t.Errorf("id %d: %v", id, err)
		}
	}
}
