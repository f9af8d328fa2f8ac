// NVRTC: compile CUDA C++ source to a CUBIN for the device's exact architecture at run time, so no toolkit is
// needed at build time and the driver never JIT-compiles PTX. Results are cached on disk by content.

package driver

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/cachedir"
)

var nv struct {
	lib          *library
	major, minor int

	nvrtcVersion, nvrtcCreateProgram, nvrtcCompileProgram, nvrtcDestroyProgram   uintptr
	nvrtcGetProgramLogSize, nvrtcGetProgramLog, nvrtcGetCUBINSize, nvrtcGetCUBIN uintptr
	nvrtcGetErrorString                                                          uintptr
}

var (
	nvOnce sync.Once
	nvErr  error
)

// loadNVRTC opens libnvrtc and binds it, once per process. NVRTC needs no CUDA context.
func loadNVRTC() error {
	nvOnce.Do(func() {
		lib, err := openLibrary(libNVRTC, hostSearchEnv())
		if err != nil {
			nvErr = err
			return
		}
		n := &nv
		n.lib = lib
		if err := lib.bind([]symbol{
			{fn: &n.nvrtcVersion, names: []string{"nvrtcVersion"}},
			{fn: &n.nvrtcCreateProgram, names: []string{"nvrtcCreateProgram"}},
			{fn: &n.nvrtcCompileProgram, names: []string{"nvrtcCompileProgram"}},
			{fn: &n.nvrtcDestroyProgram, names: []string{"nvrtcDestroyProgram"}},
			{fn: &n.nvrtcGetProgramLogSize, names: []string{"nvrtcGetProgramLogSize"}},
			{fn: &n.nvrtcGetProgramLog, names: []string{"nvrtcGetProgramLog"}},
			{fn: &n.nvrtcGetCUBINSize, names: []string{"nvrtcGetCUBINSize"}},
			{fn: &n.nvrtcGetCUBIN, names: []string{"nvrtcGetCUBIN"}},
			{fn: &n.nvrtcGetErrorString, names: []string{"nvrtcGetErrorString"}},
		}); err != nil {
			nvErr = err
			return
		}
		var major, minor int32
		if r := call(n.nvrtcVersion, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor))); r != 0 {
			nvErr = nvrtcError(r, "nvrtcVersion")
			return
		}
		n.major, n.minor = int(major), int(minor)
	})
	return nvErr
}

// NVRTCVersion reports the loaded NVRTC's version, loading it if needed.
func NVRTCVersion() (major, minor int, err error) {
	if err := loadNVRTC(); err != nil {
		return 0, 0, err
	}
	return nv.major, nv.minor, nil
}

// NVRTCPath is the file NVRTC was loaded from ("" before loading).
func NVRTCPath() string {
	if nv.lib == nil {
		return ""
	}
	return nv.lib.path
}

func nvrtcError(r uint32, op string) error {
	msg := "unknown"
	if nv.nvrtcGetErrorString != 0 {
		msg = goString(callPtr(nv.nvrtcGetErrorString, uintptr(r)))
	}
	return fmt.Errorf("cuda: %s: %s (%d)", op, msg, r)
}

// CompileError is a failed NVRTC compilation with the compiler's log.
type CompileError struct {
	Name, Arch string
	Log        string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("cuda: nvrtc compile of %s for %s failed:\n%s", e.Name, e.Arch, e.Log)
}

// NoLineInfo, given among Compile's extra options, drops -lineinfo from the defaults (it is not passed to NVRTC).
// NVRTC 11.8 crashes (SIGSEGV inside nvrtcCompileProgram) on any function template under -lineinfo, seen here
// with libnvrtc 11.8.89; the backend's templated kernels are compiled without it.
const NoLineInfo = "--mlxbun-no-lineinfo"

// compileOptions are the options every compilation gets: the exact target (so NVRTC emits SASS, not PTX),
// device code by default, C++17, and line info for profilers at no speed cost (unless extra holds NoLineInfo).
func compileOptions(arch string, extra []string) []string {
	opts := []string{"--gpu-architecture=" + arch, "-default-device", "--std=c++17", "-lineinfo"}
	for _, e := range extra {
		if e == NoLineInfo {
			opts = opts[:3]
		}
	}
	for _, e := range extra {
		if e != NoLineInfo {
			opts = append(opts, e)
		}
	}
	return opts
}

// Compile compiles src (named name, for errors and line info) to a CUBIN for arch ("sm_90"), with extra NVRTC
// options appended to the defaults. It consults the on-disk cache first. It needs no device and may run on any
// goroutine.
func Compile(name, src, arch string, extra ...string) ([]byte, error) {
	cubin, _, err := compileCached(name, src, arch, extra)
	return cubin, err
}

// CompileLog compiles like Compile, bypassing the cache, and also returns the compiler's log (warnings; ptxas's
// register and spill report when extra holds --ptxas-options=-v).
func CompileLog(name, src, arch string, extra ...string) (cubin []byte, log string, err error) {
	if err := loadNVRTC(); err != nil {
		return nil, "", err
	}
	return nvrtcCompileLog(name, src, arch, compileOptions(arch, extra))
}

