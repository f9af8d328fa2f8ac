// Backtracking matcher for the patterns regex.go parses.
//
// The AST compiles into a linked program: each op knows the op that follows it, so a sequence runs as a loop and
// only choice points (alternation, repetition, lookaround) recurse. Leftmost-first semantics, as Oniguruma and
// Perl: alternatives in order, greedy repetition longest first. Single-rune repetitions (\p{L}+, \s*, the bulk of
// every tokenizer pattern) run as counted loops with no recursion per rune. Patterns are tiny and pieces are short,
// so no memoisation; a search has a step budget linear in its input instead, which shipped patterns stay far
// inside and which stops a hostile one that backtracks exponentially.
package tokenizer

import "fmt"

// opKind names one program instruction.
type opKind uint8

const (
	opChar      opKind = iota // one rune in set, then next
	opRun                     // min..max runes in set (greedy, lazy or possessive), then next
	opAlt                     // try alts in order
	opLoop                    // general repetition: body (ending in opLoopBack) or next
	opLoopBack                // end of a loop body: back to loop, unless the iteration was empty
	opLook                    // lookaround: body must (not) match here, then next
	opAtomic                  // body once, no backtracking into it, then next at its end
	opAccept                  // end of a lookahead/atomic body: record position in slot id
	opBehindEnd               // end of a lookbehind body: succeed only at the position in slot id
	opAssert                  // zero-width assertion, then next
	opMatch                   // end of the whole pattern
)

// op is one instruction; fields are used per kind as noted on opKind.
type op struct {
	kind     opKind
	set      *runeSet
	min, max int
	mode     repMode
	alts     []*op
	body     *op
	next     *op
	loop     *op
	id       int // slot index (loop iteration start, accept position, lookbehind target)
	negate   bool
	behind   bool
	assert   assertKind
}

// regex is a compiled pattern. It is immutable; matching state lives in matchState, so one regex serves
// concurrent callers.
type regex struct {
	src    string
	prog   *op
	nslots int
}

// maxRegexOps bounds a compiled program. Counted repetition of a group unrolls into copies, so nested intervals
// multiply: ((a{0,1000}){0,1000}){0,1000} would be a billion ops. Real patterns compile to a few dozen.
const maxRegexOps = 1 << 16

// compileRegex parses and compiles an Oniguruma-dialect pattern.
func compileRegex(pattern string) (*regex, error) {
	ast, err := parseRegex(pattern)
	if err != nil {
		return nil, err
	}
	if n := progSize(ast); n > maxRegexOps {
		return nil, fmt.Errorf("regex %q: compiles to more than %d instructions (nested counted repetition)", pattern, maxRegexOps)
	}
	re := &regex{src: pattern}
	re.prog = re.compile(ast, &op{kind: opMatch})
	return re, nil
}

// mustCompileRegex compiles a pattern fixed in this package's source; failure is a programmer error.
func mustCompileRegex(pattern string) *regex {
	re, err := compileRegex(pattern)
	if err != nil {
		panic(fmt.Sprintf("tokenizer: built-in pattern: %v", err))
	}
	return re
}

func (re *regex) slot() int { re.nslots++; return re.nslots - 1 }

// compile emits n's program, continuing at next.
func (re *regex) compile(n *reNode, next *op) *op {
	switch n.kind {
	case reEmpty:
		return next
	case reChar:
		n.set.prepare()
		return &op{kind: opChar, set: n.set, next: next}
	case reConcat:
		for i := len(n.subs) - 1; i >= 0; i-- {
			next = re.compile(n.subs[i], next)
		}
		return next
	case reAlt:
		alt := &op{kind: opAlt}
		for _, s := range n.subs {
			alt.alts = append(alt.alts, re.compile(s, next))
		}
		return alt
	case reAssert:
		return &op{kind: opAssert, assert: n.assert, next: next}
	case reLook:
		o := &op{kind: opLook, negate: n.negate, behind: n.behind, next: next, id: re.slot()}
		end := &op{kind: opAccept, id: o.id}
		if n.behind {
			end.kind = opBehindEnd
		}
		o.body = re.compile(n.subs[0], end)
		return o
	case reAtomic:
		o := &op{kind: opAtomic, next: next, id: re.slot()}
		o.body = re.compile(n.subs[0], &op{kind: opAccept, id: o.id})
		return o
	case reRepeat:
		return re.compileRepeat(n, next)
	}
	panic(fmt.Sprintf("tokenizer: regex node kind %d has no compiler", n.kind))
}

