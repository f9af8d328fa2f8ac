// Package cuda is the CUDA implementation of backend.Backend: f32 activations (as the CPU oracle), bf16 weights,
// an f32 KV cache, f32 accumulation, on one stream of one GPU. The runtime under it (driver API, NVRTC, cuBLASLt,
// graphs, memory, launch arguments) is the subpackage driver; this package holds tensors, ops, kernel selection,
// fusion and recording.
//
// Ops are called on the model's goroutine but every driver call must run on the device thread (Device.Do, about
// 16 µs a round trip), so an op only checks shapes and appends a closure to a pending list; the list runs on the
// device thread in one Do when the caller needs a result (ReadFloat32, ReadInt32, Sync) or records a graph. A
// decode step is then one Do: the input copies, one graph launch, the logits copy and a stream sync.
// Failures inside closures are kept as the first (sticky) error, returned by the next read or Sync.
package cuda

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// envDebug makes the backend log its kernel choices to stderr ("1").
const envDebug = "MLXBUN_CUDA_DEBUG"

// ErrNoDriver is wrapped by New's error on machines that cannot run CUDA (driver.ErrNoDriver).
var ErrNoDriver = driver.ErrNoDriver

// Stats counts device work since Open.
type Stats struct {
	Launches      int64 // kernels (and cuBLASLt calls) launched one by one
	GraphLaunches int64 // recorded graphs replayed
	Graphs        int   // graphs held now
	GraphNodes    int   // launches inside the graphs held now
	LastGraph     int   // launches inside the graph recorded last
}

// Backend is the CUDA backend. Like the CPU backend it serves one goroutine at a time.
type Backend struct {
	dev    *driver.Device
	info   driver.Info
	stream *driver.Stream
	blas   *driver.BlasLt
	mods   []*driver.Module
	fns    map[string]*driver.Function
	debug  bool

	mu      sync.Mutex
	pending []func() error
	fuse    fusion // peephole fusion candidates among the pending ops (fuse.go)
	err     error  // first failure since the last Sync
	busy    bool   // work was put on the stream since it was last waited for

	mem   allocator
	up    *driver.HostMem // pinned staging for small writes, bump-allocated between synced flushes
	upOff int
	down  *driver.HostMem // pinned staging for reads
	wbuf  [2]*driver.HostMem
	wev   [2]*driver.Event

	graphs    map[any]*recorded
	noGraphs  bool // Record runs fn's ops without recording
	capturing bool // device thread: inside a graph capture
	capNodes  int
	prof      *profiler
	stats     Stats

	ropes       map[*rope.Table]driver.DevPtr // inverse frequencies per rope table
	scratch     driver.DevPtr                 // split-attention partials
	scrLen      int
	gemmScratch driver.DevPtr // bf16 copies of prompt-GEMM inputs
	gemmLen     int
	argPart     driver.DevPtr // Argmax's per-slice partials
	argLen      int
	retired     []driver.DevPtr          // scratch buffers replaced while graphs may still point at them
	quant       quantState               // quantized layers' mode and scratch (trellis.go)
	moe         map[moeKey]*moeScratch   // Experts' intermediates (moe.go)
	moeTables   map[string]driver.DevPtr // Experts' device tables of expert weight pointers, by content (moe.go)
	copyBW      float64
	closed      bool
	tune        tuning // launch choices (tuning.go), fixed at open
	pdl         bool   // launches use programmatic dependent launch (tune.pdl on an sm_90+ device and driver)
}

var (
	_ backend.Backend        = (*Backend)(nil)
	_ backend.Recorder       = (*Backend)(nil)
	_ backend.Profiler       = (*Backend)(nil)
	_ backend.Argmaxer       = (*Backend)(nil)
	_ backend.MemoryReporter = (*Backend)(nil)
)

const upBytes = 4 << 20 // small-write staging

