// The GBNF front end: llama.cpp's EBNF dialect.
//
//	name ::= alternatives          a rule; the grammar starts at "root"
//	"text"  [a-z\u00e9]  [^"\\]    literals and character classes (code points; \n \r \t \\ \" \] \- \xHH
//	                               \uHHHH \UHHHHHHHH escapes), . for any character
//	name  ( ... )  a | b           references, groups, alternatives
//	x*  x+  x?  x{m}  x{m,}  x{m,n}  repetitions
//	# comment                      to the end of the line
//
// A rule runs until the next "name ::=", so bodies may span lines. Errors give line:column and the construct.
package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseGBNF parses a GBNF grammar whose start rule is "root".
func ParseGBNF(src string) (*Grammar, error) {
	p := &gbnfParser{src: src, g: newGrammar()}
	if err := p.parse(); err != nil {
		return nil, err
	}
	root, ok := p.g.byName["root"]
	if !ok || p.g.rules[root].body == nil {
		return nil, errf("GBNF: no rule named root")
	}
	p.g.root = root
	for i, r := range p.g.rules {
		if r.body == nil {
			return nil, errf("GBNF: rule %q is used (line %d) but never defined", r.name, p.used[i])
		}
	}
	return p.g, nil
}

type gbnfParser struct {
	src   string
	pos   int
	g     *Grammar
	used  map[int]int // rule → line of its first use
	depth int
}

func (p *gbnfParser) errAt(pos int, format string, a ...any) error {
	line := 1 + strings.Count(p.src[:pos], "\n")
	col := pos - strings.LastIndex(p.src[:pos], "\n")
	return errf("GBNF line %d:%d: %s", line, col, fmt.Sprintf(format, a...))
}

// skip passes spaces, newlines and comments.
func (p *gbnfParser) skip() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.pos++
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// name reads a rule name at pos (without skipping) and returns "" when there is none.
func (p *gbnfParser) name() string {
	start := p.pos
	for p.pos < len(p.src) && isNameByte(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

// atRuleStart reports whether "name ::=" begins at pos.
func (p *gbnfParser) atRuleStart() bool {
	save := p.pos
	defer func() { p.pos = save }()
	if p.name() == "" {
		return false
	}
	p.skip()
	return strings.HasPrefix(p.src[p.pos:], "::=")
}

func (p *gbnfParser) parse() error {
	p.used = map[int]int{}
	p.skip()
	if p.pos == len(p.src) {
		return errf("GBNF: empty grammar")
	}
	for p.skip(); p.pos < len(p.src); p.skip() {
		start := p.pos
		name := p.name()
		if name == "" {
			return p.errAt(start, "expected a rule name, found %q", p.peekText())
		}
		p.skip()
		if !strings.HasPrefix(p.src[p.pos:], "::=") {
			return p.errAt(p.pos, "expected ::= after rule name %q", name)
		}
		p.pos += 3
		if i, ok := p.g.byName[name]; ok && p.g.rules[i].body != nil {
			return p.errAt(start, "rule %q defined twice", name)
		}
		body, err := p.alternatives()
		if err != nil {
			return err
		}
		p.g.define(name, named(body, fmt.Sprintf("GBNF rule %q", name)))
	}
	return nil
}

func (p *gbnfParser) peekText() string {
	end := min(len(p.src), p.pos+10)
	return p.src[p.pos:end]
}

// alternatives parses seq ("|" seq)* up to ")" or the next rule or the end.
func (p *gbnfParser) alternatives() (*expr, error) {
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
		p.skip()
		if p.pos < len(p.src) && p.src[p.pos] == '|' {
			p.pos++
			continue
		}
		return alt(alts...), nil
	}
}

func (p *gbnfParser) sequence() (*expr, error) {
	var items []*expr
	for {
		p.skip()
		if p.pos == len(p.src) || p.src[p.pos] == '|' || p.src[p.pos] == ')' || p.atRuleStart() {
			return seq(items...), nil
		}
		it, err := p.item()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
}

func (p *gbnfParser) item() (*expr, error) {
	start := p.pos
	var e *expr
	switch c := p.src[p.pos]; {
	case c == '"':
		p.pos++
		var b []byte
		for {
			if p.pos >= len(p.src) || p.src[p.pos] == '\n' {
				return nil, p.errAt(start, "unterminated string literal")
			}
			if p.src[p.pos] == '"' {
				p.pos++
				break
			}
			r, err := p.char()
			if err != nil {
				return nil, err
			}
			b = utf8.AppendRune(b, r)
		}
		e = lit(string(b))
	case c == '[':
		cls, err := p.class()
		if err != nil {
			return nil, err
		}
		e = cls.toExpr()
	case c == '.':
		p.pos++
		e = anyRune.toExpr()
	case c == '(':
		p.pos++
		inner, err := p.alternatives()
		if err != nil {
			return nil, err
		}
		p.skip()
		if p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, p.errAt(start, "unclosed group (")
		}
		p.pos++
		e = inner
	case isNameByte(c):
		name := p.name()
		i := p.g.declare(name)
		if _, ok := p.used[i]; !ok {
			p.used[i] = 1 + strings.Count(p.src[:start], "\n")
		}
		e = refTo(i)
	default:
		return nil, p.errAt(start, "unexpected %q", p.peekText())
	}
	r, err := p.postfix(e)
	if err != nil || r == e || r.k != kRepeat {
		return r, err
	}
	line := 1 + strings.Count(p.src[:start], "\n")
	col := start - strings.LastIndex(p.src[:start], "\n")
	return named(r, fmt.Sprintf("GBNF line %d:%d %q", line, col, abbrev(p.src[start:p.pos], 60))), nil
}

// postfix applies the repetition operators that follow an item.
func (p *gbnfParser) postfix(e *expr) (*expr, error) {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '*':
			e = star(e)
		case '+':
			e = plus(e)
		case '?':
			e = opt(e)
		case '{':
			start := p.pos
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, p.errAt(start, "unclosed repetition {")
			}
			lo, hi, err := parseBounds(p.src[p.pos+1 : p.pos+end])
			if err != nil {
				return nil, p.errAt(start, "repetition %s: %v", p.src[p.pos:p.pos+end+1], err)
			}
			p.pos += end
			e = repeat(e, lo, hi)
		default:
			return e, nil
		}
		p.pos++
	}
	return e, nil
}

