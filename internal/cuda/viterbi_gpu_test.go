// GPU tests of the trellis search (MLXBUN_CUDA=1; scripts/device/quant.sh viterbi runs them): the device's codes
// against the CPU encoder's on the fixture models' projections (bit for bit, k 2/3/4, L 12 and 16, each projection
// on the axis quantize codes it along), and the weights per second of both on the Qwen3-14B gate/up shape, printed
// as a table with the other measurements.

package cuda

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// TestViterbiGPU: trellis.QuantizeWith through the device gives trellis.Quantize's words and scales for every
// projection of tiny-qwen3 and layers 0 and 3 of pycoder-12m at L 12, and tiny-qwen3's layer 0 at L 16.
func TestViterbiGPU(t *testing.T) {
	g, _ := bk(t)
	for _, c := range []struct {
		model  string
		layers []string // name fragments selecting the projections
		L      int
	}{
		{"models/tiny-qwen3", []string{"layers."}, 12},
		{"trained/pycoder-12m", []string{"layers.0.", "layers.3."}, 12},
		{"models/tiny-qwen3", []string{"layers.0."}, 16},
	} {
		dir := filepath.Dir(testutil.Fixture(t, c.model+"/config.json"))
		a, err := safetensors.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var weights, cpuNs, gpuNs int64
		for _, name := range a.Names() {
			if !strings.HasSuffix(name, "_proj.weight") || !slices.ContainsFunc(c.layers, func(f string) bool { return strings.Contains(name, f) }) {
				continue
			}
			h, err := a.Tensor(name)
			if err != nil {
				t.Fatal(err)
			}
			dense, err := h.Float32s()
			if err != nil {
				t.Fatal(err)
			}
			out, in := h.Shape[0], h.Shape[1]
			axis := 1
			if strings.Contains(name, "down_proj") {
				axis = 0 // as quantize codes it
			}
			for _, k := range []int{2, 3, 4} {
				spec := trellis.Spec{K: k, L: c.L, T: 256, Code: "1mad", Axis: axis}
				t0 := time.Now()
				want, err := trellis.Quantize(dense, out, in, spec, false)
				if err != nil {
					t.Fatalf("%s k %d: %v", name, k, err)
				}
				t1 := time.Now()
				got, err := trellis.QuantizeWith(dense, out, in, spec, false, g)
				if err != nil {
					t.Fatalf("%s k %d on the device: %v", name, k, err)
				}
				cpuNs += int64(t1.Sub(t0))
				gpuNs += int64(time.Since(t1))
				weights += int64(len(dense))
				if i := firstDiff(got.Words, want.Words); i >= 0 {
					t.Errorf("MISMATCH %s %s k %d L %d: word %d (coded row %d) %#x, the CPU's %#x", c.model, name, k, c.L, i,
						i/(want.Cols*k/32), got.Words[i], want.Words[i])
				}
				if i := firstDiff(got.Scales, want.Scales); i >= 0 {
					t.Errorf("MISMATCH %s %s k %d L %d: scale %d %g, the CPU's %g", c.model, name, k, c.L, i, got.Scales[i], want.Scales[i])
				}
			}
		}
		a.Close()
		if weights == 0 {
			t.Fatalf("%s: no projection matched %v", c.model, c.layers)
		}
		record("viterbi codes %s %v L %d, k 2/3/4: %d weights compared; encode cpu %.1f s, cuda %.2f s", c.model, c.layers,
			c.L, weights, float64(cpuNs)/1e9, float64(gpuNs)/1e9)
	}
}

func firstDiff[E comparable](a, b []E) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestViterbiThroughput times the device's search (SearchBlocks alone, one call over the rows) and the CPU's on
// unit-Gaussian blocks of the Qwen3-14B gate/up shape, 17408 coded rows of 5120 (89.1M weights): every row at L 12,
// MLXBUN_VITERBI_L16_ROWS (default 4096) at L 16; the CPU on 64 rows (its rate is per weight). The device's paths
// on the CPU's rows are checked against the CPU's too. Then EncodeWith end to end (the host's scales, packing and
// refit included) at L 12, k 3 over every row.
func TestViterbiThroughput(t *testing.T) {
	g, _ := bk(t)
	const rows, cols, cpuRows = 17408, 5120, 64
	l16 := 4096
	if s, err := strconv.Atoi(os.Getenv("MLXBUN_VITERBI_L16_ROWS")); err == nil && s > 0 {
		l16 = min(s, rows)
	}
	rng := rand.New(rand.NewPCG(14, 5120))
	x := make([]float32, rows*cols)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	st := make([]uint32, len(x))
	cpuSt := make([]uint32, cpuRows*cols)
	record("| viterbi (14B gate/up, T 256) | L | k | rows | cuda s | cuda Mweights/s | cpu Mweights/s (%d cores) | speedup |", runtime.GOMAXPROCS(0))
	for _, L := range []int{12, 16} {
		n := rows
		if L == 16 {
			n = l16
		}
		for _, k := range []int{2, 3, 4} {
			spec := trellis.Spec{K: k, L: L, T: 256, Code: "1mad", Axis: 1}
			if err := g.SearchBlocks(spec, x[:256], st[:256]); err != nil { // load and size the kernel once
				t.Fatal(err)
			}
			t0 := time.Now()
			if err := g.SearchBlocks(spec, x[:n*cols], st[:n*cols]); err != nil {
				t.Fatalf("L %d k %d: %v", L, k, err)
			}
			gs := time.Since(t0).Seconds()
			t1 := time.Now()
			if err := trellis.CPU.SearchBlocks(spec, x[:cpuRows*cols], cpuSt); err != nil {
				t.Fatal(err)
			}
			cs := time.Since(t1).Seconds()
			if i := firstDiff(st[:cpuRows*cols], cpuSt); i >= 0 {
				t.Errorf("MISMATCH L %d k %d: block %d position %d: state %#x, the CPU's %#x", L, k, i/256, i%256, st[i], cpuSt[i])
			}
			gr, cr := float64(n*cols)/gs/1e6, float64(cpuRows*cols)/cs/1e6
			record("| viterbi | %d | %d | %d | %.2f | %.1f | %.3f | %.0f× |", L, k, n, gs, gr, cr, gr/cr)
		}
	}
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.02)
	}
	spec := trellis.Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: 1}
	t0 := time.Now()
	if _, err := trellis.EncodeWith(w, rows, cols, spec, g); err != nil {
		t.Fatal(err)
	}
	s := time.Since(t0).Seconds()
	record("viterbi EncodeWith end to end, L 12 k 3, %d×%d: %.2f s, %.1f Mweights/s", rows, cols, s, float64(rows*cols)/s/1e6)
}
