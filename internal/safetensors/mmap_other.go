// Fallback for systems without the unix mmap path (Windows, Plan 9, wasm): read the whole file into memory.
// Same API, higher resident memory.

//go:build !(linux || darwin)

package safetensors

import (
	"fmt"
	"io"
	"math"
	"os"
)

// mapFile reads size bytes of f; the returned release function only drops the reference.
func mapFile(f *os.File, size int64) ([]byte, func([]byte) error, error) {
	if size > math.MaxInt {
		return nil, nil, fmt.Errorf("file of %d bytes does not fit in memory", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func([]byte) error { return nil }, nil
}
