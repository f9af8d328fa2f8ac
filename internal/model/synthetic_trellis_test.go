package model

import (
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// TestSyntheticTrellis: the config codes every projection (down_proj along axis 0), the source stores them as
// mlxbun quantize does (the 3-bit interleave for down_proj). (Binding the whole model is bench's job: the 0.6B
// vocabulary alone is 155M embedding values to generate.)
func TestSyntheticTrellis(t *testing.T) {
	cfg, err := SyntheticTrellisConfig("qwen3-0.6b", 3)
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := cfg.Quant.For("model.layers.3.mlp.down_proj"); !ok || q.Trellis == nil || q.Trellis.Axis != 0 || q.Bits != 3 {
		t.Fatalf("down_proj spec %+v", q)
	}
	if q, ok := cfg.Quant.For("model.layers.3.self_attn.k_proj"); !ok || q.Trellis == nil || q.Trellis.Axis != 1 {
		t.Fatalf("k_proj spec %+v", q)
	}
	if _, ok := cfg.Quant.For("lm_head"); ok {
		t.Fatal("lm_head is quantized")
	}
	if _, err := SyntheticTrellisConfig("qwen3-0.6b", 9); err == nil {
		t.Error("9-bit codes: want an error")
	}
	src := &trellisSource{randomSource: randomSource{cfg: cfg, seed: 1}, bits: 3}
	for name, want := range map[string][]int{
		"model.layers.0.mlp.down_proj.weight":     {2, 3072, 48},
		"model.layers.0.mlp.down_proj.scales":     {3072},
		"model.layers.0.self_attn.q_proj.weight":  {2048, 96},
		"model.layers.0.self_attn.q_norm.weight":  {128},
		"model.layers.27.mlp.gate_proj.scales":    {3072},
		"model.layers.27.self_attn.o_proj.weight": {1024, 192},
	} {
		hd, err := src.Header(name)
		if err != nil || !slices.Equal(hd.Shape, want) {
			t.Errorf("%s: header %v, %v; want %v", name, hd.Shape, err, want)
		}
		h, err := src.Tensor(name)
		if err != nil || !slices.Equal(h.Shape, want) || len(h.Data) != h.Elements()*h.DType.Size() {
			t.Errorf("%s: %v %v (%d bytes), want %v", name, h.DType, h.Shape, len(h.Data), want)
		}
		if !src.Has(name) {
			t.Errorf("Has(%s) = false", name)
		}
	}
	if src.Has("model.layers.0.mlp.down_proj.bias") || src.Has("lm_head.scales") {
		t.Error("the source answers a bias or lm_head scales")
	}
	if h, _ := src.Tensor("model.layers.0.self_attn.k_proj.weight"); h.DType != backend.U32 {
		t.Errorf("codes dtype %s", h.DType)
	}
}
