// The Metal device through purego/objc: the system default GPU, what it is (name, GPU family, unified memory,
// limits), its command queue and buffers. Ownership follows objcrt's rule: objects from new*/Create* are owned
// (+1) and released once in Close/Release; autoreleased ones are retained when kept.

//go:build darwin

package mtl

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"

	"github.com/mlxbun/mlxbun/internal/objcrt"
)

const metalPath = "/System/Library/Frameworks/Metal.framework/Metal"

var (
	createSystemDefaultDevice func() objc.ID

	selName                = objc.RegisterName("name")
	selHasUnifiedMemory    = objc.RegisterName("hasUnifiedMemory")
	selMaxThreadgroupMem   = objc.RegisterName("maxThreadgroupMemoryLength")
	selRecommendedWorking  = objc.RegisterName("recommendedMaxWorkingSetSize")
	selSupportsFamily      = objc.RegisterName("supportsFamily:")
	selNewCommandQueue     = objc.RegisterName("newCommandQueue")
	selNewBufferWithLength = objc.RegisterName("newBufferWithLength:options:")
	selNewBufferNoCopy     = objc.RegisterName("newBufferWithBytesNoCopy:length:options:deallocator:")
	selContents            = objc.RegisterName("contents")
)

// Device is an open MTLDevice with its command queue.
type Device struct {
	id, queue objc.ID

	Name       string
	Family     string // the newest GPUFamilies entry the device supports
	Unified    bool   // hasUnifiedMemory: shared buffers are the GPU's own memory
	MaxTGMem   int    // maxThreadgroupMemoryLength, bytes
	WorkingSet uint64 // recommendedMaxWorkingSetSize, bytes
	OS         string // the macOS version string (part of the pipeline cache key)
}

// Open opens the system default GPU and a command queue. Without one the error wraps ErrNoDevice.
func Open() (*Device, error) {
	if err := objcrt.Load(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDevice, err)
	}
	h, err := objcrt.Open(metalPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDevice, err)
	}
	if createSystemDefaultDevice == nil {
		sym, err := purego.Dlsym(h, "MTLCreateSystemDefaultDevice")
		if err != nil {
			return nil, fmt.Errorf("%w: MTLCreateSystemDefaultDevice: %v", ErrNoDevice, err)
		}
		purego.RegisterFunc(&createSystemDefaultDevice, sym)
	}
	d := &Device{OS: objcrt.OSVersion()}
	objcrt.Do(func() {
		d.id = createSystemDefaultDevice() // Create rule: owned
		if d.id == 0 {
			return
		}
		d.Name = objcrt.GoString(d.id.Send(selName))
		d.Unified = objc.Send[bool](d.id, selHasUnifiedMemory)
		d.MaxTGMem = int(d.id.Send(selMaxThreadgroupMem))
		d.WorkingSet = objc.Send[uint64](d.id, selRecommendedWorking)
		for _, f := range GPUFamilies {
			if objc.Send[bool](d.id, selSupportsFamily, f.Value) {
				d.Family = f.Name
				break
			}
		}
		d.queue = d.id.Send(selNewCommandQueue)
	})
	if d.id == 0 {
		return nil, fmt.Errorf("%w: MTLCreateSystemDefaultDevice returned none", ErrNoDevice)
	}
	if d.queue == 0 {
		d.Close()
		return nil, fmt.Errorf("metal: %s: newCommandQueue failed", d.Name)
	}
	return d, nil
}

// Close releases the queue and the device.
func (d *Device) Close() {
	objcrt.Do(func() {
		objcrt.Release(d.queue)
		objcrt.Release(d.id)
	})
	d.queue, d.id = 0, 0
}

// Buffer is a shared-storage MTLBuffer: on Apple silicon the CPU and GPU address the same memory, so host
// reads and writes go through Bytes once the GPU work touching the buffer has completed.
type Buffer struct {
	id     objc.ID
	size   int
	ptr    unsafe.Pointer
	noCopy []byte // the host memory a no-copy buffer wraps, kept reachable while the GPU may read it
}

// NewBuffer allocates n bytes of shared storage.
func (d *Device) NewBuffer(n int) (*Buffer, error) {
	if n < 1 {
		return nil, fmt.Errorf("metal: buffer of %d bytes", n)
	}
	b := &Buffer{size: n}
	objcrt.Do(func() {
		b.id = d.id.Send(selNewBufferWithLength, uintptr(n), uintptr(ResourceStorageModeShared|ResourceHazardTrackingModeTracked))
		if b.id != 0 {
			b.ptr = objc.Send[unsafe.Pointer](b.id, selContents)
		}
	})
	if b.id == 0 || b.ptr == nil {
		b.Release()
		return nil, fmt.Errorf("metal: %s: newBufferWithLength:%d failed (out of GPU memory?)", d.Name, n)
	}
	return b, nil
}

// WrapNoCopy makes a buffer over host memory without copying it, when the memory is page-aligned at both ends
// (Metal's condition for newBufferWithBytesNoCopy): weights memory-mapped from a page-aligned safetensors
// offset. ok is false (and nothing is made) when it is not aligned; the caller copies instead. The GPU only
// reads such a buffer; host must stay mapped until Release.
func (d *Device) WrapNoCopy(host []byte) (b *Buffer, ok bool, err error) {
	if len(host) == 0 || !PageAligned(uintptr(unsafe.Pointer(&host[0])), len(host), os.Getpagesize()) {
		return nil, false, nil
	}
	b = &Buffer{size: len(host), ptr: unsafe.Pointer(&host[0]), noCopy: host}
	objcrt.Do(func() {
		b.id = d.id.Send(selNewBufferNoCopy, b.ptr, uintptr(len(host)), uintptr(ResourceStorageModeShared|ResourceHazardTrackingModeTracked), objc.ID(0))
	})
	if b.id == 0 {
		return nil, false, fmt.Errorf("metal: %s: newBufferWithBytesNoCopy over %d bytes failed", d.Name, len(host))
	}
	return b, true, nil
}

// Bytes is the buffer's memory as a slice.
func (b *Buffer) Bytes() []byte { return unsafe.Slice((*byte)(b.ptr), b.size) }

// Size is the buffer's length in bytes.
func (b *Buffer) Size() int { return b.size }

// NoCopy reports whether the buffer wraps host memory.
func (b *Buffer) NoCopy() bool { return b.noCopy != nil }

// Release gives the buffer up; it must not be used afterwards.
func (b *Buffer) Release() {
	if b == nil || b.id == 0 {
		return
	}
	objcrt.Do(func() { objcrt.Release(b.id) })
	b.id, b.ptr, b.noCopy = 0, nil, nil
}
