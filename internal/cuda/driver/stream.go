// Streams and events: ordered queues of device work, and markers on them for waiting and timing.

package driver

import (
	"unsafe"
)

const (
	streamNonBlocking = 0x1 // CU_STREAM_NON_BLOCKING: no implicit sync with the legacy default stream
	eventDisableTime  = 0x2 // CU_EVENT_DISABLE_TIMING
)

// Stream is a CUDA stream. Streams from NewStream never synchronize implicitly with the legacy default stream,
// which also makes them capturable into graphs.
type Stream struct {
	d *Device
	h uintptr
}

// NewStream creates a non-blocking stream.
func (d *Device) NewStream() (*Stream, error) {
	s := &Stream{d: d}
	if err := check(call(drv.cuStreamCreate, uintptr(unsafe.Pointer(&s.h)), streamNonBlocking), "cuStreamCreate"); err != nil {
		return nil, err
	}
	return s, nil
}

// Handle is the raw CUstream (also a cudaStream_t for libraries such as cuBLASLt).
func (s *Stream) Handle() uintptr { return s.h }

// Sync waits until all work queued on s has finished; errors from that work surface here.
func (s *Stream) Sync() error {
	return check(call(drv.cuStreamSynchronize, s.h), "cuStreamSynchronize")
}

// Destroy releases the stream once its queued work completes.
func (s *Stream) Destroy() error {
	if s == nil || s.h == 0 {
		return nil
	}
	err := check(call(drv.cuStreamDestroy, s.h), "cuStreamDestroy")
	s.h = 0
	return err
}

// Event marks a point in a stream.
type Event struct {
	h uintptr
}

// NewEvent creates an event; timing events can measure elapsed time, others are cheaper to record and wait on.
func (d *Device) NewEvent(timing bool) (*Event, error) {
	var flags uintptr
	if !timing {
		flags = eventDisableTime
	}
	e := &Event{}
	if err := check(call(drv.cuEventCreate, uintptr(unsafe.Pointer(&e.h)), flags), "cuEventCreate"); err != nil {
		return nil, err
	}
	return e, nil
}

// Record places the event at the current end of s.
func (e *Event) Record(s *Stream) error {
	return check(call(drv.cuEventRecord, e.h, s.h), "cuEventRecord")
}

// Sync waits until the event's point in its stream has been reached.
func (e *Event) Sync() error {
	return check(call(drv.cuEventSynchronize, e.h), "cuEventSynchronize")
}

// Destroy releases the event.
func (e *Event) Destroy() error {
	if e == nil || e.h == 0 {
		return nil
	}
	err := check(call(drv.cuEventDestroy, e.h), "cuEventDestroy")
	e.h = 0
	return err
}

// ElapsedMs is the device time in milliseconds between two recorded, completed timing events (resolution about
// half a microsecond).
func ElapsedMs(start, end *Event) (float32, error) {
	var ms float32
	err := check(call(drv.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), start.h, end.h), "cuEventElapsedTime")
	return ms, err
}
