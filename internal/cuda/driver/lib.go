// Library discovery: where the CUDA driver, NVRTC and cuBLASLt shared objects are looked for, in which order,
// and the error that lists every place tried when none loads. The search list is pure Go (environment and glob
// are injected) so it is tested on machines without CUDA.

package driver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// ErrNoDriver is wrapped by every error that means "this machine cannot run CUDA": no libcuda, or an OS that has
// none. Callers choosing a backend test for it with errors.Is and fall back quietly.
var ErrNoDriver = errors.New("no CUDA driver")

// ErrNoLibrary is wrapped when the driver is present but a toolkit library (NVRTC, cuBLASLt) is not.
var ErrNoLibrary = errors.New("CUDA library not found")

// libSpec names one library and the sonames accepted for it, most preferred first.
type libSpec struct {
	what    string   // human name for errors ("CUDA driver")
	names   []string // sonames, preferred version first
	toolkit bool     // lives in the toolkit / pip wheels rather than with the display driver
}

var (
	libDriver = libSpec{what: "CUDA driver", names: []string{"libcuda.so.1", "libcuda.so"}}
	// NVRTC 13 first; 12 still compiles sm_90 and is what older pip wheels ship.
	libNVRTC    = libSpec{what: "NVRTC", names: []string{"libnvrtc.so.13", "libnvrtc.so.12"}, toolkit: true}
	libCublasLt = libSpec{what: "cuBLASLt", names: []string{"libcublasLt.so.13", "libcublasLt.so.12"}, toolkit: true}
)

// envLibDirs is an explicit, colon-separated list of directories searched right after the loader's own (ldconfig)
// lookup, for installs nothing else would find.
const envLibDirs = "MLXBUN_CUDA_LIBDIR"

// searchEnv abstracts the process environment and filesystem globbing so the search list is testable.
type searchEnv struct {
	getenv func(string) string
	glob   func(string) ([]string, error)
	goarch string
}

func hostSearchEnv() searchEnv {
	return searchEnv{getenv: os.Getenv, glob: filepath.Glob, goarch: runtime.GOARCH}
}

// targetsDir is the per-architecture library folder of a CUDA toolkit (targets/<triple>/lib).
func (e searchEnv) targetsDir() string {
	if e.goarch == "arm64" {
		return "targets/sbsa-linux/lib"
	}
	return "targets/x86_64-linux/lib"
}

// candidates is the ordered list of dlopen arguments tried for spec: for each soname (preferred version first),
// the bare name (resolved by the dynamic loader through ldconfig's cache and LD_LIBRARY_PATH), then that name in
// every search directory. Version outranks location: a .13 in a pip wheel beats a stale .12 in ldconfig.
func (e searchEnv) candidates(spec libSpec) []string {
	dirs := e.searchDirs(spec.toolkit)
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, name := range spec.names {
		add(name)
		for _, d := range dirs {
			add(filepath.Join(d, name))
		}
	}
	return out
}

// searchDirs lists directories in search order. The driver is never taken from a toolkit: toolkits ship a stub
// libcuda that loads but fails every call.
func (e searchEnv) searchDirs(toolkit bool) []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(ds ...string) {
		for _, d := range ds {
			if d == "" || seen[d] {
				continue
			}
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range strings.Split(e.getenv(envLibDirs), string(os.PathListSeparator)) {
		add(d)
	}
	sysDirs := []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"}
	if e.goarch == "arm64" {
		sysDirs[0] = "/usr/lib/aarch64-linux-gnu"
	}
	if !toolkit {
		add("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib")
		add(sysDirs...)
		add("/usr/lib/wsl/lib")
		return dirs
	}
	for _, v := range []string{"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"} {
		if root := e.getenv(v); root != "" {
			add(filepath.Join(root, "lib64"), filepath.Join(root, e.targetsDir()))
		}
	}
	add("/usr/local/cuda/lib64", filepath.Join("/usr/local/cuda", e.targetsDir()))
	// Versioned toolkits side by side: newest first.
	if roots, _ := e.glob("/usr/local/cuda-*"); len(roots) > 0 {
		sort.Sort(sort.Reverse(sort.StringSlice(roots)))
		for _, r := range roots {
			add(filepath.Join(r, "lib64"), filepath.Join(r, e.targetsDir()))
		}
	}
	for _, sp := range e.sitePackages() {
		// nvidia-* wheels: site-packages/nvidia/<component>/lib (cu12) or nvidia/cu13/lib (cu13).
		libs, _ := e.glob(filepath.Join(sp, "nvidia", "*", "lib"))
		sort.Strings(libs)
		add(libs...)
	}
	add(sysDirs...)
	return dirs
}

// sitePackages lists the Python package folders a pip-installed CUDA could live in: the active virtualenv or
// conda env, PYTHONPATH, the user's site, pyenv versions, system pythons and /opt venvs (where images keep them).
func (e searchEnv) sitePackages() []string {
	var out []string
	seen := map[string]bool{}
	addGlob := func(pattern string) {
		ms, _ := e.glob(pattern)
		sort.Sort(sort.Reverse(sort.StringSlice(ms))) // newest python first
		for _, m := range ms {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	for _, v := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := e.getenv(v); p != "" {
			addGlob(filepath.Join(p, "lib", "python3*", "site-packages"))
		}
	}
	for _, p := range strings.Split(e.getenv("PYTHONPATH"), string(os.PathListSeparator)) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if home := e.getenv("HOME"); home != "" {
		addGlob(filepath.Join(home, ".local", "lib", "python3*", "site-packages"))
		addGlob(filepath.Join(home, ".pyenv", "versions", "*", "lib", "python3*", "site-packages"))
	}
	for _, base := range []string{"/usr/local/lib", "/usr/lib"} {
		addGlob(filepath.Join(base, "python3*", "site-packages"))
		addGlob(filepath.Join(base, "python3*", "dist-packages"))
	}
	addGlob("/opt/*/.venv/lib/python3*/site-packages")
	addGlob("/opt/conda/lib/python3*/site-packages")
	return out
}

// LibraryError reports a library that could not be loaded, with every candidate tried and why each failed.
type LibraryError struct {
	What  string   // "CUDA driver", "NVRTC", "cuBLASLt"
	Tried []string // "candidate: reason"
}

func (e *LibraryError) Error() string {
	// One line, as every user-facing error: the CLI prints it as is.
	return fmt.Sprintf("cuda: %s not found (set MLXBUN_CUDA_LIBDIR or CUDA_HOME); tried: %s", e.What, strings.Join(e.Tried, "; "))
}

// Unwrap lets errors.Is tell "no driver at all" from "driver but no toolkit library".
func (e *LibraryError) Unwrap() error {
	if e.What == libDriver.what {
		return ErrNoDriver
	}
	return ErrNoLibrary
}
