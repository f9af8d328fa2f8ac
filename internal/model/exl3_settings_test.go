package model_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

// exl3Module is one projection stored as exllamav3 stores it, and its reference reconstruction.
type exl3Module struct {
	tensors []backend.Host
	w       *exl3.Weights
}

// randomEXL3 makes the EXL3 tensors of a module at path: random K-bit codes in every tile, random fp16
// sign-and-scale vectors (or, with packed, the older packed signs .su/.sv), the codebook's marker.
func randomEXL3(t *testing.T, rng *rand.Rand, path string, in, out, k int, cb exl3.Codebook, packed bool) exl3Module {
	t.Helper()
	g := exl3.Geometry{TilesK: exl3.Padded(in) / exl3.TileSide, TilesN: exl3.Padded(out) / exl3.TileSide, K: k}
	var tiles []uint16
	codes := make([]uint16, exl3.TileSize)
	for range g.TilesK * g.TilesN {
		for i := range codes {
			codes[i] = uint16(rng.IntN(1 << k))
		}
		tiles = append(tiles, exl3.Pack(codes, k)...)
	}
	u16 := func(v []uint16) []byte {
		b := make([]byte, 2*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint16(b[2*i:], x)
		}
		return b
	}
	ts := []backend.Host{{Name: path + exl3.SuffixTrellis, DType: backend.I16, Shape: []int{g.TilesK, g.TilesN, 16 * k}, Data: u16(tiles)}}
	side := func(n int, scaled, signs string) []float32 {
		if packed { // signs only: the older converters' unit scales
			p := make([]uint16, n/16)
			for i := range p {
				p[i] = uint16(rng.Uint32())
			}
			ts = append(ts, backend.Host{Name: path + signs, DType: backend.I16, Shape: []int{n / 16}, Data: u16(p)})
			return exl3.UnpackSigns(p)
		}
		v, h := make([]float32, n), make([]uint16, n)
		for i := range v {
			x := float32(math.Exp(rng.NormFloat64()*0.3) * 0.2)
			if rng.IntN(2) == 0 {
				x = -x
			}
			h[i] = dtype.F32ToF16(x)
			v[i] = dtype.F16ToF32(h[i])
		}
		ts = append(ts, backend.Host{Name: path + scaled, DType: backend.F16, Shape: []int{n}, Data: u16(h)})
		return v
	}
	su := side(g.PadIn(), exl3.SuffixSUH, exl3.SuffixSU)
	sv := side(g.PadOut(), exl3.SuffixSVH, exl3.SuffixSV)
	marker := func(suffix string, v uint32) {
		b := make([]byte, 4)
		binary.LittleEndian.PutUint32(b, v)
		ts = append(ts, backend.Host{Name: path + suffix, DType: backend.I32, Shape: []int{}, Data: b})
	}
	switch cb {
	case exl3.MCG:
		marker(exl3.SuffixMCG, exl3.MCGMult)
	case exl3.Mul1:
		marker(exl3.SuffixMul1, exl3.Mul1Mult)
	}
	w, err := exl3.New(g, cb, in, out, tiles, su, sv)
	if err != nil {
		t.Fatal(err)
	}
	return exl3Module{ts, w}
}

