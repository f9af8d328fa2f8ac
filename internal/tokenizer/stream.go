// Incremental decoding for generation: emit text as tokens arrive, holding back a token whose bytes end inside a
// UTF-8 character and keeping just enough left context that start-of-text rules (Llama 2's leading-space strip,
// Metaspace's first '▁') apply only once. The algorithm is Hugging Face's DecodeStream: decode a short window
// of ids, and emit what the window decodes to beyond the previous window's text.
package tokenizer

import "strings"

// Stream decodes one sequence incrementally. Not safe for concurrent use; one per generation.
type Stream struct {
	t           *Tokenizer
	skipSpecial bool
	ids         []int  // window: context ids, then ids not yet fully emitted
	prefix      string // what the context part of the window decodes to
	prefixIndex int    // number of context ids at the front of the window
}

// NewStream starts incremental decoding; skipSpecial drops special added tokens as Decode does.
func (t *Tokenizer) NewStream(skipSpecial bool) *Stream {
	return &Stream{t: t, skipSpecial: skipSpecial}
}

// Add feeds the next id and returns the text it completes: "" while the window ends inside a UTF-8 character
// (its decode ends in U+FFFD) or adds nothing.
func (s *Stream) Add(id int) string {
	if s.prefix == "" && len(s.ids) > 0 {
		if p := s.t.Decode(s.ids, s.skipSpecial); !strings.HasSuffix(p, "\uFFFD") {
			s.prefix, s.prefixIndex = p, len(s.ids)
		}
	}
	s.ids = append(s.ids, id)
	text := s.t.Decode(s.ids, s.skipSpecial)
	if len(text) <= len(s.prefix) || strings.HasSuffix(text, "\uFFFD") {
		return ""
	}
	out := text[commonPrefixLen(text, s.prefix):]
	newPrefixIndex := len(s.ids) - s.prefixIndex
	s.ids = append(s.ids[:0], s.ids[s.prefixIndex:]...)
	s.prefix = s.t.Decode(s.ids, s.skipSpecial)
	s.prefixIndex = newPrefixIndex
	return out
}

// Flush returns whatever the window holds beyond what was emitted (an unfinished UTF-8 character comes out as
// U+FFFD) and resets the stream.
func (s *Stream) Flush() string {
	text := s.t.Decode(s.ids, s.skipSpecial)
	out := ""
	if len(text) > len(s.prefix) {
		out = text[commonPrefixLen(text, s.prefix):]
	}
	s.ids, s.prefix, s.prefixIndex = s.ids[:0], "", 0
	return out
}

// commonPrefixLen is the byte length of the longest common prefix of a and b that ends on a rune boundary of a.
// The window's text normally extends the previous text exactly; where a decoder breaks that, the new text
// starts after the shared part instead of failing as the reference does.
func commonPrefixLen(a, b string) int {
	if strings.HasPrefix(a, b) {
		return len(b)
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && a[n]&0xC0 == 0x80 {
		n--
	}
	return n
}
