// Compilation of a Grammar to the pushdown automaton the matcher runs: rules that are not recursive are inlined
// into their callers (so that a JSON Schema without $ref cycles becomes one DFA and every token's fate is known
// per state), each remaining rule becomes a Thompson NFA over byte classes and rule references, then a DFA by
// subset construction, then a minimal DFA (Moore's partition refinement), then one with only useful states.
// Left recursion, undefined rules and rules that can never finish are errors naming the rule.
package grammar

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// Automaton is a compiled grammar: one DFA per rule over byte classes, with push edges for rule references.
// Rule 0 is the root. It is immutable and shared by every Matcher built from it.
type Automaton struct {
	classOf [256]uint8 // byte → class; every byte set of the grammar is a union of classes
	nclass  int
	rules   []ruleDFA

	// For a grammar of one rule without push edges (pure): rule 0's transitions as one state×class table and
	// whether each state has any, so table walks step a plain DFA.
	pure    bool
	flat    []int32
	hasNext []bool
	loop    []byteSet // per state: the bytes that lead straight back to it
	// Text runs: from state q, any UTF-8 text of at most textLen[q] characters whose ASCII bytes are in
	// textSet[q] (and, when textMB[q], with any multi-byte characters) is accepted, every prefix live. Free
	// text in a string has an unbounded run; a string with maxLength n has runs n, n-1, ... along its chain.
	textSet []([2]uint64)
	textMB  []bool
	textLen []int32
	// textClosed[q]: past its run, none of the run's characters is accepted, so text longer than the run is
	// rejected (the end of a maxLength string, where only the closing quote may come).
	textClosed []bool
	skips      []bool // per state: a loop or a text run, so table walks try whole-subtree acceptance
}

// ruleDFA is one rule's automaton; state 0 is the start.
type ruleDFA struct {
	name   string
	states []dstate
}

// dstate is a DFA state: byte-class transitions (nil when none, -1 where none), push edges, and whether the rule
// may end here.
type dstate struct {
	next   []int32
	refs   []refEdge
	accept bool
}

// refEdge pushes rule and continues at to once it completes.
type refEdge struct{ rule, to int32 }

// States counts the DFA states of all rules.
func (a *Automaton) States() int {
	n := 0
	for _, r := range a.rules {
		n += len(r.states)
	}
	return n
}

// Rules is the number of rules left after inlining (1 for a grammar without recursion).
func (a *Automaton) Rules() int { return len(a.rules) }

// Compile turns g into an Automaton.
func Compile(g *Grammar) (*Automaton, error) {
	for _, r := range g.rules {
		if r.body == nil {
			return nil, errf("rule %q is referenced but not defined", r.name)
		}
	}
	body, kept, err := inline(g)
	if err != nil {
		return nil, err
	}
	a := &Automaton{}
	a.classOf, a.nclass = byteClasses(body)
	states := 0
	for i, r := range kept {
		d, err := a.ruleToDFA(g.rules[r].name, body[i])
		if err != nil {
			return nil, err
		}
		if states += len(d.states); states > maxAllDFAStates {
			return nil, errf("rule %q: the automaton exceeds %d states over all %d rules", d.name, maxAllDFAStates, len(kept))
		}
		a.rules = append(a.rules, d)
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	a.flatten()
	return a, nil
}

// inline replaces every reference to a rule outside a recursion cycle by that rule's body. It returns the bodies
// of the kept rules (the root first, then the recursive rules the root reaches) with references renumbered to
// positions in that list.
func inline(g *Grammar) ([]*expr, []int, error) {
	rec := recursiveRules(g)
	memo := map[int]*expr{}
	var kept []int
	index := map[int]int{}
	keep := func(r int) int {
		if i, ok := index[r]; ok {
			return i
		}
		index[r] = len(kept)
		kept = append(kept, r)
		return index[r]
	}
	// Bodies are DAGs (a schema reuses one subtree in several places): each node is expanded once and the
	// copies share their expansions, so inlining costs the size of the DAG, not of the tree it spells.
	done := map[*expr]*expr{}
	var expand func(e *expr, depth int) (*expr, error)
	expand = func(e *expr, depth int) (*expr, error) {
		if depth > maxExprDepth {
			return nil, errf("grammar nests deeper than %d", maxExprDepth)
		}
		if x, ok := done[e]; ok {
			return x, nil
		}
		switch e.k {
		case kRef:
			if rec[e.ref] {
				return refTo(keep(e.ref)), nil
			}
			if x, ok := memo[e.ref]; ok {
				return x, nil
			}
			x, err := expand(g.rules[e.ref].body, depth+1)
			if err != nil {
				return nil, err
			}
			memo[e.ref] = x
			return x, nil
		case kSeq, kAlt, kRepeat:
			out := *e
			out.subs = make([]*expr, len(e.subs))
			for i, s := range e.subs {
				x, err := expand(s, depth+1)
				if err != nil {
					return nil, err
				}
				out.subs[i] = x
			}
			done[e] = &out
			return &out, nil
		}
		return e, nil
	}
	keep(g.root)
	var bodies []*expr
	for i := 0; i < len(kept); i++ { // kept grows while expanding
		b, err := expand(g.rules[kept[i]].body, 0)
		if err != nil {
			return nil, nil, err
		}
		bodies = append(bodies, b)
	}
	return bodies, kept, nil
}

// recursiveRules marks the rules on a reference cycle (Tarjan's strongly connected components).
func recursiveRules(g *Grammar) []bool {
	n := len(g.rules)
	calls := make([][]int, n)
	for i, r := range g.rules {
		seen := map[int]bool{}
		walkOnce(r.body, func(e *expr) {
			if e.k == kRef && !seen[e.ref] {
				seen[e.ref] = true
				calls[i] = append(calls[i], e.ref)
			}
		})
	}
	index, low := make([]int, n), make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	rec := make([]bool, n)
	var stack []int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range calls[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			for _, w := range comp {
				rec[w] = len(comp) > 1 || slices.Contains(calls[w], w)
			}
		}
	}
	for v := range n {
		if index[v] < 0 {
			visit(v)
		}
	}
	return rec
}

