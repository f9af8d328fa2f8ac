// Pre-tokenizers: split normalized text into the words BPE sees, and rewrite them (byte-level alphabet,
// metaspace). Each split follows Hugging Face's SplitDelimiterBehavior; which matches are kept, dropped or glued
// to a neighbour is a table of small fold functions, not a ladder of cases.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is a run of text on its way to the model. first marks a piece that starts at offset 0 of the original
// input (Metaspace's prepend_scheme "first" prepends only there).
type piece struct {
	text  string
	first bool
}

// span is a byte range of a piece and whether the split pattern matched it.
type span struct {
	start, end int
	match      bool
}

// behavior turns the match/non-match spans of a piece into the ranges to keep.
type behavior func(spans []span) []span

// behaviors maps tokenizer.json's SplitDelimiterBehavior names to their folds.
var behaviors = map[string]behavior{
	"Isolated": func(spans []span) []span { return spans },
	"Removed": func(spans []span) []span {
		var out []span
		for _, s := range spans {
			if !s.match {
				out = append(out, s)
			}
		}
		return out
	},
	// Contiguous glues each span to the previous one when both match or both do not.
	"Contiguous": func(spans []span) []span {
		var out []span
		prev := false
		for _, s := range spans {
			if s.match == prev && len(out) > 0 {
				out[len(out)-1].end = s.end
			} else {
				out = append(out, span{s.start, s.end, false})
			}
			prev = s.match
		}
		return out
	},
	// MergedWithPrevious glues a match onto the span before it.
	"MergedWithPrevious": func(spans []span) []span {
		var out []span
		prev := false
		for _, s := range spans {
			if s.match && !prev && len(out) > 0 {
				out[len(out)-1].end = s.end
			} else {
				out = append(out, span{s.start, s.end, false})
			}
			prev = s.match
		}
		return out
	},
	// MergedWithNext glues a match onto the span after it (the mirror image of MergedWithPrevious).
	"MergedWithNext": func(spans []span) []span {
		var rev []span
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if s.match && !prev && len(rev) > 0 {
				rev[len(rev)-1].start = s.start
			} else {
				rev = append(rev, span{s.start, s.end, false})
			}
			prev = s.match
		}
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		return rev
	},
}

// splitPiece cuts p along the kept spans, dropping empty results. A sub-piece is first only if it starts where a
// first piece starts.
func splitPiece(p piece, spans []span, b behavior, out []piece) []piece {
	for _, s := range b(spans) {
		if s.end > s.start {
			out = append(out, piece{p.text[s.start:s.end], p.first && s.start == 0})
		}
	}
	return out
}

