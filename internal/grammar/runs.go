// The flat form of a one-rule grammar that table walks step through, and each state's "text run": how many
// characters of a known ASCII set (and multi-byte characters) it accepts in a row. Walks accept whole trie
// subtrees that a run covers (tables.go), which turns free text in strings into a few steps per state.
package grammar

import "math/bits"

// flatten fills the pure-DFA tables when the automaton is one rule without push edges.
func (a *Automaton) flatten() {
	if len(a.rules) != 1 {
		return
	}
	st := a.rules[0].states
	for _, s := range st {
		if len(s.refs) > 0 {
			return
		}
	}
	a.pure = true
	a.flat = make([]int32, len(st)*a.nclass)
	a.hasNext = make([]bool, len(st))
	a.loop = make([]byteSet, len(st))
	for i, s := range st {
		row := a.flat[i*a.nclass : (i+1)*a.nclass]
		if s.next == nil {
			for c := range row {
				row[c] = -1
			}
			continue
		}
		copy(row, s.next)
		a.hasNext[i] = true
		for b := range 256 {
			if row[a.classOf[b]] == int32(i) {
				a.loop[i][b>>6] |= 1 << (b & 63)
			}
		}
	}
	a.textRuns()
}

// unboundedRun stands for a run that loops.
const unboundedRun = 1 << 30

// textRuns computes textSet, textMB and textLen. Each state's run follows its "content" successor: the state
// its largest group of ASCII bytes leads to (the other bytes, like a closing quote, leave the run).
func (a *Automaton) textRuns() {
	st := a.rules[0].states
	n := len(st)
	succ := make([]int32, n)
	group := make([][2]uint64, n)
	mbTo := make([]bool, n)
	for q := range n {
		succ[q] = -1
		if !a.hasNext[q] {
			continue
		}
		groups := map[int32][2]uint64{}
		for b := range 0x80 {
			if t := a.flat[q*a.nclass+int(a.classOf[b])]; t >= 0 {
				g := groups[t]
				g[b>>6] |= 1 << (b & 63)
				groups[t] = g
			}
		}
		best, bestN := int32(-1), -1
		for t, g := range groups {
			c := bits.OnesCount64(g[0]) + bits.OnesCount64(g[1])
			if c > bestN || c == bestN && t < best {
				best, bestN = t, c
			}
		}
		if best < 0 {
			continue
		}
		succ[q], group[q] = best, groups[best]
		mbTo[q] = a.charsLeadTo(int32(q), best)
	}
	a.textSet = group
	a.textMB = make([]bool, n)
	a.textClosed = make([]bool, n)
	a.textLen = make([]int32, n)
	seen := make([]int32, n) // the run start that last visited a state, to find loops
	for i := range seen {
		seen[i] = -1
	}
	// A state of the same group and multi-byte flag as the run's start has the same run from there on, so a walk
	// that meets one already done adds its run and stops, and every such state the walk passed gets its run too:
	// each state's run is then found in one pass, where walking every chain from every state cost the square of
	// its length (a{10000} repeated six times took twenty seconds).
	done := make([]bool, n)
	var path []int32
	for q := range n {
		if succ[q] < 0 || done[q] {
			continue
		}
		set, mb := group[q], mbTo[q]
		same := func(s int32) bool { return group[s] == set && mbTo[s] == mb }
		path = path[:0]
		tail, closed := int32(0), false
		cur := int32(q)
		for {
			if succ[cur] < 0 || group[cur][0]&set[0] != set[0] || group[cur][1]&set[1] != set[1] || mb && !mbTo[cur] {
				closed = a.runEndsDead(cur, set, mb)
				break
			}
			if done[cur] && same(cur) {
				tail, closed = a.textLen[cur], a.textClosed[cur]
				break
			}
			if seen[cur] == int32(q) {
				tail = unboundedRun
				break
			}
			seen[cur] = int32(q)
			path = append(path, cur)
			cur = succ[cur]
		}
		for i, p := range path {
			if p != int32(q) && !same(p) {
				continue
			}
			k := tail
			if k < unboundedRun {
				k += int32(len(path) - i)
			}
			a.textLen[p], a.textMB[p], a.textClosed[p], done[p] = k, mb, k < unboundedRun && closed, true
		}
	}
	a.skips = make([]bool, n)
	for q := range n {
		a.skips[q] = a.textLen[q] > 0 || !a.loop[q].empty()
	}
}

// runEndsDead reports whether at state end (where a run stopped) no byte of the run's ASCII set, nor any UTF-8
// lead byte when the run takes multi-byte characters, is accepted: text longer than the run is rejected.
func (a *Automaton) runEndsDead(end int32, set [2]uint64, mb bool) bool {
	if !a.hasNext[end] {
		return true
	}
	row := a.flat[int(end)*a.nclass : (int(end)+1)*a.nclass]
	for b := range 0x100 {
		inRun := b < 0x80 && set[b>>6]>>(b&63)&1 != 0 || mb && b >= 0xC2 && b <= 0xF4
		if inRun && row[a.classOf[b]] >= 0 {
			return false
		}
	}
	return true
}

// charsLeadTo reports whether, from state q, every multi-byte UTF-8 character is accepted and ends in state to,
// each of its proper prefixes reaching a live state: the product of the DFA with a UTF-8 decoder, explored from
// (q, boundary).
func (a *Automaton) charsLeadTo(q, to int32) bool {
	type pair struct {
		s int32
		u int
	}
	seen := map[pair]bool{{q, 0}: true}
	work := []pair{{q, 0}}
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		for b := 0x80; b <= 0xFF; b++ {
			u := utf8Next(p.u, byte(b))
			if u < 0 {
				continue
			}
			t := a.flat[int(p.s)*a.nclass+int(a.classOf[b])]
			if t < 0 {
				return false
			}
			if u == 0 {
				if t != to {
					return false
				}
				continue
			}
			if !a.hasNext[t] {
				return false
			}
			if n := (pair{t, u}); !seen[n] {
				seen[n] = true
				work = append(work, n)
			}
		}
	}
	return true
}
