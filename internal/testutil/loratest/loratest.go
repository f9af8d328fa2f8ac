// Package loratest builds LoRA adapters with known random matrices for a model directory, and the references an
// adapted model is held to: the model with every adapted weight merged (W + Σ s·B·A, summed in float64 and
// rounded once to float32), and a quantized model with its projections decoded to float32 by the CPU's own
// arithmetic (trellis.Reciprocal, affine.DecodeRow), so that "decoded W + s·B·A" is a plain dense model. The
// merged model runs without adapters, so it checks the runtime deltas (two MatMuls and a scaled add per
// projection) against a different computation. A separate package from testutil because it writes safetensors.
package loratest

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// Spreads of the random matrices: with the fixtures' weights at ~0.02, rank 8 and scale 2, the merged delta
// s·B·A has a spread of ~0.006, large enough to move every logit and small enough to keep the model sane.
const (
	stdA = 0.05
	stdB = 0.02
)

// Random writes an adapter of rank r and scale s for the dense model in modelDir, adapting every layer module
// whose path ends with one of suffixes ("self_attn.q_proj", "self_attn.qkv_proj"), in layout, and returns its
// directory. A and B hold bf16-exact values (a backend storing bf16 matrices holds them exactly), B nonzero,
// drawn from a PCG seeded with seed.
func Random(tb testing.TB, modelDir string, layout lora.Layout, suffixes []string, r int, s float64, seed uint64) string {
	tb.Helper()
	arch, err := safetensors.OpenDir(modelDir)
	if err != nil {
		tb.Fatal(err)
	}
	defer arch.Close()
	rng := rand.New(rand.NewPCG(seed, 0x10ba))
	normal := func(n int, std float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = backend.BF16ToF32(backend.F32ToBF16(float32(rng.NormFloat64() * std)))
		}
		return v
	}
	var ts []lora.Target
	for _, name := range arch.Names() {
		mod, ok := strings.CutSuffix(name, ".weight")
		if !ok || !strings.HasPrefix(mod, "model.layers.") || !matches(mod, suffixes) {
			continue
		}
		h, _ := arch.Tensor(name)
		if len(h.Shape) != 2 || arch.Has(mod+".scales") {
			tb.Fatalf("loratest: %s is not a dense matrix (%v); adapt the unquantized model", name, h.Shape)
		}
		out, in := h.Shape[0], h.Shape[1]
		ts = append(ts, lora.Target{Module: mod, Scale: s, A: host(normal(r*in, stdA), layout, r, in), B: host(normal(out*r, stdB), layout, out, r)})
	}
	if len(ts) == 0 {
		tb.Fatalf("loratest: no module of %s ends with %v", modelDir, suffixes)
	}
	dir := filepath.Join(tb.TempDir(), "adapter")
	if err := lora.Write(dir, layout, ts); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// host stores v as PEFT checkpoints usually hold adapters (bf16), or float32 for mlx-lm's.
func host(v []float32, layout lora.Layout, shape ...int) backend.Host {
	if layout != lora.PEFT {
		return backend.HostF32("", v, shape...)
	}
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], backend.F32ToBF16(x))
	}
	return backend.Host{DType: backend.BF16, Shape: shape, Data: b}
}

func matches(mod string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(mod, "."+s) {
			return true
		}
	}
	return false
}

// Merged writes a copy of the dense model in modelDir (config.json and weights) whose adapted weights are
// W + Σ s·B·A over the adapters, as float32, and returns its directory.
func Merged(tb testing.TB, modelDir string, ads ...*lora.Adapter) string {
	tb.Helper()
	deltas := map[string][]lora.Target{}
	for _, ad := range ads {
		for _, t := range ad.Targets {
			deltas[t.Module+".weight"] = append(deltas[t.Module+".weight"], t)
		}
	}
	return rewrite(tb, modelDir, nil, func(h backend.Host) backend.Host {
		ts, ok := deltas[h.Name]
		if !ok {
			return h
		}
		w := floats(tb, h)
		out, in := h.Shape[0], h.Shape[1]
		type ab struct {
			a, b []float32
			r    int
			s    float64
		}
		var mats []ab
		for _, t := range ts {
			if t.A.Shape[1] != in || t.B.Shape[0] != out {
				tb.Fatalf("loratest: %s: adapter %v·%v for weight %v", h.Name, t.B.Shape, t.A.Shape, h.Shape)
			}
			mats = append(mats, ab{floats(tb, t.A), floats(tb, t.B), t.Rank(), t.Scale})
		}
		merged := make([]float32, len(w))
		for o := range out {
			for i := range in {
				sum := float64(w[o*in+i])
				for _, m := range mats {
					var d float64
					for k := range m.r {
						d += float64(m.b[o*m.r+k]) * float64(m.a[k*in+i])
					}
					sum += m.s * d
				}
				merged[o*in+i] = float32(sum)
			}
		}
		return backend.HostF32(h.Name, merged, out, in)
	})
}

