// Fuzz target for config.json and generation_config.json: any bytes give an error wrapping ErrInvalid or a Model
// whose every promise holds (sizes positive and bounded, heads a multiple of kv heads, rope numbers in range,
// ids non-negative, quantization specs within their limits), never a panic.
package config

import (
	"errors"
	"math"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

func FuzzConfig(f *testing.F) {
	f.Add([]byte("{"+base+"}"), []byte(nil))
	f.Add([]byte("{"+base+`,"rope_scaling":{"type":"yarn","factor":4,"rope_theta":5e5},"partial_rotary_factor":0.5,"no_rope_layers":[1,0]}`),
		[]byte(`{"bos_token_id":1,"eos_token_id":[2,3]}`))
	f.Add([]byte("{"+base+`,"quantization":{"bits":4,"group_size":64,"lm_head":false,"model.layers.0.mlp.down_proj":{"mode":"trellis","bits":3,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":1}}}}`),
		[]byte(`{}`))
	f.Add([]byte("{"+base+`,"quantization_config":{"quant_method":"gptq"}}`), []byte(`null`))
	f.Add([]byte(`{"hidden_size":1e300,"num_hidden_layers":-1}`), []byte(`[`))
	for _, dir := range []string{"models/tiny-llama3", "models/tiny-qwen2-yarn", "models/tiny-qwen3", "models/tiny-gemma3",
		"models/tiny-qwen3-next-moe", "trained/pycoder-12m"} {
		if b := testutil.FixtureBytes(f, dir+"/config.json"); b != nil {
			f.Add(b, testutil.FixtureBytes(f, dir+"/generation_config.json"))
		}
	}
	f.Fuzz(func(t *testing.T, cfg, gen []byte) {
		defer limit.Watch(t, limit.FuzzInput)()
		m, err := Parse(cfg, gen)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		for _, d := range []struct {
			name string
			v    int
			max  int
		}{
			{"hidden", m.HiddenSize, maxDim}, {"intermediate", m.IntermediateSize, maxDim}, {"layers", m.NumLayers, maxLayers},
			{"heads", m.NumHeads, maxDim}, {"kv heads", m.NumKVHeads, maxDim}, {"head_dim", m.HeadDim, maxDim},
			{"vocab", m.VocabSize, maxDim},
		} {
			if d.name == "intermediate" && d.v == 0 && m.Raw["intermediate_size"] == nil && m.Raw["moe_intermediate_size"] != nil {
				continue // a MoE config without dense MLPs (its moe_intermediate_size was checked positive)
			}
			if d.v < 1 || d.v > d.max {
				t.Fatalf("%s %d accepted (want 1..%d)", d.name, d.v, d.max)
			}
		}
		if m.NumHeads%m.NumKVHeads != 0 || m.MaxPositions < 0 {
			t.Fatalf("heads %d, kv heads %d, max positions %d accepted", m.NumHeads, m.NumKVHeads, m.MaxPositions)
		}
		for name, x := range map[string]float64{"rms_norm_eps": m.RMSNormEps, "rope_theta": m.RopeTheta, "partial_rotary_factor": m.PartialRotaryFactor} {
			if !(x > 0) || math.IsInf(x, 0) {
				t.Fatalf("%s %v accepted", name, x)
			}
		}
		if m.PartialRotaryFactor > 1 {
			t.Fatalf("partial_rotary_factor %v accepted", m.PartialRotaryFactor)
		}
		if m.NoRopeLayers != nil && len(m.NoRopeLayers) != m.NumLayers {
			t.Fatalf("%d no_rope_layers for %d layers accepted", len(m.NoRopeLayers), m.NumLayers)
		}
		for _, id := range append(append([]int(nil), m.BOS...), m.EOS...) {
			if id < 0 {
				t.Fatalf("token id %d accepted", id)
			}
		}
		if m.Raw == nil {
			t.Fatal("no Raw")
		}
		if m.Quant == nil {
			return
		}
		specs := map[string]QuantSpec{"default": m.Quant.Default}
		for p, s := range m.Quant.PerPath {
			specs[p] = s
		}
		for p, s := range specs {
			switch {
			case s.Bits < 1 || s.Bits > 8 || s.GroupSize < 1:
				t.Fatalf("%s: %+v accepted", p, s)
			case (s.Mode == "trellis") != (s.Trellis != nil) || (s.Mode != "trellis" && s.Mode != "affine"):
				t.Fatalf("%s: mode %q with trellis %+v accepted", p, s.Mode, s.Trellis)
			case s.Trellis != nil && (s.Trellis.L < s.Bits || s.Trellis.L > 32 || s.Trellis.Axis > 1 || s.Trellis.Axis < 0 ||
				s.GroupSize*s.Bits%32 != 0 || !trellisCodes[s.Trellis.Code]):
				t.Fatalf("%s: trellis %+v with %+v accepted", p, s.Trellis, s)
			}
			if got, ok := m.Quant.For(p); p != "default" && (!ok || got.Bits != s.Bits) {
				t.Fatalf("For(%q) = %+v, %v; want %+v", p, got, ok, s)
			}
		}
	})
}
