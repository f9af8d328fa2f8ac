package quantize

// cancel.go: the trellis searches stop when the run's context is cancelled. A tensor's search is many batches
// (LDLQ hands the searcher a few rows at a time), and one 14B-shape tensor at L 16 takes minutes, so a Ctrl-C or
// SIGTERM checked only between tensors looked like a hang (H200, 2026-12-03: a `timeout`-stopped run was still
// encoding its first layer 260 s after the signal). The calibration checks it at every forward pass: each
// sampling step, each window, and each tapped input (sample.go, calib.go, gram.go).
//
// A stopped run keeps its work folder when it holds something a resume takes (a finished layer's checkpoint, the
// calibration Hessians): a Ctrl-C on a long run is continued with --resume, like a kill -9. Every file in it
// was written under a temporary name and renamed (write.go), so the layer being coded when the stop came has
// no checkpoint under its final name; the record is marked stopped (workdir.go), so a resume may take it over.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlxbun/mlxbun/internal/trellis"
)

// cancelSearcher refuses the next batch once ctx is done; the batch in flight finishes.
type cancelSearcher struct {
	ctx context.Context
	s   trellis.Searcher
}

func (c cancelSearcher) SearchBlocks(spec trellis.Spec, x []float32, states []uint32) error {
	if err := c.ctx.Err(); err != nil {
		return fmt.Errorf("trellis search stopped: %w", err)
	}
	return c.s.SearchBlocks(spec, x, states)
}

// searcher is o.Searcher (the CPU's when nil) behind the run's context.
func (o Options) searcher() trellis.Searcher {
	s := o.Searcher
	if s == nil {
		s = trellis.CPU
	}
	if o.Context == nil {
		return s
	}
	return cancelSearcher{ctx: o.Context, s: s}
}

// Stopped is Run's error when the run's Context stopped it; Err is the error it stopped with (wrapping the
// context's). Work is the work folder kept for Options.Resume ("" when none was kept: nothing in it to resume,
// or a --sequential run, which does not resume); it holds Done of the run's Layers checkpoint units finished
// and, when Hessians, the calibration Hessians.
type Stopped struct {
	Err          error
	Work         string
	Done, Layers int
	Hessians     bool
}

func (e *Stopped) Error() string {
	if e.Work == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v; %s are kept in %s: the same run with --resume continues from there", e.Err, e.Kept(), e.Work)
}

func (e *Stopped) Unwrap() error { return e.Err }

// Kept says what the work folder keeps: "2 of 30 layers" or "the calibration Hessians and 0 of 30 layers".
func (e *Stopped) Kept() string {
	s := fmt.Sprintf("%d of %d layers", e.Done, e.Layers)
	if e.Hessians {
		s = "the calibration Hessians and " + s
	}
	return s
}

// stopped settles the work folder tmp of a run its context stopped with err, done of layers units checkpointed:
// kept and released (releaseOwner) when a resume would take something from it, else removed as a failed run's.
func (d destination) stopped(tmp string, resumable bool, done, layers int, err error) error {
	_, herr := os.Stat(filepath.Join(tmp, hessFile))
	s := &Stopped{Err: err, Done: done, Layers: layers, Hessians: herr == nil}
	if !resumable || done == 0 && !s.Hessians {
		d.removeTemp(tmp)
		s.Hessians = false
		return s
	}
	// A record that cannot be rewritten still names this process: the folder is resumable once it has exited.
	releaseOwner(tmp)
	s.Work = tmp
	return s
}
