// GPU tests of the backend run only with MLXBUN_CUDA=1 (scripts/device/remote.sh sets it on the device machine),
// and then every failure fails: TestConformance (every internal/verify case against the CPU backend, with the
// fused launch counts), TestBackendModels (fixture models against their goldens). Benchmarks (bench_gpu_test.go)
// time GEMV forms and decode steps. Lines passed to record are printed as one table after all tests (and
// written to $MLXBUN_CUDA_REPORT if set).

package cuda

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/verify"
)

var (
	bkOnce sync.Once
	bkDev  *Backend
	bkErr  error
	bkCPU  *cpu.Backend

	reportMu sync.Mutex
	report   []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bkDev != nil {
		bkDev.Close()
	}
	if len(report) > 0 {
		out := "\n==== mlxbun CUDA measurements ====\n" + strings.Join(report, "\n") + "\n"
		fmt.Print(out)
		if p := os.Getenv("MLXBUN_CUDA_REPORT"); p != "" {
			os.WriteFile(p, []byte(out), 0o644)
		}
	}
	os.Exit(code)
}

func record(format string, args ...any) {
	reportMu.Lock()
	defer reportMu.Unlock()
	report = append(report, fmt.Sprintf(format, args...))
}

// bk opens the CUDA backend once for every test and benchmark (and a CPU backend beside it).
func bk(tb testing.TB) (*Backend, *cpu.Backend) {
	tb.Helper()
	if os.Getenv("MLXBUN_CUDA") != "1" {
		tb.Skip("GPU test: set MLXBUN_CUDA=1")
	}
	bkOnce.Do(func() {
		bkDev, bkErr = New(0)
		bkCPU = cpu.New()
	})
	if bkErr != nil {
		tb.Fatalf("cuda backend: %v", bkErr)
	}
	if err := bkDev.Sync(); err != nil {
		tb.Logf("cleared an error left by an earlier test: %v", err)
	}
	return bkDev, bkCPU
}

// TestConformance runs every internal/verify case, heavy ones included, on the CUDA backend against the CPU
// backend: a case fails when it breaks its promise, errors or is skipped (the backend holds f32 and bf16
// activations, so nothing may skip), and a case stating its launches (fused sequences, recordings) fails when the
// backend's counters differ, which means a fusion did not happen (a count that assumes a tuning key, Launches.Tuned,
// is held only while that key is on: MLXBUN_CUDA_TUNE=norm_rope_qk=1 holds Fused/NormRopeQK to one launch). One subtest per case, named "op shape":
// select with -test.run 'TestConformance/MatMul'. MLXBUN_VERIFY_SEED changes the inputs (default 1).
func TestConformance(t *testing.T) {
	g, c := bk(t)
	seed := uint64(1)
	if s, err := strconv.ParseUint(os.Getenv("MLXBUN_VERIFY_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	r := verify.NewRunner(c, g, seed)
	type worst struct {
		metric, tol float64
		cases       int
	}
	byOp := map[string]*worst{}
	for i, cs := range verify.Cases(false) {
		t.Run(cs.Op+" "+cs.Shape, func(t *testing.T) {
			before := g.Stats()
			res := r.Run(i, cs)
			after := g.Stats()
			switch {
			case res.Err != nil:
				t.Errorf("MISMATCH %s %s: %v", cs.Op, cs.Shape, res.Err)
			case !res.Pass:
				t.Errorf("MISMATCH %s %s: %.3g > %.3g (%s)", cs.Op, cs.Shape, res.Metric, cs.Tol, cs.Promise)
			default:
				t.Logf("%.3g (bound %.3g)", res.Metric, cs.Tol)
			}
			if l := cs.Launches; l != nil && res.Err == nil && tunedOn(t, g, l.Tuned) {
				k, gr := after.Launches-before.Launches, after.GraphLaunches-before.GraphLaunches
				if k != l.Kernels || gr != l.Graphs || (l.Graphs > 0 && after.LastGraph != l.Nodes) {
					t.Errorf("MISMATCH %s %s: %d launches, %d graph launches of %d nodes; want %d, %d of %d (not fused?)",
						cs.Op, cs.Shape, k, gr, after.LastGraph, l.Kernels, l.Graphs, l.Nodes)
				}
			}
			act := "dev"
			if cs.Act != backend.Invalid {
				act = cs.Act.String()
			}
			key := cs.Op + " " + act
			w := byOp[key]
			if w == nil {
				w = &worst{}
				byOp[key] = w
			}
			if !math.IsNaN(res.Metric) && !math.IsInf(res.Metric, 0) && res.Err == nil {
				w.metric = max(w.metric, res.Metric)
			}
			w.tol = max(w.tol, cs.Tol)
			w.cases++
		})
	}
	for _, k := range slices.Sorted(maps.Keys(byOp)) {
		w := byOp[k]
		record("check       %-40s %4d cases, worst %.2e (bound %.0e)", k, w.cases, w.metric, w.tol)
	}
}

// tunedOn reports whether the tuning key a case's launch counts assume (verify.Launches.Tuned) is on in g ("": no
// key); the counts of a key that is off are not held.
func tunedOn(t *testing.T, g *Backend, key string) bool {
	switch key {
	case "":
		return true
	case "norm_rope_qk":
		return g.tune.normRopeQK
	case "attn_store":
		return g.tune.attnStore
	case "norm_rope_attn":
		return g.tune.normRopeAttn && g.tune.attnStore
	}
	t.Fatalf("verify names tuning key %q, which tunedOn does not know", key)
	return false
}