func floats(tb testing.TB, h backend.Host) []float32 {
	v, err := h.Float32s()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// Decoded writes a copy of the quantized model in qdir with every trellis or affine projection replaced by its
// float32 decoding under the CPU backend's arithmetic, and no quantization block, and returns its directory.
func Decoded(tb testing.TB, qdir string) string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(qdir, config.ConfigFile))
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Parse(raw, nil)
	if err != nil {
		tb.Fatal(err)
	}
	arch, err := safetensors.OpenDir(qdir)
	if err != nil {
		tb.Fatal(err)
	}
	defer arch.Close()
	tensor := func(name string) backend.Host {
		h, err := arch.Tensor(name)
		if err != nil {
			tb.Fatal(err)
		}
		return h
	}
	drop := func(name string) bool {
		for _, sfx := range []string{".scales", ".biases"} {
			if p, ok := strings.CutSuffix(name, sfx); ok && arch.Has(p+".weight") {
				return true
			}
		}
		return false
	}
	return rewrite(tb, qdir, func(c map[string]any) { delete(c, "quantization"); delete(c, "quantization_config") }, func(h backend.Host) backend.Host {
		path, ok := strings.CutSuffix(h.Name, ".weight")
		if drop(h.Name) {
			return backend.Host{}
		}
		if !ok || !arch.Has(path+".scales") {
			return h
		}
		q, ok := cfg.Quant.For(path)
		if !ok {
			tb.Fatalf("loratest: %s has scales but no quantization spec", path)
		}
		scales := floats(tb, tensor(path+".scales"))
		words := make([]uint32, len(h.Data)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(h.Data[4*i:])
		}
		switch q.Mode {
		case "trellis":
			g, err := trellis.NewGeometry(trellis.Spec{K: q.Bits, L: q.Trellis.L, T: q.GroupSize, Code: q.Trellis.Code, Axis: q.Trellis.Axis}, h.Shape)
			if err != nil {
				tb.Fatal(err)
			}
			w, err := trellis.NewWeights(g, words, scales)
			if err != nil {
				tb.Fatal(err)
			}
			return backend.HostF32(h.Name, w.Dense(trellis.Reciprocal), w.OutFeatures(), w.InFeatures())
		case "affine":
			out, in := h.Shape[0], h.Shape[1]*32/q.Bits
			w, err := affine.New(q.Bits, q.GroupSize, out, in, words, scales, floats(tb, tensor(path+".biases")))
			if err != nil {
				tb.Fatal(err)
			}
			return backend.HostF32(h.Name, w.Dense(), out, in)
		}
		tb.Fatalf("loratest: %s: quantization mode %q", path, q.Mode)
		return h
	})
}

// rewrite copies the model in src to a temporary directory: config.json edited by cfg (nil: as it is), every
// tensor through fn (a Host without a name is dropped), in one model.safetensors.
func rewrite(tb testing.TB, src string, cfg func(map[string]any), fn func(backend.Host) backend.Host) string {
	tb.Helper()
	dst := tb.TempDir()
	raw, err := os.ReadFile(filepath.Join(src, config.ConfigFile))
	if err != nil {
		tb.Fatal(err)
	}
	if cfg != nil {
		var c map[string]any
		if err := json.Unmarshal(raw, &c); err != nil {
			tb.Fatal(err)
		}
		cfg(c)
		if raw, err = json.MarshalIndent(c, "", "  "); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dst, config.ConfigFile), raw, 0o644); err != nil {
		tb.Fatal(err)
	}
	arch, err := safetensors.OpenDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer arch.Close()
	var out []backend.Host
	for _, name := range arch.Names() {
		h, err := arch.Tensor(name)
		if err != nil {
			tb.Fatal(err)
		}
		if h = fn(h); h.Name != "" {
			out = append(out, h)
		}
	}
	if err := safetensors.WriteFile(filepath.Join(dst, "model.safetensors"), out, nil); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// MaxRelErr is max|got − ref| / max|ref| and max|ref|.
func MaxRelErr(got, ref []float32) (rel, maxRef float64) {
	var maxErr float64
	for i := range ref {
		maxRef = max(maxRef, math.Abs(float64(ref[i])))
		maxErr = max(maxErr, math.Abs(float64(got[i])-float64(ref[i])))
	}
	return maxErr / maxRef, maxRef
}