// walkOnce calls f once on every node under e: a subtree shared by several parents is visited once, so the walk
// costs the size of the DAG, not of the tree it spells (which grows exponentially with nested schemas).
func walkOnce(e *expr, f func(*expr)) {
	seen := map[*expr]bool{}
	var visit func(*expr)
	visit = func(e *expr) {
		if seen[e] {
			return
		}
		seen[e] = true
		f(e)
		for _, s := range e.subs {
			visit(s)
		}
	}
	visit(e)
}

// byteClasses partitions the 256 byte values so that every byte set in the bodies is a union of classes: two
// bytes share a class when no set tells them apart.
func byteClasses(bodies []*expr) ([256]uint8, int) {
	sets := map[byteSet]bool{}
	seen := map[*expr]bool{}
	var visit func(e *expr)
	visit = func(e *expr) {
		if seen[e] {
			return
		}
		seen[e] = true
		if e.k == kBytes {
			sets[e.set] = true
		}
		for _, s := range e.subs {
			visit(s)
		}
	}
	for _, b := range bodies {
		visit(b)
	}
	// A byte's signature is which sets contain it; equal signatures share a class.
	var keys [256]string
	var sb [256]strings.Builder
	for s := range sets {
		for b := range 256 {
			if s.has(byte(b)) {
				sb[b].WriteByte('1')
			} else {
				sb[b].WriteByte('0')
			}
		}
	}
	var classOf [256]uint8
	ids := map[string]int{}
	for b := range 256 {
		keys[b] = sb[b].String()
		id, ok := ids[keys[b]]
		if !ok {
			id = len(ids)
			ids[keys[b]] = id
		}
		classOf[b] = uint8(id)
	}
	return classOf, len(ids)
}

// nfa is a Thompson automaton for one rule body; state 1 is the start, state 0 unused.
type nfa struct {
	// Epsilon and labelled edges as linked lists in flat arrays (one allocation each, not one per state).
	epsHead, edgeHead []int32 // per state: first link, -1 for none
	eps               []epsLink
	edges             []edgeLink
	final             int32
	classSets         map[byteSet]byteSet // byte set → its set of classes
}

type epsLink struct{ to, next int32 }

type edgeLink struct {
	e    nedge
	next int32
}

func (n *nfa) addEps(from, to int32) {
	n.eps = append(n.eps, epsLink{to, n.epsHead[from]})
	n.epsHead[from] = int32(len(n.eps) - 1)
}

func (n *nfa) addEdge(from int32, e nedge) {
	n.edges = append(n.edges, edgeLink{e, n.edgeHead[from]})
	n.edgeHead[from] = int32(len(n.edges) - 1)
}

// nedge consumes one byte of classes (a set over class ids) or, when ref ≥ 0, pushes rule ref.
type nedge struct {
	classes byteSet
	ref     int32
	to      int32
}

