// The backend's whole op layer on Linux: Backend over a runtime whose dispatches run on the CPU emulator
// (internal/metal/emu: the same shaders/metal sources compiled as C++), checked by the conformance harness
// (internal/verify) against the CPU backend, exactly as `verify-kernels --device metal` checks a Mac. What this
// proves beyond the emulator's own kernel tests: the backend's uploads and dtypes, its role bindings and buffer
// offsets (Rows views), the deferred Add and its fusion into add_rmsnorm, the scratch and rope buffers, the KV
// cache layout, and Supports against the library's functions. What it cannot: anything of the darwin runtime.
package metal

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/metal/emu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/trellis"
	"github.com/mlxbun/mlxbun/internal/verify"
	metalshaders "github.com/mlxbun/mlxbun/shaders/metal"
)

// emuRuntime runs every dispatch at once on the emulator; buffers are host byte slices.
type emuRuntime struct {
	h          *emu.Harness
	dispatches int
	kernels    map[string]int // dispatches per kernel function
	t          *testing.T
}

type emuBuffer struct{ data []byte }

func (b *emuBuffer) Bytes() []byte { return b.data }
func (b *emuBuffer) Size() int     { return len(b.data) }
func (b *emuBuffer) NoCopy() bool  { return false }
func (b *emuBuffer) Release()      { b.data = nil }

type emuPipeline string

func (p emuPipeline) Function() string { return string(p) }
func (p emuPipeline) Release()         {}

type emuEncoder struct{ rt *emuRuntime }

func (r *emuRuntime) NewBuffer(n int) (buffer, error)         { return &emuBuffer{data: make([]byte, n)}, nil }
func (r *emuRuntime) WrapNoCopy([]byte) (buffer, bool, error) { return nil, false, nil }
func (r *emuRuntime) Has(fn string) bool                      { _, ok := r.h.Kernels[fn]; return ok }
func (r *emuRuntime) Begin() (encoder, error)                 { return emuEncoder{r}, nil }
func (r *emuRuntime) Copy(dst, src buffer, n int) (float64, error) {
	return 0, errors.New("emu: no copy")
}
func (r *emuRuntime) Log(line string) { r.t.Log(line) }
func (r *emuRuntime) Close() error    { return nil }

func (r *emuRuntime) Pipeline(fn string) (pipeline, error) {
	if !r.Has(fn) {
		return nil, fmt.Errorf("emu: no kernel %s", fn)
	}
	return emuPipeline(fn), nil
}

// Dispatch runs the launch now. Each binding gets a copy of its buffer from its offset on; afterwards only the
// bytes a copy changed are written back, so two bindings of one buffer (an in-place op) do not undo each
// other's writes.
func (e emuEncoder) Dispatch(p pipeline, bufs []binding, paramIndex int, params []byte, groups, threads [3]int) error {
	d := emu.Dispatch{Kernel: p.Function(), Groups: groups, Threads: threads, Seed: uint64(e.rt.dispatches + 1)}
	for _, b := range bufs {
		eb := b.Buffer.(*emuBuffer)
		if eb.data == nil {
			return fmt.Errorf("emu: %s: buffer %d used after release", p.Function(), b.Index)
		}
		d.Buffers = append(d.Buffers, emu.Buffer{Index: b.Index, Data: slices.Clone(eb.data[b.Offset:]), Out: true})
	}
	d.Buffers = append(d.Buffers, emu.Buffer{Index: paramIndex, Data: params})
	e.rt.dispatches++
	e.rt.kernels[p.Function()]++
	out, err := e.rt.h.Run(context.Background(), d)
	if err != nil {
		return err
	}
	for i, b := range bufs {
		region, before, after := b.Buffer.(*emuBuffer).data[b.Offset:], d.Buffers[i].Data, out[b.Index]
		for j := range after {
			if after[j] != before[j] {
				region[j] = after[j]
			}
		}
	}
	return nil
}

func (e emuEncoder) Finish() error { return nil }

