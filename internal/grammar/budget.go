// Budgets that keep a hostile or accidental grammar, schema or regular expression from exhausting memory or time
// while it compiles: each is checked before the work it bounds is done (the automaton a rule body would unroll
// to is counted on the expression DAG before a state is built) or as it goes (the subset construction's sets
// and steps), and exceeding one is an error naming the construct, never an out-of-memory crash. Together they
// keep any compile within about a second and a few hundred MiB on one core.
package grammar

import "unicode/utf8"

const (
	maxExprDepth     = 10000   // nesting of expressions after rules are inlined
	maxNFAStates     = 1 << 20 // per rule, after inlining and unrolling bounded repetitions
	maxNFAEdges      = 1 << 22 // per rule: byte, reference and epsilon edges
	maxDFAStates     = 1 << 16 // per rule
	maxAllDFAStates  = 1 << 18 // over all rules (each state gets a token table when the grammar runs)
	maxSubsetEntries = 1 << 22 // NFA states held by the subset construction's sets and keys, per rule (16 MiB)
	maxSubsetWork    = 1 << 26 // NFA states, edges and byte classes the subset construction visits, per rule
)

// abbrev shortens s for a message: its first n bytes (cut at a character boundary) and "...".
func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// nfaCount is what building an expression adds to an NFA.
type nfaCount struct{ states, edges int64 }

func (c nfaCount) over() bool { return c.states > maxNFAStates || c.edges > maxNFAEdges }

// checkNFASize counts the states and edges nfa.build would create for body without building anything (each
// shared subtree counted once, times its number of uses) and fails when a budget is exceeded, naming the
// innermost labelled construct (expr.what) that alone exceeds it. The count (an upper bound) sizes the build.
func checkNFASize(rule string, body *expr) (nfaCount, error) {
	memo := map[*expr]nfaCount{}
	var labels []string
	var culprit string
	var count func(e *expr) nfaCount
	count = func(e *expr) nfaCount {
		if c, ok := memo[e]; ok {
			return c
		}
		if e.what != "" {
			labels = append(labels, e.what)
			defer func() { labels = labels[:len(labels)-1] }()
		}
		var c nfaCount
		switch e.k {
		case kEmpty, kBytes, kRef:
			c.edges = 1
		case kSeq:
			c.states = int64(len(e.subs) - 1)
			for _, s := range e.subs {
				c = c.plus(count(s), 1)
				if c.over() {
					break
				}
			}
		case kAlt:
			for _, s := range e.subs {
				c = c.plus(count(s), 1)
				if c.over() {
					break
				}
			}
		case kRepeat:
			sub := count(e.subs[0])
			if sub.over() {
				c = sub
				break
			}
			// min copies each after a new state; then a loop state with its two epsilon edges, or max−min
			// optional copies joined by max−min−1 states with an epsilon edge each (and one edge to skip).
			c = c.plus(nfaCount{sub.states + 1, sub.edges}, int64(e.min))
			if e.max < 0 {
				c = c.plus(nfaCount{sub.states + 1, sub.edges + 2}, 1)
			} else {
				opt := int64(e.max - e.min)
				c = c.plus(sub, opt)
				c = c.plus(nfaCount{1, 1}, opt)
				c.edges++
			}
		}
		if c.over() && culprit == "" {
			culprit = "the rule body"
			if len(labels) > 0 {
				culprit = labels[len(labels)-1]
			}
		}
		memo[e] = c
		return c
	}
	c := count(body)
	if !c.over() {
		return c, nil
	}
	what := "states"
	limit := int64(maxNFAStates)
	if c.states <= maxNFAStates {
		what, limit = "edges", maxNFAEdges
	}
	return c, errf("rule %q: %s would unroll to more than %d automaton %s (nested or large repetitions multiply; make them smaller)",
		rule, culprit, limit, what)
}

// plus adds n copies of d, saturating past the budgets so that nothing overflows.
func (c nfaCount) plus(d nfaCount, n int64) nfaCount {
	sat := func(a, b int64) int64 {
		if b != 0 && a > (1<<40)/b {
			return 1 << 40
		}
		return min(a*b, 1<<40)
	}
	c.states = min(c.states+sat(d.states, n), 1<<40)
	c.edges = min(c.edges+sat(d.edges, n), 1<<40)
	return c
}

// subsetBudget is the error for a rule whose determinization outgrows its budget.
func subsetBudget(rule string) error {
	return errf("rule %q: determinizing the automaton needs more than %d set entries or %d steps "+
		"(a bounded repetition inside another, such as (a{1,50}){1,50}, multiplies them; make them smaller)",
		rule, maxSubsetEntries, maxSubsetWork)
}