// exl3Settings rewrites tiny-qwen2-yarn into an EXL3 model of settings the shared fixtures do not have, with
// random codes: 5.5 bits per weight as K 5 and 6 alternating across tensors, the 3inst codebook (one mcg and one
// mul1 tensor among them), an 8-bit lm_head (the model is tied; exllamav3 stores the head anyway), the MLP
// 700 wide (stored padded to 768), qwen2's q/k/v biases, and one module in the older packed-sign format. It
// returns the EXL3 directory and one holding every projection's reference reconstruction as dense F32 weights.
func exl3Settings(t *testing.T) (string, string) {
	src := testutil.Fixture(t, "models/tiny-qwen2-yarn")
	rng := rand.New(rand.NewPCG(11, 12))
	const inter = 700
	shapes := map[string][2]int{"q_proj": {256, 256}, "k_proj": {128, 256}, "v_proj": {128, 256}, "o_proj": {256, 256},
		"gate_proj": {inter, 256}, "up_proj": {inter, 256}, "down_proj": {256, inter}}
	var quant, dense []backend.Host
	i := 0
	add := func(path string, out, in, k int) {
		cb := exl3.ThreeInst
		switch path {
		case "model.layers.0.self_attn.k_proj":
			cb = exl3.MCG
		case "model.layers.1.mlp.down_proj":
			cb = exl3.Mul1
		}
		m := randomEXL3(t, rng, path, in, out, k, cb, path == "model.layers.1.self_attn.o_proj")
		quant = append(quant, m.tensors...)
		dense = append(dense, backend.HostF32(path+".weight", m.w.Dense(), out, in))
		i++
	}
	edit := func(ts []backend.Host, extra []backend.Host) []backend.Host {
		var out []backend.Host
		for _, h := range ts {
			switch {
			case strings.HasSuffix(h.Name, "_proj.weight"):
				continue
			case strings.HasSuffix(h.Name, "_proj.bias"): // random weights: biases of their scale
				v := make([]float32, h.Shape[0])
				for j := range v {
					v[j] = float32(rng.NormFloat64() * 0.1)
				}
				h = backend.HostF32(h.Name, v, h.Shape...)
			}
			out = append(out, h)
		}
		return append(out, extra...)
	}
	for l := range 2 {
		for _, mod := range []string{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"} {
			s := shapes[mod[strings.IndexByte(mod, '.')+1:]]
			add(fmt.Sprintf("model.layers.%d.%s", l, mod), s[0], s[1], 5+i%2)
		}
	}
	add("lm_head", 2048, 256, 8)
	var biases []backend.Host
	qdir := variant.Rewrite(t, src, func(c map[string]any) {
		c["intermediate_size"] = inter
		c["quantization_config"] = map[string]any{"quant_method": "exl3", "version": "1.4.1", "bits": 5.5, "head_bits": 8, "codebook": "3inst"}
	}, func(ts []backend.Host) []backend.Host {
		out := edit(ts, quant)
		for _, h := range out {
			if strings.HasSuffix(h.Name, "_proj.bias") {
				biases = append(biases, h)
			}
		}
		return out
	})
	ddir := variant.Rewrite(t, src, func(c map[string]any) { c["intermediate_size"] = inter }, func(ts []backend.Host) []backend.Host {
		out := slices.DeleteFunc(edit(ts, dense), func(h backend.Host) bool { return strings.HasSuffix(h.Name, "_proj.bias") })
		return append(out, biases...) // the same biases
	})
	return qdir, ddir
}

