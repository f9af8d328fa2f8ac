// Systems other than macOS have no Neural Engine compiler: Open says so, and compile-ane lists the programs and
// fails with that one line.

//go:build !darwin

package ane

import (
	"fmt"
	"runtime"
)

// Open fails with ErrNoNeuralEngine: the compiler is a private macOS framework.
func Open() (Compiler, error) {
	return nil, fmt.Errorf("%w on %s/%s (the compiler is macOS's AppleNeuralEngine.framework, on Apple silicon)", ErrNoNeuralEngine, runtime.GOOS, runtime.GOARCH)
}
