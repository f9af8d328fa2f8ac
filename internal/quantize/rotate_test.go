// The rotation round trip: tiny models quantized with random Hadamard incoherence processing and LDLQ against
// calibration Hessians (random token ids: the tiny models have no tokenizer) load on the CPU, compute what their decoded codes rotated back to the original basis
// compute, keep their logits near the unquantized model's, and generate; the artifact states its rotations in the
// config and carries the shared input signs. A model without rotations needs no rotation op and loads as before;
// sign tensors the config does not announce, or malformed ones, are refused by name.
package quantize_test

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// TestRotatedRoundTrip: qwen3 (every side rotated, k/v at the 128 block) and phi3 (fused qkv/gate_up: input
// rotations only) at 3 bits, L 8, T 64, RHT, LDLQ, Axis0; the affine head beside them is neither rotated nor LDLQ.
func TestRotatedRoundTrip(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	for _, typ := range []string{"qwen3", "phi3"} {
		t.Run(typ, func(t *testing.T) {
			v := variant.For(t, typ)
			g, _ := testutil.ReadGolden(t, v.Fixture)
			ref, refGen := run(t, b, v.Dir, g.PromptIDs)
			out := filepath.Join(t.TempDir(), "q")
			ids := make([]int, 512) // the tiny models have no tokenizer: random ids
			rng := rand.New(rand.NewPCG(7, 7))
			for i := range ids {
				ids[i] = rng.IntN(cfgOf(t, v.Dir).VocabSize)
			}
			o := quantize.Options{Bits: 3, L: 8, GroupSize: 64, RHT: true, Axis0: true, CalibIDs: ids, CalibTokens: 512, CalibCtx: 64}
			rep, err := quantize.Run(v.Dir, out, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range rep.Tensors {
				if tr.Spec.Mode == "affine" {
					if tr.RotatedIn || tr.RotatedOut || tr.LDLQ {
						t.Errorf("%s: the affine head rotated (in %v, out %v) or LDLQ (%v)", tr.Name, tr.RotatedIn, tr.RotatedOut, tr.LDLQ)
					}
					continue
				}
				if !tr.RotatedIn || !tr.LDLQ {
					t.Errorf("%s: rotated in %v, LDLQ %v; want both", tr.Name, tr.RotatedIn, tr.LDLQ)
				}
				if fused := typ == "phi3" && (strings.HasSuffix(tr.Name, "qkv_proj") || strings.HasSuffix(tr.Name, "gate_up_proj")); tr.RotatedOut == fused {
					t.Errorf("%s: rotated out %v", tr.Name, tr.RotatedOut)
				}
			}
			cfg, _ := tensorMap(t, out)
			if r := cfg.Quant.Rotation; r == nil || r.Method != "hadamard" || r.Version != 1 {
				t.Fatalf("config rotation %+v", r)
			}
			checkSharedSigns(t, out, typ)
			got, gen := run(t, b, out, g.PromptIDs)
			twin, _ := run(t, b, unrotated(t, out), g.PromptIDs)
			if d, _ := compare(twin, got, len(g.PromptIDs)); d > 1e-4 {
				t.Errorf("rotated model's logits differ from its decoded, rotated-back dense twin's by %.3g (relative RMS)", d)
			}
			rel, agree := compare(ref, got, len(g.PromptIDs))
			same := 0
			for i := range gen {
				if gen[i] == refGen[i] {
					same++
				}
			}
			t.Logf("%s 3-bit rht+ldlq: logits relative RMS error %.3f, top-1 %d/%d, greedy %d/%d as unquantized", typ, rel, agree, len(g.PromptIDs), same, len(gen))
			if rel > roundTripBounds[3] {
				t.Errorf("relative RMS error %.3f above the 3-bit bound %.2f", rel, roundTripBounds[3])
			}
			// a backend without the rotation op is refused before loading, naming the op
			if _, err := model.Load(out, noRotate{b}); err == nil || !strings.Contains(err.Error(), "hadamard") {
				t.Errorf("load on a backend without rotations: %v", err)
			}
		})
	}
}

func cfgOf(t *testing.T, dir string) *config.Model {
	c, _ := tensorMap(t, dir)
	return c
}

// noRotate is the CPU backend with only the Backend interface visible (no Rotator).
type noRotate struct{ backend.Backend }

// checkSharedSigns: q/k/v (and gate/up) of a layer carry the same input signs; outputs differ per module.
func checkSharedSigns(t *testing.T, dir, typ string) {
	t.Helper()
	a, err := safetensors.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	groups := [][]string{{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"}, {"mlp.gate_proj", "mlp.up_proj"}}
	if typ == "phi3" {
		return // one fused module per group
	}
	for _, grp := range groups {
		var first string
		for i, m := range grp {
			h, err := a.Tensor("model.layers.0." + m + model.SignsIn)
			if err != nil {
				t.Fatal(err)
			}
			if h.DType != backend.I8 {
				t.Fatalf("%s: dtype %s", h.Name, h.DType)
			}
			if i == 0 {
				first = string(h.Data)
			} else if string(h.Data) != first {
				t.Errorf("%s: input signs differ from %s's", h.Name, grp[0])
			}
		}
	}
	q, _ := a.Tensor("model.layers.0.self_attn.q_proj" + model.SignsOut)
	o, _ := a.Tensor("model.layers.0.self_attn.o_proj" + model.SignsOut)
	if string(q.Data) == string(o.Data) {
		t.Error("q_proj and o_proj share output signs")
	}
}

// unrotated writes the rotated quantized model in dir as a dense model: every coded tensor decoded (the CPU's
// variant) and rotated back, W = R_outᵀ·Ŵ·R_in, the affine head decoded, the sign tensors and the quantization
// block dropped. Independent of the loader's rotation path: it uses rht.Apply on the weight's rows and columns.
func unrotated(t *testing.T, dir string) string {
	t.Helper()
	cfg, _ := tensorMap(t, dir)
	return variant.Rewrite(t, dir, func(c map[string]any) { delete(c, "quantization") }, func(ts []backend.Host) []backend.Host {
		byName := map[string]backend.Host{}
		for _, h := range ts {
			byName[h.Name] = h
		}
		signs := func(name string) []float32 {
			h, ok := byName[name]
			if !ok {
				return nil
			}
			s := make([]float32, len(h.Data))
			for i, b := range h.Data {
				s[i] = float32(int8(b))
			}
			return s
		}
		var out []backend.Host
		for _, h := range ts {
			path, quantized := strings.CutSuffix(h.Name, ".weight")
			quantized = quantized && byName[path+".scales"].Name != ""
			q, _ := cfg.Quant.For(path)
			switch {
			case strings.HasSuffix(h.Name, ".scales"), strings.HasSuffix(h.Name, ".biases"), strings.HasSuffix(h.Name, model.SignsIn), strings.HasSuffix(h.Name, model.SignsOut):
			case quantized && q.Mode == "affine":
				out = append(out, affineDense(t, q, h, byName))
			case quantized:
				g, err := trellis.NewGeometry(trellis.Spec{K: q.Bits, L: q.Trellis.L, T: q.GroupSize, Code: q.Trellis.Code, Axis: q.Trellis.Axis}, h.Shape)
				if err != nil {
					t.Fatal(err)
				}
				sc, _ := byName[path+".scales"].Float32s()
				words := make([]uint32, len(h.Data)/4)
				for i := range words {
					words[i] = binary.LittleEndian.Uint32(h.Data[4*i:])
				}
				w, err := trellis.NewWeights(g, words, sc)
				if err != nil {
					t.Fatal(err)
				}
				outF, inF := g.OutFeatures(), g.InFeatures()
				d := w.Dense(cpu.TrellisVariant)
				if s := signs(path + model.SignsIn); s != nil { // rows: w ↦ R_inᵀ... each row r: Ŵ[r]·R_in = (R_inᵀ·Ŵ[r]ᵀ)ᵀ
					for r := range outF {
						row := d[r*inF : (r+1)*inF]
						rht.Apply(row, row, nil, s, rht.Block(inF))
					}
				}
				if s := signs(path + model.SignsOut); s != nil { // columns: R_outᵀ·column
					col := make([]float32, outF)
					for c := range inF {
						for r := range outF {
							col[r] = d[r*inF+c]
						}
						rht.Apply(col, col, nil, s, rht.Block(outF))
						for r := range outF {
							d[r*inF+c] = col[r]
						}
					}
				}
				out = append(out, backend.HostF32(h.Name, d, outF, inF))
			default:
				out = append(out, h)
			}
		}
		return out
	})
}

// TestPlainArtifactNeedsNoRotation: without --rht the artifact has no rotation key and no sign tensors, asks no
// rotation op, and loads on a backend without one; announced-less or malformed signs are refused by name.
func TestPlainArtifactNeedsNoRotation(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	v := variant.For(t, "qwen3")
	out := filepath.Join(t.TempDir(), "q")
	if _, err := quantize.Run(v.Dir, out, quantize.Options{Bits: 4, L: 6, GroupSize: 64}, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "rotation") {
		t.Error("a plain artifact's config mentions rotation")
	}
	qs, err := model.Queries(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.Op == backend.OpHadamard {
			t.Errorf("a plain artifact asks %s", q)
		}
	}
	m, err := model.Load(out, noRotate{b})
	if err != nil {
		t.Fatalf("a plain artifact on a backend without rotations: %v", err)
	}
	m.Close()

	// signs without the config's rotation entry
	path := "model.layers.0.self_attn.q_proj"
	withSigns := func(data []byte, n int, announce bool) string {
		return variant.Rewrite(t, out, func(c map[string]any) {
			if announce {
				c["quantization"].(map[string]any)["rotation"] = map[string]any{"method": "hadamard", "version": 1}
			}
		}, func(ts []backend.Host) []backend.Host {
			return append(ts, backend.Host{Name: path + model.SignsIn, DType: backend.I8, Shape: []int{n}, Data: data})
		})
	}
	ones := make([]byte, 256)
	for i := range ones {
		ones[i] = 1
	}
	bad := append([]byte(nil), ones...)
	bad[7] = 3
	for _, c := range []struct {
		dir, want string
	}{
		{withSigns(ones, 256, false), `"model.layers.0.self_attn.q_proj.rht_in": rotation signs, but config.json's quantization block has no "rotation" entry`},
		{withSigns(bad, 256, true), `"model.layers.0.self_attn.q_proj.rht_in": element 7 is 3, want +1 or −1`},
		{withSigns(ones[:128], 128, true), `"model.layers.0.self_attn.q_proj.rht_in" is I8 [128], want I8 [256]`},
	} {
		if _, err := model.Load(c.dir, b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("load: %v, want an error containing %s", err, c.want)
		}
	}
}
