//go:build !linux

// No device ever opens off linux, so no thread needs recognising.

package driver

func threadID() int { return -1 }
