//go:build linux

// The cost of one C call through call() (purego), measured on libc's getpid so it needs no GPU: the floor under
// every driver call this package makes.

package driver

import (
	"testing"

	"github.com/ebitengine/purego"
)

func BenchmarkCallOverhead(b *testing.B) {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		b.Skip(err)
	}
	fn, err := purego.Dlsym(h, "getpid")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		call(fn)
	}
}

func BenchmarkCallOverhead11Args(b *testing.B) {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		b.Skip(err)
	}
	fn, err := purego.Dlsym(h, "getpid") // extra arguments are ignored by the callee
	if err != nil {
		b.Skip(err)
	}
	a := NewArgs().Ptr(1).Ptr(2).Ptr(3).U64(4)
	for b.Loop() {
		call(fn, 1, 1, 1, 256, 1, 1, 0, 0, uintptr(a.pointers()), 0, 0)
	}
}
