// The backend's device memory: a caching allocator for tensors (size classes with free lists, so a prompt's
// transient workspace reuses the addresses of the last one instead of calling cuMemAlloc, and nothing allocates
// while a graph is being captured) and exact-size allocations for weights and caches, which live until freed.

package cuda

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"

	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

// allocator hands out device memory. Tensors come from size classes (at most 1/8 above the request); a freed
// block waits on its class's free list for the next request of that class. Freed blocks go back to the driver
// only when an allocation fails (then every free block is released and the allocation retried) or at Close.
type allocator struct {
	dev  *driver.Device
	mu   sync.Mutex
	free map[int][]driver.DevPtr // class size -> free blocks
	size map[driver.DevPtr]int   // live block -> bytes obtained from the driver
	held int64                   // bytes obtained from the driver and not yet returned
	peak int64
}

// classSize rounds a request up to its size class: multiples of 512 bytes up to 64 KiB, then eight classes per
// power of two.
func classSize(n int) int {
	const small = 64 << 10
	if n <= small {
		return (n + 511) &^ 511
	}
	step := 1 << (bits.Len(uint(n)) - 1) / 8
	return (n + step - 1) / step * step
}

// driverAlloc gets bytes from the driver (through Do: any goroutine).
func (a *allocator) driverAlloc(bytes int) (driver.DevPtr, error) {
	var p driver.DevPtr
	err := a.dev.Do(func() error {
		var err error
		p, err = a.dev.Alloc(bytes)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("device memory for %d bytes (%.2f GiB held): %w", bytes, float64(a.held)/(1<<30), err)
	}
	a.mu.Lock()
	if a.size == nil {
		a.size = map[driver.DevPtr]int{}
	}
	a.size[p] = bytes
	a.held += int64(bytes)
	a.peak = max(a.peak, a.held)
	a.mu.Unlock()
	return p, nil
}

// releaseFree returns every free block to the driver (device thread; the stream must be idle, since work queued
// before a Free may still use the block).
func (a *allocator) releaseFree() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.releaseFreeLocked()
}

// cached returns a block of at least bytes from the free lists or the driver; put returns it.
func (a *allocator) cached(bytes int) (driver.DevPtr, int, error) {
	c := classSize(bytes)
	a.mu.Lock()
	if l := a.free[c]; len(l) > 0 {
		p := l[len(l)-1]
		a.free[c] = l[:len(l)-1]
		a.mu.Unlock()
		return p, c, nil
	}
	a.mu.Unlock()
	p, err := a.driverAlloc(c)
	return p, c, err
}

// put returns a cached block of class size c to its free list. Work already queued that uses it still runs first
// (one stream orders everything), so the block can be handed out again at once.
func (a *allocator) put(p driver.DevPtr, c int) {
	a.mu.Lock()
	if a.free == nil {
		a.free = map[int][]driver.DevPtr{}
	}
	a.free[c] = append(a.free[c], p)
	a.mu.Unlock()
}

// exact allocates bytes (rounded to 512) for something that lives long: weights, caches, tables.
func (a *allocator) exact(bytes int) (driver.DevPtr, error) {
	return a.driverAlloc((bytes + 511) &^ 511)
}

// release returns an exact (or any live) block to the driver; call on the device thread after the stream has
// finished with it. Zero is ignored.
func (a *allocator) release(p driver.DevPtr) error {
	if p == 0 {
		return nil
	}
	a.mu.Lock()
	n, ok := a.size[p]
	if ok {
		delete(a.size, p)
		a.held -= int64(n)
	}
	a.mu.Unlock()
	if !ok {
		return fmt.Errorf("cuda backend: release of %#x, which the allocator does not hold", uint64(p))
	}
	return a.dev.Free(p)
}

// releaseFreeLocked returns every free block to the driver (device thread, a.mu held).
func (a *allocator) releaseFreeLocked() error {
	var errs []error
	for c, l := range a.free {
		for _, p := range l {
			errs = append(errs, a.dev.Free(p))
			delete(a.size, p)
			a.held -= int64(c)
		}
		delete(a.free, c)
	}
	return errors.Join(errs...)
}

// releaseAll returns every block the allocator holds (device thread, at Close).
func (a *allocator) releaseAll() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for p := range a.size {
		errs = append(errs, a.dev.Free(p))
	}
	a.size, a.free, a.held = nil, nil, 0
	return errors.Join(errs...)
}

func (a *allocator) usage() (now, peak int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.held, a.peak
}

// freeListed is the bytes waiting on the free lists.
func (a *allocator) freeListed() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var n int64
	for c, l := range a.free {
		n += int64(c) * int64(len(l))
	}
	return n
}
