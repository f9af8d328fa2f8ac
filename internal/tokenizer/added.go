// Added tokens: strings (chat markers, <think>, <s>) that are cut out of the input before the model sees it and
// map straight to their ids. As in Hugging Face, tokens with normalized=false are found in the raw input, the rest
// in the normalized pieces; matching is leftmost-longest, and the single_word, lstrip and rstrip options adjust
// or veto a match.
package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AddedToken is one entry of tokenizer.json's added_tokens.
type AddedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedMatcher finds added tokens in text. byFirst lists candidate patterns per first byte, longest first.
type addedMatcher struct {
	byFirst [256][]addedPattern
}

// addedPattern is a string to look for and the token it stands for.
type addedPattern struct {
	text string
	tok  *AddedToken
}

// newAddedMatcher indexes the given patterns; nil when there are none.
func newAddedMatcher(pats []addedPattern) *addedMatcher {
	if len(pats) == 0 {
		return nil
	}
	m := &addedMatcher{}
	for _, p := range pats {
		if p.text == "" {
			continue
		}
		m.byFirst[p.text[0]] = append(m.byFirst[p.text[0]], p)
	}
	for i := range m.byFirst {
		sort.SliceStable(m.byFirst[i], func(a, b int) bool { return len(m.byFirst[i][a].text) > len(m.byFirst[i][b].text) })
	}
	return m
}

// longestAt returns the longest pattern that s[i:] starts with.
func (m *addedMatcher) longestAt(s string, i int) (addedPattern, bool) {
	for _, p := range m.byFirst[s[i]] {
		if strings.HasPrefix(s[i:], p.text) {
			return p, true
		}
	}
	return addedPattern{}, false
}

// segment is a piece of input that is either plain text (tok nil) or one added token.
type segment struct {
	text  string
	tok   *AddedToken
	first bool
}

// split cuts text into plain and added-token segments. Matches are found by a non-overlapping leftmost-longest
// scan; a match vetoed by single_word is skipped without rescanning inside it, and skip (special tokens when the
// caller wants them read as text) drops matches the same way. lstrip/rstrip widen a match over adjacent
// White_Space, never into a previous match. first says whether text starts the input.
func (m *addedMatcher) split(text string, first bool, skip func(*AddedToken) bool, out []segment) []segment {
	if m == nil {
		return append(out, segment{text: text, first: first})
	}
	plainFrom := 0 // start of the pending plain text
	for i := 0; i < len(text); {
		p, ok := m.longestAt(text, i)
		if !ok {
			i++
			continue
		}
		start, stop := i, i+len(p.text)
		i = stop
		if skip != nil && skip(p.tok) {
			continue
		}
		if p.tok.SingleWord && (endsWithWord(text[:start]) || startsWithWord(text[stop:])) {
			continue
		}
		if p.tok.LStrip {
			start = max(len(strings.TrimRightFunc(text[:start], unicode.IsSpace)), plainFrom)
		}
		if p.tok.RStrip {
			stop = len(text) - len(strings.TrimLeftFunc(text[stop:], unicode.IsSpace))
			i = stop
		}
		if plainFrom < start {
			out = append(out, segment{text: text[plainFrom:start], first: first && plainFrom == 0})
		}
		out = append(out, segment{text: text[start:stop], tok: p.tok, first: first && start == 0})
		plainFrom = stop
	}
	if plainFrom < len(text) {
		out = append(out, segment{text: text[plainFrom:], first: first && plainFrom == 0})
	}
	return out
}

// endsWithWord and startsWithWord test the rune next to a match for \w.
func endsWithWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWordRune(r)
}

func startsWithWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWordRune(r)
}
