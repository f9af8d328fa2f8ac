// Tests of the synthetic presets built from the family tensor maps: the full presets' shapes and parameter counts
// against the published configs, and scaled-down presets run on the CPU at bf16 and 3 bits, their checkpoint
// as the loader and the quantizer see it.
package model_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// publishedParams are the model cards' totals (text model: no vision tower, no MTP head).
var publishedParams = map[string]float64{
	"qwen3-0.6b":  0.6e9,  // Qwen/Qwen3-0.6B: 0.6B
	"qwen3-8b":    8.2e9,  // Qwen/Qwen3-8B: 8.2B
	"qwen3-14b":   14.8e9, // Qwen/Qwen3-14B: 14.8B
	"gemma4-31b":  30.7e9, // google/gemma-4-31B: 30.7B
	"qwen3.5-27b": 27e9,   // Qwen/Qwen3.5-27B: 27B

	"qwen3-30b-a3b":      30.5e9, // Qwen/Qwen3-30B-A3B: 30.5B, 3.3B activated
	"qwen3-next-80b-a3b": 80e9,   // Qwen/Qwen3-Next-80B-A3B-Instruct: 80B, 3B activated (embeddings not counted)
}

// activeParams are the MoE presets' parameters a token computes with, worked out by hand from the published
// configs: every tensor but the experts, plus num_experts_per_tok experts a layer. Qwen3-30B-A3B: 48 layers ×
// (attention 2048·(4096+512+512) + 4096·2048 + router 128·2048 + 8 experts · 3·768·2048 + norms 2·2048 + 2·128)
// + embeddings and head 2·151936·2048 + final norm 2048 — the card's 3.3B. Qwen3-Next-80B-A3B: 36 DeltaNet layers ×
// (in_proj_qkvz 12288·2048 + in_proj_ba 64·2048 + conv 8192·4 + A_log, dt_bias 2·32 + norm 128 + out_proj
// 2048·4096) + 12 attention layers × (q_proj 8192·2048 + k, v 2·512·2048 + o_proj 2048·4096 + q/k norms 2·256)
// + 48 × (router 512·2048 + 10 experts · 3·512·2048 + shared expert 3·512·2048 + its gate 2048 + norms 2·2048)
// + 2·151936·2048 + 2048.
var activeParams = map[string]int64{
	"qwen3-30b-a3b": 48*(2048*(4096+512+512)+4096*2048+128*2048+8*3*768*2048+2*2048+2*128) + 2*151936*2048 + 2048,
	"qwen3-next-80b-a3b": 36*(12288*2048+64*2048+8192*4+2*32+128+2048*4096) + 12*(8192*2048+2*512*2048+2048*4096+2*256) +
		48*(512*2048+10*3*512*2048+3*512*2048+2048+2*2048) + 2*151936*2048 + 2048,
}

