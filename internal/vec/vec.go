// Package vec holds the small float32 loops the CPU paths share (the reference dot product and a parallel range
// split), so the CPU backend, the trellis and the affine decoders sum in one fixed order.
package vec

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Dot is Σ a[i]·b[i] in float32 with four interleaved partial sums, combined (s0+s1)+(s2+s3), then the tail in
// order: a fixed order, so results never depend on scheduling. len(b) ≥ len(a).
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	s := (s0 + s1) + (s2 + s3)
	for ; i < len(a); i++ {
		s += a[i] * b[i]
	}
	return s
}

// ParallelFor runs fn over [0, n) in chunks of at least grain items on up to GOMAXPROCS goroutines. Chunks must
// write disjoint outputs; which goroutine runs a chunk never changes a result.
func ParallelFor(n, grain int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	chunk := max(grain, n/(workers*4), 1)
	if workers == 1 || n <= chunk {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, (n+chunk-1)/chunk) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				fn(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}
