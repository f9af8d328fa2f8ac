// The OS thread id, used to recognise the device goroutine's locked thread.

package cuda

import "syscall"

func threadID() int { return syscall.Gettid() }
