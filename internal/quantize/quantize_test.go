// Tests for the quantizer: the tiny-qwen3 fixture at 4 bits checked end to end (config round trip, stored shapes
// against trellis.NewGeometry, the reported SNR recomputed from the written bits, an SNR floor), and small
// synthetic checkpoints for the rest: the 3-bit interleave, per-path bits, affine8 embeddings and dtype
// conversion, sharding, fused projections, and bad input.
package quantize

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// checkOutput verifies a quantized directory against its input and report: every quantized tensor's spec through
// config.Load + For, stored shapes through trellis.NewGeometry (or affine.New), the SNR recomputed from the
// written bits against the input, and every other tensor carried over as bf16.
func checkOutput(t *testing.T, in, out string, rep *Report) {
	t.Helper()
	cfg, err := loadConfig(out)
	if err != nil {
		t.Fatal(err)
	}
	src, err := safetensors.OpenDir(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := safetensors.OpenDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()

	reported := map[string]bool{}
	for _, tr := range rep.Tensors {
		reported[tr.Name+".weight"] = true
		spec, ok := cfg.Quant.For(tr.Name)
		if !ok || !reflect.DeepEqual(spec, tr.Spec) {
			t.Errorf("%s: config gives %+v (quantized %v), report says %+v", tr.Name, spec, ok, tr.Spec)
			continue
		}
		orig := floats(t, src, tr.Name+".weight")
		words := tensor(t, dst, tr.Name+".weight", backend.U32)
		var dense []float32
		switch spec.Mode {
		case "trellis":
			want := 1
			if strings.HasSuffix(tr.Name, ".down_proj") {
				want = 0
			}
			if spec.Trellis.Axis != want || spec.Trellis.Code != "1mad" {
				t.Errorf("%s: trellis %+v, want axis %d, 1mad", tr.Name, spec.Trellis, want)
			}
			g, err := trellis.NewGeometry(trellis.Spec{K: spec.Bits, L: spec.Trellis.L, T: spec.GroupSize,
				Code: spec.Trellis.Code, Axis: spec.Trellis.Axis}, words.Shape)
			if err != nil {
				t.Errorf("%s: %v", tr.Name, err)
				continue
			}
			if g.OutFeatures() != tr.Shape[0] || g.InFeatures() != tr.Shape[1] || g.Interleaved != tr.Interleaved {
				t.Errorf("%s: stored %v is a %d×%d (interleaved %v) geometry, want %v (interleaved %v)",
					tr.Name, words.Shape, g.OutFeatures(), g.InFeatures(), g.Interleaved, tr.Shape, tr.Interleaved)
			}
			scales := tensor(t, dst, tr.Name+".scales", backend.F16)
			if !slices.Equal(scales.Shape, []int{g.Rows}) {
				t.Errorf("%s: scales %v, want [%d]", tr.Name, scales.Shape, g.Rows)
			}
			sf, _ := scales.Float32s()
			w, err := trellis.NewWeights(g, u32s(words.Data), sf)
			if err != nil {
				t.Fatalf("%s: %v", tr.Name, err)
			}
			dense = w.Dense(trellis.Exact)
			if bits := float64(len(words.Data)+len(scales.Data)) * 8 / float64(len(orig)); bits != tr.Bits {
				t.Errorf("%s: %g bits/weight stored, report says %g", tr.Name, bits, tr.Bits)
			}
		case "affine":
			sc, bi := tensor(t, dst, tr.Name+".scales", backend.BF16), tensor(t, dst, tr.Name+".biases", backend.BF16)
			sf, _ := sc.Float32s()
			bf, _ := bi.Float32s()
			groups := []int{tr.Shape[0], tr.Shape[1] / spec.GroupSize}
			if !slices.Equal(sc.Shape, groups) || !slices.Equal(bi.Shape, groups) {
				t.Errorf("%s: scales %v biases %v, want %v", tr.Name, sc.Shape, bi.Shape, groups)
			}
			a, err := affine.New(spec.Bits, spec.GroupSize, tr.Shape[0], tr.Shape[1], u32s(words.Data), sf, bf)
			if err != nil {
				t.Fatalf("%s: %v", tr.Name, err)
			}
			dense = a.Dense()
		}
		if got := snrOf(orig, dense); math.Abs(got-tr.SNRdB) > 1e-9*math.Abs(got) {
			t.Errorf("%s: SNR of the written bits %.12g dB, report says %.12g", tr.Name, got, tr.SNRdB)
		}
	}
	// Everything else is carried over in bf16, value for value.
	for _, name := range src.Names() {
		if reported[name] || slices.Contains(rep.Dropped, name) {
			continue
		}
		if !slices.Contains(rep.Kept, name) {
			t.Errorf("%s: neither quantized, kept nor dropped", name)
		}
		got := tensor(t, dst, name, backend.BF16)
		want := floats(t, src, name)
		for i, x := range floats(t, dst, name) {
			if x != backend.BF16ToF32(backend.F32ToBF16(want[i])) {
				t.Errorf("%s[%d] = %g, want bf16(%g)", name, i, x, want[i])
				break
			}
		}
		if !slices.Equal(got.Shape, tensor(t, src, name, 0).Shape) {
			t.Errorf("%s: shape %v changed", name, got.Shape)
		}
		// An embedding kept in bf16 is marked unquantized, so For answers for it too.
		if name == "model.embed_tokens.weight" || name == "lm_head.weight" {
			if s, ok := cfg.Quant.For(strings.TrimSuffix(name, ".weight")); ok {
				t.Errorf("%s kept in bf16 but the config gives %+v", name, s)
			}
		}
	}
}

// snrOf is the SNR definition computed directly over W [out, in] in its own order.
func snrOf(w, q []float32) float64 {
	var s, n float64
	for i := range w {
		d := float64(w[i]) - float64(q[i])
		s += float64(w[i]) * float64(w[i])
		n += d * d
	}
	return 10 * math.Log10(s/n)
}

func tensor(t *testing.T, a *safetensors.Archive, name string, dt backend.DType) backend.Host {
	t.Helper()
	h, err := a.Tensor(name)
	if err != nil {
		t.Fatal(err)
	}
	if dt != 0 && h.DType != dt {
		t.Fatalf("%s: dtype %s, want %s", name, h.DType, dt)
	}
	return h
}

func floats(t *testing.T, a *safetensors.Archive, name string) []float32 {
	t.Helper()
	f, err := tensor(t, a, name, 0).Float32s()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func u32s(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// TestTinyQwen3 quantizes the fixture at 4 bits, L 12, T 256 and checks everything the output promises. The
// model is tied, so the default head (affine 8-bit) makes its one embedding table affine 8-bit.
func TestTinyQwen3(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	out := filepath.Join(t.TempDir(), "q4")
	var events []Event
	rep, err := Run(in, out, Options{Bits: 4}, func(e Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, in, out, rep)

	if len(rep.Tensors) != 15 || rep.CodedWeights != 2*(256*256*2+128*256*2+768*256*3) {
		t.Errorf("%d tensors, %d coded weights", len(rep.Tensors), rep.CodedWeights)
	}
	// The table: 8 bits a weight plus a bf16 scale and bias per 64 = 8.5; 8-bit affine codes of N(0, σ²) rows keep
	// the error near (range/255)²/12 with range ≈ 6σ over 64 weights: about 40 dB.
	if tr := rep.Tensors[0]; tr.Name != "model.embed_tokens" || tr.Spec != affine8 || tr.Bits != 8.5 || tr.SNRdB < 38 {
		t.Errorf("the tied table: %+v", tr)
	}
	for _, tr := range rep.Tensors[1:] {
		// 4 bits per weight plus one fp16 scale per coded row of Cols weights.
		cols := tr.Shape[1]
		if tr.Spec.Trellis.Axis == 0 {
			cols = tr.Shape[0]
		}
		if want := 4 + 16/float64(cols); tr.Bits != want {
			t.Errorf("%s: %g bits/weight, want %g", tr.Name, tr.Bits, want)
		}
		// Measured: 23.0–23.2 dB (Gaussian rows: 10·log10(1/0.00494) = 23.1).
		if tr.SNRdB < 21 {
			t.Errorf("%s: SNR %.2f dB below the 4-bit floor of 21", tr.Name, tr.SNRdB)
		}
	}
	if rep.MinSNRdB < 21 || rep.MeanSNRdB < rep.MinSNRdB || rep.BitsPerWeight < 4.02 || rep.BitsPerWeight > 4.07 {
		t.Errorf("summary: mean %.2f min %.2f dB, %.4f bits/weight", rep.MeanSNRdB, rep.MinSNRdB, rep.BitsPerWeight)
	}
	// The embedding table (affine 8-bit, 2048×256) and norms weigh in this tiny model: all parameters average
	// above 4, (4.0625·1,572,864 + 8.5·524,288 + 16·1,536) / 2,098,688 ≈ 5.17 bits (the 4-bit scales: 16/256 or
	// 16/768 a weight).
	if rep.Params != 2048*256+256+2*(2*256+2*64)+rep.CodedWeights || rep.BitsPerParam < 5.1 || rep.BitsPerParam > 5.25 {
		t.Errorf("%d params at %.3f bits", rep.Params, rep.BitsPerParam)
	}
	if !slices.Equal(rep.Files, []string{"config.json", "model.safetensors"}) {
		t.Errorf("files %v", rep.Files)
	}
	// Progress: a start and a done event per tensor, work rising to the total, and one per finished layer (the
	// tied table, two layers), in order.
	var layers []string
	tensorEvents := 0
	for _, e := range events {
		if e.Stage == StageLayer {
			layers = append(layers, e.Tensor)
		} else {
			tensorEvents++
		}
	}
	if tensorEvents != 2*24 || events[len(events)-1].Work != rep.CodedWeights || events[len(events)-1].Total != rep.CodedWeights {
		t.Errorf("%d tensor events, last %+v", tensorEvents, events[len(events)-1])
	}
	if !slices.Equal(layers, []string{"model.embed_tokens", "model.layers.0", "model.layers.1"}) {
		t.Errorf("layer events %q", layers)
	}
	t.Logf("tiny-qwen3 4-bit: %.4f bits/weight (%.3f over all), SNR mean %.2f min %.2f dB, %v",
		rep.BitsPerWeight, rep.BitsPerParam, rep.MeanSNRdB, rep.MinSNRdB, rep.Elapsed)

	// The engine loads the result and its prompt logits stay near the bf16 reference's. Measured 0.243: this
	// random-init model amplifies weight noise about 3.5× into its logits (L 8, T 64: 2 bits 0.85, 4 bits 0.29,
	// 6 bits 0.091, 8 bits 0.039; the unquantized model 0.0000).
	if e := logitsError(t, in, out); e > 0.3 {
		t.Errorf("4-bit prompt logits off the reference by %.3f (relative RMS)", e)
	}

	// The written block: the default spec, then one entry per down projection (axis 0) and the table's.
	raw, _ := os.ReadFile(filepath.Join(out, "config.json"))
	var c struct {
		Quant map[string]json.RawMessage `json:"quantization"`
		Type  string                     `json:"model_type"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.Type != "qwen3" {
		t.Fatalf("%v %q", err, c.Type)
	}
	want := map[string]string{
		"mode": `"trellis"`, "bits": "4", "group_size": "256", "trellis": `{"L":12,"code":"1mad","axis":1}`,
		"model.embed_tokens":           `{"mode":"affine","bits":8,"group_size":64}`,
		"model.layers.0.mlp.down_proj": `{"mode":"trellis","bits":4,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":0}}`,
		"model.layers.1.mlp.down_proj": `{"mode":"trellis","bits":4,"group_size":256,"trellis":{"L":12,"code":"1mad","axis":0}}`,
	}
	got := map[string]string{}
	for k, v := range c.Quant {
		var buf strings.Builder
		json.NewEncoder(&buf).Encode(v)
		got[k] = strings.TrimSpace(buf.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("quantization block\n got %v\nwant %v", got, want)
	}
}

// logitsError loads dir on the CPU, runs the fixture's golden prompt and returns the logits' relative RMS error
// against the golden (HF, bf16 weights) logits.
func logitsError(t *testing.T, fixture, dir string) float64 {
	t.Helper()
	var g struct {
		PromptIDs  []int  `json:"prompt_ids"`
		LogitsFile string `json:"logits_file"`
	}
	b, err := os.ReadFile(filepath.Join(fixture, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(fixture, g.LogitsFile))
	if err != nil {
		t.Fatal(err)
	}
	be := cpu.New()
	defer be.Close()
	m, err := model.Load(dir, be)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cache, err := m.NewCache(1, len(g.PromptIDs))
	if err != nil {
		t.Fatal(err)
	}
	var s model.Step
	for p, id := range g.PromptIDs {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	logits, err := m.Forward(s, cache, len(g.PromptIDs))
	if err != nil {
		t.Fatal(err)
	}
	if len(logits)*4 != len(raw) {
		t.Fatalf("%d logits, the golden has %d", len(logits), len(raw)/4)
	}
	var sig, noise float64
	for i, x := range logits {
		r := float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		sig += r * r
		noise += (float64(x) - r) * (float64(x) - r)
	}
	e := math.Sqrt(noise / sig)
	t.Logf("%s: prompt logits relative RMS error %.4f", filepath.Base(dir), e)
	return e
}

// TestAffineEmbeddingsLoad: tiny-qwen3 with affine8 embeddings (tied: the table is also the output projection)
// loads, and the logits move little (cheap 4-bit codes at L 8, T 64 for the projections).
func TestAffineEmbeddingsLoad(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	out := filepath.Join(t.TempDir(), "a8")
	rep, err := Run(in, out, Options{Bits: 4, L: 8, GroupSize: 64, Embeddings: EmbeddingsAffine8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tensors[0].Name != "model.embed_tokens" || rep.Tensors[0].Spec != affine8 {
		t.Errorf("first tensor %+v", rep.Tensors[0])
	}
	if e := logitsError(t, in, out); e > 0.35 { // measured 0.291
		t.Errorf("prompt logits off the reference by %.3f (relative RMS)", e)
	}
}

// synth describes a synthetic checkpoint: config keys over a small qwen3 base, and tensors.
type synth struct {
	config  map[string]any
	tensors []synthTensor
}

type synthTensor struct {
	name  string
	dtype backend.DType
	shape []int
}

// write creates the checkpoint in a new directory with N(0, 0.02²) weights (norms 1 ± 0.1).
func (s synth) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := map[string]any{"model_type": "qwen3", "hidden_size": 512, "intermediate_size": 256, "num_hidden_layers": 1,
		"num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 64, "vocab_size": 128, "tie_word_embeddings": true}
	for k, v := range s.config {
		if v == nil {
			delete(cfg, k)
		} else {
			cfg[k] = v
		}
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"model":{}}`), 0o644)
	rng := rand.New(rand.NewPCG(1, 2))
	var hs []backend.Host
	for _, st := range s.tensors {
		n := 1
		for _, d := range st.shape {
			n *= d
		}
		h := backend.Host{Name: st.name, DType: st.dtype, Shape: st.shape, Data: make([]byte, n*st.dtype.Size())}
		for i := range n {
			v := float32(rng.NormFloat64() * 0.02)
			if strings.HasSuffix(st.name, "norm.weight") {
				v = 1 + 5*v
			}
			switch st.dtype {
			case backend.F32:
				binary.LittleEndian.PutUint32(h.Data[4*i:], math.Float32bits(v))
			case backend.F16:
				binary.LittleEndian.PutUint16(h.Data[2*i:], backend.F32ToF16(v))
			case backend.BF16:
				binary.LittleEndian.PutUint16(h.Data[2*i:], backend.F32ToBF16(v))
			case backend.U32:
				binary.LittleEndian.PutUint32(h.Data[4*i:], uint32(i))
			}
		}
		hs = append(hs, h)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), hs, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// small is a cheap checkpoint: hidden 64, one layer, every projection's coded dimension a multiple of 64.
func small(dtype backend.DType, extra ...synthTensor) synth {
	p := "model.layers.0."
	return synth{
		config: map[string]any{"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32},
		tensors: append([]synthTensor{
			{"model.embed_tokens.weight", dtype, []int{128, 64}},
			{"model.norm.weight", dtype, []int{64}},
			{p + "input_layernorm.weight", dtype, []int{64}},
			{p + "post_attention_layernorm.weight", dtype, []int{64}},
			{p + "self_attn.q_norm.weight", dtype, []int{32}},
			{p + "self_attn.k_norm.weight", dtype, []int{32}},
			{p + "self_attn.q_proj.weight", dtype, []int{64, 64}},
			{p + "self_attn.k_proj.weight", dtype, []int{32, 64}},
			{p + "self_attn.v_proj.weight", dtype, []int{32, 64}},
			{p + "self_attn.o_proj.weight", dtype, []int{64, 64}},
			{p + "mlp.gate_proj.weight", dtype, []int{128, 64}},
			{p + "mlp.up_proj.weight", dtype, []int{128, 64}},
			{p + "mlp.down_proj.weight", dtype, []int{64, 128}},
		}, extra...),
	}
}

// cheap are fast options for the synthetic checkpoints: L 6, blocks of 64.
func cheap(bits int) Options { return Options{Bits: bits, L: 6, GroupSize: 64} }

// TestInterleave: a 3-bit down projection with out = 512 is stored [1, in, 48] under L 12, T 256; at 2 bits (a
// per-path rule) it keeps the 2-D layout. Only the tensors that matter are present (the quantizer does not check
// completeness; the loader does).
func TestInterleave(t *testing.T) {
	in := synth{config: map[string]any{"num_hidden_layers": 2}, tensors: []synthTensor{
		{"model.embed_tokens.weight", backend.BF16, []int{128, 512}},
		{"model.layers.0.mlp.down_proj.weight", backend.BF16, []int{512, 256}},
		{"model.layers.1.mlp.down_proj.weight", backend.BF16, []int{512, 256}}, // 2 bits: no interleave
	}}.write(t)
	out := filepath.Join(t.TempDir(), "q3")
	rep, err := Run(in, out, Options{Bits: 3, Rules: []Rule{{"layers.1.", 2}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, in, out, rep)
	dst, _ := safetensors.OpenDir(out)
	defer dst.Close()
	for name, want := range map[string][]int{
		"model.layers.0.mlp.down_proj.weight": {1, 256, 48},
		"model.layers.1.mlp.down_proj.weight": {256, 32},
	} {
		if h := tensor(t, dst, name, backend.U32); !slices.Equal(h.Shape, want) {
			t.Errorf("%s: stored %v, want %v", name, h.Shape, want)
		}
	}
	// Measured 16.7–16.8 dB (Gaussian: 10·log10(1/0.0190) = 17.2). Tensors[0] is the tied table (affine 8-bit).
	if c := rep.Tensors[1:]; len(c) != 2 || !c[0].Interleaved || c[1].Interleaved || c[0].SNRdB < 15.5 {
		t.Errorf("%+v", rep.Tensors)
	}
}

// TestRulesAffineAndConversion: per-path bits, affine8 embeddings and an untied lm_head, f32 and f16 inputs
// written as bf16, tokenizer files copied. (Phi-3's fused projections: roundtrip_test.go.)
func TestRulesAffineAndConversion(t *testing.T) {
	for _, dt := range []backend.DType{backend.F32, backend.F16} {
		t.Run(dt.String(), func(t *testing.T) {
			s := small(dt, synthTensor{"lm_head.weight", dt, []int{128, 64}},
				synthTensor{"model.layers.0.self_attn.q_proj.bias", dt, []int{64}},
				synthTensor{"model.layers.0.self_attn.rotary_emb.inv_freq", backend.F32, []int{16}})
			s.config["tie_word_embeddings"] = false
			in := s.write(t)
			rules, err := ParseRules("mlp.down_proj=4, layers.0.self_attn.*_proj=3,q_proj=6")
			if err != nil {
				t.Fatal(err)
			}
			o := cheap(2)
			o.Rules, o.Embeddings = rules, EmbeddingsAffine8
			out := filepath.Join(t.TempDir(), "mixed")
			rep, err := Run(in, out, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, in, out, rep)
			bits := map[string]int{}
			for _, tr := range rep.Tensors {
				bits[tr.Name] = tr.Spec.Bits
			}
			p := "model.layers.0."
			want := map[string]int{
				"model.embed_tokens": 8, "lm_head": 8, // affine8
				p + "mlp.down_proj": 4, p + "self_attn.q_proj": 3 /* the earlier rule wins */, p + "self_attn.k_proj": 3,
				p + "self_attn.v_proj": 3, p + "self_attn.o_proj": 3, p + "mlp.gate_proj": 2, p + "mlp.up_proj": 2,
			}
			if !reflect.DeepEqual(bits, want) {
				t.Errorf("bits %v\nwant %v", bits, want)
			}
			if !slices.Equal(rep.Dropped, []string{p + "self_attn.rotary_emb.inv_freq"}) {
				t.Errorf("dropped %v", rep.Dropped)
			}
			if !slices.Contains(rep.Files, "tokenizer.json") {
				t.Errorf("files %v", rep.Files)
			}
			for _, tr := range rep.Tensors {
				// Measured: affine 8-bit 41.8–42.5 dB; trellis at L 6 (weaker than L 12) 2 bits 8.5–8.8, 3 bits
				// 12.4–13.1, 4 bits 15.1 dB.
				floor := map[int]float64{2: 7.5, 3: 11.5, 4: 14, 8: 40}[tr.Spec.Bits]
				if tr.SNRdB < floor {
					t.Errorf("%s: %.2f dB at %d bits, below %g", tr.Name, tr.SNRdB, tr.Spec.Bits, floor)
				}
			}
		})
	}
}

// TestShards: a small shard limit splits the output into numbered shards with an index, which OpenDir reads back
// into the same tensors a single-file run writes.
func TestShards(t *testing.T) {
	in := small(backend.BF16).write(t)
	one, many := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "many")
	if _, err := Run(in, one, cheap(2), nil); err != nil {
		t.Fatal(err)
	}
	o := cheap(2)
	o.ShardBytes = 8 << 10
	rep, err := Run(in, many, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, in, many, rep)
	if len(rep.Files) < 4 || !slices.Contains(rep.Files, indexFile) || slices.Contains(rep.Files, singleFile) {
		t.Fatalf("files %v", rep.Files)
	}
	a, _ := safetensors.OpenDir(one)
	defer a.Close()
	b, _ := safetensors.OpenDir(many)
	defer b.Close()
	if !slices.Equal(a.Names(), b.Names()) {
		t.Fatalf("names %v vs %v", a.Names(), b.Names())
	}
	for _, n := range a.Names() {
		x, _ := a.Tensor(n)
		y, _ := b.Tensor(n)
		if !reflect.DeepEqual(x.Shape, y.Shape) || string(x.Data) != string(y.Data) {
			t.Errorf("%s differs between the single file and the shards", n)
		}
	}
}

// TestForce: an existing output needs --force, which replaces a model directory but nothing else.
func TestForce(t *testing.T) {
	in := small(backend.BF16).write(t)
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Run(in, out, cheap(2), nil); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "stale.txt"), nil, 0o644)
	if _, err := Run(in, out, cheap(2), nil); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second run without force: %v", err)
	}
	o := cheap(3)
	o.Force = true
	if _, err := Run(in, out, o, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "stale.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old directory survived: %v", err)
	}
	if cfg, err := loadConfig(out); err != nil || cfg.Quant.Default.Bits != 3 {
		t.Errorf("replaced config: %v", err)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("keep me"), 0o644)
	if _, err := Run(in, other, o, nil); err == nil || !strings.Contains(err.Error(), "without config.json") {
		t.Errorf("force over a non-model directory: %v", err)
	}
	if _, err := Run(in, in, o, nil); err == nil || !strings.Contains(err.Error(), "input") {
		t.Errorf("force over the input: %v", err)
	}
	if _, err := Run(in, filepath.Dir(in), o, nil); err == nil {
		t.Error("force over the input's parent succeeded")
	}
	if _, err := os.Stat(filepath.Join(in, "model.safetensors")); err != nil {
		t.Fatalf("input damaged: %v", err)
	}
}

// TestBadInput: each bad input fails with one line naming the problem, and leaves nothing behind.
func TestBadInput(t *testing.T) {
	good := small(backend.BF16).write(t)
	bad := func(edit func(*synth)) string {
		s := small(backend.BF16)
		edit(&s)
		return s.write(t)
	}
	nan := small(backend.F32).write(t)
	// Poison one weight of a projection encoded late (names are processed in order): the run fails mid-way.
	{
		a, _ := safetensors.OpenDir(nan)
		var hs []backend.Host
		for _, n := range a.Names() {
			h, _ := a.Tensor(n)
			h.Data = slices.Clone(h.Data)
			if n == "model.layers.0.self_attn.v_proj.weight" {
				binary.LittleEndian.PutUint32(h.Data[40:], math.Float32bits(float32(math.NaN())))
			}
			hs = append(hs, h)
		}
		a.Close()
		if err := safetensors.WriteFile(filepath.Join(nan, "model.safetensors"), hs, nil); err != nil {
			t.Fatal(err)
		}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		in   string
		o    Options
		want string
	}{
		{"missing dir", filepath.Join(t.TempDir(), "nope"), cheap(2), "does not exist"},
		{"bits 0", good, Options{Bits: 0}, "--bits 0 outside 1..8"},
		{"bits 9", good, Options{Bits: 9}, "--bits 9 outside 1..8"},
		{"L 17", good, Options{Bits: 4, L: 17}, "--L 17 above 16"},
		{"L below bits", good, Options{Bits: 4, L: 3}, "L=3 < k=4"},
		{"group size", good, Options{Bits: 3, GroupSize: 100}, "not a multiple of 32"},
		{"embeddings", good, Options{Bits: 2, Embeddings: "int4"}, `--embeddings "int4"`},
		{"rule bits", good, Options{Bits: 2, L: 6, GroupSize: 64, Rules: []Rule{{"x", 4}, {"down", 8}}}, "L=6 < k=8"},
		{"rule unmatched", good, Options{Bits: 2, L: 6, GroupSize: 64, Rules: []Rule{{"mlp.down_prj", 4}}}, `rule "mlp.down_prj=4" matches no`},
		{"not divisible", good, Options{Bits: 2, L: 6, GroupSize: 128}, `"model.layers.0.mlp.down_proj.weight" [64 128]: out-features (the coded dimension of a down projection) 64 are not a multiple of the group size 128 (--group-size 64 divides it)`},
		{"in not divisible", bad(func(s *synth) {
			// head_dim 48: q, k, v [96|48|48, 64], o [64, 96], q_norm and k_norm [48].
			s.config["head_dim"] = 48
			for i, shape := range map[int][]int{4: {48}, 5: {48}, 6: {96, 64}, 7: {48, 64}, 8: {48, 64}, 9: {64, 96}} {
				s.tensors[i].shape = shape
			}
		}), cheap(2), `"model.layers.0.self_attn.o_proj.weight" [64 96]: in-features 96 are not a multiple of the group size 64 (--group-size 32 divides it)`},
		{"shape unlike config", bad(func(s *synth) { s.tensors[12].shape = []int{96, 128} }), cheap(2), `"model.layers.0.mlp.down_proj.weight" has shape [96 128], the config implies [64 128]`},
		{"unknown tensor", bad(func(s *synth) {
			s.tensors = append(s.tensors, synthTensor{"vision.patch.weight", backend.BF16, []int{4}})
		}), cheap(2), `"vision.patch.weight" is not part of a qwen3 checkpoint`},
		{"unknown architecture", bad(func(s *synth) { s.config["model_type"] = "mamba" }), cheap(2), `model_type "mamba" is not a supported architecture`},
		{"already quantized", bad(func(s *synth) { s.config["quantization"] = map[string]any{"bits": 4, "group_size": 64} }), cheap(2), "already has a quantization block"},
		{"integer tensor", bad(func(s *synth) { s.tensors[1].dtype = backend.U32 }), cheap(2), `"model.norm.weight" has dtype U32`},
		{"1-D projection", bad(func(s *synth) { s.tensors[6].shape = []int{4096} }), cheap(2), "has shape [4096], the config implies [64 64]"},
		{"affine8 width", synth{config: map[string]any{"hidden_size": 32}, tensors: []synthTensor{{"model.embed_tokens.weight", backend.BF16, []int{128, 32}}}}.write(t),
			Options{Bits: 2, L: 6, GroupSize: 32, Embeddings: EmbeddingsAffine8}, "multiple of 64"},
		{"bad config", bad(func(s *synth) { s.config["hidden_size"] = "big" }), cheap(2), "hidden_size must be a positive integer"},
		{"non-finite weight", nan, cheap(2), `tensor "model.layers.0.self_attn.v_proj.weight": trellis encode: row 0 holds a non-finite weight`},
		{"cancelled", good, Options{Bits: 2, L: 6, GroupSize: 64, Context: cancelled}, "context canceled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			_, err := Run(c.in, filepath.Join(parent, "out"), c.o, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v\nwant one line containing %q", err, c.want)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("left behind: %v", left[0].Name())
			}
		})
	}
}

func TestParseRules(t *testing.T) {
	rules, err := ParseRules(" mlp.down_proj=4 ,layers.0.*=3,*=2")
	want := []Rule{{"mlp.down_proj", 4}, {"layers.0.*", 3}, {"*", 2}}
	if err != nil || !reflect.DeepEqual(rules, want) {
		t.Fatalf("%v %v", rules, err)
	}
	if r, err := ParseRules(""); r != nil || err != nil {
		t.Errorf("empty: %v %v", r, err)
	}
	for _, bad := range []string{"a=4,", "a", "=4", "a=x", "a=0", "a=9", "a=4,,b=3", "a==4"} {
		if _, err := ParseRules(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	matches := []struct {
		pattern, path string
		ok            bool
	}{
		{"mlp.down_proj", "model.layers.3.mlp.down_proj", true},
		{"layers.0.*", "model.layers.0.mlp.up_proj", true},
		{"layers.0.*", "model.layers.10.mlp.up_proj", false},
		{"layers.1", "model.layers.12.mlp.up_proj", true}, // a substring: layers.1. is the one-layer spelling
		{"layers.*.self_attn.*_proj", "model.layers.7.self_attn.q_proj", true},
		{"layers.*.self_attn.*_proj", "model.layers.7.mlp.gate_proj", false},
		{"*", "anything", true},
		{"a*b*a", "xaba", true},
		{"a*b*a", "xab", false},
	}
	for _, m := range matches {
		if got := (Rule{m.pattern, 2}).Matches(m.path); got != m.ok {
			t.Errorf("%q matches %q = %v", m.pattern, m.path, got)
		}
	}
}

// loadConfig reads a written model directory's config through the one directory reader.
func loadConfig(dir string) (*config.Model, error) {
	d, err := modeldir.Open(dir)
	if err != nil {
		return nil, err
	}
	return d.Config()
}
