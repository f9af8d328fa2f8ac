//go:build linux || darwin

// Dynamic loading through purego: open the first loadable candidate of a library, resolve its symbols, and call C
// functions without cgo. Every CUDA, NVRTC and cuBLASLt entry point used here takes only integers and pointers,
// so the plain integer-register convention of purego.SyscallN covers them all.

package driver

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// library is one opened shared object.
type library struct {
	what string
	path string
	h    uintptr
}

// openLibrary tries spec's candidates in order and returns the first that loads. A bare soname is handed to the
// dynamic loader as is; a path is tried only if the file exists, so the error separates "absent" from "present
// but failed to load" (wrong architecture, missing dependency).
func openLibrary(spec libSpec, env searchEnv) (*library, error) {
	if runtime.GOOS != "linux" {
		return nil, &LibraryError{What: spec.what, Tried: []string{"CUDA needs linux; this is " + runtime.GOOS}}
	}
	var tried []string
	for _, c := range env.candidates(spec) {
		if strings.ContainsRune(c, '/') {
			if _, err := os.Stat(c); err != nil {
				tried = append(tried, c+": absent")
				continue
			}
		}
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			tried = append(tried, c+": "+err.Error())
			continue
		}
		return &library{what: spec.what, path: c, h: h}, nil
	}
	return nil, &LibraryError{What: spec.what, Tried: tried}
}

// sym resolves the first of names that the library exports. Several names cover renamed entry points
// (cuEventElapsedTime_v2 in CUDA 13, the plain name before).
func (l *library) sym(names ...string) (uintptr, error) {
	for _, n := range names {
		if p, err := purego.Dlsym(l.h, n); err == nil && p != 0 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("cuda: %s (%s) lacks symbol %s", l.what, l.path, strings.Join(names, " / "))
}

// symbol binds one function pointer to the first exported name of a list.
type symbol struct {
	fn       *uintptr
	names    []string
	optional bool // absent in some versions; callers check for 0
}

// bind resolves a whole table; a missing required symbol fails the load (an old library is reported at open, not
// at first use deep inside a model).
func (l *library) bind(syms []symbol) error {
	for _, s := range syms {
		p, err := l.sym(s.names...)
		if err != nil && !s.optional {
			return err
		}
		*s.fn = p
	}
	return nil
}

// call invokes a C function returning a 32-bit status. uintptrescapes makes Go objects whose addresses are
// passed as uintptr escape to the heap, where they neither move nor get collected during the call.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uint32 {
	r, _, _ := purego.SyscallN(fn, args...)
	return uint32(r)
}

// callPtr invokes a C function returning a pointer (const char* of error strings).
//
//go:uintptrescapes
func callPtr(fn uintptr, args ...uintptr) unsafe.Pointer {
	r, _, _ := purego.SyscallN(fn, args...)
	return *(*unsafe.Pointer)(unsafe.Pointer(&r))
}
