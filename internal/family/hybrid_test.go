package family

import (
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/config"
)

// hybridConfig is the tiny fixtures' shape: 3 DeltaNet layers and one attention layer, 2 key heads of 32, 4 value
// heads of 32, conv kernel 4; qwen3_next adds 4 experts (top 2) of 128 and a shared expert of 128.
func hybridConfig(t *testing.T, modelType, extra string) (*config.Model, Family, error) {
	t.Helper()
	c, err := config.Parse([]byte(`{"model_type":"`+modelType+`","hidden_size":256,"intermediate_size":512,
		"num_hidden_layers":4,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":64,"vocab_size":1024,
		"linear_num_key_heads":2,"linear_num_value_heads":4,"linear_key_head_dim":32,"linear_value_head_dim":32,
		"linear_conv_kernel_dim":4,"num_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":128,
		"shared_expert_intermediate_size":128`+extra+`}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := For(c)
	return c, f, err
}

// TestHybridMaps: layer kinds from full_attention_interval, each kind's modules, parts and regrouping, and what
// Lookup says of the tensors the quantizer must code (projections, experts) or keep (small gates, conv, A_log).
func TestHybridMaps(t *testing.T) {
	for _, typ := range []string{"qwen3_5_text", "qwen3_next"} {
		c, f, err := hybridConfig(t, typ, "")
		if err != nil {
			t.Fatal(err)
		}
		m := f.Tensors(c)
		next := typ == "qwen3_next"
		for i, L := range m.Layers {
			if (L.Hybrid.DeltaNet != nil) != (i != 3) || L.Rope != (i == 3) || (L.QNorm != nil) != (i == 3) || L.Hybrid.Sparse != next {
				t.Errorf("%s layer %d: deltanet %v rope %v sparse %v", typ, i, L.Hybrid.DeltaNet != nil, L.Rope, L.Hybrid.Sparse)
			}
			if !L.InNorm.PlusOne || !L.PostNorm.PlusOne {
				t.Errorf("%s layer %d: norms not (1+w)", typ, i)
			}
		}
		if !m.Norm.PlusOne || m.Embed.PlusOne || !m.Layers[3].QNorm.PlusOne || m.Layers[0].Hybrid.DeltaNet.Norm.PlusOne {
			t.Errorf("%s: (1+w) flags: final %v embed %v q_norm %v gated %v", typ, m.Norm.PlusOne, m.Embed.PlusOne,
				m.Layers[3].QNorm.PlusOne, m.Layers[0].Hybrid.DeltaNet.Norm.PlusOne)
		}
		q := m.Layers[3].Linears[0]
		if q.Path != "model.layers.3.self_attn.q_proj" || q.Out != 512 || q.Parts[1].Slot != AttnGate ||
			!slices.Equal(q.Regroup(), [][2]int{{0, 64}, {128, 64}, {256, 64}, {384, 64}, {64, 64}, {192, 64}, {320, 64}, {448, 64}}) {
			t.Errorf("%s q_proj %+v regroup %v", typ, q, q.Regroup())
		}
		var slots []string
		for _, l := range m.Layers[0].Linears {
			for k, p := range l.Parts {
				if p.Expert == 0 {
					slots = append(slots, l.PartName(k)[len("model.layers.0."):]+"="+p.Slot.String())
				}
			}
		}
		want := "linear_attn.in_proj_qkv=deltanet_qkv linear_attn.in_proj_z=deltanet_z linear_attn.in_proj_b=deltanet_b " +
			"linear_attn.in_proj_a=deltanet_a linear_attn.out_proj=deltanet_out mlp.gate_proj=gate mlp.up_proj=up mlp.down_proj=down"
		if next {
			want = "linear_attn.in_proj_qkvz[0:256]=deltanet_qkv linear_attn.in_proj_qkvz[256:384]=deltanet_z " +
				"linear_attn.in_proj_ba[0:4]=deltanet_b linear_attn.in_proj_ba[4:8]=deltanet_a linear_attn.out_proj=deltanet_out " +
				"mlp.gate=router mlp.experts.gate_up_proj[0:128]=expert_gate mlp.experts.gate_up_proj[128:256]=expert_up " +
				"mlp.experts.down_proj[0:256]=expert_down mlp.shared_expert.gate_proj=shared_gate mlp.shared_expert.up_proj=shared_up " +
				"mlp.shared_expert.down_proj=shared_down mlp.shared_expert_gate=shared_expert_gate"
			// in_proj_qkvz per key head: q 32, k 32, v 64, z 64 (two value heads each).
			qkvz := m.Layers[0].Linears[0]
			if got := qkvz.Regroup(); !slices.Equal(got, [][2]int{{0, 32}, {192, 32}, {32, 32}, {224, 32}, {64, 64}, {256, 64}, {128, 64}, {320, 64}}) {
				t.Errorf("in_proj_qkvz regroup %v", got)
			}
		}
		if got := strings.Join(slots, " "); got != want {
			t.Errorf("%s layer 0:\n got %s\nwant %s", typ, got, want)
		}
		p := "model.layers.0."
		kinds := map[string]Tensor{
			p + "linear_attn.A_log":                  {Kind: KindParam, Shape: []int{4}},
			p + "linear_attn.conv1d.weight":          {Kind: KindParam, Shape: []int{256, 1, 4}},
			p + "linear_attn.norm.weight":            {Kind: KindParam, Shape: []int{32}},
			p + "linear_attn.out_proj.weight":        {Kind: KindWeight, Shape: []int{256, 128}, Axis: 1},
			"model.layers.3.self_attn.q_proj.weight": {Kind: KindWeight, Shape: []int{512, 256}, Axis: 1},
		}
		if next {
			kinds[p+"linear_attn.in_proj_ba.weight"] = Tensor{Kind: KindParam, Shape: []int{8, 256}, Axis: 1}
			kinds[p+"mlp.gate.weight"] = Tensor{Kind: KindParam, Shape: []int{4, 256}, Axis: 1}
			kinds[p+"mlp.shared_expert_gate.weight"] = Tensor{Kind: KindParam, Shape: []int{1, 256}, Axis: 1}
			kinds[p+"mlp.experts.gate_up_proj"] = Tensor{Kind: KindWeight, Shape: []int{4, 256, 256}, Axis: 1}
			kinds[p+"mlp.experts.down_proj"] = Tensor{Kind: KindWeight, Shape: []int{4, 256, 128}, Axis: 1}
			kinds[p+"mlp.shared_expert.down_proj.weight"] = Tensor{Kind: KindWeight, Shape: []int{256, 128}}
		} else {
			kinds[p+"linear_attn.in_proj_b.weight"] = Tensor{Kind: KindParam, Shape: []int{4, 256}, Axis: 1}
			kinds[p+"linear_attn.in_proj_qkv.weight"] = Tensor{Kind: KindWeight, Shape: []int{256, 256}, Axis: 1}
		}
		for name, want := range kinds {
			got, ok := m.Lookup(name)
			if !ok || got.Kind != want.Kind || !slices.Equal(got.Shape, want.Shape) || got.Axis != want.Axis {
				t.Errorf("%s %s: %+v %v, want %+v", typ, name, got, ok, want)
			}
		}
		if _, ok := m.Lookup(p + "self_attn.q_proj.weight"); ok {
			t.Errorf("%s: a DeltaNet layer has q_proj", typ)
		}
		if !Dropped("mtp.layers.0.mlp.experts.gate_up_proj") {
			t.Error("the multi-token-prediction head is not dropped")
		}
	}
}

// TestHybridConfig: layer_types wins over the interval; bad hybrid keys fail For, naming the key.
func TestHybridConfig(t *testing.T) {
	c, _, err := hybridConfig(t, "qwen3_next", `,"layer_types":["full_attention","linear_attention","linear_attention","full_attention"],"mlp_only_layers":[1]`)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hybridOf(c, &qwen3NextKeys)
	if !slices.Equal(h.DeltaNet, []bool{false, true, true, false}) || !slices.Equal(h.Sparse, []bool{true, false, true, true}) ||
		h.DeltaLayers != 2 || h.AttnLayers != 2 || h.ConvDim != 256 || !h.NormTopK {
		t.Errorf("%+v", h)
	}
	for extra, msg := range map[string]string{
		`,"layer_types":["full_attention"]`:             "layer_types has 1 entries for 4 layers",
		`,"linear_num_value_heads":3`:                   "not a multiple of linear_num_key_heads",
		`,"num_experts_per_tok":5`:                      "want 1 ≤ top-k ≤ experts",
		`,"linear_key_head_dim":1.5`:                    "linear_key_head_dim must be a non-negative integer",
		`,"attn_output_gate":false`:                     "attn_output_gate false",
		`,"layer_types":["x","x","x","full_attention"]`: `layer_types[0] is "x"`,
	} {
		if _, _, err := hybridConfig(t, "qwen3_next", extra); err == nil || !strings.Contains(err.Error(), msg) ||
			!strings.HasPrefix(err.Error(), "config.json: qwen3_next: ") {
			t.Errorf("%s: %v, want %q", extra, err, msg)
		}
	}
}
