// CUDA graphs: record a stream's work once by capture and replay it with one launch, which removes the per-kernel
// CPU launch cost and most of the gaps between small kernels (the decode step of a model is hundreds of them).

package driver

import (
	"errors"
	"unsafe"
)

// Capture modes (CUstreamCaptureMode): which concurrent driver calls are refused while a capture is open.
const (
	CaptureGlobal      = 0 // refuse unsafe calls (cuMemAlloc, sync) from any thread
	CaptureThreadLocal = 1 // refuse them only from the capturing thread
	CaptureRelaxed     = 2 // refuse nothing
)

// Graph is captured work, not yet executable.
type Graph struct{ h uintptr }

// GraphExec is an instantiated graph, launchable on any stream.
type GraphExec struct{ h uintptr }

// BeginCapture starts recording s: work enqueued on s is recorded instead of run until EndCapture.
func (s *Stream) BeginCapture(mode int) error {
	return check(call(drv.cuStreamBeginCapture, s.h, uintptr(mode)), "cuStreamBeginCapture")
}

// EndCapture stops recording and returns the graph. A capture invalidated by an illegal call (a synchronous
// copy, an allocation) fails here.
func (s *Stream) EndCapture() (*Graph, error) {
	g := &Graph{}
	if err := check(call(drv.cuStreamEndCapture, s.h, uintptr(unsafe.Pointer(&g.h))), "cuStreamEndCapture"); err != nil {
		return nil, err
	}
	return g, nil
}

// Instantiate makes an executable graph.
func (g *Graph) Instantiate() (*GraphExec, error) {
	e := &GraphExec{}
	if err := check(call(drv.cuGraphInstantiateWithFlags, uintptr(unsafe.Pointer(&e.h)), g.h, 0), "cuGraphInstantiateWithFlags"); err != nil {
		return nil, err
	}
	return e, nil
}

// Destroy frees the graph (an instantiated GraphExec stays valid).
func (g *Graph) Destroy() error {
	if g == nil || g.h == 0 {
		return nil
	}
	err := check(call(drv.cuGraphDestroy, g.h), "cuGraphDestroy")
	g.h = 0
	return err
}

// Launch enqueues one replay of the whole graph on s.
func (e *GraphExec) Launch(s *Stream) error {
	if r := call(drv.cuGraphLaunch, e.h, s.h); r != 0 {
		return newError(r, "cuGraphLaunch")
	}
	return nil
}

// Destroy frees the executable graph.
func (e *GraphExec) Destroy() error {
	if e == nil || e.h == 0 {
		return nil
	}
	err := check(call(drv.cuGraphExecDestroy, e.h), "cuGraphExecDestroy")
	e.h = 0
	return err
}

// Capture records what record enqueues on s and returns it instantiated. The capture is always ended, also when
// record fails, so s is usable afterwards.
func (s *Stream) Capture(mode int, record func() error) (*GraphExec, error) {
	if err := s.BeginCapture(mode); err != nil {
		return nil, err
	}
	recErr := record()
	g, endErr := s.EndCapture()
	if recErr != nil || endErr != nil {
		if g != nil {
			g.Destroy()
		}
		return nil, errors.Join(recErr, endErr)
	}
	defer g.Destroy()
	return g.Instantiate()
}
