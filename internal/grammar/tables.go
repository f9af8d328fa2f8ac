// Per-state token tables, XGrammar's split of the vocabulary: for every (rule, state) that can be a stack top, a
// walk of the vocabulary trie from that state with nothing known below it sorts each token into accepted (it fits
// inside the rule whatever the stack holds), rejected (it fails inside the rule), or uncertain (the rule can end
// before the token does, so the rest depends on the stack). Filling a mask then ORs the accepted set of each top
// and checks only the uncertain tokens against the real stack. Grammars without recursion compile to one rule,
// where no token is uncertain.
package grammar

import (
	"math/bits"
	"runtime"
	"sync"
)

// stateTable is one state's split. Accepted tokens are a packed bitmask when there are many, an id list when few.
type stateTable struct {
	dense     []uint32 // accepted ids as bits (nil when sparse)
	sparse    []int32  // accepted ids (when dense is nil)
	uncertain []int32  // ids in byte order (the trie's), so a walk over them shares prefixes
}

// Tables is an Automaton bound to a Vocab with every stack-top state's table computed. It is immutable and
// shared by the Matchers of every sequence using the grammar.
type Tables struct {
	a     *Automaton
	v     *Vocab
	tabs  [][]stateTable // [rule][state]; empty for states without byte transitions
	words int
}

// NewTables computes the tables of every state with byte transitions, spread over the CPUs.
func NewTables(a *Automaton, v *Vocab) *Tables {
	t := &Tables{a: a, v: v, tabs: make([][]stateTable, len(a.rules)), words: v.MaskWords()}
	type job struct{ rule, state int32 }
	var jobs []job
	for r, rd := range a.rules {
		t.tabs[r] = make([]stateTable, len(rd.states))
		for s, st := range rd.states {
			if st.next != nil {
				jobs = append(jobs, job{int32(r), int32(s)})
			}
		}
	}
	var wg sync.WaitGroup
	ch := make(chan job)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWalker(a, v)
			for j := range ch {
				t.tabs[j.rule][j.state] = w.table(j.rule, j.state)
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	return t
}

// Automaton returns the compiled grammar.
func (t *Tables) Automaton() *Automaton { return t.a }

// Vocab returns the vocabulary.
func (t *Tables) Vocab() *Vocab { return t.v }

// walker holds the per-depth configurations of a trie walk.
type walker struct {
	r    *runner
	v    *Vocab
	cfgs []config
	esc  []bool // esc[d]: the studied rule could complete after some prefix of length ≤ d
	acc  []int32
	unc  []int32
}

func newWalker(a *Automaton, v *Vocab) *walker {
	return &walker{r: newRunner(a), v: v, cfgs: make([]config, v.maxLen+1), esc: make([]bool, v.maxLen+1)}
}

// table walks the whole trie from (rule, state) with the escape frame as the bottom of the stack.
func (w *walker) table(rule, state int32) stateTable {
	clear(w.r.in) // frames of earlier walks are not needed
	v := w.v
	w.acc, w.unc = w.acc[:0], w.unc[:0]
	w.cfgs[0] = config{tops: append(w.cfgs[0].tops[:0], top{rule, state, escape})}
	w.esc[0] = false
	for i := 0; i < len(v.label); {
		d := int(v.depth[i])
		c := &w.cfgs[d]
		w.r.advance(c, &w.cfgs[d-1], v.label[i])
		if !c.alive() {
			if w.esc[d-1] {
				w.unc = append(w.unc, v.ids[v.tokFrom[i]:v.tokFrom[v.end[i]]]...)
			}
			i = int(v.end[i])
			continue
		}
		w.esc[d] = w.esc[d-1] || c.esc
		w.acc = append(w.acc, v.ids[v.tokFrom[i]:v.tokFrom[i+1]]...)
		if len(c.tops) == 0 {
			// Nothing longer fits inside the rule; it may fit after the rule has ended.
			if w.esc[d] {
				w.unc = append(w.unc, v.ids[v.tokFrom[i+1]:v.tokFrom[v.end[i]]]...)
			}
			i = int(v.end[i])
			continue
		}
		i++
	}
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

// popcount counts set bits of a mask (tests and reports).
func popcount(mask []int32) int {
	n := 0
	for _, w := range mask {
		n += bits.OnesCount32(uint32(w))
	}
	return n
}
