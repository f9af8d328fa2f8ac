// Command buffers and compute encoding: one command buffer collects the dispatches between two waits, encoded
// serially into one compute encoder (serial dispatch: each launch sees the previous one's writes), committed and
// waited for by Finish, which turns a failed buffer into an error carrying the GPU's own text.

//go:build darwin

package mtl

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego/objc"

	"github.com/mlxbun/mlxbun/internal/objcrt"
)

var (
	selCommandBuffer         = objc.RegisterName("commandBuffer")
	selComputeCommandEncoder = objc.RegisterName("computeCommandEncoder")
	selSetComputePipeline    = objc.RegisterName("setComputePipelineState:")
	selSetBuffer             = objc.RegisterName("setBuffer:offset:atIndex:")
	selSetBytes              = objc.RegisterName("setBytes:length:atIndex:")
	selDispatchThreadgroups  = objc.RegisterName("dispatchThreadgroups:threadsPerThreadgroup:")
	selEndEncoding           = objc.RegisterName("endEncoding")
	selCommit                = objc.RegisterName("commit")
	selWaitUntilCompleted    = objc.RegisterName("waitUntilCompleted")
	selStatus                = objc.RegisterName("status")
	selError                 = objc.RegisterName("error")
)

// Encoder is an open command buffer and its compute encoder.
type Encoder struct {
	cb, enc   objc.ID
	launches  int
	firstFunc string // the first kernel encoded, for the failure message
}

// Begin opens a command buffer on the device's queue with one compute encoder.
func (d *Device) Begin() (*Encoder, error) {
	e := &Encoder{}
	objcrt.Do(func() {
		e.cb = objcrt.Retain(d.queue.Send(selCommandBuffer)) // autoreleased: kept past the pool
		if e.cb != 0 {
			e.enc = objcrt.Retain(e.cb.Send(selComputeCommandEncoder))
		}
	})
	if e.cb == 0 || e.enc == 0 {
		e.release()
		return nil, fmt.Errorf("metal: %s: no command buffer or compute encoder", d.Name)
	}
	return e, nil
}

// Binding is one buffer argument of a launch.
type Binding struct {
	Index  int
	Buffer *Buffer
	Offset int
}

// Dispatch encodes one launch: the pipeline, its buffers, its parameter bytes at paramIndex, and the grid, both
// MTLSize arguments passed by value.
func (e *Encoder) Dispatch(p *Pipeline, buffers []Binding, paramIndex int, params []byte, groups, threads [3]int) error {
	g, t, err := CheckDispatch(p.Name, groups, threads, p.MaxThreads)
	if err != nil {
		return err
	}
	for _, b := range buffers {
		if b.Buffer == nil || b.Buffer.id == 0 || b.Offset < 0 || b.Offset >= b.Buffer.size {
			return fmt.Errorf("metal: %s: buffer %d unbound or offset %d outside it", p.Name, b.Index, b.Offset)
		}
	}
	objcrt.Do(func() {
		e.enc.Send(selSetComputePipeline, p.id)
		for _, b := range buffers {
			e.enc.Send(selSetBuffer, b.Buffer.id, uintptr(b.Offset), uintptr(b.Index))
		}
		if len(params) > 0 {
			e.enc.Send(selSetBytes, unsafe.Pointer(&params[0]), uintptr(len(params)), uintptr(paramIndex))
		}
		e.enc.Send(selDispatchThreadgroups, g, t)
	})
	if e.launches == 0 {
		e.firstFunc = p.Name
	}
	e.launches++
	return nil
}

// Launches is how many dispatches the buffer holds.
func (e *Encoder) Launches() int { return e.launches }

// Finish ends encoding, commits, waits, and returns the buffer's error: a buffer that did not complete is an
// error naming its status, its launch count and the GPU's description (a fault, a timeout, a page fault at an
// address), never a silent success.
func (e *Encoder) Finish() error {
	var status int
	var desc string
	objcrt.Do(func() {
		e.enc.Send(selEndEncoding)
		e.cb.Send(selCommit)
		e.cb.Send(selWaitUntilCompleted)
		status = int(e.cb.Send(selStatus))
		if status != StatusCompleted {
			if nsErr := e.cb.Send(selError); nsErr != 0 {
				desc = objcrt.Error("the command buffer", nsErr).Error()
			}
		}
	})
	n, first := e.launches, e.firstFunc
	e.release()
	if status != StatusCompleted {
		if desc == "" {
			desc = "no error reported"
		}
		return fmt.Errorf("metal: command buffer of %d launches (first %s) ended %s: %s", n, first, StatusName(status), desc)
	}
	return nil
}

func (e *Encoder) release() {
	objcrt.Do(func() {
		objcrt.Release(e.enc)
		objcrt.Release(e.cb)
	})
	e.enc, e.cb = 0, 0
}

var (
	selBlitCommandEncoder = objc.RegisterName("blitCommandEncoder")
	selCopyFromBuffer     = objc.RegisterName("copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:")
	selGPUStartTime       = objc.RegisterName("GPUStartTime")
	selGPUEndTime         = objc.RegisterName("GPUEndTime")
)

// Copy copies n bytes from src to dst with a blit in a command buffer of its own, waits, and returns the GPU's
// own execution time (GPUEndTime − GPUStartTime) — the copy bandwidth yardstick bench --profile reports.
func (d *Device) Copy(dst, src *Buffer, n int) (seconds float64, err error) {
	if n < 1 || n > dst.size || n > src.size {
		return 0, fmt.Errorf("metal: copy of %d bytes between buffers of %d and %d", n, src.size, dst.size)
	}
	var status int
	var desc string
	objcrt.Do(func() {
		cb := d.queue.Send(selCommandBuffer)
		blit := cb.Send(selBlitCommandEncoder)
		blit.Send(selCopyFromBuffer, src.id, uintptr(0), dst.id, uintptr(0), uintptr(n))
		blit.Send(selEndEncoding)
		cb.Send(selCommit)
		cb.Send(selWaitUntilCompleted)
		status = int(cb.Send(selStatus))
		if status != StatusCompleted {
			desc = objcrt.Error("the copy", cb.Send(selError)).Error()
			return
		}
		seconds = objc.Send[float64](cb, selGPUEndTime) - objc.Send[float64](cb, selGPUStartTime)
	})
	if status != StatusCompleted {
		return 0, fmt.Errorf("metal: copy ended %s: %s", StatusName(status), desc)
	}
	if seconds <= 0 {
		return 0, fmt.Errorf("metal: the copy's GPU time was %g s", seconds)
	}
	return seconds, nil
}
