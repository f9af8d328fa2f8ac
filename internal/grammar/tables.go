// Per-state token tables, XGrammar's split of the vocabulary: for every (rule, state) that can be a stack top, a
// walk of the vocabulary trie from that state with nothing known below it sorts each token into accepted (it fits
// inside the rule whatever the stack holds), rejected (it fails inside the rule), or uncertain (the rule can end
// before the token does, so the rest depends on the stack). Filling a mask then ORs the accepted set of each top
// and checks only the uncertain tokens against the real stack. Grammars without recursion compile to one rule,
// where no token is uncertain.
package grammar

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// stateTable is one state's split. Accepted tokens are a packed bitmask when there are many, an id list when few.
type stateTable struct {
	dense     []uint32 // accepted ids as bits (nil when sparse)
	sparse    []int32  // accepted ids (when dense is nil)
	uncertain []int32  // ids in byte order (the trie's), so a walk over them shares prefixes
}

// Tables is an Automaton bound to a Vocab with a token table per stack-top state. Tables are built by background
// workers in breadth-first order from the start, and by FillMask itself for a state it reaches first, so a
// generation never waits for states it does not visit. Safe for concurrent use by the Matchers of many sequences.
type Tables struct {
	a     *Automaton
	v     *Vocab
	tabs  [][]lazyTable // [rule][state]; unused for states without byte transitions
	words int
	done  sync.WaitGroup
}

type lazyTable struct {
	once sync.Once
	tab  stateTable
}

// NewTables binds a to v and starts building every state's table in the background (Wait blocks until done).
func NewTables(a *Automaton, v *Vocab) *Tables { return newTables(a, v, runtime.GOMAXPROCS(0)) }

// newTables starts workers background builders (0: tables are built only when a fill needs them).
func newTables(a *Automaton, v *Vocab, workers int) *Tables {
	t := &Tables{a: a, v: v, tabs: make([][]lazyTable, len(a.rules)), words: v.MaskWords()}
	for r, rd := range a.rules {
		t.tabs[r] = make([]lazyTable, len(rd.states))
	}
	type job struct{ rule, state int32 }
	var jobs []job
	seen := make([][]bool, len(a.rules))
	for r := range seen {
		seen[r] = make([]bool, len(a.rules[r].states))
	}
	queue := []job{{0, 0}}
	seen[0][0] = true
	for i := 0; i < len(queue); i++ {
		j := queue[i]
		st := &a.rules[j.rule].states[j.state]
		if st.next != nil {
			jobs = append(jobs, j)
		}
		visit := func(n job) {
			if !seen[n.rule][n.state] {
				seen[n.rule][n.state] = true
				queue = append(queue, n)
			}
		}
		for _, n := range st.next {
			if n >= 0 {
				visit(job{j.rule, n})
			}
		}
		for _, e := range st.refs {
			visit(job{e.rule, 0})
			visit(job{j.rule, e.to})
		}
	}
	workers = min(workers, len(jobs))
	var next atomic.Int64
	t.done.Add(workers)
	for range workers {
		go func() {
			defer t.done.Done()
			w := newWalker(a, v)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				t.table(jobs[i].rule, jobs[i].state, w)
			}
		}()
	}
	return t
}

// Wait blocks until every state's table is built.
func (t *Tables) Wait() { t.done.Wait() }

// table returns the table of (rule, state), building it with w if nobody has.
func (t *Tables) table(rule, state int32, w *walker) *stateTable {
	lt := &t.tabs[rule][state]
	lt.once.Do(func() { lt.tab = w.table(rule, state) })
	return &lt.tab
}

// Automaton returns the compiled grammar.
func (t *Tables) Automaton() *Automaton { return t.a }

// Vocab returns the vocabulary.
func (t *Tables) Vocab() *Vocab { return t.v }

// noSubtreeSkip turns off pureWalk's whole-subtree acceptance (tests compare the tables with and without it).
var noSubtreeSkip bool

// walker holds the per-depth configurations of a trie walk.
type walker struct {
	r    *runner
	v    *Vocab
	pure []int32 // pureWalk's state per depth
	pc   []int32 // pureWalk's characters per depth
	accR [][2]int32
	rejR [][2]int32
	cfgs []config
	esc  []bool // esc[d]: the studied rule could complete after some prefix of length ≤ d
	acc  []int32
	unc  []int32
}

