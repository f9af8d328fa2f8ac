// The pushdown automaton's moves. A matcher state is a set of stacks, each a top (rule, state) over a persistent
// linked list of frames (rule, return state) shared between stacks and between the states kept for rollback, so
// a step copies nothing below the top. Frames are hash-consed (interner), which makes stacks comparable by
// pointer and keeps the set of stacks free of duplicates.
package grammar

// frame is a stack entry below the top: the rule to resume and the state to resume at once the rule above it has
// completed. A nil parent is the bottom of the stack.
type frame struct {
	rule, state int32
	parent      *frame
}

// top is one stack's current position: its top rule and state and the frames below.
type top struct {
	rule, state int32
	parent      *frame
}

// escape is the bottom used by the per-state token tables: popping onto it means the rule under study has
// completed and what follows depends on the stack below, which the table cannot know.
var escape = &frame{rule: -1, state: -1}

// config is a set of stacks after closure: every top has byte transitions; end says that the input so far is a
// complete sentence (the root rule popped off an empty stack), esc that the studied rule completed (escape).
type config struct {
	tops []top
	end  bool
	esc  bool
}

// alive reports whether the input so far is a prefix of the language (for table walks: of the studied rule's
// language followed by anything).
func (c *config) alive() bool { return len(c.tops) > 0 || c.end || c.esc }

// interner hash-conses frames.
type interner map[frame]*frame

func (in interner) get(rule, state int32, parent *frame) *frame {
	k := frame{rule, state, parent}
	if f, ok := in[k]; ok {
		return f
	}
	f := &frame{rule, state, parent}
	in[k] = f
	return f
}

// runner executes moves of one automaton with scratch buffers; not safe for concurrent use.
type runner struct {
	a    *Automaton
	in   interner
	work []top
	seen []top
}

func newRunner(a *Automaton) *runner { return &runner{a: a, in: interner{}} }

// closure expands seeds into dst: tops with byte transitions are kept, completed rules pop, and push edges
// start their rules. It terminates because left recursion is rejected at compile time.
func (r *runner) closure(dst *config, seeds []top) {
	dst.tops, dst.end, dst.esc = dst.tops[:0], false, false
	// The common case: one stack whose state neither pushes nor ends.
	if len(seeds) == 1 {
		st := &r.a.rules[seeds[0].rule].states[seeds[0].state]
		if len(st.refs) == 0 && !st.accept {
			dst.tops = append(dst.tops, seeds[0])
			return
		}
	}
	r.work = append(r.work[:0], seeds...)
	r.seen = r.seen[:0]
	for len(r.work) > 0 {
		t := r.work[len(r.work)-1]
		r.work = r.work[:len(r.work)-1]
		dup := false
		for _, s := range r.seen {
			if s == t {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		r.seen = append(r.seen, t)
		st := &r.a.rules[t.rule].states[t.state]
		if st.next != nil {
			dst.tops = append(dst.tops, t)
		}
		if st.accept {
			switch t.parent {
			case nil:
				dst.end = true
			case escape:
				dst.esc = true
			default:
				r.work = append(r.work, top{t.parent.rule, t.parent.state, t.parent.parent})
			}
		}
		for _, e := range st.refs {
			r.work = append(r.work, top{e.rule, 0, r.in.get(t.rule, e.to, t.parent)})
		}
	}
}

// advance consumes byte b from src into dst (dst must not alias src).
func (r *runner) advance(dst, src *config, b byte) {
	c := r.a.classOf[b]
	seeds := r.work[:0]
	for _, t := range src.tops {
		if n := r.a.rules[t.rule].states[t.state].next[c]; n >= 0 {
			seeds = append(seeds, top{t.rule, n, t.parent})
		}
	}
	if len(seeds) == 0 {
		dst.tops, dst.end, dst.esc = dst.tops[:0], false, false
		return
	}
	// closure reuses r.work; hand it a copy of the seeds when there are several.
	if len(seeds) == 1 {
		one := [1]top{seeds[0]}
		r.closure(dst, one[:])
		return
	}
	cp := make([]top, len(seeds))
	copy(cp, seeds)
	r.closure(dst, cp)
}

// start is the closure of the root rule's start on an empty stack.
func (r *runner) start() config {
	var c config
	r.closure(&c, []top{{0, 0, nil}})
	return c
}
