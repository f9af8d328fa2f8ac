// Physical memory, so the CPU backend can refuse an allocation that cannot fit with an error instead of letting
// the Go runtime die of it (an out-of-memory in make is fatal, not a panic).
package cpu

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// physicalMemory is the machine's memory in bytes, or 0 when unknown (then nothing is refused).
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
