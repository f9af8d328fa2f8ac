// The geometry records quantize writes, end to end: every coded tensor's record is in the shard that holds its
// codes, the model loads, and a config.json edited after quantizing (the default L or group size, a per-path
// axis or bits) is refused naming the tensor and the field; the same artifact with its records stripped (as
// written before records existed) loads again.
package quantize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// editQuant rewrites dir's config.json with edit applied to its quantization block.
func editQuant(t *testing.T, dir string, edit func(q map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	edit(cfg["quantization"].(map[string]any))
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the model directory src (flat) to a new one.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
	}
	return dst
}

func TestGeometryRecords(t *testing.T) {
	in := small(backend.BF16).write(t)
	out := filepath.Join(t.TempDir(), "q2")
	rep, err := Run(in, out, cheap(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Open(filepath.Join(out, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	meta := f.Metadata()
	var coded []string
	for _, r := range rep.Tensors {
		if r.Spec.Mode != "trellis" {
			continue
		}
		name := r.Name + ".weight"
		coded = append(coded, name)
		words, _ := f.Tensor(name)
		spec := trellis.Spec{K: r.Spec.Bits, L: r.Spec.Trellis.L, T: r.Spec.GroupSize, Code: r.Spec.Trellis.Code, Axis: r.Spec.Trellis.Axis}
		if err := trellis.CheckRecord(meta[trellis.RecordKey(name)], spec, words.Shape); err != nil {
			t.Errorf("%s: %v (record %q)", name, err, meta[trellis.RecordKey(name)])
		}
	}
	f.Close()
	if len(coded) != 7 {
		t.Fatalf("coded tensors %v", coded)
	}
	load := func(dir string) error {
		m, err := model.Load(dir, cpu.New())
		if err == nil {
			m.Close()
		}
		return err
	}
	if err := load(out); err != nil {
		t.Fatalf("the written model does not load: %v", err)
	}
	q := "model.layers.0."
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want []string
	}{
		{"default L", func(b map[string]any) { b["trellis"].(map[string]any)["L"] = 8 }, []string{q + "self_attn.q_proj.weight", "trellis.L 8", "written with 6"}},
		{"default group size", func(b map[string]any) { b["group_size"] = 32 }, []string{q + "self_attn.q_proj.weight", "group_size 32", "written with 64"}},
		{"per-path L", func(b map[string]any) {
			b[q+"mlp.down_proj"].(map[string]any)["trellis"].(map[string]any)["L"] = 7
		}, []string{q + "mlp.down_proj.weight", "trellis.L 7"}},
		{"per-path axis", func(b map[string]any) {
			b[q+"mlp.down_proj"].(map[string]any)["trellis"].(map[string]any)["axis"] = 1
		}, []string{q + "mlp.down_proj.weight"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, out)
			editQuant(t, dir, c.edit)
			err := limit.Within(t, limit.Acceptance, func() error { return load(dir) })
			limit.OneLine(t, err, c.want...)
		})
	}
	// Without records (an artifact from before them) the unedited model loads, and an L edit goes unnoticed:
	// that is what the record is for.
	old := copyDir(t, out)
	a, _ := safetensors.Open(filepath.Join(out, "model.safetensors"))
	var hs []backend.Host
	for _, n := range a.Names() {
		h, _ := a.Tensor(n)
		hs = append(hs, h)
	}
	if err := safetensors.WriteFile(filepath.Join(old, "model.safetensors"), hs, map[string]string{"format": "mlx"}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if err := load(old); err != nil {
		t.Fatalf("an artifact without records does not load: %v", err)
	}
	editQuant(t, old, func(b map[string]any) { b["trellis"].(map[string]any)["L"] = 8 })
	if err := load(old); err != nil && strings.Contains(err.Error(), "written with") {
		t.Fatalf("an artifact without records was refused by a record: %v", err)
	}
}
