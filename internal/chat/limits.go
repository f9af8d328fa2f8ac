// This file bounds what a template can make Render do. The engine has no step limit, recursion limit, memory
// limit or timeout, and a chat template comes with a downloaded model, so without these a template could hang
// the server or crash it outright: 'x' * 10000000000 allocates ten gigabytes in one call, a value doubled in a
// loop grows past any memory, a macro that calls itself overflows the Go stack and a list appended to itself
// makes printing recurse forever — none of which a recover catches. Hugging Face renders in Jinja2's sandbox,
// which caps range() at 100000 items, and Python stops runaway recursion at its recursion limit; the limits
// here follow those and add the memory and time bounds Python leaves to the operating system.
//
// The engine offers no hook, but we already rewrite every template (lex.go), so the rewrite plants calls to
// guard functions that Render defines (guard.go has the table of what is guarded and how). The guards keep an
// invariant — no value the template makes exceeds maxValueBytes, counting every use of a shared list, and no
// list or dict contains itself — and check the few operations that could break it before they run (string
// repetition, filters and methods whose output can outgrow their input). Everything else the engine does costs
// at most a constant times the size of values that obey the invariant. On top of that each render has budgets
// for its output, its loop iterations, its macro depth and its work, and a wall-clock limit as a last resort.
// A budget exceeded is an error naming the construct: its line and text.
package chat

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ardanlabs/jinja"
)

const (
	// maxRange is Jinja2's sandbox MAX_RANGE: the most items range() may make.
	maxRange = 100000
	// maxLoopSteps bounds the for-loop iterations of one render, summed over all loops and charged when a loop
	// starts (so a loop whose "if" filter rejects every item counts too). Real templates iterate over messages
	// and tools.
	maxLoopSteps = 1 << 20
	// maxMacroDepth bounds nested macro calls. Python's default recursion limit is 1000 frames and a Jinja2
	// macro call takes several, so Hugging Face fails before this depth.
	maxMacroDepth = 1000
	// maxValueBytes bounds any one value a template makes: a string's bytes, a list's printed text plus
	// containerCost per item. A prompt of a million tokens is about 4 MiB.
	maxValueBytes = 32 << 20
	// maxOutputBytes bounds what one render prints (a macro's output counts again where it is printed).
	maxOutputBytes = 64 << 20
	// maxValueDepth bounds how deep lists and dicts nest; printing recurses as deep.
	maxValueDepth = 256

	// containerCost is what a list item or dict entry counts for beyond its printed text: the memory it holds.
	containerCost = 32
	// maxFormatBytes bounds strftime_now's format (each directive prints at most a few dozen bytes).
	maxFormatBytes = 1 << 16
)

// workLimit bounds the bytes and items the guards account for in one render (strings made, items walked, loop
// iterations): about a second of work, and a bound on what a render allocates in all. A variable, like
// renderTimeLimit, so that the fuzz target can hold each input to less.
var workLimit int64 = 1 << 29

// renderTimeLimit is the last resort should some work escape the accounts (comparing two large strings in every
// iteration of a loop, say): each loop iteration, loop filter test and macro call checks it. A variable so that
// tests need not wait for it.
var renderTimeLimit = 5 * time.Second

// guardMacroLeave is the guard planted before each endmacro (the per-site ones are named by guardName).
const guardMacroLeave = "__mlxbun_macro_leave"

// limitError is a budget exceeded at a site: what names the construct ("line 3: 'x' * 10000000000").
type limitError struct{ what, msg string }

func (e *limitError) Error() string {
	if e.what == "" {
		return e.msg
	}
	return e.what + ": " + e.msg
}

// budget is one render's accounts.
type budget struct {
	sites []site
	start time.Time
	steps int           // loop iterations charged
	depth int           // macro calls open
	out   int64         // bytes printed
	work  int64         // bytes and items accounted
	recv  []jinja.Value // per siteRecv: the receiver of the method call being made
	// memo holds the measures of lists and dicts already walked in this render, parents which memoized
	// containers hold each one; every guard that lets a container change forgets it and its holders (changed).
	// The engine also updates each loop's "loop" dict itself; a stale measure of it is off by at most one item,
	// which no template can compound.
	memo    map[any]measure
	parents map[any]map[any]bool
}

