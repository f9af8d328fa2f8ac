package main

import (
	"math"
	"testing"
	"time"
)

// TestSteadyRate: the all-decoding window runs from the last stream's first token to the first stream's last, and
// counts only the tokens inside it.
func TestSteadyRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms ...int) []time.Time {
		var ts []time.Time
		for _, m := range ms {
			ts = append(ts, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return ts
	}
	runs := []streamRun{
		{at: at(0, 10, 20, 30, 40), counts: []int{1, 1, 1, 1, 1}},        // decodes first, ends at 40 ms
		{at: at(15, 25, 35, 45, 55), counts: []int{1, 2, 1, 1, 1}},       // joins at 15 ms (the window's start)
		{at: at(5, 12, 22, 32, 42, 52), counts: []int{1, 1, 1, 1, 1, 1}}, // inside throughout
	}
	// (15 ms, 40 ms]: stream 0 at 20, 30, 40 (3); stream 1 at 25 (2), 35 (1) (3); stream 2 at 22, 32 (2).
	got, ok := steadyRate(runs)
	if want := 8 / 0.025; !ok || math.Abs(got-want) > 1e-6*want {
		t.Errorf("steadyRate = %v, %v; want %v", got, ok, want)
	}
	if _, ok := steadyRate([]streamRun{{at: at(0, 10), counts: []int{1, 1}}, {at: at(20, 30), counts: []int{1, 1}}}); ok {
		t.Error("streams that never overlapped gave a rate")
	}
	if _, ok := steadyRate([]streamRun{{at: at(0), counts: []int{1}}, {}}); ok {
		t.Error("a stream without tokens gave a rate")
	}
}
