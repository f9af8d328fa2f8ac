// Modules and kernels: load a CUBIN, look kernels up by name, and launch them with packed arguments.

package driver

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Module is loaded device code.
type Module struct {
	d     *Device
	name  string
	h     uintptr
	funcs map[string]*Function
}

// LoadModule loads a CUBIN (or PTX, NUL-terminated) image; name is used in errors.
func (d *Device) LoadModule(name string, image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("cuda: module %s: empty image", name)
	}
	m := &Module{d: d, name: name, funcs: map[string]*Function{}}
	if r := call(drv.cuModuleLoadData, uintptr(unsafe.Pointer(&m.h)), uintptr(unsafe.Pointer(&image[0]))); r != 0 {
		return nil, newError(r, "cuModuleLoadData("+name+")")
	}
	return m, nil
}

// Name is the module's name.
func (m *Module) Name() string { return m.name }

// Function looks a kernel up by its (extern "C") name; results are cached.
func (m *Module) Function(name string) (*Function, error) {
	if f, ok := m.funcs[name]; ok {
		return f, nil
	}
	f := &Function{name: m.name + "." + name}
	cname := cString(name)
	if r := call(drv.cuModuleGetFunction, uintptr(unsafe.Pointer(&f.h)), m.h, uintptr(unsafe.Pointer(&cname[0]))); r != 0 {
		return nil, newError(r, "cuModuleGetFunction("+f.name+")")
	}
	m.funcs[name] = f
	return f, nil
}

// Functions lists every kernel in the module (CUDA 12.4+ enumeration), caching each, so callers can index kernels
// by name without probing modules with lookups that fail (which compute-sanitizer reports as API errors).
func (m *Module) Functions() ([]*Function, error) {
	var n uint32
	if err := check(call(drv.cuModuleGetFunctionCount, uintptr(unsafe.Pointer(&n)), m.h), "cuModuleGetFunctionCount(%s)", m.name); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	hs := make([]uintptr, n)
	if err := check(call(drv.cuModuleEnumerateFunctions, uintptr(unsafe.Pointer(&hs[0])), uintptr(n), m.h), "cuModuleEnumerateFunctions(%s)", m.name); err != nil {
		return nil, err
	}
	out := make([]*Function, 0, n)
	for _, h := range hs {
		var p unsafe.Pointer
		if err := check(call(drv.cuFuncGetName, uintptr(unsafe.Pointer(&p)), h), "cuFuncGetName(%s)", m.name); err != nil {
			return nil, err
		}
		name := goString(p)
		f, ok := m.funcs[name]
		if !ok {
			f = &Function{name: m.name + "." + name, h: h}
			m.funcs[name] = f
		}
		out = append(out, f)
	}
	return out, nil
}

// Unload frees the module; its Functions become invalid.
func (m *Module) Unload() error {
	if m == nil || m.h == 0 {
		return nil
	}
	err := check(call(drv.cuModuleUnload, m.h), "cuModuleUnload(%s)", m.name)
	m.h, m.funcs = 0, nil
	return err
}

// Dim3 is a grid or block shape; zero components count as 1.
type Dim3 struct{ X, Y, Z int }

func (d Dim3) norm() (uintptr, uintptr, uintptr) {
	one := func(v int) uintptr {
		if v <= 0 {
			return 1
		}
		return uintptr(v)
	}
	return one(d.X), one(d.Y), one(d.Z)
}

// Function is one kernel of a loaded module.
type Function struct {
	name string // module.kernel, for errors
	h    uintptr
}

// Name is "module.kernel".
func (f *Function) Name() string { return f.name }

// Launch enqueues the kernel on s. Launch-time errors (bad configuration, wrong argument count in some cases) are
// returned here; faults inside the kernel surface at the next synchronization.
func (f *Function) Launch(s *Stream, grid, block Dim3, sharedBytes int, args *Args) error {
	gx, gy, gz := grid.norm()
	bx, by, bz := block.norm()
	var params unsafe.Pointer
	if args != nil {
		params = args.pointers()
	}
	r := call(drv.cuLaunchKernel, f.h, gx, gy, gz, bx, by, bz, uintptr(sharedBytes), s.h, uintptr(params), 0)
	runtime.KeepAlive(args)
	if r != 0 {
		return newError(r, fmt.Sprintf("cuLaunchKernel(%s grid=%dx%dx%d block=%dx%dx%d smem=%d args=%d)",
			f.name, gx, gy, gz, bx, by, bz, sharedBytes, args.Len()))
	}
	return nil
}

