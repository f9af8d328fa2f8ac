// This file rewrites template source so the engine renders whitespace exactly
// as Python Jinja2 does under Hugging Face's settings (trim_blocks=True,
// lstrip_blocks=True, keep_trailing_newline=False).
//
// Why: ardanlabs/jinja v1.8.0 applies trim_blocks, lstrip_blocks and the "-"
// markers to the nearest *text* segment, skipping over any tags in between,
// so in "{% if x %}{{ y }}\n{% endif %}" the "\n" after {{ y }} is eaten by
// the {% if %} and in "{{ a }}{%- if b %}" the text before {{ a }} is trimmed.
// It also keeps a template's final newline, ignores "+" markers, and decodes
// fewer string escapes than Python. The engine offers no hook into its
// scanner, so instead we lex the source the way Jinja2's lexer does, apply
// the whitespace rules ourselves, and hand the engine a template with no raw
// text left at all: every text run becomes a string-literal output tag
// {{ '...' }}, and the engine's trimming, which only ever edits text
// segments, has nothing to act on. Newlines are carried over one for one so
// the engine's parse errors still cite the original line numbers.
package chat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tagKind is which of Jinja's three delimiters opened a tag.
type tagKind byte

const (
	tagBlock    tagKind = '%'
	tagVariable tagKind = '{'
	tagComment  tagKind = '#'
)

// closer returns the two characters that end a tag of kind k.
func (k tagKind) closer() string {
	switch k {
	case tagBlock:
		return "%}"
	case tagVariable:
		return "}}"
	}
	return "#}"
}

// normalizeSource rewrites a Jinja2 template into an equivalent one for the
// engine, as described at the top of this file, with the guards of guard.go
// planted; it returns the guards' sites too.
func normalizeSource(src string) (string, []site, error) {
	out, w, err := rewrite(src, false)
	if err == nil {
		err = w.sites.err
	}
	if err != nil {
		return "", nil, err
	}
	return out, w.sites.list, nil
}

// rewrite is normalizeSource's work; bare leaves the guards out (for tests that compare with the engine alone).
func rewrite(src string, bare bool) (string, *rewriter, error) {
	// Jinja2 first turns every \r\n and \r into \n and, with
	// keep_trailing_newline off, drops one final newline.
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	src = strings.TrimSuffix(src, "\n")

	w := &rewriter{bare: bare}
	pos := 0
	// lineStarting mirrors Jinja2's flag of the same name: the previous
	// match ended in a newline (or we are at the very start), which makes a
	// block tag preceded only by indentation count as first on its line.
	lineStarting := true
	line := 1
	for pos < len(src) {
		start, kind, sign, ok := nextTag(src, pos)
		if !ok {
			w.line = line
			w.text(src[pos:])
			break
		}
		text := src[pos:start]
		line += strings.Count(text, "\n")
		tagLine := line
		text = stripBefore(text, kind, sign, lineStarting)
		// Newlines stripped from text still count toward line numbers.
		w.pendingNL += strings.Count(src[pos:start], "\n") - strings.Count(text, "\n")
		w.line = tagLine - strings.Count(text, "\n")
		w.text(text)

		open := start + 2
		if sign != 0 {
			open++
		}

		if kind == tagBlock {
			if rawEnd, ok := matchRawBegin(src, start); ok {
				end, err := w.raw(src, rawEnd, tagLine)
				if err != nil {
					return "", nil, err
				}
				line += strings.Count(src[start:end], "\n")
				lineStarting = strings.HasSuffix(src[:end], "\n")
				pos = end
				continue
			}
		}

		var content string
		var end int
		var err error
		if kind == tagComment {
			idx := strings.Index(src[open:], "#}")
			if idx < 0 {
				return "", nil, fmt.Errorf("line %d: missing end of comment tag", tagLine)
			}
			end = open + idx
			// A "-" or "+" right before "#}" is the comment's closing sign.
			if idx > 0 && (src[end-1] == '-' || src[end-1] == '+') {
				end--
			}
			content = src[open:end]
		} else {
			content, end, err = tagContent(src, open, kind, tagLine)
			if err != nil {
				return "", nil, err
			}
			// A raw tag that matchRawBegin refused (e.g. closed with "+%}")
			// is an unknown tag to Jinja2; the engine would start its own
			// raw block instead, so reject it here.
			if f := strings.Fields(content); kind == tagBlock && len(f) > 0 && (f[0] == "raw" || f[0] == "endraw") {
				return "", nil, fmt.Errorf("line %d: unexpected %q tag", tagLine, f[0])
			}
		}
		after := consumeTagEnd(src, end, kind)
		switch kind {
		case tagComment:
			// Comments print nothing; keep only their line breaks.
			w.pendingNL += strings.Count(src[start:after], "\n")
		default:
			converted, err := convertStrings(content, tagLine)
			if err != nil {
				return "", nil, err
			}
			var guardBefore, guardAfter string
			switch {
			case bare:
			case kind == tagBlock:
				guardBefore, converted, guardAfter, err = w.statement(converted, tagLine) // guard.go
			default:
				converted, err = w.output(converted, tagLine)
			}
			if err != nil {
				return "", nil, err
			}
			if guardBefore != "" {
				w.tag(tagVariable, guardBefore)
			}
			w.tag(kind, converted)
			if guardAfter != "" {
				w.tag(tagVariable, guardAfter)
			}
			w.pendingNL += strings.Count(src[end:after], "\n")
		}
		line += strings.Count(src[start:after], "\n")
		lineStarting = strings.HasSuffix(src[start:after], "\n")
		pos = after
	}
	w.flushNL()
	return w.out.String(), w, nil
}

