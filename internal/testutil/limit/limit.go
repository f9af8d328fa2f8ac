// Package limit holds test code to a time and memory bound: the acceptance bound for bad input (an error within
// 10 s and 1 GiB) and the per-input bound of the fuzz targets (1 s and 256 MiB), so that a budget that stops
// working fails a test or the fuzzer instead of going unnoticed until a machine runs out of memory.
package limit

import (
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// Bound is the most time and the most bytes allocated (in all, so also a bound on the peak) a call may take.
type Bound struct {
	Time  time.Duration
	Alloc uint64
}

var (
	// Acceptance is what a bad input may cost before it is refused with an error.
	Acceptance = Bound{10 * time.Second, 1 << 30}
	// FuzzInput is what one fuzz input may cost, error or not.
	FuzzInput = Bound{time.Second, 256 << 20}
)

// allocated is the bytes allocated by the process so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Within runs fn and fails tb if it takes longer than b.Time or allocates more than b.Alloc bytes; it returns
// fn's error. fn runs on its own goroutine so that a hang is reported instead of waited out (the goroutine is
// left running: the test has failed). Allocations of other goroutines count too, so callers do not run in
// parallel with other work.
func Within(tb testing.TB, b Bound, fn func() error) error {
	tb.Helper()
	before := allocated()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		took, alloc := time.Since(start), allocated()-before
		if took > b.Time {
			tb.Fatalf("took %v, more than %v", took.Round(time.Millisecond), b.Time)
		}
		if alloc > b.Alloc {
			tb.Fatalf("allocated %d MiB, more than %d MiB", alloc>>20, b.Alloc>>20)
		}
		return err
	case <-time.After(b.Time):
		tb.Fatalf("still running after %v", b.Time)
		return nil
	}
}

// OneLine fails tb unless err is an error of one line that contains every one of want (a message a user can
// read, naming what is wrong) and no panic or goroutine dump.
func OneLine(tb testing.TB, err error, want ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error, want one containing %q", want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine ") || strings.Contains(msg, "panic") {
		tb.Fatalf("error is not one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			tb.Fatalf("error %q does not contain %q", msg, w)
		}
	}
}
