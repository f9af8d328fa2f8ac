// The round trip the family tensor map exists for: every registered family's tiny model (internal/testutil/variant)
// quantized by the real quantizer at 2, 3 and 4 bits lists the device queries the loader will ask, loads on the
// CPU, computes exactly what its codes decoded to dense weights compute (so every code block, scale and fused
// row block is bound where it belongs), generates, and keeps its logits near the unquantized model's.
package quantize_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// roundTripBounds caps the prompt logits' relative RMS error against the unquantized model, per bits: the
// quantizer's quality as it reaches the logits. The tiny models are random-init, so their logits are nearly flat
// (top-1 agreement is reported but means little) and weight noise reaches them amplified about 2.5–3.5×
// (TestTinyQwen3). Measured on the six families at L 8, T 64: 2 bits 0.80–0.89, 3 bits 0.49–0.53, 4 bits
// 0.25–0.29 (the same to two decimals with the affine 8-bit head, 2026-12-01); each bound leaves ≥ 20% margin. For scale: swapping two layers' down_proj gives 1.1–1.2, q_proj for
// o_proj 1.4, gate_proj for up_proj 0.68–0.78. Binding mistakes are caught exactly by the decoded-dense check,
// not by these bounds; the trained model's quality is internal/eval's TestTrellisQuality.
var roundTripBounds = map[int]float64{2: 1.1, 3: 0.65, 4: 0.35}

// hybridRoundTripBounds are the bounds of the hybrid families (qwen3_5_text, qwen3_next), whose tiny models (4
// layers, 3 of them gated DeltaNet) amplify weight noise about twice as much: Gaussian noise at the quantizer's
// 4-bit SNR (21.8 dB) on every coded projection moves tiny-qwen3_5's logits by 0.56 where it moves tiny-qwen3's
// by 0.28, the DeltaNet projections accounting for most of it. Measured at L 8, T 64: 2 bits 1.16–1.17, 3 bits
// 0.91–0.98, 4 bits 0.61–0.66; each bound leaves ≥ 20% margin.
var hybridRoundTripBounds = map[int]float64{2: 1.45, 3: 1.2, 4: 0.8}

// TestQuantizeRoundTripEveryFamily: quantize → queries → load → generate for every family at 2, 3 and 4 bits.
// L 8 and T 64 keep it fast (the encoder's work grows as 2^(L+bits) per weight; L 12 at 4 bits is TestTinyQwen3).
func TestQuantizeRoundTripEveryFamily(t *testing.T) {
	if got, want := variant.Types(), family.Known(); !slices.Equal(got, want) {
		t.Fatalf("tiny models for %v, registered families %v: every family needs one", got, want)
	}
	b := cpu.New()
	defer b.Close()
	for _, typ := range family.Known() {
		t.Run(typ, func(t *testing.T) {
			v := variant.For(t, typ)
			g, _ := testutil.ReadGolden(t, v.Fixture)
			ref, refGen := run(t, b, v.Dir, g.PromptIDs)
			for _, bits := range []int{2, 3, 4} {
				t.Run(fmt.Sprintf("%dbit", bits), func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "q")
					if _, err := quantize.Run(v.Dir, out, quantize.Options{Bits: bits, L: 8, GroupSize: 64}, nil); err != nil {
						t.Fatal(err)
					}
					checkQueries(t, out, bits)
					checkKept(t, v.Dir, out)
					got, gen := run(t, b, out, g.PromptIDs)
					dense, _ := run(t, b, decoded(t, out), g.PromptIDs)
					twin, _ := compare(dense, got, len(g.PromptIDs))
					if twin > 1e-5 {
						t.Errorf("the quantized model's logits differ from its decoded-dense twin's by %.3g (relative RMS)", twin)
					}
					rel, agree := compare(ref, got, len(g.PromptIDs))
					same := 0
					for i := range gen {
						if gen[i] == refGen[i] {
							same++
						}
					}
					t.Logf("%s %d-bit: prompt logits relative RMS error %.3f (decoded-dense twin %.1e), top-1 agreement %d/%d positions, greedy %d/%d tokens as unquantized",
						typ, bits, rel, twin, agree, len(g.PromptIDs), same, len(gen))
					bound := roundTripBounds[bits]
					if typ == "qwen3_5_text" || typ == "qwen3_next" || typ == "qwen3_5_moe_text" {
						bound = hybridRoundTripBounds[bits]
					}
					if rel > bound {
						t.Errorf("relative RMS error %.3f above the %d-bit bound %.2f", rel, bits, bound)
					}
				})
			}
		})
	}
}

