// CPU profiles of long commands (quantize --cpu-profile): where the host's time goes when the device waits, read
// with `go tool pprof`. The profile is written under a temporary name and renamed when it is complete.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// startCPUProfile starts profiling into path; the returned stop ends it and puts the file in place.
func startCPUProfile(path string) (stop func() error, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile %s: %w", path, err)
	}
	if err := pprof.StartCPUProfile(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("--cpu-profile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := tmp.Close(); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("--cpu-profile %s: %w", path, err)
		}
		if err := os.Rename(tmp.Name(), path); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("--cpu-profile %s: %w", path, err)
		}
		return nil
	}, nil
}
