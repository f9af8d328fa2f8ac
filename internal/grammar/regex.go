// The regular-expression front end: the expression matches the whole output (as if anchored at both ends).
// Supported: literals, . (any character but newline), classes [...] with ranges and negation, \d \w \s \D \W \S,
// escapes \n \r \t \f \v \0 \xHH \uHHHH \x{H..} and escaped punctuation, groups ( ), (?: ), (?P<n> ), (?<n> ),
// alternation, * + ? {m} {m,} {m,n} (lazy forms match the same language), ^ at the start and $ at the end.
// Backreferences, lookaround, word boundaries and inline flags have no automaton and are errors naming them.
package grammar

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseRegex parses a regular expression over the whole output.
func ParseRegex(src string) (*Grammar, error) {
	e, err := parseRegexExpr(src, runeClass.toExpr)
	if err != nil {
		return nil, err
	}
	g := newGrammar()
	g.root = g.define("root", named(e, sprintf("regex %q", abbrev(src, 60))))
	return g, nil
}

// parseRegexExpr parses src, spelling every character set with chars (plain UTF-8, or JSON-escaped inside a
// schema string).
func parseRegexExpr(src string, chars func(runeClass) *expr) (*expr, error) {
	p := &reParser{src: src, chars: chars}
	if strings.HasPrefix(p.src, "^") {
		p.pos = 1
	}
	e, err := p.alternatives()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		if p.src[p.pos] == ')' {
			return nil, p.errAt(p.pos, "unmatched )")
		}
		return nil, p.errAt(p.pos, "unexpected %q", p.src[p.pos:])
	}
	return e, nil
}

type reParser struct {
	src   string
	pos   int
	depth int
	chars func(runeClass) *expr
}

func (p *reParser) errAt(pos int, format string, a ...any) error {
	return errf("regex %q at offset %d: %s", abbrev(p.src, 200), pos, sprintf(format, a...))
}

func (p *reParser) alternatives() (*expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 200 {
		return nil, p.errAt(p.pos, "groups nest deeper than 200")
	}
	var alts []*expr
	for {
		s, err := p.sequence()
		if err != nil {
			return nil, err
		}
		alts = append(alts, s)
		if p.pos < len(p.src) && p.src[p.pos] == '|' {
			p.pos++
			continue
		}
		return alt(alts...), nil
	}
}

func (p *reParser) sequence() (*expr, error) {
	var items []*expr
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '|' || c == ')' {
			break
		}
		if c == '$' {
			if p.pos == len(p.src)-1 {
				p.pos++
				break
			}
			return nil, p.errAt(p.pos, "$ is supported only at the end of the expression")
		}
		if c == '^' {
			return nil, p.errAt(p.pos, "^ is supported only at the start of the expression")
		}
		start := p.pos
		atom, err := p.atom()
		if err != nil {
			return nil, err
		}
		quantified, err := p.quantifiers(atom)
		if err != nil {
			return nil, err
		}
		if quantified != atom && quantified.k == kRepeat {
			quantified = named(quantified, sprintf("regex construct %q at offset %d", abbrev(p.src[start:p.pos], 60), start))
		}
		items = append(items, quantified)
	}
	return seq(items...), nil
}

func (p *reParser) quantifiers(e *expr) (*expr, error) {
	for p.pos < len(p.src) {
		start := p.pos
		switch p.src[p.pos] {
		case '*':
			e = star(e)
			p.pos++
		case '+':
			e = plus(e)
			p.pos++
		case '?':
			e = opt(e)
			p.pos++
		case '{':
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return e, nil // a literal { as most engines read it
			}
			lo, hi, err := parseBounds(p.src[p.pos+1 : p.pos+end])
			if err != nil {
				return nil, p.errAt(start, "repetition %s: %v", p.src[p.pos:p.pos+end+1], err)
			}
			p.pos += end + 1
			e = repeat(e, lo, hi)
		default:
			return e, nil
		}
		if p.pos < len(p.src) && p.src[p.pos] == '?' {
			p.pos++ // lazy: same language
		} else if p.pos < len(p.src) && p.src[p.pos] == '+' {
			return nil, p.errAt(start, "possessive quantifier")
		}
	}
	return e, nil
}

func (p *reParser) atom() (*expr, error) {
	start := p.pos
	switch c := p.src[p.pos]; c {
	case '(':
		p.pos++
		rest := p.src[p.pos:]
		switch {
		case strings.HasPrefix(rest, "?:"):
			p.pos += 2
		case strings.HasPrefix(rest, "?P<") || strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!"):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return nil, p.errAt(start, "unterminated group name")
			}
			p.pos += end + 1
		case strings.HasPrefix(rest, "?=") || strings.HasPrefix(rest, "?!") || strings.HasPrefix(rest, "?<=") || strings.HasPrefix(rest, "?<!"):
			return nil, p.errAt(start, "lookaround (%s) is not supported", rest[:min(len(rest), 3)])
		case strings.HasPrefix(rest, "?"):
			return nil, p.errAt(start, "inline flags or group syntax %q are not supported", "("+rest[:min(len(rest), 3)])
		}
		e, err := p.alternatives()
		if err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, p.errAt(start, "unclosed group (")
		}
		p.pos++
		return e, nil
	case '[':
		cls, err := p.class()
		if err != nil {
			return nil, err
		}
		return p.chars(cls), nil
	case '.':
		p.pos++
		return p.chars(runeClass{{0, '\n' - 1}, {'\n' + 1, utf8.MaxRune}}), nil
	case '*', '+', '?':
		return nil, p.errAt(start, "quantifier %c with nothing to repeat", c)
	case '\\':
		cls, err := p.escape(false)
		if err != nil {
			return nil, err
		}
		return p.chars(cls), nil
	}
	r, n := utf8.DecodeRuneInString(p.src[p.pos:])
	if r == utf8.RuneError && n <= 1 {
		return nil, p.errAt(start, "invalid UTF-8")
	}
	p.pos += n
	return p.chars(runeClass{{r, r}}), nil
}

