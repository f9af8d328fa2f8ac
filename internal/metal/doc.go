// Package metal is the Metal backend. Platform-neutral: the kernel table and launch plans (kernels.go), argument
// packing (bind.go) and what the backend serves (support.go), tested on any system. macOS only
// (backend_darwin.go): backend.Backend over the purego/objc runtime in subpackage mtl, registered as device
// "metal". The shaders are shaders/metal, checked on Linux by the emulator (subpackage emu).
package metal
