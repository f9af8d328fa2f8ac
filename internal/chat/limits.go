// This file bounds what a template can make Render do. The engine has no
// step limit, recursion limit or timeout, and a chat template comes with a
// downloaded model, so without these a template could hang the server with
// nested loops or crash it outright: a macro that calls itself overflows the
// Go stack, which no recover catches. Hugging Face renders in Jinja2's
// sandbox, which caps range() at 100000 items, and Python stops runaway
// recursion at its recursion limit; the limits here follow those.
//
// The engine offers no hook into loops or calls, but we already rewrite every
// template (lex.go), so the rewrite plants calls to three guard functions that
// Render defines: one at the top of each for-loop body counts iterations, and
// a pair around each macro body tracks call depth. Left out: memory. A
// template can still build a huge string ("a" * 10**11, or doubling one in a
// loop); the engine gives no way to see sizes as they grow.
package chat

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/ardanlabs/jinja"
)

const (
	// maxRange is Jinja2's sandbox MAX_RANGE: the most items range() may make.
	maxRange = 100000
	// maxLoopSteps bounds the for-loop iterations of one render, summed over
	// all loops. Real templates iterate over messages and tools.
	maxLoopSteps = 1 << 20
	// maxMacroDepth bounds nested macro calls. Python's default recursion
	// limit is 1000 frames and a Jinja2 macro call takes several, so Hugging
	// Face fails before this depth.
	maxMacroDepth = 1000
)

// Names of the guard functions the rewrite plants; no template uses them.
const (
	guardLoop       = "__mlxbun_loop_step"
	guardMacroEnter = "__mlxbun_macro_enter"
	guardMacroLeave = "__mlxbun_macro_leave"
)

// guardCalls returns the guard calls to emit before and after the block tag
// with content. Its keyword is read as the engine reads it (stmtKeyword): the
// leading run of letters and underscores, so "for(x) in y" is a loop too.
func guardCalls(content string) (before, after string) {
	content = strings.TrimSpace(content)
	end := strings.IndexFunc(content, func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
	if end < 0 {
		end = len(content)
	}
	switch content[:end] {
	case "for":
		return "", guardLoop + "()"
	case "macro":
		return "", guardMacroEnter + "()"
	case "endmacro":
		return guardMacroLeave + "()", ""
	}
	return "", ""
}

// limits is one render's count of loop steps and macro depth.
type limits struct {
	steps, depth int
}

// define adds the guard functions and the bounded range to vars.
func (l *limits) define(vars map[string]jinja.Value) {
	empty := jinja.NewString("")
	vars[guardLoop] = jinja.NewCallable(guardLoop, func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
		if l.steps++; l.steps > maxLoopSteps {
			return jinja.Undefined(), fmt.Errorf("for loops ran more than %d iterations", maxLoopSteps)
		}
		return empty, nil
	})
	vars[guardMacroEnter] = jinja.NewCallable(guardMacroEnter, func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
		if l.depth++; l.depth > maxMacroDepth {
			return jinja.Undefined(), fmt.Errorf("macro calls nest deeper than %d", maxMacroDepth)
		}
		return empty, nil
	})
	vars[guardMacroLeave] = jinja.NewCallable(guardMacroLeave, func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
		l.depth--
		return empty, nil
	})
	vars["range"] = jinja.NewCallable("range", boundedRange)
}

// boundedRange is the engine's range() (same argument conversions) with
// Jinja2's sandbox limit. It counts before it builds, so a huge range fails
// at once instead of filling memory, and an end near MaxInt64 cannot wrap.
func boundedRange(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	start, stop, step := int64(0), int64(0), int64(1)
	switch len(args) {
	case 1:
		stop = rangeInt(args[0])
	case 2:
		start, stop = rangeInt(args[0]), rangeInt(args[1])
	case 3:
		start, stop, step = rangeInt(args[0]), rangeInt(args[1]), rangeInt(args[2])
	default:
		return jinja.Undefined(), fmt.Errorf("range: expected 1-3 arguments, got %d", len(args))
	}
	var n uint64 // the number of items, computed without overflow
	switch {
	case step == 0:
		return jinja.Undefined(), fmt.Errorf("range: step must not be zero")
	case step > 0 && start < stop:
		n = (uint64(stop)-uint64(start)-1)/uint64(step) + 1
	case step < 0 && start > stop:
		n = (uint64(start)-uint64(stop)-1)/(-uint64(step)) + 1
	}
	if n > maxRange {
		return jinja.Undefined(), fmt.Errorf("range: %d items; the sandbox allows at most %d", n, maxRange)
	}
	items := make([]jinja.Value, n)
	for i := range items {
		items[i] = jinja.NewInt(start + int64(i)*step)
	}
	return jinja.NewList(items), nil
}

// rangeInt converts a range argument as the engine does: ints as they are,
// floats truncated (saturating), booleans as 0 or 1, strings by their
// leading integer, anything else 0.
func rangeInt(v jinja.Value) int64 {
	switch {
	case v.IsInt():
		return v.AsInt()
	case v.IsFloat():
		f := v.AsFloat()
		switch {
		case math.IsNaN(f):
			return 0
		case f >= math.MaxInt64:
			return math.MaxInt64
		case f <= math.MinInt64:
			return math.MinInt64
		}
		return int64(f)
	case v.IsBool():
		if v.AsBool() {
			return 1
		}
		return 0
	case v.IsString():
		var n int64
		fmt.Sscanf(v.AsString(), "%d", &n)
		return n
	}
	return 0
}
