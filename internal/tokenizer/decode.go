// Decoders: turn a list of token strings back into text, as a chain of list-to-list steps (Hugging Face's
// decode_chain): byte-level bytes, metaspace '▁' to ' ', <0xXX> byte fallback, fuse, strip, replace.
//
// Two options serve callers other than Decode. raw keeps bytes as they are instead of replacing invalid UTF-8
// with U+FFFD (TokenBytes wants a token's exact bytes). cont says the tokens continue earlier text, so the
// start-of-text rules (Metaspace dropping the first '▁', Strip cutting leading/trailing characters) do not apply.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeOpts modifies a decode as described above.
type decodeOpts struct {
	raw  bool
	cont bool
}

// decoder is one step of the chain.
type decoder interface {
	decodeChain(toks []string, o decodeOpts) []string
}

type (
	byteLevelDec struct{}
	metaspaceDec struct {
		replacement  rune
		prependFirst bool // prepend_scheme is not "never": the first token's '▁' is dropped
	}
	replaceDec struct {
		pat     pattern
		content string
	}
	byteFallbackDec struct{}
	fuseDec         struct{}
	stripDec        struct {
		content     rune
		start, stop int
	}
	bpeSuffixDec struct{ suffix string }
	decSequence  []decoder
)

// decodeChain maps every token to bytes and returns them as one string.
func (byteLevelDec) decodeChain(toks []string, o decodeOpts) []string {
	var b []byte
	for _, t := range toks {
		b = byteLevelDecode(t, b)
	}
	if o.raw {
		return []string{string(b)}
	}
	return []string{lossyUTF8(b)}
}

func (d metaspaceDec) decodeChain(toks []string, o decodeOpts) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		drop := i == 0 && d.prependFirst && !o.cont
		out[i] = strings.Map(func(r rune) rune {
			if r != d.replacement {
				return r
			}
			if drop {
				return -1
			}
			return ' '
		}, t)
	}
	return out
}

func (d replaceDec) decodeChain(toks []string, _ decodeOpts) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = d.pat.replaceAll(t, d.content)
	}
	return out
}

// decodeChain turns runs of <0xXX> tokens into their bytes: valid UTF-8 as text, otherwise one U+FFFD per byte.
func (byteFallbackDec) decodeChain(toks []string, o decodeOpts) []string {
	out := make([]string, 0, len(toks))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if o.raw || utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range toks {
		if b, ok := byteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// byteToken parses a byte-fallback token "<0xXX>".
func byteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(t[3:5], 16, 8)
	return byte(v), err == nil
}

func (fuseDec) decodeChain(toks []string, _ decodeOpts) []string {
	return []string{strings.Join(toks, "")}
}

// decodeChain cuts up to start leading and stop trailing content runes from every token.
func (d stripDec) decodeChain(toks []string, o decodeOpts) []string {
	if o.cont {
		return toks
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		rs := []rune(t)
		lo := 0
		for lo < d.start && lo < len(rs) && rs[lo] == d.content {
			lo++
		}
		hi := len(rs)
		for k := 0; k < d.stop && hi > lo && rs[hi-1] == d.content; k++ {
			hi--
		}
		out[i] = string(rs[lo:hi])
	}
	return out
}

// decodeChain replaces the end-of-word suffix with a space, or with nothing on the last token.
func (d bpeSuffixDec) decodeChain(toks []string, _ decodeOpts) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		rep := " "
		if i == len(toks)-1 {
			rep = ""
		}
		out[i] = strings.ReplaceAll(t, d.suffix, rep)
	}
	return out
}

func (s decSequence) decodeChain(toks []string, o decodeOpts) []string {
	for _, d := range s {
		toks = d.decodeChain(toks, o)
	}
	return toks
}

// lossyUTF8 converts b to text, replacing each maximal ill-formed subsequence with one U+FFFD (the Unicode
// "substitution of maximal subparts" practice, which Rust's String::from_utf8_lossy follows; Go's own conversions
// replace per byte or per run instead).
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[i : i+size])
			i += size
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return sb.String()
}

// maximalSubpart is the length (at least 1) of the longest prefix of b that starts a well-formed UTF-8 sequence
// but is cut short; b[0] begins an ill-formed sequence.
func maximalSubpart(b []byte) int {
	// Allowed range of the second byte and the sequence length, per lead byte (Unicode Table 3-7).
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		lo, need = 0xA0, 2
	case c == 0xED:
		hi, need = 0x9F, 2
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		lo, need = 0x90, 3
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		hi, need = 0x8F, 3
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if (k == 0 && (x < lo || x > hi)) || (k > 0 && (x < 0x80 || x > 0xBF)) {
			break
		}
		n++
	}
	return n
}

// decoderJSON holds every field any decoder type uses.
type decoderJSON struct {
	Type           string            `json:"type"`
	Decoders       []json.RawMessage `json:"decoders"`
	Replacement    string            `json:"replacement"`
	PrependScheme  string            `json:"prepend_scheme"`
	AddPrefixSpace *bool             `json:"add_prefix_space"`
	Pattern        patternJSON       `json:"pattern"`
	Content        json.RawMessage   `json:"content"` // a string for Replace, one character for Strip
	Start          int               `json:"start"`
	Stop           int               `json:"stop"`
	Suffix         *string           `json:"suffix"`
}

// parseDecoder builds a decoder from its JSON; null gives nil.
func parseDecoder(raw json.RawMessage) (decoder, error) {
	if isNull(raw) {
		return nil, nil
	}
	var j decoderJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	content := func() (string, error) {
		var s string
		if err := json.Unmarshal(j.Content, &s); err != nil {
			return "", fmt.Errorf("decoder %s content: %w", j.Type, err)
		}
		return s, nil
	}
	switch j.Type {
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "Metaspace":
		rs := []rune(j.Replacement)
		if len(rs) != 1 {
			return nil, fmt.Errorf("decoder Metaspace: replacement %q is not one character", j.Replacement)
		}
		never := j.PrependScheme == "never" || (j.AddPrefixSpace != nil && !*j.AddPrefixSpace)
		return metaspaceDec{rs[0], !never}, nil
	case "Replace":
		p, err := j.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("decoder Replace: %w", err)
		}
		c, err := content()
		if err != nil {
			return nil, err
		}
		return replaceDec{p, c}, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Strip":
		c, err := content()
		if err != nil {
			return nil, err
		}
		rs := []rune(c)
		if len(rs) != 1 {
			return nil, fmt.Errorf("decoder Strip: content %q is not one character", c)
		}
		return stripDec{rs[0], j.Start, j.Stop}, nil
	case "BPEDecoder":
		suffix := "</w>"
		if j.Suffix != nil {
			suffix = *j.Suffix
		}
		return bpeSuffixDec{suffix}, nil
	case "Sequence":
		var seq decSequence
		for i, sub := range j.Decoders {
			d, err := parseDecoder(sub)
			if err != nil {
				return nil, fmt.Errorf("decoder Sequence[%d]: %w", i, err)
			}
			if d != nil {
				seq = append(seq, d)
			}
		}
		return seq, nil
	}
	return nil, fmt.Errorf("decoder type %q: %w", j.Type, ErrUnsupported)
}