// launchConfig mirrors CUlaunchConfig (cuda.h): seven 32-bit sizes, the stream at offset 32, the attribute array
// at 40 and its length at 48; 56 bytes.
type launchConfig struct {
	gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes uint32
	_                                                        uint32
	stream                                                   uintptr
	attrs                                                    *launchAttr
	numAttrs                                                 uint32
	_                                                        uint32
}

// launchAttr mirrors CUlaunchAttribute: the id, four bytes of padding and a 64-byte value union; 72 bytes.
type launchAttr struct {
	id    uint32
	_     uint32
	value [64]byte
}

// attrProgrammaticStreamSerialization is CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the launch may
// begin before the kernel queued before it on the stream has finished; the kernel orders itself with
// griddepcontrol.wait (pdl_begin in shaders/cuda/common.cuh).
const attrProgrammaticStreamSerialization = 6

// HasPDL reports whether the driver can launch with programmatic dependent launch (cuLaunchKernelEx).
func HasPDL() bool { return drv.cuLaunchKernelEx != 0 }

// LaunchPDL enqueues the kernel like Launch, allowing it to start while the previous kernel on s still runs
// (programmatic dependent launch, sm_90+; kept as an edge when captured into a graph). Only kernels that wait for
// their predecessor before touching its data (pdl_begin) may be launched so. Without cuLaunchKernelEx it is Launch.
func (f *Function) LaunchPDL(s *Stream, grid, block Dim3, sharedBytes int, args *Args) error {
	if drv.cuLaunchKernelEx == 0 {
		return f.Launch(s, grid, block, sharedBytes, args)
	}
	gx, gy, gz := grid.norm()
	bx, by, bz := block.norm()
	var params unsafe.Pointer
	if args != nil {
		params = args.pointers()
	}
	attr := &launchAttr{id: attrProgrammaticStreamSerialization}
	attr.value[0] = 1 // programmaticStreamSerializationAllowed
	cfg := &launchConfig{gridX: uint32(gx), gridY: uint32(gy), gridZ: uint32(gz), blockX: uint32(bx), blockY: uint32(by),
		blockZ: uint32(bz), sharedBytes: uint32(sharedBytes), stream: s.h, attrs: attr, numAttrs: 1}
	r := call(drv.cuLaunchKernelEx, uintptr(unsafe.Pointer(cfg)), f.h, uintptr(params), 0)
	runtime.KeepAlive(args)
	runtime.KeepAlive(cfg)
	runtime.KeepAlive(attr)
	if r != 0 {
		return newError(r, fmt.Sprintf("cuLaunchKernelEx(%s grid=%dx%dx%d block=%dx%dx%d smem=%d args=%d, programmatic)",
			f.name, gx, gy, gz, bx, by, bz, sharedBytes, args.Len()))
	}
	return nil
}

// Function attributes (CUfunction_attribute).
const (
	FuncMaxThreadsPerBlock  = 0
	FuncSharedSizeBytes     = 1
	FuncLocalSizeBytes      = 3
	FuncNumRegs             = 4
	FuncMaxDynamicSharedMem = 8
)

// Attr reads a function attribute (registers, static shared memory, local memory...).
func (f *Function) Attr(attr int) (int, error) {
	var v int32
	err := check(call(drv.cuFuncGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), f.h), "cuFuncGetAttribute(%s, %d)", f.name, attr)
	return int(v), err
}

// SetMaxDynamicShared allows launches with more than 48 KiB of dynamic shared memory.
func (f *Function) SetMaxDynamicShared(bytes int) error {
	return check(call(drv.cuFuncSetAttribute, f.h, FuncMaxDynamicSharedMem, uintptr(bytes)), "cuFuncSetAttribute(%s, max dynamic shared %d)", f.name, bytes)
}
