// Device memory, pinned host memory, copies and fills. Sizes are bytes unless a name says elements; typed
// helpers (CopyToDevice, CopyFromDevice) take slices of any fixed-size element type.

package driver

import (
	"fmt"
	"unsafe"
)

// DevPtr is a device address (CUdeviceptr).
type DevPtr uint64

// Add offsets a device pointer by bytes.
func (p DevPtr) Add(bytes int) DevPtr { return p + DevPtr(bytes) }

// Alloc allocates bytes of device memory (cuMemAlloc: 256-byte aligned, uninitialised).
func (d *Device) Alloc(bytes int) (DevPtr, error) {
	if bytes <= 0 {
		return 0, fmt.Errorf("cuda: Alloc(%d): size must be positive", bytes)
	}
	var p DevPtr
	if r := call(drv.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes)); r != 0 {
		return 0, newError(r, fmt.Sprintf("cuMemAlloc(%d bytes)", bytes))
	}
	return p, nil
}

// Free releases device memory from Alloc; freeing 0 is a no-op.
func (d *Device) Free(p DevPtr) error {
	if p == 0 {
		return nil
	}
	return check(call(drv.cuMemFree, uintptr(p)), "cuMemFree(%#x)", uint64(p))
}

// MemcpyHtoD copies bytes from host memory at src (Go or pinned) to dst, synchronously.
func (d *Device) MemcpyHtoD(dst DevPtr, src unsafe.Pointer, bytes int) error {
	return check(call(drv.cuMemcpyHtoD, uintptr(dst), uintptr(src), uintptr(bytes)), "cuMemcpyHtoD(%d bytes)", bytes)
}

// MemcpyDtoH copies bytes from src to host memory at dst, synchronously.
func (d *Device) MemcpyDtoH(dst unsafe.Pointer, src DevPtr, bytes int) error {
	return check(call(drv.cuMemcpyDtoH, uintptr(dst), uintptr(src), uintptr(bytes)), "cuMemcpyDtoH(%d bytes)", bytes)
}

// MemcpyDtoD copies bytes between device buffers (ordered on the legacy default stream).
func (d *Device) MemcpyDtoD(dst, src DevPtr, bytes int) error {
	return check(call(drv.cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(bytes)), "cuMemcpyDtoD(%d bytes)", bytes)
}

// MemsetD8 sets n bytes at p to v.
func (d *Device) MemsetD8(p DevPtr, v byte, n int) error {
	return check(call(drv.cuMemsetD8, uintptr(p), uintptr(v), uintptr(n)), "cuMemsetD8(%d)", n)
}

// MemsetD32 sets n 32-bit words at p to v (p must be 4-byte aligned).
func (d *Device) MemsetD32(p DevPtr, v uint32, n int) error {
	return check(call(drv.cuMemsetD32, uintptr(p), uintptr(v), uintptr(n)), "cuMemsetD32(%d)", n)
}

// MemcpyHtoDAsync enqueues a host-to-device copy on s. Only pinned source memory makes it asynchronous, and the
// source must stay untouched until s reaches the copy.
func (s *Stream) MemcpyHtoDAsync(dst DevPtr, src unsafe.Pointer, bytes int) error {
	return check(call(drv.cuMemcpyHtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.h), "cuMemcpyHtoDAsync(%d bytes)", bytes)
}

// MemcpyDtoHAsync enqueues a device-to-host copy on s; read dst only after synchronizing.
func (s *Stream) MemcpyDtoHAsync(dst unsafe.Pointer, src DevPtr, bytes int) error {
	return check(call(drv.cuMemcpyDtoHAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.h), "cuMemcpyDtoHAsync(%d bytes)", bytes)
}

// MemcpyDtoDAsync enqueues a device-to-device copy on s.
func (s *Stream) MemcpyDtoDAsync(dst, src DevPtr, bytes int) error {
	return check(call(drv.cuMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), s.h), "cuMemcpyDtoDAsync(%d bytes)", bytes)
}

// MemsetD8Async enqueues a byte fill on s.
func (s *Stream) MemsetD8Async(p DevPtr, v byte, n int) error {
	return check(call(drv.cuMemsetD8Async, uintptr(p), uintptr(v), uintptr(n), s.h), "cuMemsetD8Async(%d)", n)
}

// MemsetD32Async enqueues a 32-bit word fill on s.
func (s *Stream) MemsetD32Async(p DevPtr, v uint32, n int) error {
	return check(call(drv.cuMemsetD32Async, uintptr(p), uintptr(v), uintptr(n), s.h), "cuMemsetD32Async(%d)", n)
}

// bytesOf views a slice's backing array as bytes.
func bytesOf[T any](s []T) (unsafe.Pointer, int) {
	if len(s) == 0 {
		return nil, 0
	}
	var z T
	return unsafe.Pointer(&s[0]), len(s) * int(unsafe.Sizeof(z))
}

// CopyToDevice copies a host slice to dst synchronously.
func CopyToDevice[T any](d *Device, dst DevPtr, src []T) error {
	p, n := bytesOf(src)
	if n == 0 {
		return nil
	}
	return d.MemcpyHtoD(dst, p, n)
}

// CopyFromDevice fills a host slice from src synchronously.
func CopyFromDevice[T any](d *Device, dst []T, src DevPtr) error {
	p, n := bytesOf(dst)
	if n == 0 {
		return nil
	}
	return d.MemcpyDtoH(p, src, n)
}

// Pinned host allocation flags (CU_MEMHOSTALLOC_*).
const (
	HostAllocPortable      = 0x1 // pinned for every context
	HostAllocDeviceMap     = 0x2 // mapped into the device address space
	HostAllocWriteCombined = 0x4 // fast host writes, slow host reads: upload-only staging
)

// HostMem is page-locked host memory: the only kind async copies overlap with compute on.
type HostMem struct {
	p unsafe.Pointer
	n int
}

// AllocHost allocates bytes of pinned host memory (cuMemHostAlloc with flags, HostAlloc*).
func (d *Device) AllocHost(bytes int, flags uint32) (*HostMem, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: AllocHost(%d): size must be positive", bytes)
	}
	var p unsafe.Pointer
	if r := call(drv.cuMemHostAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes), uintptr(flags)); r != 0 {
		return nil, newError(r, fmt.Sprintf("cuMemHostAlloc(%d bytes)", bytes))
	}
	return &HostMem{p: p, n: bytes}, nil
}

// FreeHost releases pinned memory; its slices must not be used afterwards.
func (d *Device) FreeHost(h *HostMem) error {
	if h == nil || h.p == nil {
		return nil
	}
	err := check(call(drv.cuMemFreeHost, uintptr(h.p)), "cuMemFreeHost(%d bytes)", h.n)
	h.p, h.n = nil, 0
	return err
}

// Ptr is the start of the pinned region.
func (h *HostMem) Ptr() unsafe.Pointer { return h.p }

// Len is its size in bytes.
func (h *HostMem) Len() int { return h.n }

// Bytes views the pinned region as a byte slice.
func (h *HostMem) Bytes() []byte { return unsafe.Slice((*byte)(h.p), h.n) }

// HostSlice views pinned memory as a slice of T (as many whole elements as fit).
func HostSlice[T any](h *HostMem) []T {
	var z T
	return unsafe.Slice((*T)(h.p), h.n/int(unsafe.Sizeof(z)))
}
