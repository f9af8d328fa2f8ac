// Test of WriteSynthetic on the scaled-down Qwen3-14B preset: the checkpoint it writes (several shards and an
// index) opens as a model directory whose every tensor is the synthetic source's, byte for byte, and whose model
// gives the in-memory synthetic model's logits; an existing directory is refused.
package model

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

func TestWriteSynthetic(t *testing.T) {
	raw, err := scaledDown("qwen3-14b")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "q14")
	total, err := writeSynthetic("qwen3-14b", raw, 7, dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeSynthetic("qwen3-14b", raw, 7, dir, 1<<20); err == nil {
		t.Error("writing over an existing directory: no error")
	}
	d, err := modeldir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	arch, err := d.Weights()
	if err != nil {
		t.Fatal(err)
	}
	scfg, src, err := syntheticSource(raw, trellis.Spec{}, false, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := src.(*randomSource)
	files, _ := filepath.Glob(filepath.Join(dir, "model-*.safetensors"))
	var sum int64
	for _, n := range r.Names() {
		want, _ := r.Tensor(n)
		got, err := arch.Tensor(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if got.DType != want.DType || !slices.Equal(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("%s: written %s %v differs from the source's %s %v", n, got.DType, got.Shape, want.DType, want.Shape)
		}
		sum += int64(len(want.Data))
	}
	if sum != total || len(files) < 2 {
		t.Errorf("%d bytes in %d shards, want %d bytes in several", total, len(files), sum)
	}
	b := cpu.New()
	a, err := LoadFrom(cfg, arch, b)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	m, err := LoadFrom(scfg, src, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	step := Step{IDs: []int32{1, 5, 9}, Seq: []int32{0, 0, 0}, Pos: []int32{0, 1, 2}}
	var logits [2][]float32
	for i, x := range []*Model{a, m} {
		c, err := x.NewCache(1, 8)
		if err != nil {
			t.Fatal(err)
		}
		l, err := x.Forward(step, c, 1)
		if err != nil {
			t.Fatal(err)
		}
		logits[i] = slices.Clone(l)
		x.ReleaseCache(c)
	}
	if !slices.Equal(logits[0], logits[1]) {
		t.Error("the written checkpoint's logits differ from the synthetic model's")
	}
}
