// The Matcher: one sequence's position in a grammar. It accepts tokens (rejecting any the grammar does not
// allow, leaving its state unchanged), fills the packed token bitmask for the next token, and rolls back accepted
// tokens (speculative decoding) by dropping states from its history: states share their stacks' frames, so the
// history costs one small set of tops per token.
package grammar

import (
	"errors"
	"fmt"
)

// ErrRejected is wrapped when a token or byte string does not continue the grammar's language.
var ErrRejected = errors.New("grammar: rejected")

// Matcher tracks one sequence. Not safe for concurrent use; FillMask may run in another goroutine while nothing
// else touches the Matcher.
type Matcher struct {
	t    *Tables
	r    *runner  // accepting tokens (frames kept: the history refers to them)
	w    *walker  // checking uncertain tokens (scratch frames, cleared per fill)
	tw   *walker  // building a table FillMask needs before the background workers got to it
	hist []config // hist[i]: the state after i accepted tokens
	done []bool   // done[i]: an end id was accepted as token i
}

// NewMatcher starts a sequence at the grammar's beginning.
func NewMatcher(t *Tables) *Matcher {
	m := &Matcher{t: t, r: newRunner(t.a), w: newWalker(t.a, t.v), tw: newWalker(t.a, t.v)}
	m.hist = []config{m.r.start()}
	m.done = []bool{false}
	return m
}

func (m *Matcher) cur() *config { return &m.hist[len(m.hist)-1] }

// Done reports whether an end id has been accepted: the sequence is over.
func (m *Matcher) Done() bool { return m.done[len(m.done)-1] }

// CanEnd reports whether the text so far is a complete sentence, so an end id is allowed.
func (m *Matcher) CanEnd() bool { return !m.Done() && m.cur().end }

// MustEnd reports whether the text is complete and nothing may follow it: generation should stop.
func (m *Matcher) MustEnd() bool { return m.Done() || m.cur().end && len(m.cur().tops) == 0 }

// Accepted is the number of tokens accepted so far (the history Rollback can undo).
func (m *Matcher) Accepted() int { return len(m.hist) - 1 }

// AcceptToken advances by token id. An end id is accepted only where the text is complete; a token the grammar
// does not allow is an error wrapping ErrRejected, and the state is unchanged.
func (m *Matcher) AcceptToken(id int) error {
	if m.Done() {
		return fmt.Errorf("%w: token %d after the end", ErrRejected, id)
	}
	if m.t.v.IsEnd(id) {
		if !m.cur().end {
			return fmt.Errorf("%w: end id %d before the text is complete", ErrRejected, id)
		}
		m.hist = append(m.hist, *m.cur())
		m.done = append(m.done, true)
		return nil
	}
	b := m.t.v.Bytes(id)
	if len(b) == 0 {
		return fmt.Errorf("%w: token %d has no text", ErrRejected, id)
	}
	if err := m.acceptBytes(b); err != nil {
		return fmt.Errorf("token %d %q: %w", id, b, err)
	}
	return nil
}

// AcceptString advances by the bytes of s as one step of the history (tests, forced prefixes).
func (m *Matcher) AcceptString(s string) error {
	if m.Done() {
		return fmt.Errorf("%w: text after the end", ErrRejected)
	}
	return m.acceptBytes([]byte(s))
}

func (m *Matcher) acceptBytes(b []byte) error {
	cur := *m.cur()
	for i, c := range b {
		var next config
		m.r.advance(&next, &cur, c)
		if !next.alive() {
			return fmt.Errorf("%w at byte %d (%q)", ErrRejected, i, c)
		}
		cur = next
	}
	m.hist = append(m.hist, cur)
	m.done = append(m.done, false)
	return nil
}

// Rollback undoes the last n accepted tokens.
func (m *Matcher) Rollback(n int) error {
	if n < 0 || n > m.Accepted() {
		return fmt.Errorf("grammar: cannot roll back %d tokens, %d accepted", n, m.Accepted())
	}
	m.hist = m.hist[:len(m.hist)-n]
	m.done = m.done[:len(m.done)-n]
	return nil
}

// FillMask writes the packed bitmask of the tokens allowed next (sample.ApplyBitmask's layout) into mask, which
// holds at least Vocab().MaskWords() words; words past the vocabulary are zeroed.
func (m *Matcher) FillMask(mask []int32) {
	if len(mask) < m.t.words {
		panic(fmt.Sprintf("grammar: FillMask given %d words, the vocabulary needs %d", len(mask), m.t.words))
	}
	clear(mask)
	if m.Done() {
		return
	}
	cur := m.cur()
	clear(m.w.r.in)
	for i, t := range cur.tops {
		tab := m.t.table(t.rule, t.state, m.tw)
		seen := false
		for _, u := range cur.tops[:i] {
			if u.rule == t.rule && u.state == t.state {
				seen = true // the accepted set is the same; only the uncertain tokens depend on the stack
				break
			}
		}
		if !seen {
			tab.orInto(mask)
		}
		if len(tab.uncertain) > 0 {
			m.w.check(t, tab.uncertain, func(id int32) { mask[id>>5] |= int32(uint32(1) << (id & 31)) })
		}
	}
	if cur.end {
		for _, e := range m.t.v.eos {
			mask[e>>5] |= int32(uint32(1) << (e & 31))
		}
	}
}
