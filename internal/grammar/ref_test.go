// An independent recognizer for tests: backtracking over the grammar form itself (no automaton, no inlining, no
// tables), answering whether a byte string is a sentence or a prefix of one. Exponential in bad cases, fine for
// the short strings and small grammars of the tests. Prefix answers assume every rule can finish (the random
// grammars are built that way).
package grammar

func refMatch(g *Grammar, s []byte, complete bool) bool {
	var m func(e *expr, pos int, k func(int) bool) bool
	m = func(e *expr, pos int, k func(int) bool) bool {
		if !complete && pos == len(s) {
			return true
		}
		switch e.k {
		case kEmpty:
			return k(pos)
		case kBytes:
			return pos < len(s) && e.set.has(s[pos]) && k(pos+1)
		case kSeq:
			var from func(i, p int) bool
			from = func(i, p int) bool {
				if i == len(e.subs) {
					return k(p)
				}
				return m(e.subs[i], p, func(q int) bool { return from(i+1, q) })
			}
			return from(0, pos)
		case kAlt:
			for _, sub := range e.subs {
				if m(sub, pos, k) {
					return true
				}
			}
			return false
		case kRepeat:
			var rep func(i, p int) bool
			rep = func(i, p int) bool {
				if i >= e.min && k(p) {
					return true
				}
				if e.max >= 0 && i >= e.max {
					return false
				}
				return m(e.subs[0], p, func(q int) bool {
					if i >= e.min && q == p {
						return false // an empty iteration past the minimum changes nothing
					}
					return rep(i+1, q)
				})
			}
			return rep(0, pos)
		case kRef:
			return m(g.rules[e.ref].body, pos, k)
		}
		panic("unknown kind")
	}
	return m(g.rules[g.root].body, 0, func(p int) bool { return p == len(s) })
}