// Shorthand classes.
var (
	digitClass = runeClass{{'0', '9'}}
	wordClass  = runeClass{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	spaceClass = runeClass{{'\t', '\r'}, {' ', ' '}}
)

// escape reads a backslash escape as a class. inClass: inside [...], where \b is a backspace.
func (p *reParser) escape(inClass bool) (runeClass, error) {
	start := p.pos
	p.pos++
	if p.pos >= len(p.src) {
		return nil, p.errAt(start, "trailing backslash")
	}
	c := p.src[p.pos]
	p.pos++
	one := func(r rune) (runeClass, error) { return runeClass{{r, r}}, nil }
	switch c {
	case 'd':
		return digitClass, nil
	case 'D':
		return digitClass.negate(), nil
	case 'w':
		return wordClass, nil
	case 'W':
		return wordClass.negate(), nil
	case 's':
		return spaceClass, nil
	case 'S':
		return spaceClass.negate(), nil
	case 'n':
		return one('\n')
	case 'r':
		return one('\r')
	case 't':
		return one('\t')
	case 'f':
		return one('\f')
	case 'v':
		return one('\v')
	case '0':
		return one(0)
	case 'b':
		if inClass {
			return one('\b')
		}
		return nil, p.errAt(start, "word boundary \\b is not supported")
	case 'B', 'A', 'z', 'Z', 'G':
		return nil, p.errAt(start, "assertion \\%c is not supported", c)
	case 'p', 'P':
		return nil, p.errAt(start, "Unicode property \\%c is not supported", c)
	case 'x', 'u':
		digits := 2
		if c == 'u' {
			digits = 4
		}
		if c == 'x' && p.pos < len(p.src) && p.src[p.pos] == '{' {
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, p.errAt(start, "unterminated \\x{")
			}
			v, err := strconv.ParseUint(p.src[p.pos+1:p.pos+end], 16, 32)
			if err != nil || v > utf8.MaxRune {
				return nil, p.errAt(start, "bad \\x{...} escape")
			}
			p.pos += end + 1
			return one(rune(v))
		}
		if p.pos+digits > len(p.src) {
			return nil, p.errAt(start, "short \\%c escape", c)
		}
		v, err := strconv.ParseUint(p.src[p.pos:p.pos+digits], 16, 32)
		if err != nil {
			return nil, p.errAt(start, "bad \\%c escape", c)
		}
		p.pos += digits
		return one(rune(v))
	}
	if c >= '1' && c <= '9' {
		return nil, p.errAt(start, "backreference \\%c is not supported", c)
	}
	if c < utf8.RuneSelf && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
		return one(rune(c)) // escaped punctuation
	}
	return nil, p.errAt(start, "unknown escape \\%c", c)
}

func (p *reParser) class() (runeClass, error) {
	start := p.pos
	p.pos++
	neg := false
	if p.pos < len(p.src) && p.src[p.pos] == '^' {
		neg = true
		p.pos++
	}
	var cls runeClass
	first := true
	for {
		if p.pos >= len(p.src) {
			return nil, p.errAt(start, "unclosed character class [")
		}
		if p.src[p.pos] == ']' && !first {
			p.pos++
			break
		}
		first = false
		if strings.HasPrefix(p.src[p.pos:], "[:") {
			return nil, p.errAt(p.pos, "POSIX class %q is not supported", p.src[p.pos:min(len(p.src), p.pos+8)])
		}
		lo, set, err := p.classChar()
		if err != nil {
			return nil, err
		}
		if set != nil {
			cls = append(cls, set...)
			continue
		}
		hi := lo
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			var hs runeClass
			if hi, hs, err = p.classChar(); err != nil {
				return nil, err
			}
			if hs != nil {
				return nil, p.errAt(start, "class shorthand as a range end")
			}
			if hi < lo {
				return nil, p.errAt(start, "character range is reversed")
			}
		}
		cls = append(cls, runeRange{lo, hi})
	}
	cls = cls.normalize()
	if neg {
		cls = cls.negate()
	}
	if len(cls) == 0 {
		return nil, p.errAt(start, "empty character class")
	}
	return cls, nil
}

// classChar reads one class member: a character, or a shorthand set (\d ...).
func (p *reParser) classChar() (rune, runeClass, error) {
	if p.src[p.pos] == '\\' {
		cls, err := p.escape(true)
		if err != nil {
			return 0, nil, err
		}
		if len(cls) == 1 && cls[0].lo == cls[0].hi {
			return cls[0].lo, nil, nil
		}
		return 0, cls, nil
	}
	r, n := utf8.DecodeRuneInString(p.src[p.pos:])
	if r == utf8.RuneError && n <= 1 {
		return 0, nil, p.errAt(p.pos, "invalid UTF-8")
	}
	p.pos += n
	return r, nil, nil
}
