// Memory mapping for Linux and macOS: the file's pages are shared with the page cache and read on demand.

//go:build linux || darwin

package safetensors

import (
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only; unmap releases the mapping.
func mapFile(f *os.File, size int64) ([]byte, func([]byte) error, error) {
	if size > math.MaxInt {
		return nil, nil, unix.EFBIG
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, unix.Munmap, nil
}
