// The OS thread id, used to recognise the device goroutine's locked thread.

package driver

import "syscall"

func threadID() int { return syscall.Gettid() }
