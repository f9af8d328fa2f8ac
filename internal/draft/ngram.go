// Package draft proposes the tokens of speculative decoding. NGram is prompt lookup (llama.cpp's --lookup,
// transformers' prompt_lookup_num_tokens): the last n tokens of the history are searched for earlier in it,
// longest n first, and the tokens that followed their most recent earlier occurrence are the draft. It costs no
// model and pays off where the output repeats the input (code edits, quoting, summaries with names). The draft
// length adapts as transformers' assistant heuristic does: two more after a round whose drafts were all
// accepted, one fewer after one that was cut.
package draft

// NGram drafts by prompt lookup. The zero value is not usable; use NewNGram. Not safe for concurrent use: one per
// sequence.
type NGram struct {
	minN, maxN int // n-gram lengths searched, longest first
	max        int // the most tokens one draft holds
	length     int // the adaptive draft length now, 1..max
}

// NewNGram drafts up to most tokens, matching the last maxN..minN tokens of the history (minN 0: 1; maxN below
// minN: max(minN, 3)).
func NewNGram(most, minN, maxN int) *NGram {
	if minN <= 0 {
		minN = 1
	}
	if maxN < minN {
		maxN = max(minN, 3)
	}
	return &NGram{minN: minN, maxN: maxN, max: most, length: max(1, min(most, 4))}
}

// Draft returns up to min(limit, the adaptive length) tokens likely to follow history, or nil when no n-gram
// of the history's tail occurred before.
func (g *NGram) Draft(history []int, limit int) []int {
	k := min(limit, g.length)
	if k <= 0 {
		return nil
	}
	h := len(history)
	for n := min(g.maxN, h-1); n >= g.minN; n-- {
		tail := history[h-n:]
		// The most recent earlier occurrence: start positions h-n-1 down to 0.
		for s := h - n - 1; s >= 0; s-- {
			if !equal(history[s:s+n], tail) {
				continue
			}
			follow := history[s+n : min(h, s+n+k)]
			if len(follow) > 0 {
				return append([]int(nil), follow...)
			}
		}
	}
	return nil
}

// Feedback adapts the draft length to a verified round: proposed drafts, of which the first accepted matched.
func (g *NGram) Feedback(proposed, accepted int) {
	if proposed == 0 {
		return
	}
	if accepted == proposed {
		g.length = min(g.max, g.length+2)
	} else {
		g.length = max(1, g.length-1)
	}
}

// Length is the adaptive draft length now.
func (g *NGram) Length() int { return g.length }

func equal(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
