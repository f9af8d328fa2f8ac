// Checks and clean-up of a compiled automaton: rules that can never finish are dropped from their callers (and
// an error when the root cannot finish), states from which no end is reachable are removed so that every live
// matcher state can still be completed, and left recursion (a rule reaching itself without consuming a byte,
// which would push forever) is an error naming the cycle.
package grammar

import (
	"fmt"
	"strings"
)

func (a *Automaton) check() error {
	productive := make([]bool, len(a.rules))
	for changed := true; changed; {
		changed = false
		for r := range a.rules {
			if !productive[r] && a.useful(r, productive)[0] {
				productive[r], changed = true, true
			}
		}
	}
	if !productive[0] {
		var never []string
		for r := range a.rules[1:] {
			if !productive[r+1] {
				never = append(never, fmt.Sprintf("%q", a.rules[r+1].name))
			}
		}
		if len(never) > 0 {
			return errf("rule %q matches no string (rules that can never finish: %s)", a.rules[0].name, strings.Join(never, ", "))
		}
		return errf("rule %q matches no string", a.rules[0].name)
	}
	for r := range a.rules {
		if productive[r] {
			a.prune(r, a.useful(r, productive), productive)
		}
	}
	return a.leftRecursion()
}

// useful marks the states of rule r from which an end of r is reachable, pushing only productive rules.
func (a *Automaton) useful(r int, productive []bool) []bool {
	st := a.rules[r].states
	rev := make([][]int32, len(st))
	for i, s := range st {
		for _, t := range s.next {
			if t >= 0 {
				rev[t] = append(rev[t], int32(i))
			}
		}
		for _, e := range s.refs {
			if productive[e.rule] {
				rev[e.to] = append(rev[e.to], int32(i))
			}
		}
	}
	ok := make([]bool, len(st))
	var stack []int32
	for i, s := range st {
		if s.accept {
			ok[i] = true
			stack = append(stack, int32(i))
		}
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range rev[s] {
			if !ok[p] {
				ok[p] = true
				stack = append(stack, p)
			}
		}
	}
	return ok
}

// prune removes edges into useless states and pushes of unproductive rules, then drops unreachable states.
func (a *Automaton) prune(r int, ok, productive []bool) {
	st := a.rules[r].states
	for i := range st {
		s := &st[i]
		any := false
		for c, t := range s.next {
			if t >= 0 && !ok[t] {
				s.next[c] = -1
			}
			any = any || s.next[c] >= 0
		}
		if !any {
			s.next = nil
		}
		refs := s.refs[:0]
		for _, e := range s.refs {
			if productive[e.rule] && ok[e.to] {
				refs = append(refs, e)
			}
		}
		s.refs = refs
	}
	// Renumber the states reachable from the start.
	id := make([]int32, len(st))
	for i := range id {
		id[i] = -1
	}
	order := []int32{0}
	id[0] = 0
	for i := 0; i < len(order); i++ {
		s := st[order[i]]
		visit := func(t int32) {
			if id[t] < 0 {
				id[t] = int32(len(order))
				order = append(order, t)
			}
		}
		for _, t := range s.next {
			if t >= 0 {
				visit(t)
			}
		}
		for _, e := range s.refs {
			visit(e.to)
		}
	}
	out := make([]dstate, len(order))
	for i, old := range order {
		s := st[old]
		for c, t := range s.next {
			if t >= 0 {
				s.next[c] = id[t]
			}
		}
		for j := range s.refs {
			s.refs[j].to = id[s.refs[j].to]
		}
		out[i] = s
	}
	a.rules[r].states = out
}

// leftRecursion reports a cycle of rules that call each other before consuming any byte.
func (a *Automaton) leftRecursion() error {
	n := len(a.rules)
	nullable := make([]bool, n)
	// leftReach explores the states of r reachable from the start through pushes of nullable rules, calling f on
	// every push edge met there; it reports whether an end of r is among them.
	leftReach := func(r int, f func(refEdge)) bool {
		st := a.rules[r].states
		seen := make([]bool, len(st))
		stack := []int32{0}
		seen[0] = true
		end := false
		for len(stack) > 0 {
			s := st[stack[len(stack)-1]]
			stack = stack[:len(stack)-1]
			end = end || s.accept
			for _, e := range s.refs {
				if f != nil {
					f(e)
				}
				if nullable[e.rule] && !seen[e.to] {
					seen[e.to] = true
					stack = append(stack, e.to)
				}
			}
		}
		return end
	}
	for changed := true; changed; {
		changed = false
		for r := range n {
			if !nullable[r] && leftReach(r, nil) {
				nullable[r], changed = true, true
			}
		}
	}
	calls := make([][]int32, n)
	for r := range n {
		leftReach(r, func(e refEdge) { calls[r] = append(calls[r], e.rule) })
	}
	color := make([]uint8, n) // 0 new, 1 on the path, 2 done
	var path []int
	var cycle []int
	var visit func(r int) bool
	visit = func(r int) bool {
		color[r] = 1
		path = append(path, r)
		for _, c := range calls[r] {
			if color[c] == 1 {
				for i, p := range path {
					if p == int(c) {
						cycle = append(append([]int(nil), path[i:]...), int(c))
					}
				}
				return true
			}
			if color[c] == 0 && visit(int(c)) {
				return true
			}
		}
		path = path[:len(path)-1]
		color[r] = 2
		return false
	}
	for r := range n {
		if color[r] == 0 && visit(r) {
			names := make([]string, len(cycle))
			for i, c := range cycle {
				names[i] = a.rules[c].name
			}
			return errf("left recursion: %s (a rule reaches itself before consuming any input)", strings.Join(names, " -> "))
		}
	}
	return nil
}
