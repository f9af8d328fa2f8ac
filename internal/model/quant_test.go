package model_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

func u32Host(name string, v []uint32, shape ...int) backend.Host {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return backend.Host{Name: name, DType: backend.U32, Shape: shape, Data: b}
}

// quantizeFixture writes two copies of a model directory: every projection quantized by quant (the codes and
// the config block it returns), and the same model with those projections replaced by their decoded dense weights.
func quantizeFixture(t *testing.T, src string, quant func(name string, w []float32, out, in int) ([]backend.Host, []float32, map[string]any)) (qdir, ddir string) {
	t.Helper()
	arch, err := safetensors.OpenDir(src)
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	qdir, ddir = t.TempDir(), t.TempDir()
	var qts, dts []backend.Host
	perPath := map[string]any{}
	var def map[string]any
	for _, name := range arch.Names() {
		h, _ := arch.Tensor(name)
		if !strings.HasSuffix(name, "_proj.weight") {
			qts, dts = append(qts, h), append(dts, h)
			continue
		}
		w, err := h.Float32s()
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimSuffix(name, ".weight")
		hosts, dense, spec := quant(path, w, h.Shape[0], h.Shape[1])
		qts = append(qts, hosts...)
		dts = append(dts, backend.HostF32(name, dense, h.Shape...))
		perPath[path] = spec
		def = spec
	}
	cfg, _ := os.ReadFile(filepath.Join(src, "config.json"))
	var c map[string]any
	json.Unmarshal(cfg, &c)
	os.WriteFile(filepath.Join(ddir, "config.json"), cfg, 0o644)
	q := map[string]any{}
	for k, v := range def {
		q[k] = v
	}
	for k, v := range perPath {
		q[k] = v
	}
	c["quantization"] = q
	cfg, _ = json.Marshal(c)
	os.WriteFile(filepath.Join(qdir, "config.json"), cfg, 0o644)
	if err := safetensors.WriteFile(filepath.Join(qdir, "model.safetensors"), qts, nil); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.WriteFile(filepath.Join(ddir, "model.safetensors"), dts, nil); err != nil {
		t.Fatal(err)
	}
	return qdir, ddir
}

// sameLogits loads both directories on the CPU and compares the prompt logits of the fixture's golden prompt.
func sameLogits(t *testing.T, fixture, qdir, ddir string) {
	t.Helper()
	g, ref := readGolden(t, testutil.Fixture(t, fixture))
	b := cpu.New()
	defer b.Close()
	var logits [2][]float32
	for i, dir := range []string{qdir, ddir} {
		m, err := model.Load(dir, b)
		if err != nil {
			t.Fatal(err)
		}
		cache, _ := m.NewCache(1, len(g.PromptIDs))
		s := model.Step{}
		for p, id := range g.PromptIDs {
			s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
		}
		if logits[i], err = m.Forward(s, cache, len(g.PromptIDs)); err != nil {
			t.Fatal(err)
		}
		m.Close()
	}
	var maxRef, maxErr, drift float64
	for i := range logits[0] {
		maxRef = max(maxRef, math.Abs(float64(logits[1][i])))
		maxErr = max(maxErr, math.Abs(float64(logits[0][i]-logits[1][i])))
		drift = max(drift, math.Abs(float64(logits[1][i]-ref[i])))
	}
	t.Logf("quantized vs decoded-dense: max|err| %.3g of max %.3g; quantization moved logits by up to %.3g", maxErr, maxRef, drift)
	if maxErr > 1e-5*maxRef {
		t.Errorf("on-the-fly quantized forward differs from its dense expansion by %.3g (> 1e-5·%.3g)", maxErr, maxRef)
	}
	if drift == 0 {
		t.Errorf("quantized logits equal the bf16 golden exactly: the quantized weights were not used")
	}
}

// TestTrellisModel: a tiny-qwen3 whose projections are 4-bit trellis codes (down_proj on axis 0) runs on the
// CPU with the same logits as the model holding their decoded dense weights.
func TestTrellisModel(t *testing.T) {
	qdir, ddir := quantizeFixture(t, testutil.Fixture(t, "models/tiny-qwen3"), func(path string, w []float32, out, in int) ([]backend.Host, []float32, map[string]any) {
		axis := 1
		if strings.HasSuffix(path, "down_proj") {
			axis = 0
		}
		tw, err := trellis.Quantize(w, out, in, trellis.Spec{K: 4, L: 12, T: 256, Code: "1mad", Axis: axis}, false)
		if err != nil {
			t.Fatal(err)
		}
		scales := make([]byte, 2*len(tw.Scales))
		for i, s := range tw.Scales {
			binary.LittleEndian.PutUint16(scales[2*i:], backend.F32ToF16(s))
		}
		hosts := []backend.Host{u32Host(path+".weight", tw.Words, tw.StoredShape()...),
			{Name: path + ".scales", DType: backend.F16, Shape: []int{len(tw.Scales)}, Data: scales}}
		spec := map[string]any{"mode": "trellis", "bits": 4, "group_size": 256, "trellis": map[string]any{"L": 12, "code": "1mad", "axis": axis}}
		return hosts, tw.Dense(trellis.Reciprocal), spec
	})
	sameLogits(t, "models/tiny-qwen3", qdir, ddir)
}

// TestAffineModel: the same for MLX affine 4-bit, group 64, and for Phi-3's fused projections split by rows of
// the affine codes, scales and biases.
func TestAffineModel(t *testing.T) {
	quant := func(path string, w []float32, out, in int) ([]backend.Host, []float32, map[string]any) {
		a, err := affine.Quantize(w, out, in, 4, 64)
		if err != nil {
			t.Fatal(err)
		}
		hosts := []backend.Host{u32Host(path+".weight", a.Packed, out, in*4/32),
			backend.HostF32(path+".scales", a.Scales, out, in/64), backend.HostF32(path+".biases", a.Biases, out, in/64)}
		return hosts, a.Dense(), map[string]any{"mode": "affine", "bits": 4, "group_size": 64}
	}
	qdir, ddir := quantizeFixture(t, testutil.Fixture(t, "models/tiny-qwen3"), quant)
	sameLogits(t, "models/tiny-qwen3", qdir, ddir)
	t.Run("phi3", func(t *testing.T) {
		qdir, ddir := quantizeFixture(t, variant.For(t, "phi3").Dir, quant)
		sameLogits(t, "models/tiny-llama3", qdir, ddir)
	})
}