// checkQueries: the quantized directory asks the device for every projection the family map says is coded in
// trellis codes at the given bits along its axis (a fused or interleaved projection one query per part, named by
// its rows), for the ones it keeps (Gemma 4's per-layer input projections, the hybrids' small gates) in bf16, for
// the output head (lm_head, or the tied table) in MLX affine 8-bit groups of 64 (quantize's default), and for
// nothing else by matmul.
func checkQueries(t *testing.T, dir string, bits int) {
	t.Helper()
	qs, err := model.Queries(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, tm := tensorMap(t, dir)
	linears := map[string]family.Linear{}
	parts := 1 // the head
	for _, L := range tm.Layers {
		for _, l := range L.Linears {
			linears[l.Path] = l
			parts += len(l.Parts)
		}
	}
	for _, l := range tm.SideLinears() {
		linears[l.Path] = l
		parts += len(l.Parts)
	}
	var matmuls []backend.Query
	for _, q := range qs {
		if q.Op == backend.OpMatMul {
			matmuls = append(matmuls, q)
		}
	}
	if len(matmuls) != parts {
		t.Errorf("%d matmul queries, want %d (one per part of every layer's projections, the side projections and the head)", len(matmuls), parts)
	}
	for _, q := range matmuls[:len(matmuls)-1] {
		path, _, isPart := strings.Cut(q.Name, "[")
		l, ok := linears[path]
		if !ok || isPart != l.Fused() {
			t.Errorf("%s: not a module of the map, or not named as its part", q.Name)
			continue
		}
		w := q.Weight
		if l.Keep {
			if w.Format != backend.FormatDense || w.DType != backend.BF16 {
				t.Errorf("%s: %s, want it kept in bf16", q.Name, w)
			}
		} else if w.Format != backend.FormatTrellis || w.Bits != bits || w.Axis != l.Axis || w.L != 8 || w.Group != 64 {
			t.Errorf("%s: %s, want trellis %d-bit axis %d", q.Name, w, bits, l.Axis)
		}
	}
	arch, err := safetensors.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	if h := matmuls[len(matmuls)-1]; h.Name != tm.OutputHead(arch.Has).Path || h.Weight.Format != backend.FormatAffine ||
		h.Weight.Bits != 8 || h.Weight.Group != 64 {
		t.Errorf("head %s: want the output head (%s) in affine 8-bit, groups of 64", h, tm.OutputHead(arch.Has).Path)
	}
}

// checkKept: what the family map keeps unquantized (norms, per-layer input tables and side projections, layer
// scalars) comes out of the quantizer byte for byte.
func checkKept(t *testing.T, src, out string) {
	t.Helper()
	_, tm := tensorMap(t, src)
	a, err := safetensors.OpenDir(src)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	q, err := safetensors.OpenDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for _, name := range a.Names() {
		if tt, ok := tm.Lookup(name); !ok || (tt.Kind != family.KindParam && tt.Kind != family.KindNorm && !strings.Contains(name, "per_layer")) {
			continue
		}
		x, _ := a.Tensor(name)
		y, err := q.Tensor(name)
		if err != nil || !slices.Equal(x.Shape, y.Shape) || x.DType != y.DType || string(x.Data) != string(y.Data) || q.Has(strings.TrimSuffix(name, ".weight")+".scales") {
			t.Errorf("%s: not kept as stored (%v)", name, err)
		}
	}
}

// decoded writes the quantized model in dir as a dense model: every trellis-coded tensor decoded (the CPU's
// variant) and every affine one (the reference decode) to f32 [out, in] under its .weight name, everything else as
// it is, the quantization block dropped.
func decoded(t *testing.T, dir string) string {
	t.Helper()
	cfg, tm := tensorMap(t, dir)
	return variant.Rewrite(t, dir, func(c map[string]any) { delete(c, "quantization") }, func(ts []backend.Host) []backend.Host {
		byName := map[string]backend.Host{}
		for _, h := range ts {
			byName[h.Name] = h
		}
		var out []backend.Host
		for _, h := range ts {
			path, quantized := strings.CutSuffix(h.Name, ".weight")
			quantized = quantized && byName[path+".scales"].Name != ""
			q, _ := cfg.Quant.For(path)
			switch {
			case strings.HasSuffix(h.Name, ".scales") || strings.HasSuffix(h.Name, ".biases"):
			case quantized && q.Mode == "affine":
				out = append(out, affineDense(t, q, h, byName))
			case quantized:
				g, err := trellis.NewGeometry(trellis.Spec{K: q.Bits, L: q.Trellis.L, T: q.GroupSize, Code: q.Trellis.Code, Axis: q.Trellis.Axis}, h.Shape)
				if err != nil {
					t.Fatal(err)
				}
				w, err := trellis.NewWeights(g, u32s(h.Data), f32s(t, byName[path+".scales"]))
				if err != nil {
					t.Fatal(err)
				}
				name, shape := h.Name, []int{g.OutFeatures(), g.InFeatures()}
				if t, ok := tm.Lookup(path); ok { // a stack of experts: [experts, out, in] under the module's own name
					name, shape = path, t.Shape
				}
				out = append(out, backend.HostF32(name, w.Dense(cpu.TrellisVariant), shape...))
			default:
				out = append(out, h)
			}
		}
		return out
	})
}

// affineDense decodes the affine tensor h (<path>.weight, its scales and biases in byName) to f32 under its name.
func affineDense(t *testing.T, q config.QuantSpec, h backend.Host, byName map[string]backend.Host) backend.Host {
	t.Helper()
	path := strings.TrimSuffix(h.Name, ".weight")
	a, err := affine.New(q.Bits, q.GroupSize, h.Shape[0], h.Shape[1]*32/q.Bits, u32s(h.Data),
		f32s(t, byName[path+".scales"]), f32s(t, byName[path+".biases"]))
	if err != nil {
		t.Fatal(err)
	}
	return backend.HostF32(h.Name, a.Dense(), a.Out, a.In)
}

// u32s reads little-endian words.
func u32s(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// f32s widens a floating tensor.
func f32s(t *testing.T, h backend.Host) []float32 {
	t.Helper()
	f, err := h.Float32s()
	if err != nil {
		t.Fatalf("%s: %v", h.Name, err)
	}
	return f
}

// run loads dir on b and returns its prompt logits and a greedy continuation of 8 tokens.
func run(t *testing.T, b backend.Backend, dir string, prompt []int) ([]float32, []int) {
	t.Helper()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cache, err := m.NewCache(1, len(prompt))
	if err != nil {
		t.Fatal(err)
	}
	var s model.Step
	for p, id := range prompt {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	logits, err := m.Forward(s, cache, len(prompt))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Generate(prompt, model.GenOptions{MaxTokens: 8, Picker: argmax{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Generated) != 8 {
		t.Fatalf("generated %d tokens (%s), want 8", len(res.Generated), res.StopReason)
	}
	return logits, res.Generated
}

// compare returns the relative RMS error of got against ref (n rows) and on how many rows their argmax agrees.
func compare(ref, got []float32, n int) (float64, int) {
	var sig, noise float64
	for i, r := range ref {
		d := float64(got[i]) - float64(r)
		sig += float64(r) * float64(r)
		noise += d * d
	}
	vocab, agree := len(ref)/n, 0
	for r := range n {
		if top(ref[r*vocab:(r+1)*vocab]) == top(got[r*vocab:(r+1)*vocab]) {
			agree++
		}
	}
	return math.Sqrt(noise / sig), agree
}

func top(l []float32) int {
	best := 0
	for i, v := range l {
		if v > l[best] {
			best = i
		}
	}
	return best
}

// argmax is greedy decoding (first index wins ties).
type argmax struct{}

func (argmax) Pick(l []float32, _ []int) (int, error) { return top(l), nil }

// tensorMap reads dir's config through the one directory reader and returns it with its family's tensor map.
func tensorMap(t *testing.T, dir string) (*config.Model, *family.Map) {
	t.Helper()
	d, err := modeldir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	fam, err := family.For(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Weights()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	return cfg, fam.TensorsOf(cfg, a.Has)
}