// TestEXL3Settings: the loader and the CPU forward over EXL3 settings no fixture holds give the logits of the
// same model with every projection's reference reconstruction as dense weights: exactly when the CPU expands
// the layers to their reconstruction, to f32 rounding when it decodes them on the fly in the rotated basis.
func TestEXL3Settings(t *testing.T) {
	qdir, ddir := exl3Settings(t)
	qs, err := model.Queries(qdir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, q := range qs {
		if q.Op == backend.OpMatMul {
			kinds[q.Weight.String()]++
		}
	}
	want := map[string]int{"exl3 5-bit 3inst": 7, "exl3 6-bit 3inst": 5, "exl3 6-bit mcg": 1, "exl3 6-bit mul1": 1, "exl3 8-bit 3inst": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("queries: %d × %s, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	g, _ := readGolden(t, testutil.Fixture(t, "models/tiny-qwen2-yarn"))
	ids := g.PromptIDs
	ref := logitsOn(t, ddir, cpu.New(), ids)
	expand := cpu.New()
	expand.ExpandQuantizedBelow = cpu.DefaultExpandQuantizedBelow
	for _, c := range []struct {
		name string
		b    *cpu.Backend
		tol  float64
	}{{"expanded", expand, 0}, {"on the fly", cpu.New(), 1e-5}} {
		got := logitsOn(t, qdir, c.b, ids)
		var maxRef, maxErr float64
		for i := range ref {
			maxRef = max(maxRef, math.Abs(float64(ref[i])))
			maxErr = max(maxErr, math.Abs(float64(got[i]-ref[i])))
		}
		t.Logf("%s: max|err| %.3g of max|logit| %.3g", c.name, maxErr, maxRef)
		if maxErr > c.tol*maxRef || maxRef == 0 || math.IsNaN(maxErr) {
			t.Errorf("%s: max|err| %.3g > %g·%.3g", c.name, maxErr, c.tol, maxRef)
		}
	}
}

// TestEXL3Rejects: a malformed EXL3 checkpoint fails at load with one error naming the tensor or module.
func TestEXL3Rejects(t *testing.T) {
	qdir, _ := exl3Settings(t)
	const k = "model.layers.0.self_attn.k_proj"
	keep := func(map[string]any) {}
	for _, c := range []struct {
		name   string
		config func(map[string]any)
		edit   func(backend.Host) []backend.Host // what replaces each tensor
		want   string
	}{
		{"no exl3 block", func(c map[string]any) { delete(c, "quantization_config") }, nil,
			`tensor "model.layers.0.self_attn.q_proj.trellis": EXL3 codes, but config.json's quantization_config is not quant_method "exl3"`},
		{"no suh", keep, func(h backend.Host) []backend.Host {
			if h.Name == k+".suh" {
				return nil
			}
			return []backend.Host{h}
		},
			`module "model.layers.0.self_attn.k_proj": EXL3 trellis without .suh (or .su)`},
		{"trellis of other dims", func(c map[string]any) { c["intermediate_size"] = 900 }, nil,
			`tensor "model.layers.0.mlp.gate_proj.trellis": trellis [16 48 80] holds 256→768 features, the config implies 256→900 (stored 256→1024)`},
		{"trellis dtype", keep, func(h backend.Host) []backend.Host {
			if h.Name == k+".trellis" {
				h.DType, h.Shape = backend.F16, slices.Clone(h.Shape)
			}
			return []backend.Host{h}
		}, `tensor "model.layers.0.self_attn.k_proj.trellis": EXL3 trellis must be I16, got F16`},
		{"svh shape", keep, func(h backend.Host) []backend.Host {
			if h.Name == k+".svh" {
				h.Shape, h.Data = []int{64}, h.Data[:128]
			}
			return []backend.Host{h}
		}, `tensor "model.layers.0.self_attn.k_proj.svh" is F16 [64], want F16 [128]`},
		{"marker value", keep, func(h backend.Host) []backend.Host {
			if h.Name == k+".mcg" {
				h.Data = []byte{1, 2, 3, 4}
			}
			return []backend.Host{h}
		}, `module "model.layers.0.self_attn.k_proj": exl3 format: mcg marker holds multiplier 0x4030201, the codebook's is 0xcbac1fed`},
		{"two markers", keep, func(h backend.Host) []backend.Host {
			if h.Name == k+".mcg" {
				return []backend.Host{h, {Name: k + ".mul1", DType: h.DType, Shape: h.Shape, Data: binary.LittleEndian.AppendUint32(nil, exl3.Mul1Mult)}}
			}
			return []backend.Host{h}
		}, `module "model.layers.0.self_attn.k_proj": exl3 format: both an mcg and a mul1 codebook marker`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := variant.Rewrite(t, qdir, c.config, func(ts []backend.Host) []backend.Host {
				var out []backend.Host
				for _, h := range ts {
					if c.edit == nil {
						out = append(out, h)
						continue
					}
					out = append(out, c.edit(h)...)
				}
				return out
			})
			m, err := model.Load(dir, cpu.New())
			if err == nil {
				m.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n got %v\nwant …%s…", err, c.want)
			}
		})
	}
}
