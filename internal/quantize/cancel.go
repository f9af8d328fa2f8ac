package quantize

// cancel.go: the trellis searches stop when the run's context is cancelled. A tensor's search is many batches
// (LDLQ hands the searcher a few rows at a time), and one 14B-shape tensor at L 16 takes minutes, so a Ctrl-C or
// SIGTERM checked only between tensors looked like a hang (H200, 2026-12-03: a `timeout`-stopped run was still
// encoding its first layer 260 s after the signal).

import (
	"context"
	"fmt"

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
