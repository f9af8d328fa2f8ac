package family

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

func fixtureMap(t *testing.T, name string) (*config.Model, *Map) {
	t.Helper()
	// config.json read here, not through modeldir (which imports this package to name an unknown model_type).
	raw, err := os.ReadFile(filepath.Join(testutil.Fixture(t, name), config.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := For(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, f.Tensors(c)
}

// TestGemma2Map: alternating sliding/global layers, query_pre_attn_scalar's scale, both softcaps, the sandwich
// norms with pre_feedforward_layernorm before the MLP, the config's own rope.
func TestGemma2Map(t *testing.T) {
	_, m := fixtureMap(t, "models/tiny-gemma2")
	for i, L := range m.Layers {
		a := L.Attn
		if want := 8 * (1 - i%2); a.Window != want || a.Scale != 0.125 || a.Softcap != 50 || a.KVFrom != i || a.Rope != nil || a.HeadDim != 64 {
			t.Errorf("layer %d: %+v, want window %d, scale 1/8, softcap 50", i, a, want)
		}
		if L.PostNorm.Name != "model.layers."+string(rune('0'+i))+".pre_feedforward_layernorm.weight" || L.AttnOutNorm == nil || L.MLPOutNorm == nil || L.QNorm != nil {
			t.Errorf("layer %d norms: %+v", i, L)
		}
	}
	if m.FinalSoftcap != 30 || m.Inputs != nil {
		t.Errorf("final softcap %v, inputs %v", m.FinalSoftcap, m.Inputs)
	}
	if tt, ok := m.Lookup("model.layers.3.post_feedforward_layernorm.weight"); !ok || tt.Kind != KindNorm {
		t.Errorf("post_feedforward_layernorm: %+v %v", tt, ok)
	}
}

// TestGemma3Map: five sliding layers per global one, local rope base 10k and global 1M (HF 5's rope_parameters by
// layer type, and the older rope_local_base_freq / sliding_window_pattern spelling), q/k norms, no softcaps.
func TestGemma3Map(t *testing.T) {
	c, m := fixtureMap(t, "models/tiny-gemma3")
	check := func(what string, m *Map) {
		for i, L := range m.Layers {
			a, global := L.Attn, i == 5
			theta, window := 10000.0, 8
			if global {
				theta, window = 1e6, 0
			}
			if a.Window != window || a.Rope == nil || a.Rope.Theta != theta || a.Rope.Dims != 64 || a.Rope.Scaling != nil || a.Softcap != 0 || a.Scale != 0.125 {
				t.Errorf("%s layer %d: %+v rope %+v", what, i, a, a.Rope)
			}
			if L.QNorm == nil || L.KNorm == nil {
				t.Errorf("%s layer %d: no q/k norm", what, i)
			}
		}
		if m.FinalSoftcap != 0 {
			t.Errorf("%s: final softcap %v", what, m.FinalSoftcap)
		}
	}
	check("rope_parameters", m)
	old := map[string]any{}
	for k, v := range c.Raw {
		old[k] = v
	}
	delete(old, "layer_types")
	delete(old, "rope_parameters")
	delete(old, "_sliding_window_pattern")
	old["sliding_window_pattern"], old["rope_theta"], old["rope_local_base_freq"] = 6.0, 1e6, 10000.0
	oc := reparse(t, old)
	f, _ := For(oc)
	check("rope_local_base_freq", f.Tensors(oc))
}

func reparse(t *testing.T, raw map[string]any) *config.Model {
	t.Helper()
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGemma4Map: wider heads on the global layer (per_layer_config) with proportional rope over the whole head,
// scale 1, the weightless v norm, layer scalars, per-layer inputs kept unquantized (the table a table), and the
// final softcap.
func TestGemma4Map(t *testing.T) {
	c, m := fixtureMap(t, "models/tiny-gemma4")
	g := m.Layers[5].Attn
	if g.HeadDim != 128 || g.Heads != 4 || g.KVHeads != 2 || g.Window != 0 || g.Scale != 1 || g.Rope.Dims != 128 || g.Rope.Theta != 1e6 ||
		g.Rope.Scaling["rope_type"] != "proportional" || g.Rope.Scaling["partial_rotary_factor"] != 0.25 {
		t.Errorf("global layer: %+v rope %+v", g, g.Rope)
	}
	if l := m.Layers[0].Attn; l.HeadDim != 64 || l.Window != 8 || l.Rope.Dims != 64 || l.Rope.Theta != 10000 || l.Rope.Scaling != nil {
		t.Errorf("sliding layer: %+v rope %+v", l, l.Rope)
	}
	L := m.Layers[5]
	if q := L.Linears[0]; q.Out != 512 || q.In != 256 || L.QNorm.Shape[0] != 128 || !L.VNorm || L.Scalar == nil || L.Input == nil {
		t.Errorf("layer 5: %+v", L)
	}
	if m.FinalSoftcap != 30 || m.Inputs == nil || m.Inputs.Dim != 32 || len(m.Inputs.Proj.Parts) != 6 {
		t.Fatalf("final softcap %v, inputs %+v", m.FinalSoftcap, m.Inputs)
	}
	for name, want := range map[string]Kind{
		"model.embed_tokens_per_layer.weight":             KindTable,
		"model.per_layer_model_projection.weight":         KindParam,
		"model.layers.2.per_layer_input_gate.weight":      KindParam,
		"model.layers.2.per_layer_projection.weight":      KindParam,
		"model.layers.2.post_per_layer_input_norm.weight": KindNorm,
		"model.layers.2.layer_scalar":                     KindNorm,
		"model.per_layer_projection_norm.weight":          KindNorm,
		"model.layers.5.self_attn.o_proj.weight":          KindWeight,
	} {
		if got, ok := m.Lookup(name); !ok || got.Kind != want {
			t.Errorf("%s: %+v %v, want kind %d", name, got, ok, want)
		}
	}
	if _, ok := m.Lookup("model.per_layer_model_projection.bias"); ok {
		t.Error("a side projection has a bias entry")
	}
	if n := len(m.SideLinears()); n != 2*c.NumLayers+1 {
		t.Errorf("%d side linears, want %d", n, 2*c.NumLayers+1)
	}
}

// TestGemma4KVSharing: the last num_kv_shared_layers layers read the last earlier layer of their type and store
// no k_proj, v_proj or k_norm; attention_k_eq_v drops the global layers' v_proj; the double-wide MLP doubles
// the sharing layers' intermediate size.
func TestGemma4KVSharing(t *testing.T) {
	c, _ := fixtureMap(t, "models/tiny-gemma4")
	raw := map[string]any{}
	for k, v := range c.Raw {
		raw[k] = v
	}
	raw["layer_types"] = []any{"sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"}
	raw["per_layer_config"] = map[string]any{"1": map[string]any{"head_dim": 128.0}, "5": map[string]any{"head_dim": 128.0}}
	raw["num_kv_shared_layers"], raw["use_double_wide_mlp"], raw["attention_k_eq_v"] = 3.0, true, true
	sc := reparse(t, raw)
	f, err := For(sc)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Tensors(sc)
	for i, want := range []int{0, 1, 2, 2, 2, 1} {
		L := m.Layers[i]
		if L.Attn.KVFrom != want {
			t.Errorf("layer %d reads layer %d's keys and values, want %d", i, L.Attn.KVFrom, want)
		}
		var paths []string
		for _, l := range L.Linears {
			paths = append(paths, l.Path[strings.LastIndex(l.Path, ".")+1:])
			if l.Path[strings.LastIndex(l.Path, ".")+1:] == "gate_proj" && (l.Out == 1024) != (i >= 3) {
				t.Errorf("layer %d gate_proj %d wide", i, l.Out)
			}
		}
		want := []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
		switch {
		case i >= 3:
			want = slices.Delete(want, 1, 3)
		case i == 1:
			want = slices.Delete(want, 2, 3)
		}
		if !slices.Equal(paths, want) || (L.KNorm == nil) != (i >= 3) {
			t.Errorf("layer %d stores %v (k_norm %v), want %v", i, paths, L.KNorm != nil, want)
		}
	}
	if !m.Dropped("model.layers.4.self_attn.k_proj.weight") || m.Dropped("model.layers.2.self_attn.k_proj.weight") {
		t.Error("a KV-sharing layer's k_proj is not dropped, or a layer's own is")
	}
	raw["num_kv_shared_layers"] = 5.0 // layer 1 (global) reads layer 0: no earlier global layer
	if _, err := For(reparse(t, raw)); err == nil {
		t.Error("layer 1 shares the keys and values of a layer of another type")
	}
}

// TestGemmaChecks: what the forward pass does not implement is refused at For.
func TestGemmaChecks(t *testing.T) {
	c, _ := fixtureMap(t, "models/tiny-gemma4")
	for name, edit := range map[string]func(map[string]any){
		"moe":             func(r map[string]any) { r["enable_moe_block"] = true },
		"erf gelu":        func(r map[string]any) { r["hidden_activation"] = "gelu" },
		"layer types":     func(r map[string]any) { r["layer_types"] = []any{"sliding_attention"} },
		"no window":       func(r map[string]any) { delete(r, "sliding_window") },
		"bidirectional":   func(r map[string]any) { r["use_bidirectional_attention"] = "all" },
		"per-layer vocab": func(r map[string]any) { r["vocab_size_per_layer_input"] = 512.0 },
		"per-layer key":   func(r map[string]any) { r["per_layer_config"] = map[string]any{"six": map[string]any{}} },
	} {
		raw := map[string]any{}
		for k, v := range c.Raw {
			raw[k] = v
		}
		edit(raw)
		if _, err := For(reparse(t, raw)); err == nil || (name == "moe" && !errors.Is(err, errGemma)) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The published Gemma 4 configs say "vision": bidirectional among image tokens only, so text stays causal.
	raw := map[string]any{}
	for k, v := range c.Raw {
		raw[k] = v
	}
	raw["use_bidirectional_attention"] = "vision"
	if _, err := For(reparse(t, raw)); err != nil {
		t.Errorf("use_bidirectional_attention \"vision\": %v", err)
	}
}