// progSize is the number of ops compile emits for n (as compileRepeat unrolls it), saturating just above
// maxRegexOps so that nested intervals cannot overflow the count.
func progSize(n *reNode) int {
	sat := func(x int) int { return min(x, maxRegexOps+1) }
	switch n.kind {
	case reEmpty:
		return 0
	case reConcat, reAlt:
		size := 1
		for _, s := range n.subs {
			size = sat(size + progSize(s))
		}
		return size
	case reLook, reAtomic:
		return sat(2 + progSize(n.subs[0]))
	case reRepeat:
		if n.subs[0].kind == reChar {
			return 1
		}
		copies := n.min + max(n.max-n.min, 1) // an unbounded loop compiles its body once
		return sat(2 + copies*(progSize(n.subs[0])+1))
	}
	return 1
}

// compileRepeat emits sub{min,max}. Single-rune subs become one opRun; others unroll min copies, then either a
// loop (unbounded) or max-min nested optional copies, x{0,3} = (?:x(?:x(?:x)?)?)?.
func (re *regex) compileRepeat(n *reNode, next *op) *op {
	sub := n.subs[0]
	if sub.kind == reChar {
		sub.set.prepare()
		return &op{kind: opRun, set: sub.set, min: n.min, max: n.max, mode: n.mode, next: next}
	}
	if n.mode == possessive {
		inner := &reNode{kind: reRepeat, subs: n.subs, min: n.min, max: n.max, mode: greedy}
		return re.compile(&reNode{kind: reAtomic, subs: []*reNode{inner}}, next)
	}
	var tail *op
	if n.max < 0 {
		loop := &op{kind: opLoop, mode: n.mode, next: next, id: re.slot()}
		loop.body = re.compile(sub, &op{kind: opLoopBack, loop: loop})
		tail = loop
	} else {
		tail = next
		for k := 0; k < n.max-n.min; k++ {
			body := re.compile(sub, tail)
			if n.mode == lazy {
				tail = &op{kind: opAlt, alts: []*op{next, body}}
			} else {
				tail = &op{kind: opAlt, alts: []*op{body, next}}
			}
		}
	}
	for k := 0; k < n.min; k++ {
		tail = re.compile(sub, tail)
	}
	return tail
}

// matchState is the mutable state of one search.
type matchState struct {
	in    []rune
	slots []int
	end   int
	// steps is what is left of the search's budget of ops and scanned runes; below zero nothing matches.
	steps int
}

// The step budget of one findAll: a base plus a fixed number per input rune. Patterns that tokenizers ship take a
// few steps per rune; a hostile one that backtracks catastrophically ((a|aa)*c over a run of a's) would
// otherwise run for ages. Like Oniguruma past its retry limit, an exhausted search stops matching: the rest of
// the input is left as one non-matching span.
const (
	regexBaseSteps    = 1 << 22
	regexStepsPerRune = 1 << 10
)

// findAll returns the non-overlapping leftmost-first matches in in as rune ranges [start, end), in order. After
// an empty match the scan moves one rune on, and an empty match right at the previous match's end is skipped
// (the rule Oniguruma's and Rust's iterators share).
func (re *regex) findAll(in []rune) [][2]int {
	st := &matchState{in: in, slots: make([]int, re.nslots), steps: regexBaseSteps + regexStepsPerRune*len(in)}
	var out [][2]int
	lastEnd := -1
	for pos := 0; pos <= len(in); {
		s, e, ok := st.search(re.prog, pos)
		if !ok || st.steps < 0 {
			break
		}
		if s == e && s == lastEnd {
			pos = s + 1
			continue
		}
		out = append(out, [2]int{s, e})
		lastEnd = e
		if e == s {
			pos = e + 1
		} else {
			pos = e
		}
	}
	return out
}