// maxRepeat bounds {m,n} so that unrolling stays within the automaton limits.
const maxRepeat = 10000

// parseBounds reads "m", "m," or "m,n" (hi -1: unbounded).
func parseBounds(s string) (int, int, error) {
	los, his, comma := strings.Cut(s, ",")
	lo, err := strconv.Atoi(strings.TrimSpace(los))
	if err != nil || lo < 0 {
		return 0, 0, fmt.Errorf("bad lower bound %q", los)
	}
	hi := lo
	if comma {
		if strings.TrimSpace(his) == "" {
			hi = -1
		} else if hi, err = strconv.Atoi(strings.TrimSpace(his)); err != nil || hi < lo {
			return 0, 0, fmt.Errorf("bad upper bound %q", his)
		}
	}
	if lo > maxRepeat || hi > maxRepeat {
		return 0, 0, fmt.Errorf("bound above %d", maxRepeat)
	}
	return lo, hi, nil
}

// char reads one (possibly escaped) character of a literal or class.
func (p *gbnfParser) char() (rune, error) {
	start := p.pos
	if p.src[p.pos] != '\\' {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		if r == utf8.RuneError && n <= 1 {
			return 0, p.errAt(start, "invalid UTF-8")
		}
		p.pos += n
		return r, nil
	}
	p.pos++
	if p.pos >= len(p.src) {
		return 0, p.errAt(start, "escape at end of input")
	}
	c := p.src[p.pos]
	p.pos++
	if r, ok := simpleEscapes[c]; ok {
		return r, nil
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if digits == 0 {
		return 0, p.errAt(start, "unknown escape \\%c", c)
	}
	if p.pos+digits > len(p.src) {
		return 0, p.errAt(start, "short \\%c escape", c)
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+digits], 16, 32)
	if err != nil || v > utf8.MaxRune {
		return 0, p.errAt(start, "bad \\%c escape %q", c, p.src[p.pos:p.pos+digits])
	}
	p.pos += digits
	return rune(v), nil
}

// simpleEscapes are the one-letter escapes of literals and classes.
var simpleEscapes = map[byte]rune{'n': '\n', 'r': '\r', 't': '\t', '\\': '\\', '"': '"', '[': '[', ']': ']', '-': '-', '^': '^', '/': '/', '.': '.', '|': '|', '(': '(', ')': ')', '*': '*', '+': '+', '?': '?', '{': '{', '}': '}', '\'': '\''}

// class parses [ ... ] with ranges and a leading ^ for negation.
func (p *gbnfParser) class() (runeClass, error) {
	start := p.pos
	p.pos++ // [
	neg := false
	if p.pos < len(p.src) && p.src[p.pos] == '^' {
		neg = true
		p.pos++
	}
	var cls runeClass
	for {
		if p.pos >= len(p.src) || p.src[p.pos] == '\n' {
			return nil, p.errAt(start, "unclosed character class [")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			break
		}
		lo, err := p.char()
		if err != nil {
			return nil, err
		}
		hi := lo
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			if hi, err = p.char(); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, p.errAt(start, "character range %q-%q is reversed", lo, hi)
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
