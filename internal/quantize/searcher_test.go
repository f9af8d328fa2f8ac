// Test that the encoder hook leaves the artifact as it was: tiny-qwen3 quantized plain (axis 1 and the axis-0
// down projections) and with RHT + LDLQ (both axes, the scale refit) gives the tensors whose sha256 was recorded
// before the hook existed (main at 5a912e4 and at 9b4d5c4: every tensor's name, dtype, shape and bytes, so a change
// to the file's metadata alone does not move it), with the default encoder and through a Searcher that re-batches
// every call into odd pieces on the CPU; and both runs write the same model.safetensors byte for byte.
//
// The RHT + LDLQ hash is a hash of float arithmetic: its Hessians come from the calibration forward on the CPU,
// whose matmul and dot kernels (cpu.Kernels) and the compiler's fusing of scalar a*b+c (GOARCH, GOAMD64) round
// differently. The Hessians then differ by at most 1.0e-6 of their largest diagonal entry (0.15 of the f32 bound
// m·2^-24·√(H_ii·H_jj), m = 256 rows), and the trellis search and LDLQ feedback turn that into other codes in the
// two down projections (proxy loss within 1 %, SNR within 0.02 dB), so the hash is recorded per arithmetic. The
// plain coder reads no activations and has one hash.
package quantize_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/artifact"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// rebatch is a Searcher that hands trellis.CPU pieces of at most 3 blocks, counting the calls it gets.
type rebatch struct{ calls, blocks int }

func (r *rebatch) SearchBlocks(spec trellis.Spec, x []float32, states []uint32) error {
	r.calls++
	r.blocks += len(x) / spec.T
	for lo := 0; lo < len(x); lo += 3 * spec.T {
		hi := min(len(x), lo+3*spec.T)
		if err := trellis.CPU.SearchBlocks(spec, x[lo:hi], states[lo:hi]); err != nil {
			return err
		}
	}
	return nil
}

func TestSearcherKeepsOutput(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	ids := make([]int, 256)
	rng := rand.New(rand.NewPCG(21, 21))
	for i := range ids {
		ids[i] = rng.IntN(2048)
	}
	arith := arithmetic()
	// The head is pinned to bf16: the recorded hashes are of artifacts written before the affine head became the
	// default, and what they hold is the encoder's output, which the head does not touch.
	for _, c := range []struct {
		name string
		sha  map[string]string // by arithmetic(); "" for every arithmetic
		o    quantize.Options
	}{
		{"plain", map[string]string{"": "8789c55a5a47fe4b2c4e8b0535d3353d81681df90ecd258036e089c4d22bd80d"}, quantize.Options{Bits: 2, L: 8, GroupSize: 64, Head: quantize.HeadBF16}},
		{"ldlq", map[string]string{
			// main at 5a912e4 and 9b4d5c4 (make test), unchanged since
			"amd64 v1 avx2-fma": "70b3943b9665ea1112288dbd316081d4909bf3fc02331ae051eb5fca0efd6346",
			// 9b4d5c4 gave 77436f3a…; the CPU Gram op (merge b4977ad) sums the 4 windows in f32 before the f64
			// sums (within 8e-8 of the largest diagonal), which moved it here; the AVX2 codes did not move
			"amd64 v1 scalar": "385cdaebeb11b6ce62a01291eb979815eae80f2751dfa059b7ed2f29c20c197f",
		}, quantize.Options{Bits: 3, L: 8, GroupSize: 64, Head: quantize.HeadBF16,
			RHT: true, CalibIDs: ids, CalibTokens: 256, CalibCtx: 64, RefitScales: true, LDLQRows: 4, Damp: 0.01}},
	} {
		want, recorded := c.sha[""]
		if !recorded {
			want, recorded = c.sha[arith]
		}
		if !recorded {
			t.Logf("%s: no sha256 recorded for the arithmetic %q; only the two searchers are compared", c.name, arith)
		}
		var rb rebatch
		var files [][]byte
		for _, s := range []trellis.Searcher{nil, &rb} {
			o := c.o
			o.Searcher = s
			out := filepath.Join(t.TempDir(), c.name)
			rep, err := quantize.Run(in, out, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := artifact.TensorsSHA(t, out); recorded && got != want {
				t.Errorf("%s (searcher %T, arithmetic %q): tensors sha256 %s, recorded %s", c.name, s, arith, got, want)
			}
			b, err := os.ReadFile(filepath.Join(out, "model.safetensors"))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
			if s != nil && int64(rb.blocks*c.o.GroupSize) != rep.CodedWeights {
				t.Errorf("%s: the searcher saw %d blocks of %d in %d calls, the report codes %d weights",
					c.name, rb.blocks, c.o.GroupSize, rb.calls, rep.CodedWeights)
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s: the re-batching searcher wrote another model.safetensors", c.name)
		}
	}
}

// arithmetic names what the CPU's float results depend on: the architecture, its level (GOAMD64 v3 and arm64
// fuse a*b+c into one rounding) and the matmul kernels, e.g. "amd64 v1 avx2-fma".
func arithmetic() string {
	level := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GO"+strings.ToUpper(runtime.GOARCH) {
				level = s.Value
			}
		}
	}
	return strings.Join(strings.Fields(runtime.GOARCH+" "+level+" "+cpu.Kernels()), " ")
}
