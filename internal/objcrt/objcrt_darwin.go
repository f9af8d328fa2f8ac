// The shared Objective-C helpers (package comment in doc.go). Ownership follows Cocoa's naming rule: a selector
// starting with new, alloc, copy or mutableCopy returns an object the caller owns (+1); every other selector
// returns one the caller does not own, valid until the enclosing autorelease pool drains. So every message send
// runs inside Do, and an object kept beyond it is retained (Retain) and later released once (Release).

//go:build darwin

package objcrt

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

const (
	libobjcPath    = "/usr/lib/libobjc.A.dylib"
	foundationPath = "/System/Library/Frameworks/Foundation.framework/Foundation"
)

var (
	loadOnce sync.Once
	loadErr  error

	poolPush func() uintptr
	poolPop  func(uintptr)

	selRetain               = objc.RegisterName("retain")
	selRelease              = objc.RegisterName("release")
	selUTF8String           = objc.RegisterName("UTF8String")
	selStringWithUTF8String = objc.RegisterName("stringWithUTF8String:")
	selDataWithBytes        = objc.RegisterName("dataWithBytes:length:")
	selDictionary           = objc.RegisterName("dictionary")
	selLocalizedDescription = objc.RegisterName("localizedDescription")
	selDescription          = objc.RegisterName("description")
	selRespondsToSelector   = objc.RegisterName("respondsToSelector:")
	selOperatingSystemVer   = objc.RegisterName("operatingSystemVersionString")
	selProcessInfo          = objc.RegisterName("processInfo")
)

// Load opens libobjc's pool functions and Foundation once; every other call needs it to have succeeded.
func Load() error {
	loadOnce.Do(func() {
		lib, err := purego.Dlopen(libobjcPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			loadErr = fmt.Errorf("objc runtime %s: %w", libobjcPath, err)
			return
		}
		if _, err := Open(foundationPath); err != nil {
			loadErr = err
			return
		}
		for _, f := range []struct {
			fn   any
			name string
		}{{&poolPush, "objc_autoreleasePoolPush"}, {&poolPop, "objc_autoreleasePoolPop"}} {
			sym, err := purego.Dlsym(lib, f.name)
			if err != nil {
				loadErr = fmt.Errorf("objc runtime: %s: %w", f.name, err)
				return
			}
			purego.RegisterFunc(f.fn, sym)
		}
	})
	return loadErr
}

// Open dlopens a framework or library by path (RTLD_GLOBAL, so its classes register with the runtime).
func Open(path string) (uintptr, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// Do runs f on one locked OS thread inside its own autorelease pool: autoreleased results of f's message sends
// are valid until f returns, and the pool is popped on the thread that pushed it. Load must have succeeded.
func Do(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := poolPush()
	defer poolPop(p)
	f()
}

// Retain keeps an object beyond the current pool; Release gives it up. Both accept nil (0).
func Retain(id objc.ID) objc.ID {
	if id != 0 {
		id.Send(selRetain)
	}
	return id
}

// Release releases an owned object once.
func Release(id objc.ID) {
	if id != 0 {
		id.Send(selRelease)
	}
}

// String is an autoreleased NSString holding s (inside Do).
func String(s string) objc.ID {
	return objc.ID(objc.GetClass("NSString")).Send(selStringWithUTF8String, s)
}

// GoString copies an NSString's UTF-8 bytes ("" for nil): the bytes belong to the object, which may be
// autoreleased after the pool drains.
func GoString(s objc.ID) string {
	if s == 0 {
		return ""
	}
	p := objc.Send[unsafe.Pointer](s, selUTF8String)
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// Data is an autoreleased NSData holding a copy of b (inside Do).
func Data(b []byte) objc.ID {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	return objc.ID(objc.GetClass("NSData")).Send(selDataWithBytes, p, uintptr(len(b)))
}

// EmptyDictionary is an autoreleased empty NSDictionary (inside Do).
func EmptyDictionary() objc.ID {
	return objc.ID(objc.GetClass("NSDictionary")).Send(selDictionary)
}

// Responds reports whether obj (an instance or a class) answers sel, so a private method missing from this
// macOS release is an error naming it instead of an unrecognized-selector abort.
func Responds(obj objc.ID, sel objc.SEL) bool {
	return obj != 0 && objc.Send[bool](obj, selRespondsToSelector, sel)
}

// Error turns an NSError out-parameter into a Go error naming what failed and the framework's own text.
// Frameworks write the out-parameter only on failure, so the caller decides failure from the call's result.
func Error(what string, nsErr objc.ID) error {
	if nsErr == 0 {
		return fmt.Errorf("%s failed and gave no reason", what)
	}
	text := GoString(nsErr.Send(selLocalizedDescription))
	if full := GoString(nsErr.Send(selDescription)); full != "" && full != text {
		text += " (" + full + ")"
	}
	if text == "" {
		return fmt.Errorf("%s failed and its error had no description", what)
	}
	return errors.New(what + " failed: " + text)
}

// OSVersion is NSProcessInfo's operatingSystemVersionString ("Version 15.1 (Build 24B83)"): part of the keys of
// compile caches, since a compiler update may change what it emits.
func OSVersion() string {
	var v string
	Do(func() {
		pi := objc.ID(objc.GetClass("NSProcessInfo")).Send(selProcessInfo)
		v = GoString(pi.Send(selOperatingSystemVer))
	})
	return v
}
