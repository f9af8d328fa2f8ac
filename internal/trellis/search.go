// This file is the encoder's hook for other devices: Searcher, the batched tail-biting search (encodeBlock over
// many blocks) that a GPU can take over, and CPU, the one the encoder runs when it is given none. Everything
// around the search (first-pass scales, packing, the least-squares refit, LDLQ's feedback) stays on the host in
// the same code whichever Searcher runs, so a Searcher whose paths equal encodeBlock's gives identical Weights.
package trellis

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Searcher chooses the tail-biting state paths of a batch of blocks: x holds len(x)/spec.T blocks of spec.T
// normalised weights each (block j at x[j·T:(j+1)·T]); states (len(x)) receives each block's path s_0..s_{T−1},
// which must be the one encodeBlock chooses (QTIP's rotated search, then the search constrained to its overlap).
// A Searcher that cannot serve a spec hands the batch to CPU. Calls come from one goroutine at a time.
type Searcher interface {
	SearchBlocks(spec Spec, x []float32, states []uint32) error
}

// SpecSearcher is a Searcher that says which specs it searches itself: nil for one it serves, else why it hands
// that spec's batches to CPU. Callers that size work by where the search runs ask it (quantize's L auto takes
// L 16 only where a device serves it: on the CPU L 16 costs 16× L 12); a Searcher without it makes no such promise.
type SpecSearcher interface {
	Searcher
	SupportsSearch(spec Spec) error
}

// CPU is the default Searcher: encodeBlock on min(GOMAXPROCS, blocks) goroutines, one scratch per goroutine.
var CPU Searcher = cpuSearcher{}

type cpuSearcher struct{}

func (cpuSearcher) SearchBlocks(spec Spec, x []float32, states []uint32) error {
	if err := CheckBatch(spec, x, states); err != nil {
		return err
	}
	T := spec.T
	n := len(x) / T
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := newViterbi(spec)
			for {
				j := int(next.Add(1)) - 1
				if j >= n {
					return
				}
				v.encodeBlock(x[j*T:(j+1)*T], states[j*T:(j+1)*T])
			}
		}()
	}
	wg.Wait()
	return nil
}

// CheckBatch is the argument check every Searcher makes: a valid spec, whole blocks, one state per weight.
func CheckBatch(spec Spec, x []float32, states []uint32) error {
	if err := spec.Validate(); err != nil {
		return fmt.Errorf("trellis search: %w", err)
	}
	if len(x)%spec.T != 0 || len(states) != len(x) {
		return fmt.Errorf("trellis search: %d weights and %d states are not the same whole number of blocks of %d",
			len(x), len(states), spec.T)
	}
	return nil
}

// searcherOr is s, or CPU when s is nil.
func searcherOr(s Searcher) Searcher {
	if s == nil {
		return CPU
	}
	return s
}
