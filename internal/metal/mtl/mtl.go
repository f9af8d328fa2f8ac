// Package mtl is the Metal runtime under the metal backend, through purego/objc without cgo (as internal/cuda's
// driver is CUDA's): the system default device, a command queue, the shader library compiled from source at
// startup with a binary-archive disk cache, compute pipelines, shared-storage buffers (weights mapped without a
// copy where page-aligned), compute encoders, dispatch and command-buffer completion with the GPU's error text.
// The Objective-C calls are darwin-only (*_darwin.go); this file holds what every platform builds and tests: the
// MTLSize mirror, resource options, command-buffer states, the cache key and the dispatch checks.
package mtl

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"structs"

	"github.com/mlxbun/mlxbun/internal/cachedir"
)

// ErrNoDevice is wrapped by Open's error on a machine without a Metal GPU (any system but macOS, or a Mac whose
// Metal framework gives no device). The backend registry treats it as "not here", not as a failure.
var ErrNoDevice = errors.New("no Metal device")

// Size mirrors MTLSize: three NSUInteger (64-bit on every Metal platform). dispatchThreadgroups:
// threadsPerThreadgroup: takes two of them BY VALUE, so they are passed as Go struct values and purego lays them
// out as the C ABI does: on arm64 a 24-byte composite goes as a pointer to a caller-made copy (purego makes the
// copy), on x86-64 in memory on the stack. A Go pointer passed instead is an integer argument: it happens to
// match arm64's convention and launches a wrong grid under x86-64's, so the code never relies on it.
type Size struct {
	_                    structs.HostLayout
	Width, Height, Depth uint64
}

// NewSize converts a launch's [3]int, refusing a zero or negative dimension (Metal would launch nothing and
// report no error).
func NewSize(d [3]int) (Size, error) {
	for _, v := range d {
		if v < 1 {
			return Size{}, fmt.Errorf("metal: grid dimension %v: every dimension must be at least 1", d)
		}
	}
	return Size{Width: uint64(d[0]), Height: uint64(d[1]), Depth: uint64(d[2])}, nil
}

// Count is the number of elements the size spans.
func (s Size) Count() uint64 { return s.Width * s.Height * s.Depth }

// Resource options (MTLResourceOptions): the storage mode sits at bit 4, the CPU cache mode at bit 0.
const (
	ResourceStorageModeShared   = 0 << 4
	ResourceStorageModePrivate  = 2 << 4
	ResourceCPUCacheModeDefault = 0
	// ResourceHazardTrackingModeTracked keeps Metal's automatic hazard tracking between encoders (bit 8).
	ResourceHazardTrackingModeTracked = 2 << 8
)

// Command buffer states (MTLCommandBufferStatus).
const (
	StatusNotEnqueued = iota
	StatusEnqueued
	StatusCommitted
	StatusScheduled
	StatusCompleted
	StatusError
)

// StatusName names a MTLCommandBufferStatus for messages.
func StatusName(s int) string {
	names := []string{"not enqueued", "enqueued", "committed", "scheduled", "completed", "error"}
	if s >= 0 && s < len(names) {
		return names[s]
	}
	return "status " + strconv.Itoa(s)
}

// MaxThreadsPerThreadgroup is the most threads any Apple GPU runs in one threadgroup; a pipeline may allow fewer
// (Pipeline.MaxThreads), which Dispatch checks too.
const MaxThreadsPerThreadgroup = 1024

// CheckDispatch refuses a grid Metal would reject or silently mis-launch: a zero dimension, or more threads per
// threadgroup than the pipeline allows.
func CheckDispatch(fn string, groups, threads [3]int, pipelineMax int) (Size, Size, error) {
	g, err := NewSize(groups)
	if err != nil {
		return Size{}, Size{}, fmt.Errorf("%s: threadgroups: %w", fn, err)
	}
	t, err := NewSize(threads)
	if err != nil {
		return Size{}, Size{}, fmt.Errorf("%s: threads per threadgroup: %w", fn, err)
	}
	limit := uint64(MaxThreadsPerThreadgroup)
	if pipelineMax > 0 && uint64(pipelineMax) < limit {
		limit = uint64(pipelineMax)
	}
	if t.Count() > limit {
		return Size{}, Size{}, fmt.Errorf("%s: %d threads per threadgroup, the pipeline allows %d", fn, t.Count(), limit)
	}
	return g, t, nil
}

// envCacheDir overrides where compiled pipelines are kept; "off" disables the cache.
const envCacheDir = "MLXBUN_METAL_CACHE_DIR"

// CacheDir is the binary-archive folder ("" when caching is off or no location exists).
func CacheDir() string { return cachedir.Dir(envCacheDir, "metal") }

// CacheKey identifies a compiled library by everything that changes the GPU code: the source, the macOS
// version (its compiler), the GPU family and device name, and the compile options. Fields are length-prefixed so
// no two different inputs concatenate to the same bytes.
func CacheKey(source, osVersion, gpuFamily, deviceName string, fastMath bool) string {
	return cachedir.Key("mlxbun-metal-archive-v1", source, osVersion, gpuFamily, deviceName, strconv.FormatBool(fastMath))
}

// ArchivePath is the binary archive of key under dir.
func ArchivePath(dir, key string) string { return filepath.Join(dir, key[:32]+".metalar") }

// GPUFamilies are the MTLGPUFamily values probed with supportsFamily:, newest first; the first the device
// supports names its family in the cache key and picks the backend's selection-table row.
var GPUFamilies = []struct {
	Name  string
	Value int
}{
	{"MTLGPUFamilyApple9", 1009}, {"MTLGPUFamilyApple8", 1008}, {"MTLGPUFamilyApple7", 1007},
	{"MTLGPUFamilyApple6", 1006}, {"MTLGPUFamilyMac2", 2002},
}

// PageAligned reports whether a mapping of n bytes at address p can back a no-copy buffer: Metal's
// newBufferWithBytesNoCopy:length:options:deallocator: needs a page-aligned address and a length that is a
// multiple of the page size.
func PageAligned(p uintptr, n, pageSize int) bool {
	return pageSize > 0 && p%uintptr(pageSize) == 0 && n > 0 && n%pageSize == 0
}
