// Package limit holds test code to a time and memory bound: the acceptance bound for bad input (an error within
// 10 s and 1 GiB) and the per-input bound of the fuzz targets, so that a budget that stops working fails a test
// or the fuzzer instead of going unnoticed until a machine runs out of memory.
package limit

import (
	"fmt"
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
	// FuzzInput is what one fuzz input may cost, error or not. The compile and render budgets stop any input
	// within about a second of one core's work and a few hundred MiB; the bound leaves room for a loaded machine
	// (go test -fuzz runs a worker per core) and fails anything that escapes them by an order of magnitude.
	FuzzInput = Bound{3 * time.Second, 512 << 20}
)

// allocated is the bytes allocated by the process so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Within runs fn under Watch and returns fn's error.
func Within(tb testing.TB, b Bound, fn func() error) error {
	tb.Helper()
	defer Watch(tb, b)()
	return fn()
}

// Watch starts holding the caller to b; the function it returns, deferred, fails tb if the time since or the
// bytes allocated since exceed the bound. The code watched runs on the calling goroutine (so it may call
// tb.Fatal); should it still be running at twice b.Time plus a second, a watchdog panics, which ends the test
// binary (under go test -fuzz, the worker: the fuzzer records the input as a failure) rather than let a hang be
// waited out. Allocations of other goroutines count too, so callers do not run in parallel with other work.
func Watch(tb testing.TB, b Bound) func() {
	name := tb.Name()
	grace := 2*b.Time + time.Second
	stop := time.AfterFunc(grace, func() {
		panic(fmt.Sprintf("%s: still running after %v (the bound is %v)", name, grace, b.Time))
	}).Stop
	before := allocated()
	start := time.Now()
	return func() {
		tb.Helper()
		took, alloc := time.Since(start), allocated()-before
		stop()
		if took > b.Time {
			tb.Fatalf("took %v, more than %v", took.Round(time.Millisecond), b.Time)
		}
		if alloc > b.Alloc {
			tb.Fatalf("allocated %d MiB, more than %d MiB", alloc>>20, b.Alloc>>20)
		}
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
