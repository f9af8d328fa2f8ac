// The CUDA driver API table: the entry points this package uses, bound once per process from libcuda, and the
// error type every failing driver call is reported with (operation, cuGetErrorName, cuGetErrorString).

package driver

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// drv holds the driver's entry points. Versioned names (_v2) are the ABI the CUDA headers have mapped the plain
// names to since CUDA 3.2/4.0; the old names still exist but take 32-bit sizes.
var drv struct {
	lib *library

	cuInit, cuDriverGetVersion                                           uintptr
	cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, cuDeviceGetAttribute uintptr
	cuDeviceTotalMem                                                     uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease                  uintptr
	cuCtxSetCurrent, cuCtxSynchronize                                    uintptr
	cuMemAlloc, cuMemFree, cuMemGetInfo                                  uintptr
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD                             uintptr
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync              uintptr
	cuMemHostAlloc, cuMemFreeHost                                        uintptr
	cuMemsetD8, cuMemsetD32, cuMemsetD8Async, cuMemsetD32Async           uintptr
	cuStreamCreate, cuStreamSynchronize, cuStreamDestroy                 uintptr
	cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventDestroy     uintptr
	cuEventElapsedTime                                                   uintptr
	cuModuleLoadData, cuModuleGetFunction, cuModuleUnload                uintptr
	cuModuleGetFunctionCount, cuModuleEnumerateFunctions, cuFuncGetName  uintptr
	cuFuncSetAttribute, cuFuncGetAttribute, cuLaunchKernel               uintptr
	cuLaunchKernelEx                                                     uintptr
	cuStreamBeginCapture, cuStreamEndCapture                             uintptr
	cuGraphInstantiateWithFlags, cuGraphLaunch                           uintptr
	cuGraphExecDestroy, cuGraphDestroy                                   uintptr
	cuGetErrorName, cuGetErrorString                                     uintptr
}

var (
	drvOnce sync.Once
	drvErr  error
)

