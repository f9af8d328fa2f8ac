// Recording (CUDA graphs) and profiling. Record captures the launches a forward step queues into a graph the
// first time a key is seen and replays it afterwards, so a decode step costs one graph launch instead of hundreds
// of kernel launches (4.4 µs of host time each, driver/MEASUREMENTS.md). The profiler brackets every launch with a
// pair of events and sums device time per kernel name; while it runs, Record replays nothing (it queues fn's ops).

package cuda

import (
	"errors"
	"fmt"
	"sort"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

type recorded struct {
	exec  *driver.GraphExec
	nodes int // launches captured
}

// Record replays the graph recorded under key, or records fn's ops as one (and runs it). Everything fn queues
// must be kernel launches on the backend's stream: inputs change between replays only through writes into the
// same tensors (WriteInt32 queues its copy before the replay on the same stream).
func (b *Backend) Record(key any, fn func()) error {
	if b.prof != nil || b.noGraphs {
		fn()
		return nil
	}
	if g, ok := b.graphs[key]; ok {
		b.enqueue(func() error {
			b.stats.GraphLaunches++
			if err := g.exec.Launch(b.stream); err != nil {
				return fmt.Errorf("cuda backend: replaying a recorded step: %w", err)
			}
			return nil
		})
		return nil
	}
	b.mu.Lock()
	pre := len(b.pending)
	b.fuse.reset(pre) // fn's ops fuse only among themselves
	b.mu.Unlock()
	fn()
	b.mu.Lock()
	ops := append([]func() error(nil), b.pending[pre:]...)
	b.pending = b.pending[:pre]
	b.fuse.reset(0)
	b.mu.Unlock()
	var g *recorded
	err := b.flush(func() error {
		b.capturing, b.capNodes = true, 0
		exec, err := b.stream.Capture(driver.CaptureThreadLocal, func() error {
			for _, f := range ops {
				if err := f(); err != nil {
					return err
				}
			}
			return nil
		})
		b.capturing = false
		if err != nil {
			return fmt.Errorf("cuda backend: recording a step of %d ops: %w", len(ops), err)
		}
		g = &recorded{exec: exec, nodes: b.capNodes}
		b.stats.LastGraph = b.capNodes
		b.stats.GraphLaunches++
		return exec.Launch(b.stream)
	})
	if g != nil {
		b.graphs[key] = g
	}
	return err
}

// SetGraphs turns recording on (the default) or off; off, Record just queues fn's ops (for comparisons).
func (b *Backend) SetGraphs(on bool) { b.noGraphs = !on }

// Forget destroys the graph recorded under key, after queued work is done with it.
func (b *Backend) Forget(key any) {
	g, ok := b.graphs[key]
	if !ok {
		return
	}
	delete(b.graphs, key)
	if err := b.syncFlush(); err == nil {
		b.fail(b.dev.Do(g.exec.Destroy))
	}
}

// profiler holds one pair of events per launch since StartProfile.
type profiler struct {
	free  []*driver.Event
	marks []*profMark
}

type profMark struct {
	name       string
	bytes      float64
	start, end *driver.Event
}

// begin records a start event and returns the mark whose end event the caller records after its launch.
func (p *profiler) begin(b *Backend, name string, bytes float64) (*profMark, error) {
	m := &profMark{name: name, bytes: bytes}
	for _, e := range []**driver.Event{&m.start, &m.end} {
		if n := len(p.free); n > 0 {
			*e, p.free = p.free[n-1], p.free[:n-1]
			continue
		}
		ev, err := b.dev.NewEvent(true)
		if err != nil {
			return nil, err
		}
		*e = ev
	}
	p.marks = append(p.marks, m)
	return m, m.start.Record(b.stream)
}

func (p *profiler) destroy() {
	for _, m := range p.marks {
		m.start.Destroy()
		m.end.Destroy()
	}
	for _, e := range p.free {
		e.Destroy()
	}
	p.marks, p.free = nil, nil
}

// StartProfile times every kernel from now on (graphs are not replayed meanwhile).
func (b *Backend) StartProfile() {
	b.syncFlush()
	if b.prof == nil {
		b.prof = &profiler{}
	}
}

// StopProfile returns device time per kernel since StartProfile, most expensive first.
func (b *Backend) StopProfile() []backend.KernelTime {
	if b.prof == nil {
		return nil
	}
	p := b.prof
	byName := map[string]*backend.KernelTime{}
	err := b.flush(func() error {
		b.prof = nil
		if err := b.waitStream(); err != nil {
			return err
		}
		var errs []error
		for _, m := range p.marks {
			ms, err := driver.ElapsedMs(m.start, m.end)
			errs = append(errs, err)
			k := byName[m.name]
			if k == nil {
				k = &backend.KernelTime{Name: m.name}
				byName[m.name] = k
			}
			k.Calls++
			k.Seconds += float64(ms) / 1e3
			k.Bytes += m.bytes
			p.free = append(p.free, m.start, m.end)
		}
		p.marks = nil
		p.destroy()
		return errors.Join(errs...)
	})
	b.prof = nil
	b.upOff = 0
	if err != nil {
		b.fail(err)
	}
	out := make([]backend.KernelTime, 0, len(byName))
	for _, k := range byName {
		out = append(out, *k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seconds > out[j].Seconds })
	return out
}
