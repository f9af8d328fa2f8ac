// Systems where this package cannot read a process's start time: every recorded owner is of unknown liveness,
// so no work folder is ever removed by mistake.

//go:build !linux && !darwin

package quantize

func processStart(int) string { return "" }

func processExists(int) bool { return true }
