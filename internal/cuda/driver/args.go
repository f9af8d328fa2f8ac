// Kernel argument packing. cuLaunchKernel takes kernelParams as an array of pointers, one per kernel parameter,
// each pointing at that parameter's value; the driver copies the values during the call. Args keeps the values in
// one buffer (each at its natural alignment) and builds the pointer array just before a launch, so appending never
// leaves a stale pointer behind.

package driver

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// Args is a reusable kernel argument list, built in parameter order:
//
//	args := driver.NewArgs().Ptr(out).Ptr(in).U32(n).F32(scale)
type Args struct {
	buf  []byte    // values, each at its alignment
	offs []int     // start of each value in buf
	ptrs []uintptr // kernelParams, rebuilt by pointers()
}

// NewArgs returns an empty argument list with room for typical kernels.
func NewArgs() *Args {
	return &Args{buf: make([]byte, 0, 256), offs: make([]int, 0, 16), ptrs: make([]uintptr, 0, 16)}
}

// Reset empties the list for reuse, keeping its storage.
func (a *Args) Reset() *Args {
	a.buf, a.offs = a.buf[:0], a.offs[:0]
	return a
}

// Len is the number of parameters.
func (a *Args) Len() int {
	if a == nil {
		return 0
	}
	return len(a.offs)
}

// put reserves size bytes at align and records the parameter.
func (a *Args) put(size, align int) []byte {
	off := (len(a.buf) + align - 1) &^ (align - 1)
	for len(a.buf) < off+size {
		a.buf = append(a.buf, 0)
	}
	a.offs = append(a.offs, off)
	return a.buf[off : off+size]
}

// Ptr appends a device pointer (T* in the kernel).
func (a *Args) Ptr(p DevPtr) *Args { return a.U64(uint64(p)) }

// U64 appends an unsigned long long / size_t.
func (a *Args) U64(v uint64) *Args {
	binary.LittleEndian.PutUint64(a.put(8, 8), v)
	return a
}

// I64 appends a long long.
func (a *Args) I64(v int64) *Args { return a.U64(uint64(v)) }

// U32 appends an unsigned int.
func (a *Args) U32(v uint32) *Args {
	binary.LittleEndian.PutUint32(a.put(4, 4), v)
	return a
}

// I32 appends an int.
func (a *Args) I32(v int32) *Args { return a.U32(uint32(v)) }

// F32 appends a float.
func (a *Args) F32(v float32) *Args { return a.U32(math.Float32bits(v)) }

// F64 appends a double.
func (a *Args) F64(v float64) *Args { return a.U64(math.Float64bits(v)) }

// Raw appends a by-value struct (a tensor map, a small parameter block) with its C alignment, a power of two.
func (a *Args) Raw(b []byte, align int) *Args {
	if align <= 0 || align&(align-1) != 0 || align > 64 {
		panic(fmt.Sprintf("cuda: Args.Raw alignment %d is not a power of two up to 64", align))
	}
	copy(a.put(len(b), align), b)
	return a
}

// pointers builds kernelParams. The driver copies each value bytewise, so the values need no host alignment; the
// offsets still follow C alignment so buf is byte-for-byte the kernel's parameter block, which a later
// CU_LAUNCH_PARAM_BUFFER_POINTER launch can use as is. The pointers are plain uintptrs into buf: a must stay
// reachable until the launch returns (Launch keeps it alive).
func (a *Args) pointers() unsafe.Pointer {
	if len(a.offs) == 0 {
		return nil
	}
	a.ptrs = a.ptrs[:0]
	base := unsafe.Pointer(unsafe.SliceData(a.buf))
	for _, off := range a.offs {
		a.ptrs = append(a.ptrs, uintptr(unsafe.Add(base, off)))
	}
	return unsafe.Pointer(&a.ptrs[0])
}