// New opens device ordinal, compiles (or loads from the disk cache) every kernel and prepares a stream,
// cuBLASLt and the staging buffers. Without a CUDA driver it fails with an error wrapping ErrNoDriver.
func New(ordinal int) (*Backend, error) {
	n, err := driver.DeviceCount()
	if err != nil {
		return nil, err
	}
	if n <= ordinal {
		return nil, fmt.Errorf("cuda backend: device %d of %d: %w", ordinal, n, driver.ErrNoDriver)
	}
	dev, err := driver.Open(ordinal)
	if err != nil {
		return nil, err
	}
	b := &Backend{dev: dev, info: dev.Info(), graphs: map[any]*recorded{}, ropes: map[*rope.Table]driver.DevPtr{},
		debug: os.Getenv(envDebug) == "1"}
	b.mem.dev = dev
	if b.tune, err = tuningFromEnv(); err != nil {
		dev.Close()
		return nil, fmt.Errorf("cuda backend: %w", err)
	}
	b.pdl = b.tune.pdl && b.info.CCMajor >= 9 && driver.HasPDL()
	b.logf("tuning %+v, programmatic dependent launch %v", b.tune, b.pdl)
	cubins, err := compileKernels(b.info.Arch(), b.tune.lab)
	if err != nil {
		dev.Close()
		return nil, err
	}
	err = dev.Do(func() error {
		var err error
		if b.stream, err = dev.NewStream(); err != nil {
			return err
		}
		if b.blas, err = dev.BlasLt(); err != nil {
			return err
		}
		if b.up, err = dev.AllocHost(upBytes, 0); err != nil {
			return err
		}
		if err := b.loadKernels(cubins); err != nil {
			return err
		}
		return b.allowAttnSmem()
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("cuda backend: open: %w", err)
	}
	return b, nil
}

func init() {
	backend.Register(backend.Device{Name: "cuda", Rank: 10, Open: func() (backend.Backend, error) {
		b, err := New(0)
		if err != nil {
			return nil, err
		}
		return b, nil
	}})
}

func (b *Backend) Name() string            { return "cuda" }
func (b *Backend) ActDType() backend.DType { return backend.F32 }

// Info describes the GPU.
func (b *Backend) Info() driver.Info { return b.info }

// Stats reports launch counts.
func (b *Backend) Stats() Stats {
	s := b.stats
	s.Graphs = len(b.graphs)
	s.GraphNodes = 0
	for _, g := range b.graphs {
		s.GraphNodes += g.nodes
	}
	return s
}

func (b *Backend) logf(format string, args ...any) {
	if b.debug {
		fmt.Fprintf(os.Stderr, "cuda backend: "+format+"\n", args...)
	}
}

// enqueue appends device work; it runs at the next flush. Nothing queued later fuses into what came before it.
func (b *Backend) enqueue(f func() error) {
	b.mu.Lock()
	b.pending = append(b.pending, f)
	b.fuse.reset(b.fuse.floor)
	b.mu.Unlock()
}

// fail records err as the sticky error unless one is already held.
func (b *Backend) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
}