func newBudget(sites []site) *budget {
	return &budget{sites: sites, start: time.Now(), recv: make([]jinja.Value, len(sites))}
}

func (b *budget) fail(s *site, format string, a ...any) error {
	what := ""
	if s != nil {
		what = s.what
	}
	return &limitError{what, fmt.Sprintf(format, a...)}
}

// charge adds n to the work done and checks the work and time budgets.
func (b *budget) charge(s *site, n int64) error {
	if b.work += n; b.work > workLimit {
		return b.fail(s, "the render exceeds its work budget (%d bytes and items handled)", workLimit)
	}
	if time.Since(b.start) > renderTimeLimit {
		return b.fail(s, "the render has run longer than %v", renderTimeLimit)
	}
	return nil
}

// define adds the guard functions, one per site, and the bounded range to vars.
func (b *budget) define(vars map[string]jinja.Value) {
	empty := jinja.NewString("")
	vars[guardMacroLeave] = jinja.NewCallable(guardMacroLeave, func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
		b.depth--
		return empty, nil
	})
	vars["range"] = jinja.NewCallable("range", boundedRange)
	for i := range b.sites {
		name := guardName(i)
		vars[name] = jinja.NewCallable(name, b.guard(&b.sites[i], i))
	}
}

type callable = func(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error)

func arg0(args []jinja.Value) jinja.Value {
	if len(args) == 0 {
		return jinja.Undefined()
	}
	return args[0]
}

// guard is site i's function.
func (b *budget) guard(s *site, i int) callable {
	switch s.kind {
	case siteOut:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			v := arg0(args)
			if err := b.output(s, v); err != nil {
				return jinja.Undefined(), err
			}
			return v, nil
		}
	case siteValue:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			v := arg0(args)
			return v, b.value(s, v)
		}
	case siteMul:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			a := arg0(args)
			return jinja.NewCallable("*", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
				return b.multiply(s, a, arg0(args))
			}), nil
		}
	case siteRecv:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			b.recv[i] = arg0(args)
			return b.recv[i], nil
		}
	case siteMethod:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			recv, bound := b.recv[s.recv], arg0(args)
			return jinja.NewCallable(s.name, func(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
				return b.method(s, recv, bound, args, kwargs)
			}), nil
		}
	case siteFilter:
		return func(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
			return b.filter(s, args, kwargs)
		}
	case siteIter:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			v := arg0(args)
			var n int
			switch {
			case v.IsList():
				n = v.AsList().Len()
			case v.IsDict():
				n = v.AsDict().Len()
			case v.IsString():
				n = utf8.RuneCountInString(v.AsString())
			}
			if b.steps += n; b.steps > maxLoopSteps {
				return jinja.Undefined(), b.fail(s, "for loops would run more than %d iterations", maxLoopSteps)
			}
			return v, b.charge(s, int64(n))
		}
	case siteStore:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			ns := arg0(args)
			return jinja.NewCallable("set", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
				v := arg0(args)
				if ns.IsDict() {
					old, _ := ns.AsDict().Get(s.name)
					if err := b.grow(s, ns, v, old, "the namespace"); err != nil {
						return jinja.Undefined(), err
					}
				}
				return v, nil
			}), nil
		}
	case siteMacro:
		return func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
			if b.depth++; b.depth > maxMacroDepth {
				return jinja.Undefined(), b.fail(s, "macro calls nest deeper than %d", maxMacroDepth)
			}
			return jinja.NewString(""), b.charge(s, 1)
		}
	case siteTick:
		return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			v := jinja.NewString("")
			if len(args) > 0 {
				v = args[0]
			}
			return v, b.charge(s, 1)
		}
	case siteCall:
		return func(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
			f := arg0(args)
			if !f.IsCallable() {
				return jinja.Undefined(), fmt.Errorf("call: expression is not callable")
			}
			var rest []jinja.Value
			if len(args) > 1 {
				rest = args[1:]
			}
			res, err := f.AsCallable().Fn(rest, kwargs)
			if err != nil {
				return jinja.Undefined(), err
			}
			return res, b.output(s, res)
		}
	}
	panic(fmt.Sprintf("chat: site %d has unknown kind %d", i, s.kind))
}

