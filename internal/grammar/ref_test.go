// An independent recognizer for tests: an Earley parser (with Aycock and Horspool's handling of nullable symbols)
// over a plain BNF rewriting of the grammar form, sharing nothing with the automaton (no inlining, no DFAs, no
// tables). It answers whether a byte string is a sentence, or a prefix of one: the Earley chart after the last
// byte is non-empty exactly for viable prefixes when every rule can finish (the test grammars are built so).
package grammar

// bnf is the rewritten grammar: productions over symbols; a symbol ≥ 0 is a nonterminal, < 0 the terminal
// sets[-sym-1].
type bnf struct {
	prods    [][]int // by production
	lhs      []int
	byLHS    map[int][]int
	sets     []byteSet
	n        int // nonterminals
	nullable []bool
	start    int
}

func toBNF(g *Grammar) *bnf {
	b := &bnf{byLHS: map[int][]int{}}
	rule := make([]int, len(g.rules))
	for i := range rule {
		rule[i] = b.newNT()
	}
	for i, r := range g.rules {
		b.add(rule[i], []int{b.sym(r.body, rule)})
	}
	b.start = b.newNT()
	b.add(b.start, []int{rule[g.root]})
	b.computeNullable()
	return b
}

func (b *bnf) newNT() int { b.n++; return b.n - 1 }

func (b *bnf) add(lhs int, rhs []int) {
	b.prods = append(b.prods, rhs)
	b.lhs = append(b.lhs, lhs)
	b.byLHS[lhs] = append(b.byLHS[lhs], len(b.prods)-1)
}

// sym returns a symbol deriving exactly the language of e.
func (b *bnf) sym(e *expr, rule []int) int {
	switch e.k {
	case kBytes:
		b.sets = append(b.sets, e.set)
		return -len(b.sets)
	case kRef:
		return rule[e.ref]
	}
	nt := b.newNT()
	switch e.k {
	case kEmpty:
		b.add(nt, nil)
	case kSeq:
		var rhs []int
		for _, s := range e.subs {
			rhs = append(rhs, b.sym(s, rule))
		}
		b.add(nt, rhs)
	case kAlt:
		for _, s := range e.subs {
			b.add(nt, []int{b.sym(s, rule)})
		}
	case kRepeat:
		x := b.sym(e.subs[0], rule)
		var tail int
		if e.max < 0 {
			tail = b.newNT() // tail → ε | x tail
			b.add(tail, nil)
			b.add(tail, []int{x, tail})
		} else {
			tail = b.newNT() // up to max-min more x
			b.add(tail, nil)
			for range e.max - e.min {
				t := b.newNT()
				b.add(t, nil)
				b.add(t, []int{x, tail})
				tail = t
			}
		}
		rhs := make([]int, 0, e.min+1)
		for range e.min {
			rhs = append(rhs, x)
		}
		b.add(nt, append(rhs, tail))
	}
	return nt
}

func (b *bnf) computeNullable() {
	b.nullable = make([]bool, b.n)
	for changed := true; changed; {
		changed = false
		for p, rhs := range b.prods {
			if b.nullable[b.lhs[p]] {
				continue
			}
			all := true
			for _, s := range rhs {
				if s < 0 || !b.nullable[s] {
					all = false
					break
				}
			}
			if all {
				b.nullable[b.lhs[p]], changed = true, true
			}
		}
	}
}

type earleyItem struct{ prod, dot, origin int }

// recognize runs Earley over s and returns the last chart.
func (b *bnf) recognize(s []byte) map[earleyItem]bool {
	charts := make([]map[earleyItem]bool, len(s)+1)
	lists := make([][]earleyItem, len(s)+1)
	addTo := func(i int, it earleyItem) {
		if charts[i] == nil {
			charts[i] = map[earleyItem]bool{}
		}
		if !charts[i][it] {
			charts[i][it] = true
			lists[i] = append(lists[i], it)
		}
	}
	for _, p := range b.byLHS[b.start] {
		addTo(0, earleyItem{p, 0, 0})
	}
	for i := 0; i <= len(s); i++ {
		for k := 0; k < len(lists[i]); k++ {
			it := lists[i][k]
			rhs := b.prods[it.prod]
			if it.dot == len(rhs) { // complete
				a := b.lhs[it.prod]
				for j := 0; j < len(lists[it.origin]); j++ {
					w := lists[it.origin][j]
					if r := b.prods[w.prod]; w.dot < len(r) && r[w.dot] == a {
						addTo(i, earleyItem{w.prod, w.dot + 1, w.origin})
					}
				}
				continue
			}
			sym := rhs[it.dot]
			if sym < 0 { // scan
				if i < len(s) && b.sets[-sym-1].has(s[i]) {
					addTo(i+1, earleyItem{it.prod, it.dot + 1, it.origin})
				}
				continue
			}
			for _, p := range b.byLHS[sym] { // predict
				addTo(i, earleyItem{p, 0, i})
			}
			if b.nullable[sym] {
				addTo(i, earleyItem{it.prod, it.dot + 1, it.origin})
			}
		}
	}
	return charts[len(s)]
}

// refMatch reports whether s is a sentence of g (complete) or a prefix of one.
func refMatch(g *Grammar, s []byte, complete bool) bool {
	b := refBNF(g)
	last := b.recognize(s)
	if !complete {
		return len(last) > 0
	}
	for _, p := range b.byLHS[b.start] {
		if last[earleyItem{p, len(b.prods[p]), 0}] {
			return true
		}
	}
	return false
}

var bnfCache = map[*Grammar]*bnf{}

func refBNF(g *Grammar) *bnf {
	if b, ok := bnfCache[g]; ok {
		return b
	}
	b := toBNF(g)
	bnfCache[g] = b
	return b
}
