// Tests of a run stopped through its context (what Ctrl-C and SIGTERM do in the CLI): stopped mid-layer it keeps
// its work folder, released, with the finished layers' checkpoints and none of the layer it was coding, and a
// --resume in the same process writes an uninterrupted run's bytes; stopped during the calibration (the
// self-calibration's sampling, the windows' device Gram products, the host path's reads) it returns within a
// step of the cancel, counted in forward passes and tapped inputs, not in time.
package quantize

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// armedSearcher searches on the CPU and cancels the run at the first batch after arm: the batch in flight
// finishes, the next is refused (cancelSearcher).
type armedSearcher struct {
	mu            sync.Mutex
	armed, fired  bool
	cancel        context.CancelFunc
	before, after int // batches before and after the cancel
}

func (s *armedSearcher) arm() { s.mu.Lock(); s.armed = true; s.mu.Unlock() }

func (s *armedSearcher) SearchBlocks(spec trellis.Spec, x []float32, states []uint32) error {
	s.mu.Lock()
	switch {
	case s.fired:
		s.after++
	case s.armed:
		s.fired = true
		s.cancel()
	default:
		s.before++
	}
	s.mu.Unlock()
	return trellis.CPU.SearchBlocks(spec, x, states)
}

// TestResumeAfterCancel: the recommended settings on tiny-qwen3 (as TestResumeAfterKill), the context cancelled
// once the layer after stop has a tensor coded (mid-layer, as a Ctrl-C lands): the run fails with a one-line
// *Stopped naming the work folder and --resume, leaves no output, and keeps the folder with the checkpoints of
// units 0..stop only (none under a temporary name, none of the unit being coded), the Hessians and a record
// marked stopped. A checkpoint that does not read back whole, put under the next unit's name, is not trusted.
// The resume takes units 0..stop from their checkpoints, encodes the rest and writes an uninterrupted run's
// files, sha256 for sha256.
func TestResumeAfterCancel(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	norm := resumeOptions()
	if err := norm.normalize(); err != nil {
		t.Fatal(err)
	}
	us := unitsOf(planFor(t, in, norm))
	stop := len(us.names) - 2 // the last unit is the one being coded when the cancel comes
	parent := t.TempDir()
	out := filepath.Join(parent, "out")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &armedSearcher{cancel: cancel}
	o := resumeOptions()
	o.Context, o.Searcher = ctx, s
	_, err := Run(in, out, o, func(e Event) {
		if e.Stage == StageEncode && e.Done && e.Result != nil && e.Result.Spec.Mode == "trellis" && e.Layer == stop+1 {
			s.arm() // a tensor of the next unit is coded: cancel inside its next one
		}
	})
	var st *Stopped
	if !errors.As(err, &st) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Run cancelled mid-layer: %v, want a *Stopped wrapping context.Canceled", err)
	}
	if !s.fired || s.after != 0 {
		t.Fatalf("cancel fired %v, %d batches after it", s.fired, s.after)
	}
	work, _ := filepath.Glob(filepath.Join(parent, ".out.tmp-*"))
	if len(work) != 1 || st.Work != work[0] || st.Done != stop+1 || st.Layers != len(us.names) || !st.Hessians {
		t.Fatalf("stopped %+v; work folders %v; want %d of %d layers and the Hessians kept in the one folder", st, work, stop+1, len(us.names))
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, st.Work) || !strings.Contains(msg, "--resume") ||
		!strings.Contains(msg, "context canceled") {
		t.Errorf("error %q: want one line naming the work folder and --resume", msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a stopped run left %s: %v", out, err)
	}
	var names, want []string
	entries, _ := os.ReadDir(filepath.Join(st.Work, ckptDir))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for u := 0; u <= stop; u++ {
		want = append(want, ckptName(u, us.names[u]))
	}
	if !slices.Equal(names, want) {
		t.Errorf("checkpoints %q, want those of the finished units only: %q", names, want)
	}
	if _, err := os.Stat(filepath.Join(st.Work, hessFile)); err != nil {
		t.Errorf("the Hessians were not kept: %v", err)
	}
	var rec owner
	if b, err := os.ReadFile(filepath.Join(st.Work, ownerFile)); err != nil || json.Unmarshal(b, &rec) != nil || !rec.Stopped || rec.state() != dead {
		t.Errorf("owner record %+v (%v): want it marked stopped, which reads as dead", rec, err)
	}

	// A torn checkpoint under the coded unit's name (no run writes one: safetensors.WriteFile renames a whole
	// file into place), and a temporary file a killed write left: neither is taken for a finished layer.
	ck := filepath.Join(st.Work, ckptDir)
	whole, err := os.ReadFile(filepath.Join(ck, want[0]))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ck, ckptName(stop+1, us.names[stop+1])), whole[:len(whole)/2], 0o644)
	os.WriteFile(filepath.Join(ck, "."+ckptName(stop+1, us.names[stop+1])+".tmp123"), whole[:len(whole)/3], 0o644)

	o = resumeOptions()
	o.Resume = true
	resumed, encoded := map[int]bool{}, map[int]bool{}
	var notes []string
	if _, err := Run(in, out, o, func(e Event) {
		switch {
		case e.Stage == StageNote:
			notes = append(notes, e.Note)
		case e.Stage == StageEncode && e.Done && e.Result != nil && e.Resumed:
			resumed[e.Layer] = true
		case e.Stage == StageEncode && e.Done && e.Result != nil:
			encoded[e.Layer] = true
		}
	}); err != nil {
		t.Fatal(err)
	}
	for u := range us.names {
		if done := u <= stop; resumed[u] != done || encoded[u] == done {
			t.Errorf("unit %s (finished before the cancel: %v): resumed %v, encoded %v", us.names[u], done, resumed[u], encoded[u])
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "resuming "+st.Work) {
		t.Errorf("notes %q", notes)
	}
	if left, _ := os.ReadDir(parent); len(left) != 1 {
		t.Errorf("beside the output: %v", left)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := Run(in, ref, resumeOptions(), nil); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, out, ref)
}