func (b *Backend) firstErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// flush runs the pending work on the device thread and then tail there, unless an error is held. It returns the
// held error.
func (b *Backend) flush(tail func() error) error {
	if b.closed {
		return driver.ErrClosed
	}
	b.mu.Lock()
	ops := b.pending
	b.pending = nil
	b.fuse.reset(0)
	b.mu.Unlock()
	if len(ops) > 0 || tail != nil {
		b.busy = true
	}
	err := b.dev.Do(func() error {
		for _, f := range ops {
			if b.firstErr() != nil {
				break
			}
			if err := f(); err != nil {
				b.fail(err)
			}
		}
		if err := b.firstErr(); err != nil {
			return err
		}
		if tail != nil {
			if err := tail(); err != nil {
				b.fail(err)
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.fail(err)
	}
	return err
}

// syncFlush flushes and waits for the stream; afterwards the write staging is free again. With nothing queued
// and the stream already waited for, it costs no device round trip.
func (b *Backend) syncFlush() error {
	b.mu.Lock()
	idle := !b.busy && len(b.pending) == 0
	b.mu.Unlock()
	if idle {
		return b.firstErr()
	}
	err := b.flush(b.waitStream)
	if err == nil {
		b.upOff = 0
	}
	return err
}

// waitStream waits for the stream (device thread) and marks it idle.
func (b *Backend) waitStream() error {
	if err := b.stream.Sync(); err != nil {
		return err
	}
	b.busy = false
	return nil
}

// Sync waits for all queued work and returns (and clears) the first error since the last Sync.
func (b *Backend) Sync() error {
	ferr := b.syncFlush()
	b.mu.Lock()
	err := b.err
	b.err = nil
	b.mu.Unlock()
	if err == nil {
		err = ferr
	}
	return err
}

// Close frees everything the backend holds and releases the device.
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	var errs []error
	if b.stream != nil {
		errs = append(errs, b.syncFlush())
	}
	errs = append(errs, b.dev.Do(func() error {
		var errs []error
		for k, g := range b.graphs {
			errs = append(errs, g.exec.Destroy())
			delete(b.graphs, k)
		}
		if b.prof != nil {
			b.prof.destroy()
		}
		for _, e := range b.wev {
			errs = append(errs, e.Destroy())
		}
		for _, h := range append([]*driver.HostMem{b.up, b.down}, b.wbuf[:]...) {
			errs = append(errs, b.dev.FreeHost(h))
		}
		for _, p := range b.ropes {
			b.mem.release(p)
		}
		b.mem.release(b.scratch)
		b.mem.release(b.gemmScratch)
		b.mem.release(b.argPart)
		for _, p := range b.retired {
			b.mem.release(p)
		}
		errs = append(errs, b.mem.releaseAll())
		for _, m := range b.mods {
			errs = append(errs, m.Unload())
		}
		errs = append(errs, b.stream.Destroy())
		return errors.Join(errs...)
	}))
	b.closed = true
	errs = append(errs, b.dev.Close())
	return errors.Join(errs...)
}

// MemoryUsed reports the device memory the backend holds from the driver (tensors, weights, caches and the
// allocator's free blocks) now and at its peak; the cuBLASLt workspace (32 MiB) is not counted.
func (b *Backend) MemoryUsed() (now, peak int64) { return b.mem.usage() }

// CopyBandwidth measures (once) a 1 GiB device-to-device copy and reports bytes read plus written per second.
func (b *Backend) CopyBandwidth() (float64, error) {
	if b.copyBW > 0 {
		return b.copyBW, nil
	}
	if err := b.syncFlush(); err != nil {
		return 0, err
	}
	const n = 1 << 30
	err := b.dev.Do(func() error {
		src, err := b.dev.Alloc(n)
		if err != nil {
			return err
		}
		defer b.dev.Free(src)
		dst, err := b.dev.Alloc(n)
		if err != nil {
			return err
		}
		defer b.dev.Free(dst)
		if err := b.stream.MemsetD32Async(src, 0x3f803f80, n/4); err != nil {
			return err
		}
		e0, err := b.dev.NewEvent(true)
		if err != nil {
			return err
		}
		defer e0.Destroy()
		e1, err := b.dev.NewEvent(true)
		if err != nil {
			return err
		}
		defer e1.Destroy()
		best := float32(0)
		for i := 0; i < 6; i++ {
			if err := errors.Join(e0.Record(b.stream), b.stream.MemcpyDtoDAsync(dst, src, n), e1.Record(b.stream), e1.Sync()); err != nil {
				return err
			}
			ms, err := driver.ElapsedMs(e0, e1)
			if err != nil {
				return err
			}
			if i > 0 && (best == 0 || ms < best) {
				best = ms
			}
		}
		b.copyBW = 2 * n / (float64(best) / 1e3)
		return nil
	})
	return b.copyBW, err
}