// runeSpans marks every rune for which pred holds as its own matching span, with the gaps between as
// non-matching spans.
func runeSpans(s string, pred func(rune) bool) []span {
	var out []span
	prev := 0
	for i, r := range s {
		if pred(r) {
			if prev < i {
				out = append(out, span{prev, i, false})
			}
			_, size := utf8.DecodeRuneInString(s[i:]) // 1 for an invalid byte, which r reads as the 3-byte U+FFFD
			end := i + size
			out = append(out, span{i, end, true})
			prev = end
		}
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// preTokenizer rewrites a list of pieces.
type preTokenizer interface {
	preTokenize(in []piece) []piece
}

// gpt2Pattern is the split the ByteLevel pre-tokenizer applies when use_regex is true.
var gpt2Pattern = mustCompileRegex(`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`)

// whitespacePattern is the Whitespace pre-tokenizer's split (kept parts; the gaps are dropped).
var whitespacePattern = mustCompileRegex(`\w+|[^\w\s]+`)

type (
	// byteLevelPre optionally prefixes a space, optionally splits with the GPT-2 pattern, then maps bytes to the
	// byte-level alphabet.
	byteLevelPre struct{ addPrefixSpace, useRegex bool }
	// splitPre splits on a pattern with a behavior; invert swaps which spans count as matches.
	splitPre struct {
		pat      pattern
		behavior behavior
		invert   bool
	}
	// metaspacePre replaces ' ' with the replacement rune, prepends it per scheme, and splits before each one.
	metaspacePre struct {
		replacement string
		scheme      string // "always", "first" or "never"
		split       bool
	}
	// runePre splits on a rune predicate (Digits, WhitespaceSplit, Punctuation).
	runePre struct {
		pred     func(rune) bool
		behavior behavior
	}
	preSequence []preTokenizer
)

func (b byteLevelPre) preTokenize(in []piece) []piece {
	var out []piece
	for _, p := range in {
		if b.addPrefixSpace && !strings.HasPrefix(p.text, " ") {
			p.text = " " + p.text
		}
		start := len(out)
		if b.useRegex {
			out = splitPiece(p, gpt2Pattern.spansOf(p.text), behaviors["Isolated"], out)
		} else {
			out = append(out, p)
		}
		for i := start; i < len(out); i++ {
			out[i].text = byteLevelEncode(out[i].text)
		}
	}
	return out
}

func (s splitPre) preTokenize(in []piece) []piece {
	var out []piece
	for _, p := range in {
		spans := s.pat.spans(p.text)
		if s.invert {
			for i := range spans {
				spans[i].match = !spans[i].match
			}
		}
		out = splitPiece(p, spans, s.behavior, out)
	}
	return out
}

func (m metaspacePre) preTokenize(in []piece) []piece {
	var out []piece
	rep := []rune(m.replacement)[0]
	for _, p := range in {
		t := strings.ReplaceAll(p.text, " ", m.replacement)
		if !strings.HasPrefix(t, m.replacement) && (m.scheme == "always" || (m.scheme == "first" && p.first)) {
			t = m.replacement + t
		}
		q := piece{t, p.first}
		if !m.split {
			out = append(out, q)
			continue
		}
		out = splitPiece(q, runeSpans(t, func(r rune) bool { return r == rep }), behaviors["MergedWithNext"], out)
	}
	return out
}

func (r runePre) preTokenize(in []piece) []piece {
	var out []piece
	for _, p := range in {
		out = splitPiece(p, runeSpans(p.text, r.pred), r.behavior, out)
	}
	return out
}

func (s preSequence) preTokenize(in []piece) []piece {
	for _, p := range s {
		in = p.preTokenize(in)
	}
	return in
}

// spansOf is pattern.spans for a bare regex.
func (re *regex) spansOf(s string) []span { return pattern{re: re}.spans(s) }

// isPunctuation is Hugging Face's punctuation test: ASCII punctuation (which includes symbols such as '$' and
// '+') or Unicode category P.
func isPunctuation(r rune) bool {
	if r < 0x80 {
		return r > ' ' && r < 0x7f && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}
	return unicode.IsPunct(r)
}

// preTokenizerJSON holds every field any pre-tokenizer type uses.
type preTokenizerJSON struct {
	Type             string            `json:"type"`
	PreTokenizers    []json.RawMessage `json:"pretokenizers"`
	AddPrefixSpace   *bool             `json:"add_prefix_space"`
	UseRegex         *bool             `json:"use_regex"`
	Pattern          patternJSON       `json:"pattern"`
	Behavior         string            `json:"behavior"`
	Invert           bool              `json:"invert"`
	Replacement      string            `json:"replacement"`
	PrependScheme    string            `json:"prepend_scheme"`
	Split            *bool             `json:"split"`
	IndividualDigits bool              `json:"individual_digits"`
}

// parsePreTokenizer builds a pre-tokenizer from its JSON; null gives nil.
func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var j preTokenizerJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	behaviorOf := func(name, dflt string) (behavior, error) {
		if name == "" {
			name = dflt
		}
		b, ok := behaviors[name]
		if !ok {
			return nil, fmt.Errorf("pre_tokenizer %s: unknown behavior %q", j.Type, name)
		}
		return b, nil
	}
	boolOr := func(p *bool, d bool) bool {
		if p == nil {
			return d
		}
		return *p
	}
	switch j.Type {
	case "ByteLevel":
		return byteLevelPre{boolOr(j.AddPrefixSpace, true), boolOr(j.UseRegex, true)}, nil
	case "Split":
		p, err := j.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("pre_tokenizer Split: %w", err)
		}
		b, err := behaviorOf(j.Behavior, "")
		if err != nil {
			return nil, err
		}
		return splitPre{p, b, j.Invert}, nil
	case "Metaspace":
		if len([]rune(j.Replacement)) != 1 {
			return nil, fmt.Errorf("pre_tokenizer Metaspace: replacement %q is not one character", j.Replacement)
		}
		scheme := j.PrependScheme
		if scheme == "" {
			scheme = "always"
		}
		if j.AddPrefixSpace != nil && !*j.AddPrefixSpace {
			scheme = "never"
		}
		if scheme != "always" && scheme != "first" && scheme != "never" {
			return nil, fmt.Errorf("pre_tokenizer Metaspace: unknown prepend_scheme %q", scheme)
		}
		return metaspacePre{j.Replacement, scheme, boolOr(j.Split, true)}, nil
	case "Digits":
		if j.IndividualDigits {
			return runePre{unicode.IsNumber, behaviors["Isolated"]}, nil
		}
		return runePre{unicode.IsNumber, behaviors["Contiguous"]}, nil
	case "WhitespaceSplit":
		return runePre{unicode.IsSpace, behaviors["Removed"]}, nil
	case "Whitespace":
		return splitPre{pattern{re: whitespacePattern}, behaviors["Removed"], true}, nil
	case "Punctuation":
		b, err := behaviorOf(j.Behavior, "Isolated")
		if err != nil {
			return nil, err
		}
		return runePre{isPunctuation, b}, nil
	case "Sequence":
		var seq preSequence
		for i, sub := range j.PreTokenizers {
			p, err := parsePreTokenizer(sub)
			if err != nil {
				return nil, fmt.Errorf("pre_tokenizer Sequence[%d]: %w", i, err)
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	}
	return nil, fmt.Errorf("pre_tokenizer type %q: %w", j.Type, ErrUnsupported)
}