func (n *nfa) add() (int32, error) {
	if len(n.epsHead) >= maxNFAStates {
		return 0, errf("grammar too large: more than %d automaton states after unrolling repetitions", maxNFAStates)
	}
	n.epsHead = append(n.epsHead, -1)
	n.edgeHead = append(n.edgeHead, -1)
	return int32(len(n.epsHead) - 1), nil
}

// build adds e between states from and to. Every alternative ends at the same state to (no per-branch end
// states joined by epsilon edges), so branches that finish alike give the subset construction one set, not one
// per branch. Loops get their own state, so no edge ever leads back into from.
func (n *nfa) build(a *Automaton, e *expr, from, to int32) error {
	switch e.k {
	case kEmpty:
		n.addEps(from, to)
		return nil
	case kBytes, kRef:
		ed := nedge{ref: -1, to: to}
		if e.k == kRef {
			ed.ref = int32(e.ref)
		} else if cs, ok := n.classSets[e.set]; ok {
			ed.classes = cs
		} else {
			for b := range 256 {
				if e.set.has(byte(b)) {
					c := a.classOf[b]
					ed.classes[c>>6] |= 1 << (c & 63)
				}
			}
			n.classSets[e.set] = ed.classes
		}
		n.addEdge(from, ed)
		return nil
	case kSeq:
		cur := from
		for i, sub := range e.subs {
			next := to
			if i < len(e.subs)-1 {
				var err error
				if next, err = n.add(); err != nil {
					return err
				}
			}
			if err := n.build(a, sub, cur, next); err != nil {
				return err
			}
			cur = next
		}
		return nil
	case kAlt:
		for _, sub := range e.subs {
			if err := n.build(a, sub, from, to); err != nil {
				return err
			}
		}
		return nil
	case kRepeat:
		cur := from
		for range e.min {
			next, err := n.add()
			if err != nil {
				return err
			}
			if err := n.build(a, e.subs[0], cur, next); err != nil {
				return err
			}
			cur = next
		}
		if e.max < 0 {
			loop, err := n.add()
			if err != nil {
				return err
			}
			n.addEps(cur, loop)
			if err := n.build(a, e.subs[0], loop, loop); err != nil {
				return err
			}
			n.addEps(loop, to)
			return nil
		}
		n.addEps(cur, to)
		for k := range e.max - e.min {
			next := to
			if k < e.max-e.min-1 {
				var err error
				if next, err = n.add(); err != nil {
					return err
				}
				n.addEps(next, to)
			}
			if err := n.build(a, e.subs[0], cur, next); err != nil {
				return err
			}
			cur = next
		}
		return nil
	}
	panic(fmt.Sprintf("grammar: unknown expression kind %d", e.k))
}

// ruleToDFA compiles one rule body to a minimal DFA.
func (a *Automaton) ruleToDFA(name string, body *expr) (ruleDFA, error) {
	size, err := checkNFASize(name, body)
	if err != nil {
		return ruleDFA{}, err
	}
	n := &nfa{classSets: map[byteSet]byteSet{}}
	n.epsHead, n.edgeHead = make([]int32, 0, size.states+3), make([]int32, 0, size.states+3)
	n.eps, n.edges = make([]epsLink, 0, size.edges/2+1), make([]edgeLink, 0, size.edges/2+1)
	if _, err := n.add(); err != nil { // state 0 unused
		return ruleDFA{}, err
	}
	start, _ := n.add()
	final, err := n.add()
	if err != nil {
		return ruleDFA{}, err
	}
	if err := n.build(a, body, start, final); err != nil {
		return ruleDFA{}, err
	}
	n.final = final
	states, err := a.subsets(name, n, start)
	if err != nil {
		if body.what != "" { // the front end's name for the whole body: the regex, the schema
			err = errAt(body.what, err)
		}
		return ruleDFA{}, err
	}
	return ruleDFA{name: name, states: minimize(states, a.nclass)}, nil
}

// closer computes epsilon closures with a reusable stamp array.
type closer struct {
	n     *nfa
	stamp []uint32
	gen   uint32
	stack []int32
	work  int64 // NFA states and epsilon edges visited, for the subset construction's budget
}