// search finds the leftmost match starting at or after pos.
func (st *matchState) search(prog *op, pos int) (start, end int, ok bool) {
	for s := pos; s <= len(st.in) && st.steps >= 0; s++ {
		if st.run(prog, s) {
			return s, st.end, true
		}
	}
	return 0, 0, false
}

// run reports whether the program from o matches at rune index i; on success st.end (or a slot) holds the end.
func (st *matchState) run(o *op, i int) bool {
	in := st.in
	for {
		st.steps--
		if st.steps < 0 {
			return false
		}
		switch o.kind {
		case opChar:
			if i >= len(in) || !o.set.has(in[i]) {
				return false
			}
			i++
			o = o.next
		case opRun:
			n := 0
			for i+n < len(in) && (o.max < 0 || n < o.max) && o.set.has(in[i+n]) {
				n++
			}
			st.steps -= n
			if n < o.min {
				return false
			}
			switch o.mode {
			case possessive:
				i += n
				o = o.next
				continue
			case lazy:
				for j := o.min; j <= n; j++ {
					if st.run(o.next, i+j) {
						return true
					}
				}
				return false
			}
			for j := n; j >= o.min; j-- {
				if st.run(o.next, i+j) {
					return true
				}
			}
			return false
		case opAlt:
			last := len(o.alts) - 1
			for _, a := range o.alts[:last] {
				if st.run(a, i) {
					return true
				}
			}
			o = o.alts[last]
		case opLoop:
			old := st.slots[o.id]
			if o.mode == lazy {
				if st.run(o.next, i) {
					return true
				}
				st.slots[o.id] = i
				ok := st.run(o.body, i)
				st.slots[o.id] = old
				return ok
			}
			st.slots[o.id] = i
			if st.run(o.body, i) {
				return true
			}
			st.slots[o.id] = old
			o = o.next
		case opLoopBack:
			if i == st.slots[o.loop.id] {
				return false // an empty iteration would loop forever; the loop exits instead
			}
			o = o.loop
		case opLook:
			found := false
			if o.behind {
				for s := i; s >= 0 && !found; s-- {
					st.slots[o.id] = i
					found = st.run(o.body, s)
				}
			} else {
				found = st.run(o.body, i)
			}
			if found == o.negate {
				return false
			}
			o = o.next
		case opAtomic:
			if !st.run(o.body, i) {
				return false
			}
			i = st.slots[o.id]
			o = o.next
		case opAccept:
			st.slots[o.id] = i
			return true
		case opBehindEnd:
			return i == st.slots[o.id]
		case opAssert:
			if !st.assertAt(o.assert, i) {
				return false
			}
			o = o.next
		case opMatch:
			st.end = i
			return true
		default:
			panic(fmt.Sprintf("tokenizer: regex op kind %d has no interpreter", o.kind))
		}
	}
}

// assertAt evaluates a zero-width assertion at rune index i.
func (st *matchState) assertAt(k assertKind, i int) bool {
	in := st.in
	switch k {
	case assertLineStart:
		return i == 0 || in[i-1] == '\n'
	case assertLineEnd:
		return i == len(in) || in[i] == '\n'
	case assertTextStart:
		return i == 0
	case assertTextEnd:
		return i == len(in)
	case assertTextEndNL:
		return i == len(in) || (i == len(in)-1 && in[i] == '\n')
	case assertWordB, assertNotWordB:
		before := i > 0 && isWordRune(in[i-1])
		after := i < len(in) && isWordRune(in[i])
		return (before != after) == (k == assertWordB)
	}
	return false
}
