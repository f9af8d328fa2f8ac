// A process's start time on macOS, from the kernel's process table (kern.proc.pid).

package quantize

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func processStart(pid int) string {
	p, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || p.Proc.P_pid != int32(pid) {
		return ""
	}
	return fmt.Sprintf("%d.%06d", p.Proc.P_starttime.Sec, p.Proc.P_starttime.Usec)
}

func processExists(pid int) bool { return processStart(pid) != "" }
