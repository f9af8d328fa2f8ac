// The install step over a Compiler: which programs the compile cache holds (Status) and compiling those it does
// not (Install). The Compiler is this machine's: the private AppleNeuralEngine framework on macOS
// (compiler_darwin.go), none elsewhere (compiler_other.go), so nothing here can report work no Neural Engine did.
package ane

import (
	"errors"
	"fmt"
	"time"
)

// ErrNoNeuralEngine is wrapped by Open's error on a machine without a usable Neural Engine compiler: not macOS,
// the framework or its classes missing, or a Mac whose _ANEDeviceInfo says it has no Neural Engine.
var ErrNoNeuralEngine = errors.New("no Neural Engine")

// Compiler is one machine's Neural Engine compiler and its compile cache.
type Compiler interface {
	// Cached reports whether the cache holds the compiled program (the framework's compiledModelExists);
	// it compiles nothing.
	Cached(s Spec) (bool, error)
	// Compile compiles the program into the cache; the error carries the compiler's own text.
	Compile(s Spec) error
	// Describe names the Neural Engine for the report ("h13g, 1 engine").
	Describe() string
	Close() error
}

// State is what the install step knows of one program.
type State uint8

const (
	StateUnknown  State = iota // no compiler here: nothing was asked
	StateCached                // the cache held it before this run
	StateMissing               // the cache does not hold it (--status)
	StateCompiled              // this run compiled it
	StateFailed                // asking or compiling failed: Result.Err says why
)

func (s State) String() string {
	return [...]string{"unknown", "cached", "not cached", "compiled", "failed"}[s]
}

// Result is one program's state after Status or Install, with the time compiling took.
type Result struct {
	State   State
	Elapsed time.Duration
	Err     error
}

// Status asks the cache about every program, compiling nothing.
func Status(c Compiler, progs []Program) []Result {
	out := make([]Result, len(progs))
	for i, p := range progs {
		ok, err := c.Cached(p.Spec)
		switch {
		case err != nil:
			out[i] = Result{State: StateFailed, Err: fmt.Errorf("program %s: cache query: %w", p.Key, err)}
		case ok:
			out[i] = Result{State: StateCached}
		default:
			out[i] = Result{State: StateMissing}
		}
	}
	return out
}

// Install compiles every program the cache does not hold, in order; each finished program is passed to done
// (nil: not called). A program marked compiled is one the cache reports holding after its compile: a compile
// that returns without error but leaves no cache entry is a failure, not a success.
func Install(c Compiler, progs []Program, done func(i int, r Result)) []Result {
	out := make([]Result, len(progs))
	for i, p := range progs {
		out[i] = installOne(c, p)
		if done != nil {
			done(i, out[i])
		}
	}
	return out
}

func installOne(c Compiler, p Program) Result {
	ok, err := c.Cached(p.Spec)
	if err != nil {
		return Result{State: StateFailed, Err: fmt.Errorf("program %s: cache query: %w", p.Key, err)}
	}
	if ok {
		return Result{State: StateCached}
	}
	start := time.Now()
	if err := c.Compile(p.Spec); err != nil {
		return Result{State: StateFailed, Elapsed: time.Since(start), Err: fmt.Errorf("program %s (%s %s): %w", p.Key, p.Name(), p.Shapes(), err)}
	}
	elapsed := time.Since(start)
	if ok, err := c.Cached(p.Spec); err != nil || !ok {
		if err == nil {
			err = errors.New("the compiler returned success but the cache does not hold the program")
		}
		return Result{State: StateFailed, Elapsed: elapsed, Err: fmt.Errorf("program %s: after compiling: %w", p.Key, err)}
	}
	return Result{State: StateCompiled, Elapsed: elapsed}
}
