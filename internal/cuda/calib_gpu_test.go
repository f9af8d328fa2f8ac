// GPU test of the quantizer's calibration on the device (MLXBUN_CUDA=1): the Hessians collected with the model
// and the Gram accumulation on CUDA against the CPU's, on tiny-qwen3 and pycoder-12m over the same token ids.
// The two forward passes differ by CUDA's rounding (a prompt GEMM rounds its f32 input to bf16, 2^-9), so the
// gate is a relative Frobenius distance per site, not the f32 bound of the Gram op itself (the verify Gram cases
// in TestConformance hold that on identical inputs). Collected in one pass per site (CalibMemory 1), the CUDA
// Hessians must equal the one-pass ones to f32 summation order; --calib auto must sample and collect on the GPU.

package cuda

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/quantize"
)

// calibDistance is max over sites of ‖a − b‖_F/‖b‖_F, failing on a site or token mismatch.
func calibDistance(t *testing.T, a, b []quantize.SiteHessian) float64 {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d sites, want %d", len(a), len(b))
	}
	worst := 0.0
	for i := range b {
		if a[i].Layer != b[i].Layer || a[i].Slot != b[i].Slot || a[i].N != b[i].N || a[i].Tokens != b[i].Tokens {
			t.Fatalf("site %d: layer %d %s n %d tokens %d, want layer %d %s n %d tokens %d", i, a[i].Layer, a[i].Slot, a[i].N,
				a[i].Tokens, b[i].Layer, b[i].Slot, b[i].N, b[i].Tokens)
		}
		var d, n float64
		for j, v := range b[i].H {
			if math.IsNaN(a[i].H[j]) || math.IsInf(a[i].H[j], 0) {
				t.Fatalf("layer %d %s entry %d: %g", b[i].Layer, b[i].Slot, j, a[i].H[j])
			}
			d += (a[i].H[j] - v) * (a[i].H[j] - v)
			n += v * v
		}
		worst = max(worst, math.Sqrt(d/n))
	}
	return worst
}

func TestCalibHessiansGPU(t *testing.T) {
	dev, _ := bk(t)
	r := rand.New(rand.NewPCG(21, 2))
	ids := make([]int, 8*64)
	for i := range ids {
		ids[i] = r.IntN(300)
	}
	for _, fx := range []string{"models/tiny-qwen3", "trained/pycoder-12m"} {
		in := filepath.Dir(fixture(t, fx+"/config.json"))
		t.Run(filepath.Base(in), func(t *testing.T) {
			o := quantize.Options{Bits: 3, CalibIDs: ids, CalibTokens: len(ids), CalibCtx: 64}
			cpuH, err := quantize.Hessians(in, o)
			if err != nil {
				t.Fatal(err)
			}
			o.Device = dev
			gpuH, err := quantize.Hessians(in, o)
			if err != nil {
				t.Fatal(err)
			}
			d := calibDistance(t, gpuH, cpuH)
			record("calibration %-12s %d sites: CUDA Hessians within %.3g (relative Frobenius) of the CPU's", filepath.Base(in), len(cpuH), d)
			if d > 2e-2 {
				t.Errorf("CUDA Hessians %.3g from the CPU's (relative Frobenius), want ≤ 2e-2", d)
			}
			o.CalibMemory = 1 // one accumulator per pass: a pass per site
			passes, err := quantize.Hessians(in, o)
			if err != nil {
				t.Fatal(err)
			}
			if p := calibDistance(t, passes, gpuH); p > 1e-6 {
				t.Errorf("a pass per site: %.3g from the one-pass CUDA Hessians, want ≤ 1e-6", p)
			}
		})
	}
	in := filepath.Dir(fixture(t, "models/tiny-qwen3/config.json"))
	o := quantize.Options{Bits: 3, CalibAuto: true, CalibSeed: 5, CalibTokens: 4 * 64, CalibCtx: 64, Device: dev}
	auto, err := quantize.Hessians(in, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(auto) == 0 || auto[0].Tokens != 4*64 {
		t.Fatalf("--calib auto on CUDA: %d sites", len(auto))
	}
	o.Device = nil
	cpuAuto, err := quantize.Hessians(in, o)
	if err != nil {
		t.Fatal(err)
	}
	// Sampled on another device the tokens may part where the logits' rounding picks another token: reported only.
	record("calibration tiny-qwen3 --calib auto: CUDA-sampled Hessians %.3g (relative Frobenius) from the CPU-sampled ones",
		calibDistance(t, auto, cpuAuto))
}