func newWalker(a *Automaton, v *Vocab) *walker {
	return &walker{r: newRunner(a), v: v, cfgs: make([]config, v.maxLen+1), esc: make([]bool, v.maxLen+1),
		pure: make([]int32, v.maxLen+1), pc: make([]int32, v.maxLen+1)}
}

// table walks the whole trie from (rule, state) with the escape frame as the bottom of the stack.
func (w *walker) table(rule, state int32) stateTable {
	clear(w.r.in) // frames of earlier walks are not needed
	v := w.v
	w.acc, w.unc = w.acc[:0], w.unc[:0]
	if w.r.a.pure {
		w.pureWalk(state)
		return w.finishPure()
	}
	w.cfgs[0] = config{tops: append(w.cfgs[0].tops[:0], top{rule, state, escape})}
	w.esc[0] = false
	nodes := v.nodes
	for i := 0; i < len(nodes)-1; {
		n := &nodes[i]
		d := int(n.depth)
		c := &w.cfgs[d]
		w.r.advance(c, &w.cfgs[d-1], n.label)
		if !c.alive() {
			if w.esc[d-1] {
				w.unc = append(w.unc, v.ids[n.tokFrom:nodes[n.end].tokFrom]...)
			}
			i = int(n.end)
			continue
		}
		w.esc[d] = w.esc[d-1] || c.esc
		w.acc = append(w.acc, v.ids[n.tokFrom:nodes[i+1].tokFrom]...)
		if len(c.tops) == 0 {
			// Nothing longer fits inside the rule; it may fit after the rule has ended.
			if w.esc[d] {
				w.unc = append(w.unc, v.ids[nodes[i+1].tokFrom:nodes[n.end].tokFrom]...)
			}
			i = int(n.end)
			continue
		}
		i++
	}
	return w.finish()
}

// pureWalk is table's walk for an automaton of one rule without push edges: a plain DFA over the flat
// transition table, no stacks. Reaching an end of the rule is harmless here (nothing is below it), so no token
// is uncertain.
func (w *walker) pureWalk(state int32) {
	v := w.v
	a := w.r.a
	nc := int32(a.nclass)
	flat, live, classOf, loop, sum := a.flat, a.hasNext, &a.classOf, a.loop, v.sum
	tset, tmb, tlen, skips, closed, tokChars := a.textSet, a.textMB, a.textLen, a.skips, a.textClosed, v.tokChars
	st, pc := w.pure, w.pc // state and characters so far at each depth
	st[0], pc[0] = state, 0
	nodes := v.nodes
	// Accepted and rejected tokens are recorded as ranges of v.ids (trie order): a skipped subtree is one range,
	// so the cost is the nodes visited, not the tokens decided.
	w.accR, w.rejR = w.accR[:0], w.rejR[:0]
	for i := 0; i < len(nodes)-1; {
		n := &nodes[i]
		q := st[n.depth-1]
		s := flat[q*nc+int32(classOf[n.label])]
		if s < 0 {
			w.rejR = addRange(w.rejR, n.tokFrom, nodes[n.end].tokFrom)
			i = int(n.end)
			continue
		}
		// A live subtree is accepted whole, without stepping through it, when it is ASCII and q loops on every
		// byte in it, or when every path of the subtree is a valid UTF-8 prefix no longer than q's text run,
		// over its ASCII set (and multi-byte characters when the run takes them): free text in a string, or
		// what fits of it.
		if skips[q] && !noSubtreeSkip {
			l, sm, ts := &loop[q], &sum[i], &tset[q]
			if !sm.high && sm.ascii[0]&^l[0]|sm.ascii[1]&^l[1] == 0 {
				w.accR = addRange(w.accR, n.tokFrom, nodes[n.end].tokFrom)
				i = int(n.end)
				continue
			}
			if sm.ascii[0]&^ts[0]|sm.ascii[1]&^ts[1] == 0 && (!sm.high || tmb[q] && sm.utf8) {
				if int32(sm.chars) <= tlen[q] {
					w.accR = addRange(w.accR, n.tokFrom, nodes[n.end].tokFrom)
					i = int(n.end)
					continue
				}
				if closed[q] {
					// Past the run nothing of its text is accepted: a token fits iff its characters from
					// here on are at most the run.
					for p := n.tokFrom; p < nodes[n.end].tokFrom; p++ {
						if int32(tokChars[p])-pc[n.depth-1] <= tlen[q] {
							w.accR = addRange(w.accR, p, p+1)
						} else {
							w.rejR = addRange(w.rejR, p, p+1)
						}
					}
					i = int(n.end)
					continue
				}
			}
		}
		st[n.depth] = s
		if n.label < 0x80 || n.label > 0xBF {
			pc[n.depth] = pc[n.depth-1] + 1
		} else {
			pc[n.depth] = pc[n.depth-1]
		}
		w.accR = addRange(w.accR, n.tokFrom, nodes[i+1].tokFrom)
		if !live[s] {
			w.rejR = addRange(w.rejR, nodes[i+1].tokFrom, nodes[n.end].tokFrom)
			i = int(n.end)
			continue
		}
		i++
	}
}