var (
	emuOnce sync.Once
	emuDir  string
	emuH    *emu.Harness
	emuErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if emuDir != "" {
		os.RemoveAll(emuDir)
	}
	os.Exit(code)
}

// emulated builds (once per test binary) the emulator over every shader and a backend on it (M1 row). Without
// g++ the test fails under CI=true and is skipped elsewhere, as the emulator's own tests do.
func emulated(t *testing.T) (*Backend, *emuRuntime) {
	t.Helper()
	emuOnce.Do(func() {
		if emuDir, emuErr = os.MkdirTemp("", "mlxbun-metal-backend-emu-"); emuErr == nil {
			emuH, emuErr = emu.Build(context.Background(), emuDir, metalshaders.Sources)
		}
	})
	if errors.Is(emuErr, emu.ErrNotLinux) {
		t.Skip(emuErr) // a Mac runs the darwin tests on the GPU instead
	}
	if errors.Is(emuErr, emu.ErrNoCompiler) {
		if os.Getenv("CI") == "true" {
			t.Fatal(emuErr)
		}
		t.Skip(emuErr)
	}
	if emuErr != nil {
		t.Fatal(emuErr)
	}
	rt := &emuRuntime{h: emuH, t: t, kernels: map[string]int{}}
	return newBackend(rt, M1, false), rt
}

// emulatedCase picks the verify cases run here: the ops at the fixture and odd shapes, the trellis and affine
// layers of pycoder-12m at 3 bits and at 4-bit affine, every Fused/Add+RMSNorm case at small widths. The
// Qwen3-14B shapes stay with the emulator's own kernel tests and a Mac (too slow emulated through the backend).
func emulatedCase(c verify.Case) bool {
	small := strings.HasPrefix(c.Shape, "fixture") || strings.HasPrefix(c.Shape, "odd") || strings.HasPrefix(c.Shape, "tiny-")
	switch {
	case c.Act == backend.BF16 || strings.Contains(c.Shape, "out BF16"):
		return false // the Metal backend holds no bf16 activations (the harness would skip them)
	case strings.HasPrefix(c.Op, "MatMul/trellis"):
		return c.Op == "MatMul/trellis" && strings.HasPrefix(c.Shape, "pycoder-12m k3")
	case c.Op == "Argmax":
		return strings.HasPrefix(c.Shape, "pycoder-12m")
	case c.Op == "MatMul/affine":
		// Every width at the fixture shape: the GEMV at 1..8 rows; the prompt GEMM (n=512) at 4 bits only (the
		// emulator's cost; TestModelOnEmulator and the emulator's kernel tests run it at every width).
		return strings.HasPrefix(c.Shape, "pycoder-12m affine") && (!strings.Contains(c.Shape, "n=512") || strings.Contains(c.Shape, "4-bit"))
	case c.Op == "MatMul/exl3":
		// Every K and codebook at one row, the fixture's 3-bit gate/up shape at 8 rows and in chunks (40 rows), the
		// padded layer at 5; the rest (and the 512-row prompts) are the emulator's kernel tests' or a GPU's.
		return strings.HasPrefix(c.Shape, "pycoder-12m") && !strings.Contains(c.Shape, "n=512") &&
			(strings.Contains(c.Shape, "512→512, n=1") || strings.HasSuffix(c.Shape, "exl3 k3 mul1 512→1536, n=8") ||
				strings.HasSuffix(c.Shape, "exl3 k3 mul1 512→1536, n=40") || strings.HasSuffix(c.Shape, "700→200, n=5"))
	case strings.HasPrefix(c.Op, "MatMul/dense"):
		return small && !strings.Contains(c.Shape, "n=512") // both forms (GEMV 1..8 rows, GEMM from 9) at 1..9 rows
	case strings.HasPrefix(c.Op, "LoRA"):
		return small && !strings.Contains(c.Shape, "n=24") // the adapter delta at decode rows (dense GEMV); prompts: the GEMM's cost
	case c.Op == "Hadamard":
		return !strings.Contains(c.Shape, "prompt") // every block and sign mix; the 512-row prompt is the emulator's cost only
	case strings.HasPrefix(c.Op, "DeltaNet/"), strings.HasPrefix(c.Op, "MoE/"), c.Op == "SigmoidMul", c.Op == "Fused/GatedDeltaRule+RMSNormGated":
		return false // the hybrids' ops: the Metal backend has no kernels for them yet ("auto" runs those models on the CPU)
	case c.Op == "Gram":
		return false // optional (backend.Grammer): Metal has none, so calibration on a Mac sums XᵀX on the host
	case strings.HasPrefix(c.Op, "MatMul"), strings.HasPrefix(c.Op, "Record"):
		return false // other MatMul variants (int8 activations, exact trellis modes) are CUDA's; no Recorder
	}
	return small
}