func compileCached(name, src, arch string, extra []string) (cubin []byte, cached bool, err error) {
	if err := loadNVRTC(); err != nil {
		return nil, false, err
	}
	opts := compileOptions(arch, extra)
	dir := cacheDir()
	var path string
	if dir != "" {
		path = filepath.Join(dir, cacheKey(name, src, arch, opts, nvrtcVersionString())+".cubin")
		if b, err := os.ReadFile(path); err == nil && isELF(b) {
			return b, true, nil
		}
	}
	cubin, err = nvrtcCompile(name, src, arch, opts)
	if err != nil {
		return nil, false, err
	}
	if path != "" {
		writeCache(dir, path, cubin) // a cache that cannot be written only costs a recompile
	}
	return cubin, false, nil
}

func nvrtcVersionString() string { return strconv.Itoa(nv.major) + "." + strconv.Itoa(nv.minor) }

func isELF(b []byte) bool { return len(b) > 4 && bytes.Equal(b[:4], []byte("\x7fELF")) }

// nvrtcCompile runs one NVRTC compilation.
func nvrtcCompile(name, src, arch string, opts []string) ([]byte, error) {
	cubin, _, err := nvrtcCompileLog(name, src, arch, opts)
	return cubin, err
}

// nvrtcCompileLog is nvrtcCompile also returning the compiler's log (warnings; ptxas statistics under
// --ptxas-options=-v).
func nvrtcCompileLog(name, src, arch string, opts []string) ([]byte, string, error) {
	csrc, cname := cString(src), cString(name)
	var prog uintptr
	if r := call(nv.nvrtcCreateProgram, uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(&csrc[0])),
		uintptr(unsafe.Pointer(&cname[0])), 0, 0, 0); r != 0 {
		return nil, "", nvrtcError(r, "nvrtcCreateProgram("+name+")")
	}
	defer call(nv.nvrtcDestroyProgram, uintptr(unsafe.Pointer(&prog)))

	// The option array holds uintptrs into the cOpts strings; cOpts keeps them alive (heap, never moved).
	cOpts := make([][]byte, len(opts))
	ptrs := make([]uintptr, len(opts))
	for i, o := range opts {
		cOpts[i] = cString(o)
		ptrs[i] = uintptr(unsafe.Pointer(&cOpts[i][0]))
	}
	r := call(nv.nvrtcCompileProgram, prog, uintptr(len(ptrs)), uintptr(unsafe.Pointer(&ptrs[0])))
	runtime.KeepAlive(cOpts)
	if r != 0 {
		const nvrtcErrorCompilation = 6
		if r != nvrtcErrorCompilation {
			return nil, "", fmt.Errorf("%w\n%s", nvrtcError(r, "nvrtcCompileProgram("+name+")"), programLog(prog))
		}
		return nil, "", &CompileError{Name: name, Arch: arch, Log: programLog(prog)}
	}
	var n uintptr
	if r := call(nv.nvrtcGetCUBINSize, prog, uintptr(unsafe.Pointer(&n))); r != 0 {
		return nil, "", nvrtcError(r, "nvrtcGetCUBINSize("+name+")")
	}
	if n == 0 {
		return nil, "", fmt.Errorf("cuda: nvrtc produced no CUBIN for %s (arch %s must be a real sm_XY)", name, arch)
	}
	cubin := make([]byte, n)
	if r := call(nv.nvrtcGetCUBIN, prog, uintptr(unsafe.Pointer(&cubin[0]))); r != 0 {
		return nil, "", nvrtcError(r, "nvrtcGetCUBIN("+name+")")
	}
	return cubin, programLog(prog), nil
}

func programLog(prog uintptr) string {
	var n uintptr
	if call(nv.nvrtcGetProgramLogSize, prog, uintptr(unsafe.Pointer(&n))) != 0 || n <= 1 {
		return ""
	}
	b := make([]byte, n)
	if call(nv.nvrtcGetProgramLog, prog, uintptr(unsafe.Pointer(&b[0]))) != 0 {
		return ""
	}
	return string(bytes.TrimRight(b, "\x00\n"))
}

// envCacheDir overrides the cache location; "off" disables caching.
const envCacheDir = "MLXBUN_CUDA_CACHE_DIR"

// cacheDir is where CUBINs are kept ("" when caching is off or no location exists).
func cacheDir() string { return cachedir.Dir(envCacheDir, "cuda") }

// cacheKey identifies a compilation by everything that changes its output. Fields are length-prefixed so no two
// different inputs concatenate to the same bytes.
func cacheKey(name, src, arch string, opts []string, nvrtcVersion string) string {
	return cachedir.Key(append([]string{"mlxbun-cuda-cubin-v1", name, src, arch, nvrtcVersion, strconv.Itoa(len(opts))}, opts...)...)
}

// writeCache stores b at path atomically: a reader sees the old file, no file, or the whole new one.
func writeCache(dir, path string, b []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".cubin-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		if werr != nil {
			return werr
		}
		return cerr
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// CompileModule compiles src for this device (cached) and loads it. Call it inside Do; to keep a long compile
// off the device thread, call Compile first on any goroutine and LoadModule inside Do.
func (d *Device) CompileModule(name, src string, extra ...string) (*Module, error) {
	cubin, err := Compile(name, src, d.info.Arch(), extra...)
	if err != nil {
		return nil, err
	}
	return d.LoadModule(name, cubin)
}
