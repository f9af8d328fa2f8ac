// Normalizers: the first text transformation of tokenizer.json's pipeline, applied to every piece of input that is
// not an added token (llama2's Prepend("▁") + Replace(" "→"▁"), qwen's NFC, ...).
//
// Hugging Face tracks offsets through normalization; nothing here needs offsets, so a normalizer is a plain string
// function. Left out: Bert, Nmt and Precompiled (sentencepiece charsmap), which only WordPiece/Unigram models use;
// loading a file that names one fails with the normalizer's name.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites one piece of text.
type normalizer interface {
	normalize(s string) string
}

type (
	unicodeForm struct{ form norm.Form }
	lowercase   struct{}
	prepend     struct{ s string }
	replacer    struct {
		pat     pattern
		content string
	}
	stripSpaces   struct{ left, right bool }
	stripAccents  struct{}
	byteLevelNorm struct{}
	normSequence  []normalizer
)

func (n unicodeForm) normalize(s string) string { return n.form.String(s) }

// normalize lowercases rune by rune with Unicode's full mapping, as Rust's char::to_lowercase does; Go's simple
// mapping differs only for U+0130 (İ → "i̇").
func (lowercase) normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// normalize prepends to non-empty text only.
func (n prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return n.s + s
}

func (n replacer) normalize(s string) string { return n.pat.replaceAll(s, n.content) }

// normalize trims White_Space (Rust's char::is_whitespace) from the chosen ends.
func (n stripSpaces) normalize(s string) string {
	if n.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if n.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

// normalize drops combining marks (general category M).
func (stripAccents) normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.M, r) {
			return -1
		}
		return r
	}, s)
}

func (byteLevelNorm) normalize(s string) string { return byteLevelEncode(s) }

func (n normSequence) normalize(s string) string {
	for _, x := range n {
		s = x.normalize(s)
	}
	return s
}

// pattern is a tokenizer.json pattern: {"String": literal} or {"Regex": oniguruma}.
type pattern struct {
	literal string
	re      *regex // nil for a literal
}

// patternJSON is the on-disk form of a pattern.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func (p patternJSON) compile() (pattern, error) {
	switch {
	case p.String != nil:
		return pattern{literal: *p.String}, nil
	case p.Regex != nil:
		re, err := compileRegex(*p.Regex)
		if err != nil {
			return pattern{}, err
		}
		return pattern{re: re}, nil
	}
	return pattern{}, fmt.Errorf("pattern has neither String nor Regex")
}

// spans splits s into alternating non-matching and matching byte ranges, in order, empty ones dropped except an
// empty match (which still marks a split point).
func (p pattern) spans(s string) []span {
	var out []span
	prev := 0
	add := func(a, b int) {
		if prev < a {
			out = append(out, span{prev, a, false})
		}
		out = append(out, span{a, b, true})
		prev = b
	}
	if p.re == nil {
		if p.literal == "" {
			return []span{{0, len(s), false}}
		}
		for i := 0; ; {
			j := strings.Index(s[i:], p.literal)
			if j < 0 {
				break
			}
			add(i+j, i+j+len(p.literal))
			i += j + len(p.literal)
		}
	} else {
		rs, offs := runesWithOffsets(s)
		for _, m := range p.re.findAll(rs) {
			add(offs[m[0]], offs[m[1]])
		}
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// replaceAll replaces every match of p in s with content.
func (p pattern) replaceAll(s, content string) string {
	if p.re == nil {
		if p.literal == "" {
			return s
		}
		return strings.ReplaceAll(s, p.literal, content)
	}
	var b strings.Builder
	for _, sp := range p.spans(s) {
		if sp.match {
			b.WriteString(content)
		} else {
			b.WriteString(s[sp.start:sp.end])
		}
	}
	return b.String()
}

// runesWithOffsets decodes s; offs[i] is the byte offset of rune i and offs[len] = len(s).
func runesWithOffsets(s string) ([]rune, []int) {
	rs := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i, r := range s {
		rs = append(rs, r)
		offs = append(offs, i)
	}
	return rs, append(offs, len(s))
}

// normalizerJSON holds every field any normalizer type uses.
type normalizerJSON struct {
	Type        string            `json:"type"`
	Normalizers []json.RawMessage `json:"normalizers"`
	Prepend     string            `json:"prepend"`
	Pattern     patternJSON       `json:"pattern"`
	Content     string            `json:"content"`
	StripLeft   bool              `json:"strip_left"`
	StripRight  bool              `json:"strip_right"`
}

// parseNormalizer builds a normalizer from its JSON; null gives nil.
func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var j normalizerJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	switch j.Type {
	case "NFC":
		return unicodeForm{norm.NFC}, nil
	case "NFD":
		return unicodeForm{norm.NFD}, nil
	case "NFKC":
		return unicodeForm{norm.NFKC}, nil
	case "NFKD":
		return unicodeForm{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "Prepend":
		return prepend{j.Prepend}, nil
	case "Replace":
		p, err := j.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		return replacer{p, j.Content}, nil
	case "Strip":
		return stripSpaces{j.StripLeft, j.StripRight}, nil
	case "StripAccents":
		return stripAccents{}, nil
	case "ByteLevel":
		return byteLevelNorm{}, nil
	case "Sequence":
		var seq normSequence
		for i, sub := range j.Normalizers {
			n, err := parseNormalizer(sub)
			if err != nil {
				return nil, fmt.Errorf("normalizer Sequence[%d]: %w", i, err)
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	}
	return nil, fmt.Errorf("normalizer type %q: %w", j.Type, ErrUnsupported)
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}