func TestBackendOnEmulator(t *testing.T) {
	b, rt := emulated(t)
	ref := cpu.New()
	var cases []verify.Case
	for _, c := range verify.Cases(true) {
		if emulatedCase(c) {
			cases = append(cases, c)
		}
	}
	ops := map[string]int{}
	for _, r := range verify.Run(ref, b, cases, 1) {
		ops[r.Op]++
		switch {
		case r.Skipped:
			t.Errorf("%s %s: skipped: %v", r.Op, r.Shape, r.Err)
		case !r.Pass:
			t.Errorf("%s %s (%s): metric %.3g > %.3g: %v", r.Op, r.Shape, r.Promise, r.Metric, r.Tol, r.Err)
		}
	}
	t.Logf("%d cases through the backend (%v), %d emulated dispatches", len(cases), ops, rt.dispatches)
	for _, op := range []string{"Embed", "RMSNorm/row", "Add", "SwiGLU", "Rope", "Attention", "Fused/Add+RMSNorm/norm", "MatMul/trellis", "MatMul/affine", "MatMul/dense", "MatMul/exl3", "Argmax",
		"AddScaled", "AddScaled/in-place", "LoRA/delta", "Hadamard", "Scale", "Softcap/in-place", "GeGLU", "AttentionWith"} {
		if ops[op] == 0 {
			t.Errorf("no %s case ran", op)
		}
	}
	// The paths of the backend's own making ran: the fused Add + RMSNorm, split-K scratch, decode attention's
	// scratch, rope's host-built cos/sin rows.
	for _, fn := range []string{"add_rmsnorm_f32", "trellis_splitk_reduce", "attn_split_f32", "attn_combine_f32", "rope_f32",
		"kv_store_f32", "gemv_bf16_m1", "gemm_bf16", "exl3_had_f32", "exl3_gemv_k3_mul1_m8", "rmsnorm_rope_f32", "add_scaled_f32", "hadamard_f32", "scale_f32", "softcap_f32", "geglu_f32", "attn_win_split_f32", "attn_win_rows_f32", "kv_store_ring_f32"} {
		if rt.kernels[fn] == 0 {
			t.Errorf("no %s dispatch: %v", fn, rt.kernels)
		}
	}
}

// bf16Tables is the CPU backend holding 2-D float uploads (the embedding table, dequantized from affine8 here)
// in bf16 as the Metal and CUDA backends do, so the comparison sees one table and measures the kernels alone.
type bf16Tables struct{ *cpu.Backend }

func (c bf16Tables) Upload(h backend.Host) (backend.Tensor, error) {
	if len(h.Shape) == 2 && h.DType.Float() && h.DType != backend.BF16 {
		f, err := h.Float32s()
		if err != nil {
			return nil, err
		}
		b := make([]byte, 2*len(f))
		for i, v := range f {
			binary.LittleEndian.PutUint16(b[2*i:], dtype.F32ToBF16(v))
		}
		h = backend.Host{Name: h.Name, DType: backend.BF16, Shape: h.Shape, Data: b}
	}
	return c.Backend.Upload(h)
}

