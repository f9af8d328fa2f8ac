// Stopping a generation stream on end-of-sequence ids or on stop strings that may span several tokens' text. This
// file is the one place that decides whether an id ends a sequence: EndIDs says which ids do, and the Stopper
// built over them is what the generation loop (model.Generate) asks after every token.
package sample

import (
	"slices"
	"strings"
)

// Stop reasons a Stopper reports.
const (
	ReasonEOS  = "eos"  // an end-of-sequence id
	ReasonStop = "stop" // a stop string
)

// EndIDs is the set of ids that end a sequence: the model's eos ids (generation_config.json's eos_token_id when
// it names one, else config.json's: config.Model.EOS) and the tokenizer's eos_token (tokenizer.Specials().EOS;
// -1 when none or not in the vocabulary), without repeats. ignore (--ignore-eos) makes it empty.
func EndIDs(modelEOS []int, tokenizerEOS int, ignore bool) []int {
	if ignore {
		return nil
	}
	ids := slices.Clone(modelEOS)
	if tokenizerEOS >= 0 && !slices.Contains(ids, tokenizerEOS) {
		ids = append(ids, tokenizerEOS)
	}
	return ids
}

// Stopper watches a stream of (token id, decoded text) pairs. Text that could be the beginning of a stop string is
// held back until the next text decides it; a stop string ends the stream with everything before it emitted and
// nothing from it on; an EOS id ends the stream without its own text. Not safe for concurrent use.
type Stopper struct {
	eos     []int
	stops   []string
	pending string // held-back tail: the longest suffix of the text so far that is a proper prefix of a stop string
	reason  string // "" until the stream ends, then ReasonEOS or ReasonStop
}

// NewStopper stops on any id in eos (EndIDs) or any non-empty string in stops (empty strings are ignored: they
// would match before any text).
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
func (s *Stopper) Stopped() bool { return s.reason != "" }

// Reason says why the stream ended: ReasonEOS, ReasonStop, or "" while it goes on.
func (s *Stopper) Reason() string { return s.reason }

// IsEnd reports whether id ends the sequence.
func (s *Stopper) IsEnd(id int) bool { return id >= 0 && slices.Contains(s.eos, id) }

// Push feeds one token. emit is the text that is now certain to be output; stop reports the end of the stream.
// On EOS, emit is the held-back text (which no stop string can complete any more) and the EOS text is dropped. On
// a stop string, emit is the text up to its first occurrence. After the end, Push returns ("", true).
func (s *Stopper) Push(id int, text string) (emit string, stop bool) {
	if s.Stopped() {
		return "", true
	}
	if s.IsEnd(id) {
		s.reason = ReasonEOS
		emit, s.pending = s.pending, ""
		return emit, true
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
		s.reason = ReasonStop
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

// Finish ends a stream that stopped for another reason (a length limit): it takes the text still to come (a
// tokenizer stream's last bytes) and returns everything left to output, cut at a stop string should one complete.
// After the stream has ended it returns "".
func (s *Stopper) Finish(text string) string {
	if s.Stopped() {
		return ""
	}
	emit, _ := s.Push(-1, text) // -1 is no token id, so never an end
	return emit + s.Flush()
}