// TestSyntheticPresetSizes: every preset's parameter count is its published total within 1 %, bf16 stores two
// bytes a parameter, 3-bit codes store and read less, and the affine head saves exactly its share.
func TestSyntheticPresetSizes(t *testing.T) {
	if got := len(model.Presets()); got != len(publishedParams) {
		t.Fatalf("%d presets, %d published totals: every preset needs one", got, len(publishedParams))
	}
	for _, name := range model.Presets() {
		s, err := model.SyntheticStats(name, model.SyntheticQuant{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pub := publishedParams[name]
		t.Logf("%s: %.4f G params (published %.1f G), %.2f GB read per bf16 decode token", name, float64(s.Params)/1e9, pub/1e9, float64(s.DecodeBytes)/1e9)
		if rel := math.Abs(float64(s.Params)-pub) / pub; rel > 0.01 {
			t.Errorf("%s: %d parameters, %.2f %% from the published %.1f G", name, s.Params, 100*rel, pub/1e9)
		}
		if s.StoredBytes != 2*s.Params {
			t.Errorf("%s bf16: %d bytes stored for %d parameters", name, s.StoredBytes, s.Params)
		}
		if want, moe := activeParams[name]; moe && s.ActiveParams != want || !moe && s.ActiveParams != s.Params {
			t.Errorf("%s: %d parameters active of %d, want %d (0: all)", name, s.ActiveParams, s.Params, want)
		}
		q, err := model.SyntheticStats(name, model.SyntheticQuant{Bits: 3})
		if err != nil {
			t.Fatalf("%s 3 bits: %v", name, err)
		}
		if q.Params != s.Params || q.StoredBytes >= s.StoredBytes || q.DecodeBytes >= s.DecodeBytes {
			t.Errorf("%s 3 bits: %+v against bf16 %+v", name, q, s)
		}
		// The affine head (quantize's default) against the bf16 one (--head bf16): a vocab×hidden head of 2 bytes a
		// weight becomes 1 byte a weight plus a bf16 scale and bias per 64 weights (1/16 byte a weight), so both
		// the stored and the read bytes drop by vocab·hidden·(2 − 1 − 1/16) = vocab·hidden·15/16, tied or not.
		qb, err := model.SyntheticStats(name, model.SyntheticQuant{Bits: 3, BF16Head: true})
		if err != nil {
			t.Fatalf("%s 3 bits, bf16 head: %v", name, err)
		}
		cfg, _ := model.SyntheticConfig(name)
		saved := int64(cfg.VocabSize) * int64(cfg.HiddenSize) * 15 / 16
		if qb.Params != q.Params || qb.StoredBytes-q.StoredBytes != saved || qb.DecodeBytes-q.DecodeBytes != saved {
			t.Errorf("%s 3 bits: bf16 head %+v, affine head %+v: want %d bytes fewer stored and read", name, qb, q, saved)
		}
		t.Logf("%s 3 bits: %.3f GB read per decode token (%.3f with the bf16 head)", name, float64(q.DecodeBytes)/1e9, float64(qb.DecodeBytes)/1e9)
	}
}

// moeDecodeBytes are the MoE presets' weight bytes one decode token reads at 3 bits (quantize's defaults, the
// affine head), worked out by hand from the published configs: the bandwidth roofline's numerator, which must
// count the routed experts only (num_experts_per_tok of num_experts), never the whole stacks. A coded row of
// width w is w·3/8 bytes of words and one fp16 scale; the routers, norms and small linears stay bf16; the untied
// embedding table is read one bf16 row; the affine head is 151936 rows of 2048 bytes and 32 bf16 scales and
// biases each. Qwen3-30B-A3B, per layer: q, k, v (4096 + 512 + 512 rows of 2048) and o (2048 rows of 4096),
// norms 2·2048 + 2·128, router 128×2048, and 8 of 128 experts of gate_up (1536 rows of 2048) and down (2048
// rows of 768). Qwen3-Next-80B-A3B: 36 DeltaNet layers of in_proj_qkvz (12288 rows of 2048), in_proj_ba
// 64×2048, conv 8192·4, A_log and dt_bias 2·32, norm 128, out_proj (2048 rows of 4096); 12 attention layers of
// q (8192 rows), k, v (512 rows each) of 2048, o (2048 rows of 4096), q/k norms 2·256; every layer 10 of 512
// experts of gate_up (1024 rows of 2048) and down (2048 rows of 512), the shared expert's gate and up (512 rows
// of 2048) and down (2048 columns of 512 coded along axis 0: 512 scales), its gate 1×2048, norms 2·2048, router
// 512×2048.
const (
	moeHead    = 151936*2048 + 151936*32*2*2 // affine 8-bit head: bytes, then bf16 scales and biases
	moeGlobals = 2048*2 + 2048*2 + moeHead   // one embedding row, the final norm, the head
)

var moeDecodeBytes = map[string]int64{
	"qwen3-30b-a3b": 48*((4096+512+512)*(768+2)+2048*(1536+2)+(2*2048+2*128)*2+128*2048*2+
		8*(1536*(768+2)+2048*(288+2))) + moeGlobals,
	"qwen3-next-80b-a3b": 36*(12288*(768+2)+64*2048*2+8192*4*2+2*32*2+128*2+2048*(1536+2)) +
		12*((8192+512+512)*(768+2)+2048*(1536+2)+2*256*2) +
		48*(10*(1024*(768+2)+2048*(192+2))+2*512*(768+2)+2048*192+512*2+2048*2+2*2048*2+512*2048*2) + moeGlobals,
}

// TestSyntheticMoEDecodeBytes: the MoE presets' bytes read per decode token, the roofline bench prints, are the
// active parameters' and not the stored experts': bf16, two bytes for each active parameter but the embedding
// table, of which one row; 3 bits, the hand count above; and far below what the whole stacks would read.
func TestSyntheticMoEDecodeBytes(t *testing.T) {
	for name, want3 := range moeDecodeBytes {
		cfg, err := model.SyntheticConfig(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := model.SyntheticStats(name, model.SyntheticQuant{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		table := int64(cfg.VocabSize) * int64(cfg.HiddenSize)
		if want := 2 * (activeParams[name] - table + int64(cfg.HiddenSize)); s.DecodeBytes != want {
			t.Errorf("%s bf16: %d bytes read per decode token, want %d (the active parameters, one embedding row)", name, s.DecodeBytes, want)
		}
		q, err := model.SyntheticStats(name, model.SyntheticQuant{Bits: 3})
		if err != nil {
			t.Fatalf("%s 3 bits: %v", name, err)
		}
		if q.DecodeBytes != want3 {
			t.Errorf("%s 3 bits: %d bytes read per decode token, want %d by hand (%+d)", name, q.DecodeBytes, want3, q.DecodeBytes-want3)
		}
		if q.DecodeBytes*8 > q.StoredBytes {
			t.Errorf("%s 3 bits: reads %d of %d stored bytes a token: the experts are counted whole", name, q.DecodeBytes, q.StoredBytes)
		}
		t.Logf("%s: %.3f GB read per bf16 token, %.3f GB at 3 bits (of %.2f GB stored)", name,
			float64(s.DecodeBytes)/1e9, float64(q.DecodeBytes)/1e9, float64(q.StoredBytes)/1e9)
	}
}

// TestSyntheticPresetShapes checks tensors of the full presets against shapes worked out by hand from the
// published configs (hidden 5120/5376, heads × head dims, DeltaNet widths, vocabularies), absent ones included.
func TestSyntheticPresetShapes(t *testing.T) {
	cases := []struct {
		name   string
		q      model.SyntheticQuant
		shapes map[string][]int // nil: the tensor must not exist
		dtypes map[string]backend.DType
	}{
		{"qwen3.5-27b", model.SyntheticQuant{}, map[string][]int{
			"model.layers.0.linear_attn.in_proj_qkv.weight": {10240, 5120}, // 2·16·128 + 48·128
			"model.layers.0.linear_attn.in_proj_z.weight":   {6144, 5120},
			"model.layers.0.linear_attn.in_proj_b.weight":   {48, 5120},
			"model.layers.0.linear_attn.in_proj_a.weight":   {48, 5120},
			"model.layers.0.linear_attn.conv1d.weight":      {10240, 1, 4},
			"model.layers.0.linear_attn.out_proj.weight":    {5120, 6144},
			"model.layers.0.linear_attn.norm.weight":        {128},
			"model.layers.3.self_attn.q_proj.weight":        {12288, 5120}, // query and gate: 2·24·256
			"model.layers.3.self_attn.k_proj.weight":        {1024, 5120},
			"model.layers.3.self_attn.o_proj.weight":        {5120, 6144},
			"model.layers.3.self_attn.q_norm.weight":        {256},
			"model.layers.63.mlp.down_proj.weight":          {5120, 17408},
			"lm_head.weight":                                {248320, 5120},
			"model.layers.0.self_attn.q_proj.weight":        nil,
			"model.layers.3.linear_attn.in_proj_qkv.weight": nil,
			"model.layers.64.mlp.down_proj.weight":          nil,
		}, nil},
		{"qwen3.5-27b", model.SyntheticQuant{Bits: 3}, map[string][]int{
			"model.layers.0.mlp.down_proj.weight":           {10, 17408, 48}, // the 3-bit interleave: 5120/512 blocks
			"model.layers.0.mlp.down_proj.scales":           {17408},
			"model.layers.0.linear_attn.in_proj_qkv.weight": {10240, 480}, // 5120·3/32 words
			"model.layers.0.linear_attn.in_proj_b.weight":   {48, 5120},   // kept
			"model.layers.3.self_attn.q_proj.scales":        {12288},
			"lm_head.weight":                                {248320, 1280}, // affine 8-bit: 5120·8/32 words
			"lm_head.scales":                                {248320, 80},   // groups of 64
			"lm_head.biases":                                {248320, 80},
			"model.embed_tokens.weight":                     {248320, 5120}, // untied: the table stays bf16
			"model.embed_tokens.scales":                     nil,
		}, map[string]backend.DType{"model.layers.0.mlp.down_proj.weight": backend.U32, "model.layers.0.mlp.down_proj.scales": backend.F16,
			"model.layers.0.linear_attn.in_proj_b.weight": backend.BF16, "lm_head.weight": backend.U32, "lm_head.scales": backend.BF16,
			"lm_head.biases": backend.BF16, "model.embed_tokens.weight": backend.BF16}},
		{"qwen3.5-27b", model.SyntheticQuant{Bits: 3, BF16Head: true}, map[string][]int{
			"lm_head.weight": {248320, 5120},
			"lm_head.scales": nil,
			"lm_head.biases": nil,
		}, map[string]backend.DType{"lm_head.weight": backend.BF16}},
		{"gemma4-31b", model.SyntheticQuant{}, map[string][]int{
			"model.layers.0.self_attn.q_proj.weight":           {8192, 5376}, // 32·256
			"model.layers.0.self_attn.k_proj.weight":           {4096, 5376}, // 16·256
			"model.layers.0.self_attn.v_proj.weight":           {4096, 5376},
			"model.layers.0.self_attn.k_norm.weight":           {256},
			"model.layers.0.layer_scalar":                      {1},
			"model.layers.0.pre_feedforward_layernorm.weight":  {5376},
			"model.layers.0.post_feedforward_layernorm.weight": {5376},
			"model.layers.5.self_attn.q_proj.weight":           {16384, 5376}, // 32·512 on the global layers
			"model.layers.5.self_attn.k_proj.weight":           {2048, 5376},  // 4·512
			"model.layers.5.self_attn.o_proj.weight":           {5376, 16384},
			"model.layers.5.self_attn.k_norm.weight":           {512},
			"model.layers.59.mlp.down_proj.weight":             {5376, 21504},
			"model.embed_tokens.weight":                        {262144, 5376},
			"model.layers.5.self_attn.v_proj.weight":           nil, // attention_k_eq_v
			"lm_head.weight":                                   nil, // tied
			"model.embed_tokens_per_layer.weight":              nil, // no per-layer inputs
			"model.layers.0.self_attn.q_proj.bias":             nil,
			"model.layers.60.self_attn.q_proj.weight":          nil,
			"model.layers.11.self_attn.o_proj.weight":          {5376, 16384},
			"model.layers.10.self_attn.o_proj.weight":          {5376, 8192},
			"model.layers.59.post_attention_layernorm.weight":  {5376},
			"model.layers.59.self_attn.q_norm.weight":          {512},
			"model.layers.58.self_attn.q_norm.weight":          {256},
			"model.layers.0.post_per_layer_input_norm.weight":  nil,
			"model.layers.5.self_attn.v_norm.weight":           nil,
		}, nil},
		{"gemma4-31b", model.SyntheticQuant{Bits: 3}, map[string][]int{
			"model.layers.0.mlp.down_proj.weight":    {21504, 504}, // 5376 is no multiple of 512: no interleave
			"model.layers.0.self_attn.q_proj.weight": {8192, 504},
			"model.layers.5.self_attn.o_proj.weight": {5376, 1536},
			"model.embed_tokens.weight":              {262144, 1344}, // tied: the one table is the affine head
			"model.embed_tokens.scales":              {262144, 84},   // 5376/64 groups
			"model.embed_tokens.biases":              {262144, 84},
			"lm_head.weight":                         nil,
		}, map[string]backend.DType{"model.embed_tokens.weight": backend.U32, "model.embed_tokens.scales": backend.BF16}},
		{"gemma4-31b", model.SyntheticQuant{Bits: 3, BF16Head: true}, map[string][]int{
			"model.embed_tokens.weight": {262144, 5376},
			"model.embed_tokens.scales": nil,
		}, map[string]backend.DType{"model.embed_tokens.weight": backend.BF16}},
	}
	for _, c := range cases {
		_, src, err := model.PresetSource(c.name, c.q)
		if err != nil {
			t.Fatalf("%s %+v: %v", c.name, c.q, err)
		}
		for name, want := range c.shapes {
			h, err := src.Header(name)
			switch {
			case want == nil && (err == nil || src.Has(name)):
				t.Errorf("%s %+v: holds %q %v, which the published config has not", c.name, c.q, name, h.Shape)
			case want != nil && err != nil:
				t.Errorf("%s %+v: %v", c.name, c.q, err)
			case want != nil && !slices.Equal(h.Shape, want):
				t.Errorf("%s %+v: %q has shape %v, want %v", c.name, c.q, name, h.Shape, want)
			case want != nil && c.dtypes[name] != 0 && h.DType != c.dtypes[name]:
				t.Errorf("%s %+v: %q is %s, want %s", c.name, c.q, name, h.DType, c.dtypes[name])
			}
		}
	}
}

// recorder is a source that notes every tensor read.
type recorder struct {
	model.NamedSource
	read map[string]bool
}

func (r *recorder) Tensor(name string) (backend.Host, error) {
	r.read[name] = true
	return r.NamedSource.Tensor(name)
}

// TestSyntheticFamiliesCPU runs each family's preset scaled down on the CPU. bf16: the loader reads every tensor
// the source holds and nothing else, each with its family map's shape; the logits are finite and vary; the
// checkpoint written from the source loads through model.Load to the same logits. 3 bits, with quantize's default
// head (affine 8-bit) and with --head bf16: quantize's artifact of that checkpoint holds the same tensors (names,
// dtypes, shapes) under the same quantization specs as the synthetic trellis source (at L 3 to keep the encoder
// fast; its interleave needs L 12, checked on the full presets above), the head is served as that format, and the
// synthetic trellis model's logits are finite and vary.
func TestSyntheticFamiliesCPU(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	const seed = 7
	for _, name := range []string{"gemma4-31b", "qwen3.5-27b", "qwen3-14b", "qwen3-30b-a3b", "qwen3-next-80b-a3b"} {
		t.Run(name, func(t *testing.T) {
			cfg, src, err := model.SmallSynthetic(name, trellis.Spec{}, false, seed)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{NamedSource: src, read: map[string]bool{}}
			m, err := model.LoadFrom(cfg, rec, b)
			if err != nil {
				t.Fatal(err)
			}
			logits := checkForward(t, m)
			m.Close()
			fam, err := family.For(cfg)
			if err != nil {
				t.Fatal(err)
			}
			tm := fam.Tensors(cfg)
			names := src.Names()
			for _, n := range names {
				if !rec.read[n] {
					t.Errorf("tensor %q held but never read by the loader", n)
				}
				tt, ok := tm.Lookup(n)
				h, _ := src.Header(n)
				if !ok || !slices.Equal(tt.Shape, h.Shape) {
					t.Errorf("tensor %q %v: the family map has %v (found %v)", n, h.Shape, tt.Shape, ok)
				}
			}
			if len(rec.read) != len(names) {
				t.Errorf("the loader read %d tensors, the source holds %d", len(rec.read), len(names))
			}

			dir := writeCheckpoint(t, cfg, src)
			m2, err := model.Load(dir, b)
			if err != nil {
				t.Fatal(err)
			}
			if again := checkForward(t, m2); !slices.Equal(again, logits) {
				t.Errorf("the checkpoint written from the source gives other logits")
			}
			m2.Close()

			code := trellis.Spec{K: 3, L: 3, T: 256, Code: "1mad", Axis: 1}
			for _, bf16Head := range []bool{false, true} {
				qdir := filepath.Join(t.TempDir(), "q3")
				o := quantize.Options{Bits: code.K, L: code.L, GroupSize: code.T, Head: map[bool]string{false: quantize.HeadAffine8, true: quantize.HeadBF16}[bf16Head]}
				if _, err := quantize.Run(dir, qdir, o, nil); err != nil {
					t.Fatal(err)
				}
				qcfg, qsrc, err := model.SmallSynthetic(name, code, bf16Head, seed)
				if err != nil {
					t.Fatal(err)
				}
				compareArtifact(t, qdir, qcfg, qsrc)
				m3, err := model.LoadFrom(qcfg, qsrc, b)
				if err != nil {
					t.Fatal(err)
				}
				qs, err := model.SourceQueries(qcfg, qsrc)
				if err != nil {
					t.Fatal(err)
				}
				formats, head := map[backend.Format]int{}, backend.Weight{}
				for _, q := range qs {
					formats[q.Weight.Format]++
					if q.Op == backend.OpMatMul && (q.Name == "lm_head" || q.Name == "model.embed_tokens") {
						head = q.Weight
					}
				}
				if formats[backend.FormatTrellis] == 0 {
					t.Errorf("no trellis-coded projection at 3 bits")
				}
				// the head alone is affine (8 bits, groups of 64), or dense with --head bf16
				wantAffine := map[bool]int{false: 1, true: 0}[bf16Head]
				if head.Format == backend.FormatAffine != (wantAffine == 1) || formats[backend.FormatAffine] != wantAffine ||
					wantAffine == 1 && (head.Bits != 8 || head.Group != 64) {
					t.Errorf("bf16 head %v: the head is %s, queries by format %v", bf16Head, head, formats)
				}
				checkForward(t, m3)
				m3.Close()
			}
		})
	}
}

// checkForward runs a 12-token prompt (logits at every position) and one decode step; it checks the shapes,
// that every logit is finite and that each row varies and differs from the one before. It returns the prompt's
// logits.
func checkForward(t *testing.T, m *model.Model) []float32 {
	t.Helper()
	const n = 12
	vocab := m.Config.VocabSize
	cache, err := m.NewCache(1, n+1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.ReleaseCache(cache)
	var s model.Step
	for p := range n {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32((p*37+5)%vocab)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	prompt, err := m.Forward(s, cache, n)
	if err != nil {
		t.Fatal(err)
	}
	step, err := m.Forward(model.Step{IDs: []int32{3}, Seq: []int32{0}, Pos: []int32{n}}, cache, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompt) != n*vocab || len(step) != vocab {
		t.Fatalf("logits of %d and %d values, want %d×%d and %d", len(prompt), len(step), n, vocab, vocab)
	}
	all := append(slices.Clone(prompt), step...)
	for r := 0; r < n+1; r++ {
		row := all[r*vocab : (r+1)*vocab]
		lo, hi := row[0], row[0]
		for i, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("row %d logit %d is %v", r, i, v)
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if hi-lo < 1e-6 {
			t.Errorf("row %d: every logit is %v", r, lo)
		}
		if r > 0 && slices.Equal(row, all[(r-1)*vocab:r*vocab]) {
			t.Errorf("rows %d and %d have the same logits", r-1, r)
		}
	}
	return prompt
}

// writeCheckpoint writes the source's tensors and the config as a model directory.
func writeCheckpoint(t *testing.T, cfg *config.Model, src model.NamedSource) string {
	t.Helper()
	dir := t.TempDir()
	raw, err := json.Marshal(cfg.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var ts []backend.Host
	for _, n := range src.Names() {
		h, err := src.Tensor(n)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, h)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), ts, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// compareArtifact checks that quantize's output directory holds exactly the synthetic trellis source's tensors
// (dtype and shape) and that its quantization block gives every module the synthetic config's spec.
func compareArtifact(t *testing.T, dir string, cfg *config.Model, src model.NamedSource) {
	t.Helper()
	arch, err := safetensors.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	if got, want := arch.Names(), src.Names(); !slices.Equal(sorted(got), want) {
		t.Fatalf("quantize wrote %v\nthe synthetic source holds %v", sorted(got), want)
	}
	for _, n := range src.Names() {
		q, err := arch.Tensor(n)
		if err != nil {
			t.Fatal(err)
		}
		s, err := src.Header(n)
		if err != nil {
			t.Fatal(err)
		}
		if q.DType != s.DType || !slices.Equal(q.Shape, s.Shape) {
			t.Errorf("%s: quantize wrote %s %v, the synthetic source has %s %v", n, q.DType, q.Shape, s.DType, s.Shape)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	qcfg, err := config.Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	fam, err := family.For(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range fam.Tensors(cfg).All() {
		a, aok := qcfg.Quant.For(tt.Path)
		b, bok := cfg.Quant.For(tt.Path)
		if src.Has(tt.Path+".scales") && (aok != bok || !reflect.DeepEqual(a, b)) {
			t.Errorf("%s: quantize's spec %v %+v, the synthetic config's %v %+v", tt.Path, aok, a, bok, b)
		}
		if tt.Kind == family.KindTable && src.Has(tt.Name) && !src.Has(tt.Path+".scales") && (aok || bok) {
			t.Errorf("%s: a bf16 table marked quantized (quantize %v, synthetic %v)", tt.Path, aok, bok)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