// TestModelOnEmulator runs whole models through the emulated backend against the CPU: a 9-row prefill (the
// prompt forms), then decode steps, comparing every step's logits and greedy id. The models: the tiny-llama3
// and tiny-qwen3 fixtures as stored (bf16: dense GEMV and GEMM; Qwen3's head norms fused with the ropes), and
// tiny-llama3 quantized here to 3-bit trellis with L = 8 (a fast
// encode) and affine8 embeddings (trellis prefill, reduce and scatter forms, the affine head over every row);
// and tiny-llama3 as an MLX affine checkpoint of every width (affineModel). MLXBUN_METAL_EMU_MODEL names
// another trellis model with an affine head instead of the 3-bit one.
func TestModelOnEmulator(t *testing.T) {
	fixture := testutil.Fixture(t, "models/tiny-llama3")
	t.Run("bf16", func(t *testing.T) { compareModel(t, fixture) })
	// Qwen3's per-head q and k norms: each fused with its rope (rmsnorm_rope).
	t.Run("bf16 qwen3", func(t *testing.T) { compareModel(t, testutil.Fixture(t, "models/tiny-qwen3")) })
	// The Gemmas: GeGLU MLPs, embedding and residual scales, final-logit softcaps, and attention over per-layer
	// caches with sliding-window ring layers, attention softcaps (Gemma 2) and shared keys and values (Gemma 4).
	// CI runs tiny-gemma2 (12 s); tiny-gemma3 and tiny-gemma4 (10 s and 20-30 s) with MLXBUN_METAL_EMU_BIG=1.
	for _, g := range []string{"tiny-gemma2", "tiny-gemma3", "tiny-gemma4"} {
		t.Run(g, func(t *testing.T) {
			if g != "tiny-gemma2" && os.Getenv("MLXBUN_METAL_EMU_BIG") != "1" {
				t.Skip("MLXBUN_METAL_EMU_BIG=1 runs it (CI time)")
			}
			ran := compareModel(t, testutil.Fixture(t, "models/"+g))
			if ran["attn_win_rows_f32"] == 0 || ran["attn_win_split_f32"] == 0 || ran["geglu_f32"] == 0 {
				t.Errorf("the windowed attention forms or GeGLU did not run: %v", ran)
			}
		})
	}
	// MLX affine projections and output head at every width and group size (mixed per layer): the GEMV for
	// decode and the tiled affine GEMM for the prompt, including the head's logits of all 9 prompt rows.
	t.Run("affine", func(t *testing.T) {
		ran := compareModel(t, affineModel(t, fixture))
		for _, b := range []int{2, 3, 4, 5, 6, 8} {
			for _, fn := range []string{fmt.Sprintf("affine_gemm_b%d", b), fmt.Sprintf("affine_gemv_b%d_m1", b)} {
				if ran[fn] == 0 {
					t.Errorf("no %s dispatch: %v", fn, ran)
				}
			}
		}
	})
	// An EXL3 model exllamav3's converter made (3-bit mcg layers, a 6-bit mcg head): the sides and the GEMV at
	// decode, the GEMV over chunks of 8 rows for the prompt.
	// CI runs its layers through TestBackendOnEmulator; the model (100 s emulated on 2 shared cores) with
	// MLXBUN_METAL_EMU_BIG=1.
	t.Run("exl3", func(t *testing.T) {
		if os.Getenv("MLXBUN_METAL_EMU_BIG") != "1" {
			t.Skip("MLXBUN_METAL_EMU_BIG=1 runs it (CI time)")
		}
		ran := compareModel(t, testutil.Fixture(t, "exl3/pycoder-12m-exl3-3.0-mcg"))
		for _, fn := range []string{"exl3_had_f32", "exl3_gemv_k3_mcg_m1", "exl3_gemv_k3_mcg_m8", "exl3_gemv_k6_mcg_m1"} {
			if ran[fn] == 0 {
				t.Errorf("no %s dispatch: %v", fn, ran)
			}
		}
	})
	t.Run("trellis", func(t *testing.T) {
		dir := os.Getenv("MLXBUN_METAL_EMU_MODEL")
		if dir == "" {
			dir = filepath.Join(t.TempDir(), "tiny-llama3-3bit")
			o := quantize.Options{Bits: 3, L: 8, Embeddings: quantize.EmbeddingsAffine8}
			if _, err := quantize.Run(fixture, dir, o, nil); err != nil {
				t.Fatal(err)
			}
		}
		ran := compareModel(t, dir)
		// Every layer's MatMul gate, MatMul up and in-place SwiGLU(gate, gate, up) ran as one launch at decode.
		if n := fusedLaunches(&emuRuntime{kernels: ran}); n == 0 || ran["swiglu_f32"] > 2 {
			t.Errorf("fused gate/up launches %d, separate swiglu %d (only the 9-row prefill's should remain): %v", n, ran["swiglu_f32"], ran)
		}
	})
}

