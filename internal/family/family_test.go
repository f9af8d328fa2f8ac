package family

import (
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/config"
)

func tiny(t *testing.T, modelType string) (*config.Model, Family) {
	t.Helper()
	c, err := config.Parse([]byte(`{"model_type":"`+modelType+`","hidden_size":256,"intermediate_size":768,
		"num_hidden_layers":2,"num_attention_heads":8,"num_key_value_heads":2,"head_dim":32,"vocab_size":2048,
		"sliding_window":16}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := For(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

// TestPhi3Map: the fused modules' parts, shapes and axes, and what Lookup says of each kind of tensor.
func TestPhi3Map(t *testing.T) {
	c, f := tiny(t, "phi3")
	m := f.Tensors(c)
	L := m.Layers[1]
	if len(L.Linears) != 4 || L.QNorm != nil || !L.Rope {
		t.Fatalf("layer 1: %+v", L)
	}
	qkv, gateUp, down := L.Linears[0], L.Linears[2], L.Linears[3]
	if qkv.Path != "model.layers.1.self_attn.qkv_proj" || qkv.Out != 384 || qkv.In != 256 || qkv.Axis != 1 ||
		qkv.PartName(2) != "model.layers.1.self_attn.qkv_proj[320:384]" {
		t.Errorf("qkv %+v", qkv)
	}
	if start, n := gateUp.RowRange(1); gateUp.Parts[0].Slot != Gate || start != 768 || n != 768 {
		t.Errorf("gate_up %+v", gateUp)
	}
	if down.Axis != 0 || down.Fused() || down.PartName(0) != "model.layers.1.mlp.down_proj" {
		t.Errorf("down %+v", down)
	}
	for name, want := range map[string]Tensor{
		"model.layers.1.self_attn.qkv_proj.weight": {Path: "model.layers.1.self_attn.qkv_proj", Kind: KindWeight, Shape: []int{384, 256}, Axis: 1},
		"model.layers.1.mlp.down_proj.weight":      {Path: "model.layers.1.mlp.down_proj", Kind: KindWeight, Shape: []int{256, 768}},
		"model.layers.0.mlp.gate_up_proj.bias":     {Path: "model.layers.0.mlp.gate_up_proj", Kind: KindBias, Shape: []int{1536}},
		"model.embed_tokens.weight":                {Path: "model.embed_tokens", Kind: KindTable, Shape: []int{2048, 256}},
		"lm_head.weight":                           {Path: "lm_head", Kind: KindTable, Shape: []int{2048, 256}, Axis: 1},
		"model.layers.0.input_layernorm.weight":    {Path: "model.layers.0.input_layernorm", Kind: KindNorm, Shape: []int{256}},
	} {
		got, ok := m.Lookup(name)
		if !ok || got.Path != want.Path || got.Kind != want.Kind || !slices.Equal(got.Shape, want.Shape) || got.Axis != want.Axis {
			t.Errorf("%s: %+v %v, want %+v", name, got, ok, want)
		}
	}
	for _, absent := range []string{"model.layers.0.self_attn.q_proj.weight", "model.layers.2.mlp.down_proj.weight", "lm_head.bias"} {
		if _, ok := m.Lookup(absent); ok {
			t.Errorf("%s found in a phi3 map", absent)
		}
	}
	has := func(n string) bool { return n == "lm_head.scales" }
	exl3 := func(n string) bool { return n == "lm_head.trellis" }
	if m.OutputHead(has).Path != "lm_head" || m.OutputHead(exl3).Path != "lm_head" || m.OutputHead(func(string) bool { return false }).Path != "model.embed_tokens" {
		t.Error("output head choice")
	}
	for want, names := range map[Storage][]string{StoredDense: {"lm_head.weight"}, StoredQuantized: {"lm_head.weight", "lm_head.scales"},
		StoredEXL3: {"lm_head.trellis", "lm_head.suh", "lm_head.svh"}} {
		if got := m.Head.Storage(func(n string) bool { return slices.Contains(names, n) }); got != want {
			t.Errorf("lm_head stored as %v: %v, want %v", names, got, want)
		}
	}
}

// TestEveryFamily: every registered family stores each slot once, with down_proj alone on axis 0.
func TestEveryFamily(t *testing.T) {
	for _, typ := range Known() {
		c, f := tiny(t, typ)
		if f.Layer != nil || typ == "qwen3_moe" {
			continue // layers of several kinds: TestHybridMaps, TestMoEMaps
		}
		m := f.Tensors(c)
		var slots []Slot
		for _, l := range m.Layers[0].Linears {
			for _, p := range l.Parts {
				slots = append(slots, p.Slot)
				if (p.Slot == Down) != (l.Axis == 0) {
					t.Errorf("%s: %s (%s) on axis %d", typ, l.Path, p.Slot, l.Axis)
				}
			}
		}
		slices.Sort(slots)
		if !slices.Equal(slots, []Slot{Q, K, V, O, Gate, Up, Down}) {
			t.Errorf("%s: slots %v", typ, slots)
		}
		if (m.Layers[0].QNorm != nil) != (typ == "qwen3" || typ == "gemma3_text" || typ == "gemma4_text") {
			t.Errorf("%s: q_norm %v", typ, m.Layers[0].QNorm)
		}
	}
}

func TestUnknownAndBadLayouts(t *testing.T) {
	c, _ := tiny(t, "llama")
	c.ModelType = "mamba"
	if _, err := For(c); err == nil || !strings.Contains(err.Error(), `config.json: model_type "mamba" is not a supported architecture (known: gemma2, gemma3_text, gemma4_text, llama, mistral, phi3, qwen2, qwen3, qwen3_5_moe_text, qwen3_5_text, qwen3_moe, qwen3_next, smollm3)`) {
		t.Errorf("unknown: %v", err)
	}
	c.ModelType = "" // a config.json without the key: said so, not as a model_type spelled ""
	if _, err := For(c); err == nil || !strings.Contains(err.Error(), "config.json: no model_type, so the architecture is unknown (known: gemma2,") {
		t.Errorf("no model_type: %v", err)
	}
	for name, p := range map[string][]Projection{
		"missing slot":  llamaProjections[1:],
		"mixed axes":    append([]Projection{{"x", []Slot{Up, Down}}}, llamaProjections[:5]...),
		"head in layer": append([]Projection{{"x", []Slot{Head}}}, llamaProjections...),
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			register(Family{Name: name, Projections: p})
		}()
	}
}
