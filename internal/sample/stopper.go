// Stopping a generation stream on EOS token ids or on stop strings that may span several tokens' text.
package sample

import "strings"

// Stopper watches a stream of (token id, decoded text) pairs. Text that could be the beginning of a stop string is
// held back until the next text decides it; a stop string ends the stream with everything before it emitted and
// nothing from it on; an EOS id ends the stream without its own text. Not safe for concurrent use.
type Stopper struct {
	eos     []int
	stops   []string
	pending string // held-back tail: the longest suffix of the text so far that is a proper prefix of a stop string
	stopped bool
}

// NewStopper stops on any id in eos or any non-empty string in stops (empty strings are ignored: they would
// match before any text).
func NewStopper(eos []int, stops []string) *Stopper {
	s := &Stopper{eos: append([]int(nil), eos...)}
	for _, t := range stops {
		if t != "" {
			s.stops = append(s.stops, t)
		}
	}
	return s
}

// Stopped reports whether the stream has ended.
func (s *Stopper) Stopped() bool { return s.stopped }

// Push feeds one token. emit is the text that is now certain to be output; stop reports the end of the stream.
// On EOS, emit is the held-back text (which no stop string can complete any more) and the EOS text is dropped. On
// a stop string, emit is the text up to its first occurrence. After the end, Push returns ("", true).
func (s *Stopper) Push(id int, text string) (emit string, stop bool) {
	if s.stopped {
		return "", true
	}
	for _, e := range s.eos {
		if id == e {
			s.stopped = true
			emit, s.pending = s.pending, ""
			return emit, true
		}
	}
	buf := s.pending + text
	// The earliest occurrence of any stop string ends the stream. Only buf can hold one: the text emitted before
	// it holds none, and one starting there would make a longer held-back tail than pending.
	first := -1
	for _, t := range s.stops {
		if i := strings.Index(buf, t); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first >= 0 {
		s.stopped = true
		s.pending = ""
		return buf[:first], true
	}
	hold := 0
	for _, t := range s.stops {
		for n := min(len(t)-1, len(buf)); n > hold; n-- {
			if strings.HasSuffix(buf, t[:n]) {
				hold = n
				break
			}
		}
	}
	s.pending = buf[len(buf)-hold:]
	return buf[:len(buf)-hold], false
}

// Flush returns the held-back text at the end of a stream that stopped for another reason (a length limit); it
// is empty after a stop string or EOS.
func (s *Stopper) Flush() string {
	out := s.pending
	s.pending = ""
	return out
}