// affineModel writes src with every projection and lm_head as an MLX affine checkpoint (codes U32, f32 scales
// and biases, a per-path config block), the widths 2, 3, 4, 5, 6, 8 and groups 32, 64, 128 taken in turn.
func affineModel(t *testing.T, src string) string {
	t.Helper()
	arch, err := safetensors.OpenDir(src)
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	bits, groups := []int{2, 3, 4, 5, 6, 8}, []int{32, 64, 128}
	q := map[string]any{"mode": "affine", "bits": 4, "group_size": 64}
	var out []backend.Host
	i := 0
	for _, name := range arch.Names() {
		h, err := arch.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, "_proj.weight") && name != "lm_head.weight" {
			out = append(out, h)
			continue
		}
		w, err := h.Float32s()
		if err != nil {
			t.Fatal(err)
		}
		o, in, b, g := h.Shape[0], h.Shape[1], bits[i%len(bits)], groups[i%len(groups)]
		i++
		a, err := affine.Quantize(w, o, in, b, g)
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimSuffix(name, ".weight")
		words := make([]byte, 4*len(a.Packed))
		for j, v := range a.Packed {
			binary.LittleEndian.PutUint32(words[4*j:], v)
		}
		out = append(out, backend.Host{Name: name, DType: backend.U32, Shape: []int{o, in * b / 32}, Data: words},
			backend.HostF32(path+".scales", a.Scales, o, in/g), backend.HostF32(path+".biases", a.Biases, o, in/g))
		q[path] = map[string]any{"mode": "affine", "bits": b, "group_size": g}
	}
	if i < len(bits) {
		t.Fatalf("%s: %d projections, fewer than the widths to cover", src, i)
	}
	raw, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["quantization"] = q
	if raw, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), out, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// compareModel loads dir on the emulated backend and on the CPU (holding its tables in bf16 as Metal does) and
