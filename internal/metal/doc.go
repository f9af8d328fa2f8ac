// Package metal is the Metal backend. Platform-neutral: the kernel table and launch plans (kernels.go), argument
// packing (bind.go), what the backend serves (support.go) and the backend's op layer over a runtime interface
// (backend.go, runtime.go), tested on any system (over the CPU emulator, subpackage emu). macOS only
// (runtime_darwin.go): the runtime over subpackage mtl (purego/objc) and the registration of device "metal";
// only darwin builds of cmd/mlxbun link the package. The shaders are shaders/metal.
package metal