// addRange appends the v.ids positions [from, to) to rs, merging with the last range when they touch.
func addRange(rs [][2]int32, from, to int32) [][2]int32 {
	if from >= to {
		return rs
	}
	if n := len(rs); n > 0 && rs[n-1][1] == from {
		rs[n-1][1] = to
		return rs
	}
	return append(rs, [2]int32{from, to})
}

// finishPure packs pureWalk's ranges: few accepted tokens are listed; many are a bitmask built from the smaller
// side (setting the accepted bits, or clearing the rejected ones from every token with bytes).
func (w *walker) finishPure() stateTable {
	v := w.v
	var tab stateTable
	nacc, nrej := 0, 0
	for _, r := range w.accR {
		nacc += int(r[1] - r[0])
	}
	for _, r := range w.rejR {
		nrej += int(r[1] - r[0])
	}
	switch {
	case nacc == 0:
	case nacc <= v.MaskWords()/2:
		tab.sparse = make([]int32, 0, nacc)
		for _, r := range w.accR {
			tab.sparse = append(tab.sparse, v.ids[r[0]:r[1]]...)
		}
	case nacc <= nrej:
		tab.dense = make([]uint32, v.MaskWords())
		for _, r := range w.accR {
			for _, id := range v.ids[r[0]:r[1]] {
				tab.dense[id>>5] |= 1 << (id & 31)
			}
		}
	default:
		tab.dense = slices.Clone(v.all)
		for _, r := range w.rejR {
			for _, id := range v.ids[r[0]:r[1]] {
				tab.dense[id>>5] &^= 1 << (id & 31)
			}
		}
	}
	return tab
}

// finish packs the walk's accepted and uncertain ids into a table.
func (w *walker) finish() stateTable {
	v := w.v
	var tab stateTable
	if len(w.unc) > 0 {
		tab.uncertain = append([]int32(nil), w.unc...)
	}
	words := v.MaskWords()
	if len(w.acc) > words/2 {
		tab.dense = make([]uint32, words)
		for _, id := range w.acc {
			tab.dense[id>>5] |= 1 << (id & 31)
		}
	} else if len(w.acc) > 0 {
		tab.sparse = append([]int32(nil), w.acc...)
	}
	return tab
}

// check walks the given ids (byte order) from the one-stack configuration start and calls ok on each id whose
// bytes the full automaton accepts. Consecutive ids share the configurations of their common prefix; after a
// rejection, ids extending the rejected prefix are skipped without stepping.
func (w *walker) check(start top, ids []int32, ok func(int32)) {
	v := w.v
	w.cfgs[0] = config{tops: append(w.cfgs[0].tops[:0], start)}
	valid := 0 // cfgs[0..valid] hold the previous token's prefixes
	dead := -1 // the previous token died on its byte at this index (-1: accepted)
	var prev []byte
	for _, id := range ids {
		t := v.tokens[id]
		l := lcp(prev, t)
		prev = t
		if dead >= 0 && l > dead {
			continue // shares the dead prefix
		}
		d := min(l, valid)
		dead = -1
		for ; d < len(t); d++ {
			c := &w.cfgs[d+1]
			w.r.advance(c, &w.cfgs[d], t[d])
			if !c.alive() {
				dead = d
				break
			}
		}
		valid = d
		if dead < 0 {
			ok(id)
		}
	}
}

// orInto ORs the accepted set into mask.
func (tab *stateTable) orInto(mask []int32) {
	if tab.dense != nil {
		for i, w := range tab.dense {
			mask[i] |= int32(w)
		}
		return
	}
	for _, id := range tab.sparse {
		mask[id>>5] |= int32(uint32(1) << (id & 31))
	}
}
