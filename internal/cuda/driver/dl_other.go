//go:build !(linux || darwin)

// Stubs for systems purego cannot load libraries on: the package builds, and opening reports no driver.

package driver

import (
	"runtime"
	"unsafe"
)

type library struct {
	what string
	path string
	h    uintptr
}

func openLibrary(spec libSpec, env searchEnv) (*library, error) {
	return nil, &LibraryError{What: spec.what, Tried: []string{"CUDA needs linux; this is " + runtime.GOOS}}
}

type symbol struct {
	fn       *uintptr
	names    []string
	optional bool
}

func (l *library) bind(syms []symbol) error { return ErrNoDriver }

func call(fn uintptr, args ...uintptr) uint32 { panic("cuda: no dynamic loading on " + runtime.GOOS) }

func callPtr(fn uintptr, args ...uintptr) unsafe.Pointer {
	panic("cuda: no dynamic loading on " + runtime.GOOS)
}
