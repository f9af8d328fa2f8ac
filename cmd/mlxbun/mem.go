// Peak resident memory of this process, as mlx-lm reports "Peak memory".
package main

import (
	"runtime"
	"syscall"
)

// peakMemoryGB is the peak resident set size in GB (getrusage: kilobytes on Linux, bytes on macOS).
func peakMemoryGB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	b := float64(ru.Maxrss)
	if runtime.GOOS == "linux" {
		b *= 1024
	}
	return b / 1e9
}