// loadDriver opens libcuda and binds the table, once per process.
func loadDriver() error {
	drvOnce.Do(func() {
		lib, err := openLibrary(libDriver, hostSearchEnv())
		if err != nil {
			drvErr = err
			return
		}
		d := &drv
		d.lib = lib
		err = lib.bind([]symbol{
			{fn: &d.cuInit, names: []string{"cuInit"}},
			{fn: &d.cuDriverGetVersion, names: []string{"cuDriverGetVersion"}},
			{fn: &d.cuDeviceGet, names: []string{"cuDeviceGet"}},
			{fn: &d.cuDeviceGetCount, names: []string{"cuDeviceGetCount"}},
			{fn: &d.cuDeviceGetName, names: []string{"cuDeviceGetName"}},
			{fn: &d.cuDeviceGetAttribute, names: []string{"cuDeviceGetAttribute"}},
			{fn: &d.cuDeviceTotalMem, names: []string{"cuDeviceTotalMem_v2"}},
			{fn: &d.cuDevicePrimaryCtxRetain, names: []string{"cuDevicePrimaryCtxRetain"}},
			{fn: &d.cuDevicePrimaryCtxRelease, names: []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
			{fn: &d.cuCtxSetCurrent, names: []string{"cuCtxSetCurrent"}},
			{fn: &d.cuCtxSynchronize, names: []string{"cuCtxSynchronize"}},
			{fn: &d.cuMemAlloc, names: []string{"cuMemAlloc_v2"}},
			{fn: &d.cuMemFree, names: []string{"cuMemFree_v2"}},
			{fn: &d.cuMemGetInfo, names: []string{"cuMemGetInfo_v2"}},
			{fn: &d.cuMemcpyHtoD, names: []string{"cuMemcpyHtoD_v2"}},
			{fn: &d.cuMemcpyDtoH, names: []string{"cuMemcpyDtoH_v2"}},
			{fn: &d.cuMemcpyDtoD, names: []string{"cuMemcpyDtoD_v2"}},
			{fn: &d.cuMemcpyHtoDAsync, names: []string{"cuMemcpyHtoDAsync_v2"}},
			{fn: &d.cuMemcpyDtoHAsync, names: []string{"cuMemcpyDtoHAsync_v2"}},
			{fn: &d.cuMemcpyDtoDAsync, names: []string{"cuMemcpyDtoDAsync_v2"}},
			{fn: &d.cuMemHostAlloc, names: []string{"cuMemHostAlloc"}},
			{fn: &d.cuMemFreeHost, names: []string{"cuMemFreeHost"}},
			{fn: &d.cuMemsetD8, names: []string{"cuMemsetD8_v2"}},
			{fn: &d.cuMemsetD32, names: []string{"cuMemsetD32_v2"}},
			{fn: &d.cuMemsetD8Async, names: []string{"cuMemsetD8Async"}},
			{fn: &d.cuMemsetD32Async, names: []string{"cuMemsetD32Async"}},
			{fn: &d.cuStreamCreate, names: []string{"cuStreamCreate"}},
			{fn: &d.cuStreamSynchronize, names: []string{"cuStreamSynchronize"}},
			{fn: &d.cuStreamDestroy, names: []string{"cuStreamDestroy_v2"}},
			{fn: &d.cuEventCreate, names: []string{"cuEventCreate"}},
			{fn: &d.cuEventRecord, names: []string{"cuEventRecord"}},
			{fn: &d.cuEventSynchronize, names: []string{"cuEventSynchronize"}},
			{fn: &d.cuEventDestroy, names: []string{"cuEventDestroy_v2"}},
			{fn: &d.cuEventElapsedTime, names: []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
			{fn: &d.cuModuleLoadData, names: []string{"cuModuleLoadData"}},
			{fn: &d.cuModuleGetFunction, names: []string{"cuModuleGetFunction"}},
			{fn: &d.cuModuleUnload, names: []string{"cuModuleUnload"}},
			{fn: &d.cuModuleGetFunctionCount, names: []string{"cuModuleGetFunctionCount"}},
			{fn: &d.cuModuleEnumerateFunctions, names: []string{"cuModuleEnumerateFunctions"}},
			{fn: &d.cuFuncGetName, names: []string{"cuFuncGetName"}},
			{fn: &d.cuFuncSetAttribute, names: []string{"cuFuncSetAttribute"}},
			{fn: &d.cuFuncGetAttribute, names: []string{"cuFuncGetAttribute"}},
			{fn: &d.cuLaunchKernel, names: []string{"cuLaunchKernel"}},
			{fn: &d.cuLaunchKernelEx, names: []string{"cuLaunchKernelEx"}, optional: true}, // CUDA 11.8+: launch attributes
			{fn: &d.cuStreamBeginCapture, names: []string{"cuStreamBeginCapture_v2"}},
			{fn: &d.cuStreamEndCapture, names: []string{"cuStreamEndCapture"}},
			{fn: &d.cuGraphInstantiateWithFlags, names: []string{"cuGraphInstantiateWithFlags"}},
			{fn: &d.cuGraphLaunch, names: []string{"cuGraphLaunch"}},
			{fn: &d.cuGraphExecDestroy, names: []string{"cuGraphExecDestroy"}},
			{fn: &d.cuGraphDestroy, names: []string{"cuGraphDestroy"}},
			{fn: &d.cuGetErrorName, names: []string{"cuGetErrorName"}},
			{fn: &d.cuGetErrorString, names: []string{"cuGetErrorString"}},
		})
		if err != nil {
			drvErr = fmt.Errorf("cuda: %s is too old for this package: %w", lib.path, err)
			return
		}
		if r := call(d.cuInit, 0); r != 0 {
			drvErr = fmt.Errorf("%w (%v)", ErrNoDriver, newError(r, "cuInit"))
		}
	})
	return drvErr
}

// Driver result codes this package reacts to.
const (
	errOutOfMemory    = 2   // CUDA_ERROR_OUT_OF_MEMORY
	errInvalidContext = 201 // CUDA_ERROR_INVALID_CONTEXT: called off the device thread
	errNotReady       = 600 // CUDA_ERROR_NOT_READY
)

// IsOutOfMemory reports whether err is (or wraps) the driver's out-of-memory error.
func IsOutOfMemory(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == errOutOfMemory
}

// Error is a failed driver call.
type Error struct {
	Op   string // operation with its arguments or kernel name
	Code int    // CUresult
	Name string // cuGetErrorName, e.g. CUDA_ERROR_OUT_OF_MEMORY
	Desc string // cuGetErrorString
}

func (e *Error) Error() string {
	s := fmt.Sprintf("cuda: %s: %s (%d: %s)", e.Op, e.Name, e.Code, e.Desc)
	if e.Code == errInvalidContext {
		s += "; driver calls must run inside Device.Do, on the device's own thread"
	}
	return s
}

// newError describes result r of op through the driver's own names.
func newError(r uint32, op string) *Error {
	e := &Error{Op: op, Code: int(r), Name: "CUDA_ERROR_UNKNOWN_CODE", Desc: "unknown error code"}
	if drv.cuGetErrorName != 0 {
		var p unsafe.Pointer
		if call(drv.cuGetErrorName, uintptr(r), uintptr(unsafe.Pointer(&p))) == 0 {
			e.Name = goString(p)
		}
		if call(drv.cuGetErrorString, uintptr(r), uintptr(unsafe.Pointer(&p))) == 0 {
			e.Desc = goString(p)
		}
	}
	return e
}

// check turns a driver result into an error; the op description is formatted only on failure.
func check(r uint32, format string, args ...any) error {
	if r == 0 {
		return nil
	}
	return newError(r, fmt.Sprintf(format, args...))
}

// goString copies a NUL-terminated C string.
func goString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// cString returns s as a NUL-terminated byte slice for C; keep it alive across the call.
func cString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}
