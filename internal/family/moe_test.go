package family

import (
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/config"
)

func moeConfig(t *testing.T, modelType, extra string) (*config.Model, Family, error) {
	t.Helper()
	c, err := config.Parse([]byte(`{"model_type":"`+modelType+`","hidden_size":256,"intermediate_size":512,
		"num_hidden_layers":3,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":64,"vocab_size":1024,
		"num_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":128`+extra+`}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := For(c)
	return c, f, err
}

// TestMoEMaps: Qwen3-MoE's sparse and dense layers (mlp_only_layers), its router and expert stacks without a
// shared expert, plain-weight norms; the per-expert layout when the checkpoint holds it, and each family's MoE
// defaults.
func TestMoEMaps(t *testing.T) {
	c, f, err := moeConfig(t, "qwen3_moe", `,"mlp_only_layers":[1]`)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Tensors(c)
	modules := func(L Layer) []string {
		var out []string
		for _, l := range L.Linears {
			out = append(out, strings.SplitN(l.Path, ".", 4)[3])
		}
		return out
	}
	attn := []string{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj"}
	if got, want := modules(m.Layers[0]), append(slices.Clone(attn), "mlp.gate", "mlp.experts.gate_up_proj", "mlp.experts.down_proj"); !slices.Equal(got, want) {
		t.Errorf("sparse layer: %v, want %v", got, want)
	}
	if got, want := modules(m.Layers[1]), append(slices.Clone(attn), "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"); !slices.Equal(got, want) || m.Layers[1].Hybrid != nil {
		t.Errorf("dense layer: %v (hybrid %v), want %v", got, m.Layers[1].Hybrid, want)
	}
	L := m.Layers[2]
	if h := L.Hybrid; h == nil || !h.Sparse || h.DeltaNet != nil || h.Config.NormTopK || h.Config.SharedInter != 0 ||
		h.Config.DeltaLayers != 0 || L.QNorm == nil || L.QNorm.PlusOne || L.InNorm.PlusOne || !L.Rope {
		t.Errorf("layer 2: %+v", L)
	}
	for name, want := range map[string]Tensor{
		"model.layers.0.mlp.gate.weight":          {Kind: KindParam, Shape: []int{4, 256}, Axis: 1},
		"model.layers.0.mlp.experts.gate_up_proj": {Kind: KindWeight, Shape: []int{4, 256, 256}, Axis: 1},
		"model.layers.0.mlp.experts.down_proj":    {Kind: KindWeight, Shape: []int{4, 256, 128}, Axis: 1},
		"model.layers.1.mlp.down_proj.weight":     {Kind: KindWeight, Shape: []int{256, 512}},
	} {
		got, ok := m.Lookup(name)
		if !ok || got.Kind != want.Kind || !slices.Equal(got.Shape, want.Shape) || got.Axis != want.Axis {
			t.Errorf("%s: %+v %v, want %+v", name, got, ok, want)
		}
	}
	for _, absent := range []string{"model.layers.0.mlp.shared_expert_gate.weight", "model.layers.0.mlp.down_proj.weight",
		"model.layers.0.mlp.experts.0.gate_proj.weight"} {
		if _, ok := m.Lookup(absent); ok {
			t.Errorf("%s in the stacked map", absent)
		}
	}

	// The published layout: one module per expert, when the checkpoint holds layer 0's first expert so.
	has := func(n string) bool { return strings.HasPrefix(n, "model.layers.0.mlp.experts.0.") }
	pm := f.TensorsOf(c, has)
	var parts []string
	for _, l := range pm.Layers[0].Linears[5:] {
		parts = append(parts, l.Path[len("model.layers.0.mlp.experts."):]+"="+l.Parts[0].Slot.String())
		if l.Parts[0].Expert != int(l.Path[len("model.layers.0.mlp.experts.")]-'0') || l.Axis != 1 || l.Experts != 0 {
			t.Errorf("%s: %+v", l.Path, l)
		}
	}
	want := "0.gate_proj=expert_gate 0.up_proj=expert_up 0.down_proj=expert_down 1.gate_proj=expert_gate 1.up_proj=expert_up " +
		"1.down_proj=expert_down 2.gate_proj=expert_gate 2.up_proj=expert_up 2.down_proj=expert_down 3.gate_proj=expert_gate " +
		"3.up_proj=expert_up 3.down_proj=expert_down"
	if got := strings.Join(parts, " "); got != want {
		t.Errorf("per-expert layer 0:\n got %s\nwant %s", got, want)
	}
	if tt, ok := pm.Lookup("model.layers.0.mlp.experts.3.down_proj.weight"); !ok || tt.Kind != KindWeight || !slices.Equal(tt.Shape, []int{256, 128}) {
		t.Errorf("per-expert down_proj: %+v %v", tt, ok)
	}
	if _, ok := pm.Lookup("model.layers.2.mlp.experts.gate_up_proj"); !ok {
		t.Error("layer 2, stored stacked, lost its stack")
	}

	// Defaults: Qwen3-MoE's norm_topk_prob false, Qwen3-Next's true, Qwen3.5-MoE's always (it has no such key).
	for _, d := range []struct {
		keys  moeKeys
		extra string
		norm  bool
	}{{qwen3MoEKeys, ``, false}, {qwen3MoEKeys, `,"norm_topk_prob":true`, true}, {qwen3NextKeys, ``, true},
		{qwen3_5MoEKeys, `,"norm_topk_prob":false,"decoder_sparse_step":2,"mlp_only_layers":[0]`, true}} {
		c, _, _ := moeConfig(t, "qwen3_moe", d.extra)
		h, err := moeOf(c, d.keys)
		if err != nil || h.NormTopK != d.norm {
			t.Errorf("%+v %s: norm %v (%v), want %v", d.keys, d.extra, h.NormTopK, err, d.norm)
		}
		if d.keys.everyLayer && !slices.Equal(h.Sparse, []bool{true, true, true}) {
			t.Errorf("qwen3_5_moe sparse %v: every layer is", h.Sparse)
		}
	}
}

// TestMoEConfig: bad MoE keys fail For, naming the key; a dense layer needs intermediate_size.
func TestMoEConfig(t *testing.T) {
	for extra, msg := range map[string]string{
		`,"num_experts_per_tok":5`:     "want 1 ≤ top-k ≤ experts",
		`,"mlp_only_layers":[3]`:       "mlp_only_layers must be a list of layer indices below 3",
		`,"mlp_only_layers":"all"`:     "mlp_only_layers must be a list",
		`,"norm_topk_prob":1`:          "norm_topk_prob must be true or false",
		`,"decoder_sparse_step":-1`:    "decoder_sparse_step must be a non-negative integer",
		`,"moe_intermediate_size":0.5`: "moe_intermediate_size must be a non-negative integer",
		`,"num_local_experts":6`:       "num_experts 4 and num_local_experts 6 disagree",
		`,"num_local_experts":-2`:      "num_local_experts must be a non-negative integer",
	} {
		if _, _, err := moeConfig(t, "qwen3_moe", extra); err == nil || !strings.Contains(err.Error(), msg) ||
			!strings.HasPrefix(err.Error(), "config.json: qwen3_moe: ") {
			t.Errorf("%s: %v, want %q", extra, err, msg)
		}
	}
	// transformers 5 writes num_local_experts (the test's num_experts 4 agrees with it).
	if _, _, err := moeConfig(t, "qwen3_moe", `,"num_local_experts":4`); err != nil {
		t.Errorf("num_local_experts equal to num_experts: %v", err)
	}
	c, err := config.Parse([]byte(`{"model_type":"qwen3_moe","hidden_size":256,"num_hidden_layers":2,"num_attention_heads":4,
		"vocab_size":1024,"num_experts":4,"moe_intermediate_size":128,"num_experts_per_tok":2,"mlp_only_layers":[1]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := For(c); err == nil || !strings.Contains(err.Error(), "no intermediate_size, and layer 1 has a dense MLP") {
		t.Errorf("dense layer without intermediate_size: %v", err)
	}
}
