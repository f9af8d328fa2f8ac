// Tests of the kernel argument packer's memory layout: cuLaunchKernel reads each parameter through its pointer,
// so every pointer must land on its value's bytes, at the value's C alignment.

package driver

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"
)

func TestArgsLayout(t *testing.T) {
	raw := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	a := NewArgs().Ptr(0x7f0000001000).U32(7).F32(1.5).I64(-3).U32(9).Raw(raw, 16).I32(-1).F64(2.25)
	wantOffs := []int{0, 8, 12, 16, 24, 32, 52, 56}
	if a.Len() != len(wantOffs) {
		t.Fatalf("Len = %d", a.Len())
	}
	for i, off := range wantOffs {
		if a.offs[i] != off {
			t.Fatalf("param %d at offset %d, want %d (offsets %v)", i, a.offs[i], off, a.offs)
		}
	}
	p := a.pointers()
	ptrs := unsafe.Slice((*uintptr)(p), a.Len())
	base := uintptr(unsafe.Pointer(unsafe.SliceData(a.buf)))
	for i := range ptrs {
		if ptrs[i]-base != uintptr(wantOffs[i]) {
			t.Fatalf("pointer %d is base+%d, want base+%d", i, ptrs[i]-base, wantOffs[i])
		}
	}
	// Read through the pointer values (as the driver does), re-derived from the buffer so vet sees no
	// uintptr-to-pointer conversion.
	at := func(i, n int) []byte {
		return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.buf)), ptrs[i]-base)), n)
	}
	if v := binary.LittleEndian.Uint64(at(0, 8)); v != 0x7f0000001000 {
		t.Errorf("ptr = %#x", v)
	}
	if v := binary.LittleEndian.Uint32(at(1, 4)); v != 7 {
		t.Errorf("u32 = %d", v)
	}
	if v := math.Float32frombits(binary.LittleEndian.Uint32(at(2, 4))); v != 1.5 {
		t.Errorf("f32 = %v", v)
	}
	if v := int64(binary.LittleEndian.Uint64(at(3, 8))); v != -3 {
		t.Errorf("i64 = %d", v)
	}
	if v := binary.LittleEndian.Uint32(at(4, 4)); v != 9 {
		t.Errorf("u32 = %d", v)
	}
	if string(at(5, len(raw))) != string(raw) {
		t.Errorf("raw = %v", at(5, len(raw)))
	}
	if v := int32(binary.LittleEndian.Uint32(at(6, 4))); v != -1 {
		t.Errorf("i32 = %d", v)
	}
	if v := math.Float64frombits(binary.LittleEndian.Uint64(at(7, 8))); v != 2.25 {
		t.Errorf("f64 = %v", v)
	}
	if len(a.buf) != 64 {
		t.Errorf("parameter block is %d bytes, want 64", len(a.buf))
	}
}

// Growing past the initial capacity moves the buffer; pointers are built afterwards, so they must follow it.
func TestArgsGrowAndReset(t *testing.T) {
	a := NewArgs()
	for i := range 100 {
		a.U64(uint64(i))
	}
	ptrs := unsafe.Slice((*uintptr)(a.pointers()), a.Len())
	base := uintptr(unsafe.Pointer(unsafe.SliceData(a.buf)))
	for i := range 100 {
		off := ptrs[i] - base
		if off+8 > uintptr(len(a.buf)) {
			t.Fatalf("param %d points outside the buffer", i)
		}
		if v := binary.LittleEndian.Uint64(a.buf[off:]); v != uint64(i) {
			t.Fatalf("param %d reads %d", i, v)
		}
	}
	a.Reset().U32(5)
	if a.Len() != 1 || len(a.buf) != 4 {
		t.Fatalf("after Reset: %d params, %d bytes", a.Len(), len(a.buf))
	}
	if NewArgs().pointers() != nil {
		t.Fatal("no parameters must give a nil kernelParams")
	}
	var nilArgs *Args
	if nilArgs.Len() != 0 {
		t.Fatal("nil Args has parameters")
	}
}

func TestArgsRawAlignmentChecked(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("alignment 3 accepted")
		}
	}()
	NewArgs().Raw([]byte{1}, 3)
}