// close returns the sorted epsilon closure of set.
func (c *closer) close(set []int32) []int32 {
	c.gen++
	out := make([]int32, 0, len(set)*2)
	c.stack = append(c.stack[:0], set...)
	for _, s := range set {
		c.stamp[s] = c.gen
	}
	for len(c.stack) > 0 {
		s := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		out = append(out, s)
		c.work++
		for l := c.n.epsHead[s]; l >= 0; l = c.n.eps[l].next {
			c.work++
			t := c.n.eps[l].to
			if c.stamp[t] != c.gen {
				c.stamp[t] = c.gen
				c.stack = append(c.stack, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// setKey views s as a string without copying: a key for lookups, or for storing when s is never modified.
func setKey(s []int32) string {
	if len(s) == 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4))
}

// subsets is the subset construction: DFA states are epsilon-closed sets of NFA states.
func (a *Automaton) subsets(name string, n *nfa, start int32) ([]dstate, error) {
	c := &closer{n: n, stamp: make([]uint32, len(n.epsHead))}
	first := c.close([]int32{start})
	ids := map[string]int32{setKey(first): 0}
	sets := [][]int32{first}
	var out []dstate
	entries := int64(len(first))
	raw := map[string]int32{} // sorted, de-duplicated targets before closure → DFA state
	intern := func(s []int32) (int32, error) {
		slices.Sort(s)
		s = slices.Compact(s)
		rk := setKey(s)
		if id, ok := raw[rk]; ok {
			return id, nil
		}
		cl := c.close(s)
		k := setKey(cl)
		// Every DFA state keeps its NFA set and every raw target list is kept as a key: their total length is
		// this construction's memory (nested bounded repetitions make each set hold most of the NFA).
		if entries += int64(len(s)); entries > maxSubsetEntries {
			return 0, subsetBudget(name)
		}
		// rk aliases the caller's scratch slice: the map keeps a copy.
		if id, ok := ids[k]; ok {
			raw[strings.Clone(rk)] = id
			return id, nil
		}
		if len(sets) >= maxDFAStates {
			return 0, errf("rule %q: automaton exceeds %d states (a regular expression or repetition too large to determinize)", name, maxDFAStates)
		}
		if entries += int64(len(cl)); entries > maxSubsetEntries {
			return 0, subsetBudget(name)
		}
		ids[k] = int32(len(sets))
		raw[strings.Clone(rk)] = ids[k]
		sets = append(sets, cl)
		return int32(len(sets) - 1), nil
	}
	byClass := make([][]int32, a.nclass)
	same := map[uint64]int{} // hash of a class's raw targets → the first class with them
	var scratch []int32
	for i := 0; i < len(sets); i++ {
		var d dstate
		for c := range byClass {
			byClass[c] = byClass[c][:0]
		}
		refTargets := map[int32][]int32{}
		var refOrder []int32
		for _, s := range sets[i] {
			if s == n.final {
				d.accept = true
			}
			for l := n.edgeHead[s]; l >= 0; l = n.edges[l].next {
				c.work++
				e := &n.edges[l].e
				if e.ref >= 0 {
					if _, ok := refTargets[e.ref]; !ok {
						refOrder = append(refOrder, e.ref)
					}
					refTargets[e.ref] = append(refTargets[e.ref], e.to)
					continue
				}
				for w, word := range e.classes {
					for word != 0 {
						b := int(bits.TrailingZeros64(word))
						word &= word - 1
						cl := w*64 + b
						byClass[cl] = append(byClass[cl], e.to)
						c.work++
					}
				}
			}
		}
		if c.work > maxSubsetWork {
			return nil, subsetBudget(name)
		}
		// Classes reached by the same edges have the same raw targets, in the same order: intern one of them.
		clear(same)
		for cl, ts := range byClass {
			if len(ts) == 0 {
				continue
			}
			if d.next == nil {
				d.next = make([]int32, a.nclass)
				for j := range d.next {
					d.next[j] = -1
				}
			}
			h := uint64(14695981039346656037)
			for _, x := range ts {
				h = (h ^ uint64(uint32(x))) * 1099511628211
			}
			if prev, ok := same[h]; ok && slices.Equal(byClass[prev], ts) {
				d.next[cl] = d.next[prev]
				continue
			}
			same[h] = cl
			cp := append(scratch[:0], ts...) // intern sorts its argument; byClass[cl] must stay comparable
			scratch = cp
			id, err := intern(cp)
			if err != nil {
				return nil, err
			}
			d.next[cl] = id
		}
		slices.Sort(refOrder)
		for _, r := range refOrder {
			id, err := intern(refTargets[r])
			if err != nil {
				return nil, err
			}
			d.refs = append(d.refs, refEdge{rule: r, to: id})
		}
		out = append(out, d)
	}
	return out, nil
}
