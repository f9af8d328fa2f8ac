package quantize_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// cancelOnFirst cancels the run's context during its first batch (as a SIGTERM arriving mid-tensor would),
// then searches on the CPU, counting the calls it gets.
type cancelOnFirst struct {
	cancel context.CancelFunc
	calls  int
}

func (c *cancelOnFirst) SearchBlocks(spec trellis.Spec, x []float32, states []uint32) error {
	c.calls++
	c.cancel()
	return trellis.CPU.SearchBlocks(spec, x, states)
}

// Test that a cancelled run stops at the next search batch, inside the tensor being encoded, not after it: LDLQ
// hands the searcher a few rows at a time, so tiny-qwen3's first coded tensor alone is many batches. The run
// fails with the context's error and leaves no output directory.
func TestCancelStopsInsideTensor(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &cancelOnFirst{cancel: cancel}
	ids := make([]int, 128)
	for i := range ids {
		ids[i] = (i * 37) % 2048
	}
	o := quantize.Options{Bits: 3, L: 8, GroupSize: 64, Head: quantize.HeadBF16, CalibIDs: ids, CalibTokens: 128,
		CalibCtx: 64, LDLQRows: 4, Damp: 0.01, Searcher: s, Context: ctx}
	out := filepath.Join(t.TempDir(), "out")
	_, err := quantize.Run(in, out, o, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after a cancel mid-tensor: error %v, want context.Canceled", err)
	}
	if s.calls != 1 {
		t.Errorf("the searcher got %d batches after the cancel in its first; want the first only", s.calls)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a cancelled run left %s (stat: %v)", out, err)
	}
}
