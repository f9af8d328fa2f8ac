// Tests of the calibration's device accumulation (gram.go) on the CPU's Gram op, against the host path it
// replaces (a backend without the op): flushed every window it gives the host path's Hessians bit for bit;
// flushed every gramFlush rows, within the f32 bound gram.go states; collected in one pass per site (an
// accumulator budget too small for two) it gives the one-pass Hessians bit for bit and says so in notes.
package quantize

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// hostOnly is a backend with the plain ops only: the interface hides the CPU's Gram, so calibration takes the
// host path.
type hostOnly struct{ backend.Backend }

// gramFixtures are the models the tests calibrate: a random-weight one and a trained one.
var gramFixtures = []string{"models/tiny-qwen3/config.json", "trained/pycoder-12m/config.json"}

// gramOptions calibrate on 8 windows of 32 random token ids (below every fixture's vocabulary).
func gramOptions(dev backend.Backend) Options {
	r := rand.New(rand.NewPCG(21, 1))
	ids := make([]int, 8*32)
	for i := range ids {
		ids[i] = r.IntN(300)
	}
	return Options{Bits: 3, CalibIDs: ids, CalibTokens: len(ids), CalibCtx: 32, Device: dev}
}

func collect(t *testing.T, in string, o Options) []SiteHessian {
	t.Helper()
	hs, err := Hessians(in, o)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// TestCalibGramMatchesHostPath: the CPU's Gram path against the host path on both fixtures.
func TestCalibGramMatchesHostPath(t *testing.T) {
	for _, fx := range gramFixtures {
		in := filepath.Dir(testutil.Fixture(t, fx))
		t.Run(filepath.Base(in), func(t *testing.T) {
			host := collect(t, in, gramOptions(hostOnly{cpu.New()}))
			if len(host) == 0 {
				t.Fatal("no sites")
			}
			// Flushed after every window, the accumulator holds exactly the window's f32 products.
			old := gramFlush
			gramFlush = 32
			each := collect(t, in, gramOptions(cpu.New()))
			gramFlush = old
			compareHessians(t, "flushed every window", host, each, 0)
			// Flushed every gramFlush rows (all 256 in one accumulator): within the stated bound.
			bound := hessianBound(256) + hessianBound(32) // the device's 256-row sums and the host's 32-row ones
			compareHessians(t, "one flush", host, collect(t, in, gramOptions(cpu.New())), bound)
		})
	}
}

// compareHessians fails unless got and want hold the same sites and tokens and every entry differs by at most
// bound·√(H_ii·H_jj) (≥ bound·Σ|x_i·x_j|, Cauchy–Schwarz); bound 0 asks for equal bits.
func compareHessians(t *testing.T, what string, want, got []SiteHessian, bound float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d sites, want %d", what, len(got), len(want))
	}
	var worst, differ float64
	for s, w := range want {
		g := got[s]
		if g.Layer != w.Layer || g.Slot != w.Slot || g.N != w.N || g.Tokens != w.Tokens {
			t.Fatalf("%s: site %d is layer %d %s n %d tokens %d, want layer %d %s n %d tokens %d", what, s,
				g.Layer, g.Slot, g.N, g.Tokens, w.Layer, w.Slot, w.N, w.Tokens)
		}
		n := w.N
		for i := range n {
			for j := i; j < n; j++ {
				d := math.Abs(g.H[i*n+j] - w.H[i*n+j])
				if d > 0 {
					differ++
				}
				scale := math.Sqrt(w.H[i*n+i] * w.H[j*n+j])
				if bound == 0 && d != 0 || d > bound*scale || math.IsNaN(g.H[i*n+j]) {
					t.Fatalf("%s: layer %d %s entry (%d, %d): %.17g, want %.17g (bound %.3g of %.3g)", what, w.Layer, w.Slot,
						i, j, g.H[i*n+j], w.H[i*n+j], bound*scale, scale)
				}
				if scale > 0 {
					worst = max(worst, d/scale)
				}
			}
		}
	}
	t.Logf("%s: largest |ΔH_ij|/√(H_ii·H_jj) %.3g (bound %.3g), %.0f entries differ", what, worst, bound, differ)
}

// TestCalibGramPasses: with room for one accumulator the Gram path runs one pass per site, with the one-pass
// Hessians, and notes each further pass.
func TestCalibGramPasses(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, gramFixtures[0]))
	one := collect(t, in, gramOptions(cpu.New()))
	o := gramOptions(cpu.New())
	o.CalibMemory = 1
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	var notes []string
	windows := 0
	hs, err := runCalibration(in, o.CalibIDs, o, func(e Event) {
		switch e.Stage {
		case StageNote:
			notes = append(notes, e.Note)
		case StageCalibrate:
			if e.Done {
				windows++
			}
		}
	}, nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	var got []SiteHessian
	for _, s := range one {
		h := hs[site{s.Layer, s.Slot}]
		if h == nil {
			t.Fatalf("layer %d %s missing", s.Layer, s.Slot)
		}
		got = append(got, SiteHessian{Layer: s.Layer, Slot: s.Slot, N: h.n, Tokens: h.tokens, H: h.full()})
	}
	compareHessians(t, "a pass per site", one, got, 0)
	if len(notes) != len(one)-1 || windows != 8*len(one) {
		t.Errorf("%d sites: %d pass notes and %d windows run, want %d and %d", len(one), len(notes), windows, len(one)-1, 8*len(one))
	}
	if len(notes) > 0 && !strings.Contains(notes[0], "calibration pass 1 collected 1 sites") {
		t.Errorf("first note %q", notes[0])
	}
}