// compares the logits of a prefill and decode steps.
func compareModel(t *testing.T, dir string) (kernels map[string]int) {
	b, rt := emulated(t)
	dut, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer dut.Close()
	ref, err := model.Load(dir, bf16Tables{cpu.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	const prompt, steps = 9, 4
	caches := [2]backend.KVCache{}
	for i, m := range []*model.Model{ref, dut} {
		if caches[i], err = m.NewCache(1, prompt+steps); err != nil {
			t.Fatal(err)
		}
		defer m.ReleaseCache(caches[i])
	}
	s := model.Step{}
	for p := range prompt {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32(7+13*p)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	worst := 0.0
	for step := range steps + 1 {
		want, err := ref.Forward(s, caches[0], 1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dut.Forward(s, caches[1], 1)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		scale, diff := 0.0, 0.0
		best, bestGot := 0, 0
		for i := range want {
			scale = max(scale, math.Abs(float64(want[i])))
			diff = max(diff, math.Abs(float64(got[i]-want[i])))
			if want[i] > want[best] {
				best = i
			}
			if got[i] > got[bestGot] {
				bestGot = i
			}
		}
		worst = max(worst, diff/scale)
		if diff > 1e-4*scale || best != bestGot {
			t.Errorf("step %d (%d rows): logits within %.3g of max|ref| %.3g, greedy %d vs %d", step, len(s.IDs), diff, scale, bestGot, best)
		}
		pos := s.Pos[len(s.Pos)-1] + 1
		s = model.Step{IDs: []int32{int32(best)}, Seq: []int32{0}, Pos: []int32{pos}}
	}
	t.Logf("%d steps, logits within %.3g of max|ref|, %d emulated dispatches: %v", steps+1, worst, rt.dispatches, rt.kernels)
	return rt.kernels
}

// TestFusedOnEmulator runs verify's Fused/trellis cases through the emulated backend one at a time, counting
// the dispatches each issues: GateUpSwiGLU is one fused launch (same and mixed widths, 1..8 rows), whose gate and
// up outputs the cases compare as well as h; MatMulGroup of q, k, v stays three launches (Metal has no fused
// q/k/v form). The Qwen3-14B-shape cases run only with
// MLXBUN_METAL_EMU_BIG=1 (minutes emulated); the fixture shapes always.
func TestFusedOnEmulator(t *testing.T) {
	b, rt := emulated(t)
	ref := cpu.New()
	big := os.Getenv("MLXBUN_METAL_EMU_BIG") == "1"
	ran := map[string]int{}
	for _, c := range verify.Cases(true) {
		if !strings.HasPrefix(c.Op, "Fused/trellis/") || (!big && !strings.HasPrefix(c.Shape, "pycoder-12m")) {
			continue
		}
		before, fusedBefore := rt.dispatches, fusedLaunches(rt)
		r := verify.Run(ref, b, []verify.Case{c}, 1)[0]
		if r.Skipped || !r.Pass {
			t.Errorf("%s %s: metric %.3g > %.3g (skipped %v): %v", r.Op, r.Shape, r.Metric, r.Tol, r.Skipped, r.Err)
			continue
		}
		want, wantFused := 3, 0
		switch { // the residual seam's ops run as their plain sequences here
		case strings.HasSuffix(c.Op, "/RMSNorm+gate+up+SwiGLU"):
			want, wantFused = 2, 1 // rmsnorm, the fused gate/up
		case strings.HasSuffix(c.Op, "/gate+up+SwiGLU"):
			want, wantFused = 1, 1
		case strings.HasSuffix(c.Op, "/RMSNorm+MatMul×3"):
			want = 4
		case strings.HasSuffix(c.Op, "/MatMul+Add") && strings.Contains(c.Shape, "axis 1"):
			want = 2 // the GEMV, add
		}
		if got, fused := rt.dispatches-before, fusedLaunches(rt)-fusedBefore; got != want || fused != wantFused {
			t.Errorf("%s %s: %d dispatches (%d fused gate/up), want %d (%d)", c.Op, c.Shape, got, fused, want, wantFused)
		}
		ran[c.Op]++
		t.Logf("%s %s: metric %.3g (bound %.3g), %d dispatches", r.Op, r.Shape, r.Metric, r.Tol, rt.dispatches-before)
	}
	if ran["Fused/trellis/gate+up+SwiGLU"] < 4 || ran["Fused/trellis/MatMul×3"] < 3 {
		t.Fatalf("fused cases run: %v", ran)
	}
}

// fusedLaunches counts the fused gate/up dispatches so far.
func fusedLaunches(rt *emuRuntime) int {
	n := 0
	for fn, k := range rt.kernels {
		if strings.HasPrefix(fn, "trellis_gateup_") {
			n += k
		}
	}
	return n
}

// TestGateUpOnEmulator covers what verify's fused cases do not: GateUpSwiGLU in place into the up tensor (the
// gate projection still readable afterwards, the up one overwritten as the plain order leaves it), a 6-row batch
// (the MMA form), and the plain ops of an up projection on another x (three launches: plain ops never fuse), each
// against the CPU running the plain ops.
func TestGateUpOnEmulator(t *testing.T) {
	b, rt := emulated(t)
	ref := cpu.New()
	r := rand.New(rand.NewPCG(41, 42))
	lin := func(k int) backend.LinearSpec {
		g, err := trellis.NewGeometry(trellis.Spec{K: k, L: 12, T: 256, Code: "1mad", Axis: 1}, []int{384, 256 * k / 32})
		if err != nil {
			t.Fatal(err)
		}
		words := make([]uint32, g.Words())
		for i := range words {
			words[i] = r.Uint32()
		}
		scales := make([]float32, g.Rows)
		for i := range scales {
			scales[i] = dtype.RoundF16(float32(0.05 * (0.5 + r.Float64())))
		}
		w, err := trellis.NewWeights(g, words, scales)
		if err != nil {
			t.Fatal(err)
		}
		return backend.LinearSpec{Name: fmt.Sprintf("peephole.k%d", k), Out: 384, In: 256, Trellis: w}
	}
	specs := []backend.LinearSpec{lin(3), lin(2)}
	type side struct {
		bk      backend.Backend
		ls      []backend.Linear
		x, x2   backend.Tensor
		g, u, h backend.Tensor
	}
	cases := []struct {
		name       string
		n          int
		otherX     bool // up reads x2
		dst        string
		wantLaunch int
		compare    []string
	}{
		{"in place into up", 2, false, "u", 1, []string{"g", "u"}},
		{"in place into gate, 6 rows (MMA)", 6, false, "g", 1, []string{"g", "u"}},
		{"up on another x", 1, true, "h", 3, []string{"g", "u", "h"}},
	}
	for _, c := range cases {
		x := make([]float32, c.n*256)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		var sides [2]side
		for i, bk := range []backend.Backend{ref, b} {
			s := side{bk: bk}
			for _, sp := range specs {
				l, err := bk.LoadLinear(sp)
				if err != nil {
					t.Fatal(err)
				}
				s.ls = append(s.ls, l)
			}
			alloc := func(w int) backend.Tensor {
				tt, err := bk.Alloc(backend.F32, c.n, w)
				if err != nil {
					t.Fatal(err)
				}
				return tt
			}
			s.x, s.x2, s.g, s.u, s.h = alloc(256), alloc(256), alloc(384), alloc(384), alloc(384)
			for _, tt := range []backend.Tensor{s.x, s.x2} {
				if err := bk.(backend.FloatWriter).WriteFloat32(tt, x); err != nil {
					t.Fatal(err)
				}
			}
			before := rt.dispatches
			upX := s.x
			if c.otherX {
				upX = s.x2
			}
			dst := map[string]backend.Tensor{"g": s.g, "u": s.u, "h": s.h}[c.dst]
			if c.otherX {
				bk.MatMul(s.g, s.x, s.ls[0])
				bk.MatMul(s.u, upX, s.ls[1])
				bk.SwiGLU(dst, s.g, s.u)
			} else {
				backend.GateUpSwiGLU(bk, dst, s.g, s.u, s.x, s.ls[0], s.ls[1])
			}
			if err := bk.Sync(); err != nil {
				t.Fatal(err)
			}
			if bk == backend.Backend(b) && rt.dispatches-before != c.wantLaunch {
				t.Errorf("%s: %d dispatches, want %d", c.name, rt.dispatches-before, c.wantLaunch)
			}
			sides[i] = s
		}
		for _, name := range c.compare {
			var out [2][]float32
			for i, s := range sides {
				out[i] = make([]float32, c.n*384)
				tt := map[string]backend.Tensor{"g": s.g, "u": s.u, "h": s.h}[name]
				if err := s.bk.ReadFloat32(tt, out[i]); err != nil {
					t.Fatal(err)
				}
			}
			scale, diff := 0.0, 0.0
			for i := range out[0] {
				scale = max(scale, math.Abs(float64(out[0][i])))
				diff = max(diff, math.Abs(float64(out[1][i]-out[0][i])))
			}
			if !(diff <= 1e-5*scale) || scale == 0 {
				t.Errorf("%s: %s within %.3g of max|ref| %.3g (> 1e-5)", c.name, name, diff, scale)
			}
		}
		t.Logf("%s: %d launch(es), outputs within 1e-5 of the CPU", c.name, c.wantLaunch)
	}
}