// output accounts for v being printed.
func (b *budget) output(s *site, v jinja.Value) error {
	m, err := b.measure(s, v, maxOutputBytes-b.out)
	if err != nil {
		return err
	}
	if b.out += m.bytes; b.out > maxOutputBytes {
		return b.fail(s, "the rendered text would exceed %s", mib(maxOutputBytes))
	}
	return nil
}

// value checks a value just made against maxValueBytes; a string is charged for its bytes (made by a copy),
// a list or dict for the items its measure visited.
func (b *budget) value(s *site, v jinja.Value) error {
	m, err := b.measure(s, v, maxValueBytes)
	if err != nil {
		return err
	}
	if m.bytes > maxValueBytes {
		return b.fail(s, "makes a value of more than %s, the most a template value may hold", mib(maxValueBytes))
	}
	if v.IsString() {
		return b.charge(s, m.bytes)
	}
	return nil
}

// room checks that an operation about to make about n bytes stays within maxValueBytes; made says whether it
// copies them (and so is charged for them as work).
func (b *budget) room(s *site, n float64, what string, made bool) error {
	if n > maxValueBytes {
		return b.fail(s, "%s would make about %.0f bytes, more than the %s a template value may hold", what, n, mib(maxValueBytes))
	}
	if !made {
		return nil
	}
	return b.charge(s, int64(n))
}

// grow checks that putting v into the container c (in place of old, when it replaces a value) keeps c free of
// cycles and within maxValueBytes, and records c's measure after the change so that growing a list item by item
// costs each item once, not the whole list each time.
func (b *budget) grow(s *site, c, v, old jinja.Value, name string) error {
	if reaches(v, c) {
		return b.fail(s, "would make %s contain itself", name)
	}
	mc, err := b.measure(s, c, maxValueBytes)
	if err != nil {
		return err
	}
	mv, err := b.measure(s, v, maxValueBytes)
	if err != nil {
		return err
	}
	now := measure{bytes: mc.bytes + mv.bytes + containerCost + int64(len(s.name)) + 6, items: mc.items + mv.items + 1,
		depth: max(mc.depth, mv.depth+1)}
	if !old.IsUndefined() { // a replacement: the old value's share goes
		mo, err := b.measure(s, old, maxValueBytes)
		if err != nil {
			return err
		}
		now.bytes, now.items = max(mc.bytes-mo.bytes, 2)+mv.bytes, max(mc.items-mo.items, 0)+mv.items
	}
	if err := b.room(s, float64(now.bytes), "adding to "+name, false); err != nil {
		return err
	}
	if now.depth > maxValueDepth {
		return b.fail(s, "lists and dicts would nest deeper than %d levels", maxValueDepth)
	}
	b.changed(c, &now)
	return nil
}

// multiply is the engine's a * b (mulValues) with the repetition checked first. A negative count repeats
// nothing, as in Python (the engine would panic).
func (b *budget) multiply(s *site, x, y jinja.Value) (jinja.Value, error) {
	if x.IsString() && y.IsInt() {
		str, n := x.AsString(), y.AsInt()
		if n <= 0 || str == "" {
			return jinja.NewString(""), nil
		}
		if err := b.room(s, float64(len(str))*float64(n), fmt.Sprintf("repeating a %d-byte string %d times", len(str), n), true); err != nil {
			return jinja.Undefined(), err
		}
		return jinja.NewString(strings.Repeat(str, int(n))), nil
	}
	if x.IsFloat() || y.IsFloat() {
		return jinja.NewFloat(toFloat(x) * toFloat(y)), nil
	}
	return jinja.NewInt(toInt(x) * toInt(y)), nil
}

