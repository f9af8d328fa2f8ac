// Tests of library discovery that need no GPU: the search order built from the environment, and the error a
// machine without CUDA gets.

package driver

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func fakeEnv(vars map[string]string, globs map[string][]string) searchEnv {
	return searchEnv{
		getenv: func(k string) string { return vars[k] },
		glob:   func(p string) ([]string, error) { return globs[p], nil },
		goarch: "amd64",
	}
}

func index(t *testing.T, list []string, s string) int {
	t.Helper()
	i := slices.Index(list, s)
	if i < 0 {
		t.Fatalf("%s missing from search list:\n%s", s, strings.Join(list, "\n"))
	}
	return i
}

func TestToolkitSearchOrder(t *testing.T) {
	env := fakeEnv(map[string]string{
		"CUDA_HOME":          "/opt/cuda",
		"MLXBUN_CUDA_LIBDIR": "/x/lib:/y/lib",
		"VIRTUAL_ENV":        "/venv",
		"HOME":               "/home/u",
	}, map[string][]string{
		"/usr/local/cuda-*":                               {"/usr/local/cuda-12.4", "/usr/local/cuda-13.0"},
		"/venv/lib/python3*/site-packages":                {"/venv/lib/python3.12/site-packages"},
		"/venv/lib/python3.12/site-packages/nvidia/*/lib": {"/venv/lib/python3.12/site-packages/nvidia/cu13/lib"},
		"/opt/*/.venv/lib/python3*/site-packages":         {"/opt/torch/.venv/lib/python3.12/site-packages"},
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/*/lib": {
			"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvrtc/lib",
			"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cublas/lib",
		},
	})
	c := env.candidates(libNVRTC)
	if c[0] != "libnvrtc.so.13" {
		t.Fatalf("first candidate %q, want the bare soname for the loader", c[0])
	}
	order := []string{
		"libnvrtc.so.13",
		"/x/lib/libnvrtc.so.13",
		"/y/lib/libnvrtc.so.13",
		"/opt/cuda/lib64/libnvrtc.so.13",
		"/opt/cuda/targets/x86_64-linux/lib/libnvrtc.so.13",
		"/usr/local/cuda/lib64/libnvrtc.so.13",
		"/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13",
		"/usr/local/cuda-13.0/lib64/libnvrtc.so.13", // newest versioned toolkit first
		"/usr/local/cuda-12.4/lib64/libnvrtc.so.13",
		"/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cublas/lib/libnvrtc.so.13",
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvrtc/lib/libnvrtc.so.13",
		"libnvrtc.so.12", // the older major only after every place for the newer one
		"/usr/local/cuda/lib64/libnvrtc.so.12",
	}
	last := -1
	for _, s := range order {
		i := index(t, c, s)
		if i <= last {
			t.Fatalf("%s at %d, expected after position %d:\n%s", s, i, last, strings.Join(c, "\n"))
		}
		last = i
	}
	if len(c) != len(slices.Compact(slices.Clone(c))) {
		t.Fatalf("duplicates in %v", c)
	}
}

func TestDriverSearchSkipsToolkits(t *testing.T) {
	env := fakeEnv(map[string]string{"CUDA_HOME": "/opt/cuda"}, map[string][]string{
		"/usr/local/cuda-*": {"/usr/local/cuda-13.0"},
	})
	c := env.candidates(libDriver)
	if c[0] != "libcuda.so.1" {
		t.Fatalf("first candidate %q", c[0])
	}
	for _, p := range c {
		if strings.Contains(p, "cuda/") || strings.Contains(p, "cuda-13") || strings.Contains(p, "stubs") {
			t.Fatalf("driver search includes toolkit path %s (toolkits ship a stub libcuda)", p)
		}
	}
	index(t, c, "/usr/local/nvidia/lib64/libcuda.so.1")
	index(t, c, "/usr/lib/x86_64-linux-gnu/libcuda.so.1")
}

func TestArm64Targets(t *testing.T) {
	env := fakeEnv(map[string]string{"CUDA_HOME": "/c"}, nil)
	env.goarch = "arm64"
	index(t, env.candidates(libCublasLt), "/c/targets/sbsa-linux/lib/libcublasLt.so.13")
}

func TestLibraryErrorListsTries(t *testing.T) {
	err := error(&LibraryError{What: "NVRTC", Tried: []string{"libnvrtc.so.13: not found", "/a/libnvrtc.so.13: absent"}})
	msg := err.Error()
	for _, s := range []string{"NVRTC not found", "libnvrtc.so.13: not found", "/a/libnvrtc.so.13: absent"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q lacks %q", msg, s)
		}
	}
	if !errors.Is(err, ErrNoLibrary) || errors.Is(err, ErrNoDriver) {
		t.Errorf("toolkit library error should be ErrNoLibrary only")
	}
	if !errors.Is(&LibraryError{What: libDriver.what}, ErrNoDriver) {
		t.Errorf("driver library error should be ErrNoDriver")
	}
}

// On a machine without CUDA (CI, a Mac) Open must fail cleanly with ErrNoDriver and the list of places tried.
func TestOpenWithoutDriver(t *testing.T) {
	if os.Getenv("MLXBUN_CUDA") == "1" {
		t.Skip("GPU run")
	}
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/local/nvidia/lib64", "/usr/lib64"} {
		if _, err := os.Stat(filepath.Join(dir, "libcuda.so.1")); err == nil {
			t.Skip("this machine has a CUDA driver")
		}
	}
	d, err := Open(0)
	if err == nil {
		d.Close()
		t.Skip("this machine has a CUDA driver")
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("Open without a driver: %v, want ErrNoDriver", err)
	}
	t.Logf("as expected: %v", err)
}