// nextTag finds the next "{{", "{%" or "{#" at or after pos and the
// whitespace-control sign ('-', '+' or 0) right after it.
func nextTag(src string, pos int) (start int, kind tagKind, sign byte, ok bool) {
	for i := pos; i+1 < len(src); i++ {
		if src[i] != '{' {
			continue
		}
		switch src[i+1] {
		case '%', '{', '#':
			kind = tagKind(src[i+1])
			if i+2 < len(src) && (src[i+2] == '-' || src[i+2] == '+') {
				sign = src[i+2]
			}
			return i, kind, sign, true
		}
	}
	return 0, 0, 0, false
}

// stripBefore applies the rules for the text in front of a tag: "-" strips
// all trailing whitespace; otherwise, for block and comment tags not marked
// "+", lstrip_blocks removes indentation if the tag is first on its line.
func stripBefore(text string, kind tagKind, sign byte, lineStarting bool) string {
	if sign == '-' {
		return strings.TrimRightFunc(text, isPySpace)
	}
	if sign == '+' || kind == tagVariable {
		return text
	}
	lpos := strings.LastIndexByte(text, '\n') + 1
	if lpos > 0 || lineStarting {
		rest := text[lpos:]
		if rest != "" && strings.TrimLeftFunc(rest, isPySpace) == "" {
			return text[:lpos]
		}
	}
	return text
}

// consumeTagEnd returns the position after the closer at end (which points
// at the optional sign or the closer itself), including the whitespace the
// closer swallows: all of it after "-", one newline after a block or comment
// closer without a sign (trim_blocks), none after "+".
func consumeTagEnd(src string, end int, kind tagKind) int {
	switch src[end] {
	case '-':
		p := end + 3
		return p + (len(src[p:]) - len(strings.TrimLeftFunc(src[p:], isPySpace)))
	case '+':
		return end + 3
	}
	p := end + 2
	if kind != tagVariable && p < len(src) && src[p] == '\n' {
		p++
	}
	return p
}