// toInt and toFloat are the engine's toInt64 and toFloat64.
func toInt(v jinja.Value) int64 {
	switch {
	case v.IsInt():
		return v.AsInt()
	case v.IsFloat():
		return int64(v.AsFloat())
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

func toFloat(v jinja.Value) float64 {
	switch {
	case v.IsFloat():
		return v.AsFloat()
	case v.IsInt():
		return float64(v.AsInt())
	case v.IsBool():
		if v.AsBool() {
			return 1
		}
		return 0
	case v.IsString():
		var f float64
		fmt.Sscanf(v.AsString(), "%f", &f)
		return f
	}
	return 0
}

// method calls bound, the method name of recv, checking what it would make first and the result after.
func (b *budget) method(s *site, recv, bound jinja.Value, args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if !bound.IsCallable() {
		return jinja.Undefined(), fmt.Errorf("%s is not callable: %s", s.name, shortString(bound))
	}
	var in measure
	var err error
	if recv.IsString() || recv.IsList() || recv.IsDict() {
		if in, err = b.measure(s, recv, maxValueBytes); err != nil {
			return jinja.Undefined(), err
		}
	}
	argBytes := float64(0)
	for _, a := range args {
		m, err := b.measure(s, a, maxValueBytes)
		if err != nil {
			return jinja.Undefined(), err
		}
		argBytes += float64(m.bytes)
	}
	name := s.name + "()"
	switch {
	case recv.IsString():
		str := recv.AsString()
		n := float64(len(str))
		switch s.name {
		case "replace":
			if len(args) >= 2 {
				err = b.room(s, replaced(str, plain(args[0]), float64(len(plain(args[1])))), name, true)
			}
		case "format":
			// Each argument replaces its placeholders, and may bring more for the next one: bound each
			// step by the placeholders the text can hold (at least two bytes each).
			for _, a := range args {
				n += (n/2 + 1) * float64(len(plain(a)))
			}
			err = b.room(s, n, name, true)
		case "split":
			parts := n/2 + 1 // strings.Fields
			if len(args) > 0 {
				parts = replaced(str, plain(args[0]), 1) - n + 1
			}
			err = b.room(s, parts*(containerCost+16)+n, name, true)
		case "upper", "lower":
			err = b.room(s, 3*n, name, true)
		case "title", "capitalize":
			err = b.room(s, 7*n, name, true)
		default:
			err = b.room(s, n+argBytes, name, true)
		}
	case recv.IsList() && (s.name == "append" || s.name == "insert") && len(args) > 0:
		err = b.grow(s, recv, args[len(args)-1], jinja.Undefined(), "the list")
	case recv.IsDict() && s.name == "update" && len(args) > 0:
		if err = b.grow(s, recv, args[0], jinja.Undefined(), "the dict"); err == nil {
			b.changed(recv, nil) // keys it replaces make the sum above too large: measure again when asked
		}
	default:
		if err = b.room(s, float64(in.bytes)+argBytes, name, false); err == nil && (recv.IsList() || recv.IsDict()) {
			switch s.name {
			case "items", "keys", "values", "get":
			default:
				b.changed(recv, nil) // pop, and whatever else may change the receiver
			}
		}
	}
	if err != nil {
		return jinja.Undefined(), err
	}
	res, err := bound.AsCallable().Fn(args, kwargs)
	if err != nil {
		return jinja.Undefined(), err
	}
	return res, b.value(s, res)
}

// replaced bounds the bytes strings.Replace(s, old, new) makes when new is newLen bytes: an empty old inserts new
// around every character.
func replaced(s, old string, newLen float64) float64 {
	var hits float64
	if old == "" {
		hits = float64(utf8.RuneCountInString(s) + 1)
	} else {
		hits = float64(strings.Count(s, old))
	}
	return float64(len(s)) + hits*newLen
}

// shortString is v as the engine's String would give it, for a message, without printing a large value.
func shortString(v jinja.Value) string {
	switch {
	case v.IsList():
		return fmt.Sprintf("a list of %d items", v.AsList().Len())
	case v.IsDict():
		return fmt.Sprintf("a dict of %d keys", v.AsDict().Len())
	case v.IsString() && len(v.AsString()) > 60:
		return "a string of " + fmt.Sprint(len(v.AsString())) + " bytes"
	}
	return v.String()
}

// mib formats a byte budget.
func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

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