// TestStopWithNothingFinished: a run stopped before any layer is checkpointed (here before its first tensor)
// has nothing a resume would take: its work folder is removed as before, and the *Stopped names none.
func TestStopWithNothingFinished(t *testing.T) {
	in := small(backend.BF16).write(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := cheap(2)
	o.Context = ctx
	parent := t.TempDir()
	_, err := Run(in, filepath.Join(parent, "out"), o, nil)
	var st *Stopped
	if !errors.As(err, &st) || !errors.Is(err, context.Canceled) || st.Work != "" || strings.Contains(err.Error(), "--resume") {
		t.Fatalf("Run with a cancelled context: %v (%+v)", err, st)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("left behind: %v", left[0].Name())
	}
}

// stepCounter is the CPU backend counting the calibration's steps: forward passes (each ends in one Sync,
// model.readLogits), device Gram products (one a tapped input) and reads to the host (a tapped input on the host
// path, or a forward's logits). It cancels the run at step cancelAt of the kind named by on, and counts each
// kind's steps after that.
type stepCounter struct {
	*cpu.Backend
	cancel   context.CancelFunc
	on       string // "forward", "gram" or "read"
	cancelAt int
	n        map[string]int
	after    map[string]int
}

func newStepCounter(on string, at int, cancel context.CancelFunc) *stepCounter {
	return &stepCounter{Backend: cpu.New(), cancel: cancel, on: on, cancelAt: at, n: map[string]int{}, after: map[string]int{}}
}

func (c *stepCounter) step(kind string) {
	if c.n[c.on] >= c.cancelAt {
		c.after[kind]++
	}
	c.n[kind]++
	if kind == c.on && c.n[kind] == c.cancelAt {
		c.cancel()
	}
}

func (c *stepCounter) Sync() error { c.step("forward"); return c.Backend.Sync() }

func (c *stepCounter) Gram(acc, x backend.Tensor, overwrite bool) {
	c.step("gram")
	c.Backend.Gram(acc, x, overwrite)
}

func (c *stepCounter) ReadFloat32(t backend.Tensor, dst []float32) error {
	c.step("read")
	return c.Backend.ReadFloat32(t, dst)
}

// TestCancelStopsInsideCalibration: cancelled during the calibration, a run returns within a step: in the
// self-calibration's sampling (a batch is CalibCtx-1 forward passes; it went on to the end of the batch, 60 more)
// no forward pass after the one that saw the cancel; in a window's forward pass on the device Gram path no
// further Gram product (the pass's other sites were still multiplied) and no further pass; on the host path no
// tapped input read after the cancel but the logits of the pass in flight. Each fails with context.Canceled
// and leaves nothing (no finished layer, no Hessians).
func TestCancelStopsInsideCalibration(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	ids := make([]int, 4*64)
	for i := range ids {
		ids[i] = (i * 37) % 2048
	}
	for _, c := range []struct {
		name, on string
		at       int
		host     bool
		auto     bool
		most     map[string]int // the most steps of each kind after the cancel
		says     string
	}{
		{"sampling", "forward", 3, false, true, map[string]int{"forward": 0, "gram": 0}, "sampling stopped at position 4"},
		{"window on the device", "gram", 2, false, false, map[string]int{"gram": 0, "forward": 1}, "calibration window 0: stopped"},
		{"window on the host", "read", 2, true, false, map[string]int{"read": 1, "forward": 1}, "calibration window 0: stopped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sc := newStepCounter(c.on, c.at, cancel)
			defer sc.Close()
			var dev backend.Backend = sc
			if c.host {
				dev = hostOnly{sc}
			}
			o := Options{Bits: 3, L: 6, GroupSize: 64, CalibIDs: ids, CalibTokens: len(ids), CalibCtx: 64, Device: dev, Context: ctx}
			if c.auto { // a seed of its own: no earlier run's samples in calibMemo
				o.CalibIDs, o.CalibAuto, o.CalibSeed, o.CalibTokens = nil, true, 0x5709, 2*64
			}
			parent := t.TempDir()
			_, err := Run(in, filepath.Join(parent, "out"), o, nil)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run cancelled during calibration: %v, want context.Canceled", err)
			}
			if sc.n[c.on] < c.at {
				t.Fatalf("only %d %s steps: the cancel never came", sc.n[c.on], c.on)
			}
			for kind, most := range c.most {
				if sc.after[kind] > most {
					t.Errorf("%d %s steps after the cancel, want at most %d (steps: %v)", sc.after[kind], kind, most, sc.n)
				}
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("Run cancelled during calibration: %v, want it to say %q", err, c.says)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("left behind: %v", left[0].Name())
			}
		})
	}
}