// tagContent scans a block or variable tag from open and returns its
// content and the position of its end marker ("-" or "+" if present, else
// the closer). Like Jinja2 it skips string literals and only accepts the
// closer while brackets are balanced, so "{{ {'a': {'b': 1}} }}" ends at
// the last "}}".
func tagContent(src string, open int, kind tagKind, line int) (string, int, error) {
	closer := kind.closer()
	depth := 0
	for i := open; i < len(src); {
		if depth == 0 {
			if strings.HasPrefix(src[i:], closer) {
				return src[open:i], i, nil
			}
			if src[i] == '-' && strings.HasPrefix(src[i+1:], closer) {
				return src[open:i], i, nil
			}
			// Jinja2 has no "+}}".
			if src[i] == '+' && kind == tagBlock && strings.HasPrefix(src[i+1:], closer) {
				return src[open:i], i, nil
			}
		}
		switch c := src[i]; c {
		case '\'', '"':
			if n := stringLen(src[i:]); n > 0 {
				i += n
				continue
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
		i++
	}
	return "", 0, fmt.Errorf("line %d: tag opened with %q is never closed with %q", line, "{"+string(kind), closer)
}

// stringLen returns the length of the Jinja2 string literal at the start of
// s (quote to matching quote, backslash escaping any character), or 0 if it
// is unterminated.
func stringLen(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return 0
}

// matchRawBegin reports whether a "{% raw %}" tag (any sign, any spacing)
// starts at start, and where it ends. Jinja2 applies no trim_blocks to it.
func matchRawBegin(src string, start int) (int, bool) {
	p := start + 2
	if p < len(src) && (src[p] == '-' || src[p] == '+') {
		p++
	}
	p = skipSpace(src, p)
	if !strings.HasPrefix(src[p:], "raw") {
		return 0, false
	}
	p = skipSpace(src, p+3)
	switch {
	case strings.HasPrefix(src[p:], "-%}"):
		return skipSpace(src, p+3), true
	case strings.HasPrefix(src[p:], "%}"):
		return p + 2, true
	}
	return 0, false
}

// raw handles the body of a raw block starting at pos: everything up to
// {% endraw %} is text. It returns the position after the endraw tag.
func (w *rewriter) raw(src string, pos, line int) (int, error) {
	for i := pos; i < len(src); i++ {
		if !strings.HasPrefix(src[i:], "{%") {
			continue
		}
		p := i + 2
		var sign byte
		if p < len(src) && (src[p] == '-' || src[p] == '+') {
			sign = src[p]
			p++
		}
		p = skipSpace(src, p)
		if !strings.HasPrefix(src[p:], "endraw") {
			continue
		}
		p = skipSpace(src, p+len("endraw"))
		var end int
		if strings.HasPrefix(src[p:], "-%}") || strings.HasPrefix(src[p:], "+%}") || strings.HasPrefix(src[p:], "%}") {
			end = consumeTagEnd(src, p, tagBlock)
		} else {
			continue
		}
		body := src[pos:i]
		// The text before endraw follows the same rules as before any
		// block tag; the raw tag itself never ends with a newline match,
		// so line_starting comes from the body alone.
		kept := stripBefore(body, tagBlock, sign, strings.HasSuffix(src[:pos], "\n"))
		w.pendingNL += strings.Count(src[pos:end], "\n") - strings.Count(kept, "\n")
		w.line = line
		w.text(kept)
		return end, nil
	}
	return 0, fmt.Errorf("line %d: missing end of raw directive", line)
}

func skipSpace(src string, p int) int {
	return p + (len(src[p:]) - len(strings.TrimLeftFunc(src[p:], isPySpace)))
}

// isPySpace matches Python's str.isspace, which is what Jinja2's \s and
// rstrip() use: Unicode white space plus the ASCII separators 0x1c-0x1f.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// convertStrings rewrites every string literal in tag content into a form
// the engine decodes to the same value Python does: Python interprets the
// full set of escapes (\r, \x41, \u00e9, octal...), the engine only \n, \t,
// \\, \' and \". The literal is re-emitted with only \\ and \' escaped and
// every other character raw. It also splits "}}" outside strings into
// "} }", since the engine ends a tag at the first "}}" even inside a dict.
func convertStrings(content string, line int) (string, error) {
	var b strings.Builder
	for i := 0; i < len(content); {
		c := content[i]
		if c == '\'' || c == '"' {
			if n := stringLen(content[i:]); n > 0 {
				val, err := unescapePython(content[i+1 : i+n-1])
				if err != nil {
					return "", fmt.Errorf("line %d: string literal %s: %w", line, content[i:i+n], err)
				}
				b.WriteString(quoteForEngine(val))
				i += n
				continue
			}
		}
		if c == '}' && i+1 < len(content) && content[i+1] == '}' {
			b.WriteString("} ")
			i++
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), nil
}

// quoteForEngine writes s as a single-quoted literal the engine reads back
// unchanged.
func quoteForEngine(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		default:
			b.WriteByte(s[i])
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// unescapePython decodes a string literal body as Jinja2 does (Python's
// unicode-escape codec): known escapes are decoded, unknown ones are kept
// with their backslash, and a backslash-newline is a line continuation.
func unescapePython(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(c)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			if i+1+n > len(s) {
				return "", fmt.Errorf(`truncated \%c escape`, c)
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || v > unicode.MaxRune {
				return "", fmt.Errorf(`bad \%c escape %q`, c, s[i-1:i+1+n])
			}
			b.WriteRune(rune(v))
			i += n
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 32)
			b.WriteRune(rune(v))
			i = j - 1
		default:
			// Unknown escape: Python keeps the backslash. Copy the whole
			// (possibly multi-byte) character after it.
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteByte('\\')
			b.WriteString(s[i : i+size])
			i += size - 1
		}
	}
	return b.String(), nil
}

// rewriter accumulates the engine-ready source.
type rewriter struct {
	out     strings.Builder
	sites   sites    // the guards planted (guard.go)
	blocks  int      // block tags open
	filters []string // per open filter block, the output expression its endfilter emits
	line    int      // the line of the next text run, for messages
	bare    bool     // plant no guards
	// pendingNL counts source newlines not yet reproduced in out; they are
	// written inside the next text tag or as an empty comment so that every
	// tag keeps its original line number.
	pendingNL int
}

// text emits a text run as an output tag holding a string literal, counted like any output.
func (w *rewriter) text(s string) {
	if s == "" {
		return
	}
	w.out.WriteString("{{ ")
	if w.bare {
		w.out.WriteString(quoteForEngine(s))
	} else {
		w.out.WriteString(guardName(w.sites.add(siteOut, "", fmt.Sprintf("line %d: template text", max(w.line, 1)))))
		w.out.WriteString("(")
		w.out.WriteString(quoteForEngine(s))
		w.out.WriteString(")")
	}
	w.out.WriteString(strings.Repeat("\n", w.pendingNL))
	w.pendingNL = 0
	w.out.WriteString(" }}")
}

// tag emits a block or variable tag with its whitespace-control signs
// removed (their effect is already applied); the padding spaces keep a
// content starting with "-" from reading as a sign.
func (w *rewriter) tag(kind tagKind, content string) {
	w.flushNL()
	w.out.WriteByte('{')
	w.out.WriteByte(byte(kind))
	w.out.WriteByte(' ')
	w.out.WriteString(content)
	w.out.WriteByte(' ')
	w.out.WriteString(kind.closer())
}

// flushNL writes pending newlines as a comment, which prints nothing.
func (w *rewriter) flushNL() {
	if w.pendingNL == 0 {
		return
	}
	w.out.WriteString("{#")
	w.out.WriteString(strings.Repeat("\n", w.pendingNL))
	w.out.WriteString("#}")
	w.pendingNL = 0
}
