// The open flag that keeps opening a named pipe from waiting for a writer, on systems that have it.

//go:build unix

package userfile

import "syscall"

const nonBlock = syscall.O_NONBLOCK
