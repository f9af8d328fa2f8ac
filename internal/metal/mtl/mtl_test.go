// Tests of the runtime's pure-Go parts, on any platform: MTLSize's layout (three 64-bit words, passed by value),
// grid checks, the pipeline cache key and the no-copy alignment rule.
package mtl

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func TestSizeLayout(t *testing.T) {
	var s Size
	if unsafe.Sizeof(s) != 24 || unsafe.Alignof(s) != 8 {
		t.Fatalf("MTLSize mirror: size %d align %d, want 24 and 8 (three NSUInteger)", unsafe.Sizeof(s), unsafe.Alignof(s))
	}
	for i, f := range []struct {
		name string
		off  uintptr
	}{{"Width", 0}, {"Height", 8}, {"Depth", 16}} {
		sf, _ := reflect.TypeOf(s).FieldByName(f.name)
		if sf.Offset != f.off || sf.Type.Kind() != reflect.Uint64 {
			t.Errorf("field %d %s at %d (%s), want offset %d uint64", i, f.name, sf.Offset, sf.Type, f.off)
		}
	}
	// The dispatch call must take the struct itself: a pointer would be passed as an integer and read as a grid.
	if k := reflect.TypeOf(NewSize).Out(0).Kind(); k != reflect.Struct {
		t.Errorf("NewSize returns a %s, want the struct by value", k)
	}
}

func TestCheckDispatch(t *testing.T) {
	g, th, err := CheckDispatch("k", [3]int{5, 2, 1}, [3]int{256, 1, 1}, 1024)
	if err != nil || g != (Size{Width: 5, Height: 2, Depth: 1}) || th.Count() != 256 {
		t.Fatalf("valid grid: %v %v %v", g, th, err)
	}
	for _, c := range []struct {
		groups, threads [3]int
		max             int
		want            string
	}{
		{[3]int{0, 1, 1}, [3]int{32, 1, 1}, 0, "threadgroups"},
		{[3]int{1, 1, 1}, [3]int{32, 0, 1}, 0, "threads per threadgroup"},
		{[3]int{1, 1, 1}, [3]int{1024, 2, 1}, 0, "2048 threads"},
		{[3]int{1, 1, 1}, [3]int{512, 1, 1}, 256, "the pipeline allows 256"},
	} {
		if _, _, err := CheckDispatch("k", c.groups, c.threads, c.max); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v max %d: %v, want an error mentioning %q", c.groups, c.threads, c.max, err, c.want)
		}
	}
}

func TestCacheKey(t *testing.T) {
	base := CacheKey("kernel void f() {}", "Version 15.1", "MTLGPUFamilyApple7", "Apple M1 Max", false)
	if len(base) != 64 || base != CacheKey("kernel void f() {}", "Version 15.1", "MTLGPUFamilyApple7", "Apple M1 Max", false) {
		t.Fatalf("key %q not stable", base)
	}
	for i, k := range []string{
		CacheKey("kernel void g() {}", "Version 15.1", "MTLGPUFamilyApple7", "Apple M1 Max", false),
		CacheKey("kernel void f() {}", "Version 15.2", "MTLGPUFamilyApple7", "Apple M1 Max", false),
		CacheKey("kernel void f() {}", "Version 15.1", "MTLGPUFamilyApple8", "Apple M1 Max", false),
		CacheKey("kernel void f() {}", "Version 15.1", "MTLGPUFamilyApple7", "Apple M2", false),
		CacheKey("kernel void f() {}", "Version 15.1", "MTLGPUFamilyApple7", "Apple M1 Max", true),
		// Moving bytes between fields must change the key (length-prefixed fields).
		CacheKey("kernel void f() {}V", "ersion 15.1", "MTLGPUFamilyApple7", "Apple M1 Max", false),
	} {
		if k == base {
			t.Errorf("variant %d has the base key", i)
		}
	}
	if p := ArchivePath("/c", base); !strings.HasPrefix(p, "/c/"+base[:32]) || !strings.HasSuffix(p, ".metalar") {
		t.Errorf("ArchivePath %q", p)
	}
}

func TestCacheDir(t *testing.T) {
	t.Setenv(envCacheDir, "off")
	if CacheDir() != "" {
		t.Error("off does not disable the cache")
	}
	t.Setenv(envCacheDir, "/x/y")
	if CacheDir() != "/x/y" {
		t.Error("override ignored")
	}
}

func TestPageAligned(t *testing.T) {
	const page = 16384 // Apple silicon's page
	for _, c := range []struct {
		p    uintptr
		n    int
		want bool
	}{{0x100000, page, true}, {0x100000, 3 * page, true}, {0x100000 + 64, page, false}, {0x100000, page + 4, false}, {0x100000, 0, false}} {
		if got := PageAligned(c.p, c.n, page); got != c.want {
			t.Errorf("PageAligned(%#x, %d) = %v", c.p, c.n, got)
		}
	}
	if StatusName(StatusError) != "error" || StatusName(StatusCompleted) != "completed" || StatusName(9) != "status 9" {
		t.Error("status names")
	}
}
