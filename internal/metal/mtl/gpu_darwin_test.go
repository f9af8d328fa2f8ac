// On a Mac with a GPU: a real dispatch whose kernel records the ids it ran at, so a grid passed wrongly (an
// MTLSize by pointer instead of by value) fails here rather than launching something else in silence; the
// compiler's error text on bad source; a no-copy buffer the GPU reads; the pipeline cache hit on a second
// library. Skips where Open finds no device (never in CI: there is no Mac there).

//go:build darwin

package mtl

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unsafe"
)

const gridSource = `
#include <metal_stdlib>
using namespace metal;
struct P { uint width; };
kernel void grid_ids(device uint* out [[buffer(0)]], const device uint* in [[buffer(1)]], constant P& p [[buffer(2)]],
                     uint3 tg [[threadgroup_position_in_grid]], uint3 tid [[thread_position_in_threadgroup]],
                     uint3 tptg [[threads_per_threadgroup]], uint3 groups [[threadgroups_per_grid]]) {
  uint x = tg.x * tptg.x + tid.x, y = tg.y * tptg.y + tid.y, z = tg.z;
  uint i = (z * groups.y * tptg.y + y) * p.width + x;
  out[i] = 1000000u * (z + 1) + 1000u * y + x + in[0];
}
`

func openOrSkip(t *testing.T) *Device {
	t.Helper()
	d, err := Open()
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("no Metal device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

func TestDispatchGridByValue(t *testing.T) {
	t.Setenv(envCacheDir, t.TempDir())
	d := openOrSkip(t)
	lib, err := d.NewLibrary(gridSource, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	p, err := lib.Pipeline("grid_ids")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	groups, threads := [3]int{3, 2, 2}, [3]int{4, 5, 1}
	width, height, depth := groups[0]*threads[0], groups[1]*threads[1], groups[2]
	out, err := d.NewBuffer(4 * width * height * depth)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	// The input is host memory the GPU reads without a copy when page-aligned (one page of a larger slab).
	slab := make([]byte, 3*16384)
	off := (16384 - int(uintptr(unsafe.Pointer(&slab[0])))%16384) % 16384
	in, mapped, err := d.WrapNoCopy(slab[off : off+16384])
	if err != nil {
		t.Fatal(err)
	}
	if !mapped {
		if in, err = d.NewBuffer(16384); err != nil {
			t.Fatal(err)
		}
	}
	defer in.Release()
	binary.LittleEndian.PutUint32(in.Bytes(), 7)
	e, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	params := binary.LittleEndian.AppendUint32(nil, uint32(width))
	if err := e.Dispatch(p, []Binding{{0, out, 0}, {1, in, 0}}, 2, params, groups, threads); err != nil {
		t.Fatal(err)
	}
	if err := e.Finish(); err != nil {
		t.Fatal(err)
	}
	got := unsafe.Slice((*uint32)(unsafe.Pointer(&out.Bytes()[0])), width*height*depth)
	for z := range depth {
		for y := range height {
			for x := range width {
				want := uint32(1000000*(z+1) + 1000*y + x + 7)
				if v := got[(z*height+y)*width+x]; v != want {
					t.Fatalf("element (%d,%d,%d) = %d, want %d: the grid was not launched as asked", x, y, z, v, want)
				}
			}
		}
	}
	if err := lib.SaveArchive(); err != nil {
		t.Fatal(err)
	}
	again, err := d.NewLibrary(gridSource, false)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	p2, err := again.Pipeline("grid_ids")
	if err != nil {
		t.Fatal(err)
	}
	p2.Release()
	if again.Hits != 1 {
		t.Errorf("second library: %d cache hits, %d compiles; want the pipeline from the archive", again.Hits, again.Misses)
	}
	t.Logf("%s (%s, %s), no-copy input %v", d.Name, d.Family, d.OS, mapped)
}

func TestCompilerErrorText(t *testing.T) {
	d := openOrSkip(t)
	_, err := d.NewLibrary("kernel void broken(device float* x [[buffer(0)]]) { x[0] = undefined_name; }", false)
	if err == nil || !strings.Contains(err.Error(), "undefined_name") {
		t.Errorf("bad source: %v, want the compiler's message naming undefined_name", err)
	}
}

func TestCopy(t *testing.T) {
	d := openOrSkip(t)
	const n = 64 << 20
	src, err := d.NewBuffer(n)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	dst, err := d.NewBuffer(n)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Release()
	for i, b := 0, src.Bytes(); i < n; i += 4096 {
		b[i] = byte(i / 4096)
	}
	s, err := d.Copy(dst, src, n)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := 0, dst.Bytes(); i < n; i += 4096 {
		if b[i] != byte(i/4096) {
			t.Fatalf("byte %d = %d after the copy, want %d", i, b[i], byte(i/4096))
		}
	}
	t.Logf("%d MiB in %.3f ms: %.1f GB/s read+written", n>>20, s*1e3, 2*n/s/1e9)
}
