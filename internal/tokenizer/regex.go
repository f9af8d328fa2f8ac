// Regular expressions for pre-tokenizer splits, as tokenizer.json writes them.
//
// Hugging Face tokenizers compiles these patterns with Oniguruma, and the patterns real models ship rely on
// features Go's regexp (RE2) refuses: lookahead in `\s+(?!\S)`, possessive and atomic groups in tiktoken-derived
// patterns, lookbehind in a few. This file parses that dialect into a small AST; regex_match.go compiles the AST
// into a backtracking matcher with Oniguruma's leftmost-first semantics. Character classes follow Oniguruma's
// Unicode meanings: \s is White_Space, \d is Nd, \w is L|M|Nd|Pc. Left out: backreferences, named-group
// references, conditionals, class intersection (&&) and POSIX bracket classes; the parser rejects them by name.
package tokenizer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// reKind names one AST node kind.
type reKind int

const (
	reEmpty  reKind = iota
	reChar          // one rune from a set (literal, class, dot)
	reConcat        // subs in order
	reAlt           // first matching sub wins (leftmost-first)
	reRepeat        // sub repeated min..max times (max < 0: unbounded)
	reLook          // lookahead/lookbehind around sub, possibly negated
	reAtomic        // sub matched once, no backtracking into it
	reAssert        // zero-width position test
)

// repMode is how a repetition backtracks.
type repMode int

const (
	greedy repMode = iota
	lazy
	possessive
)

// assertKind names a zero-width assertion.
type assertKind int

const (
	assertLineStart assertKind = iota // ^ : start of input or after '\n' (Oniguruma lines are always multiline)
	assertLineEnd                     // $ : end of input or before '\n'
	assertTextStart                   // \A
	assertTextEnd                     // \z
	assertTextEndNL                   // \Z : end, or before a final '\n'
	assertWordB                       // \b
	assertNotWordB                    // \B
)

// reNode is one node of the parsed pattern.
type reNode struct {
	kind     reKind
	set      *runeSet // reChar
	subs     []*reNode
	min, max int     // reRepeat
	mode     repMode // reRepeat
	behind   bool    // reLook: lookbehind instead of lookahead
	negate   bool    // reLook: negative
	assert   assertKind
}

// runeSet is a set of runes: explicit ranges plus Unicode tables, optionally negated and case-folded.
type runeSet struct {
	ranges []rune // pairs lo, hi inclusive
	tables []*unicode.RangeTable
	// notTables are tables whose complement is in the set (from \S, \P{..} and friends inside a class).
	notTables []*unicode.RangeTable
	subsets   []*runeSet // nested sets, e.g. \W inside a class
	negate    bool
	fold      bool // match any rune in the simple case-folding orbit
	anyButNL  bool // '.', matches everything except '\n'
	// ascii caches has(r) for r < 128 (most text), filled by prepare once the set is complete.
	ascii      [2]uint64
	asciiReady bool
}

// prepare fills the ASCII cache.
func (s *runeSet) prepare() {
	if s.asciiReady {
		return
	}
	for r := rune(0); r < 128; r++ {
		if s.hasSlow(r) {
			s.ascii[r>>6] |= 1 << (r & 63)
		}
	}
	s.asciiReady = true
}

// has reports whether r is in the set, honouring negation and case folding.
func (s *runeSet) has(r rune) bool {
	if r < 128 && s.asciiReady {
		return s.ascii[r>>6]&(1<<(r&63)) != 0
	}
	return s.hasSlow(r)
}

// hasSlow is has without the ASCII cache.
func (s *runeSet) hasSlow(r rune) bool {
	if s.anyButNL {
		return r != '\n'
	}
	in := s.hasExact(r)
	if !in && s.fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if s.hasExact(f) {
				in = true
				break
			}
		}
	}
	return in != s.negate
}

// hasExact is set membership without negation or folding of s itself.
func (s *runeSet) hasExact(r rune) bool {
	for i := 0; i+1 < len(s.ranges); i += 2 {
		if s.ranges[i] <= r && r <= s.ranges[i+1] {
			return true
		}
	}
	for _, t := range s.tables {
		if unicode.Is(t, r) {
			return true
		}
	}
	for _, t := range s.notTables {
		if !unicode.Is(t, r) {
			return true
		}
	}
	for _, sub := range s.subsets {
		if sub.has(r) {
			return true
		}
	}
	return false
}

// Oniguruma's Unicode meanings of the class escapes.
var (
	tableSpace = unicode.White_Space
	tableDigit = unicode.Nd
	tablesWord = []*unicode.RangeTable{unicode.L, unicode.M, unicode.Nd, unicode.Pc}
	tableHex   = &unicode.RangeTable{R16: []unicode.Range16{{Lo: '0', Hi: '9', Stride: 1}, {Lo: 'A', Hi: 'F', Stride: 1}, {Lo: 'a', Hi: 'f', Stride: 1}}}
)

// isWordRune is \w.
func isWordRune(r rune) bool {
	for _, t := range tablesWord {
		if unicode.Is(t, r) {
			return true
		}
	}
	return false
}

// reParser is a recursive-descent parser over the pattern's runes.
type reParser struct {
	src   string
	rs    []rune
	pos   int
	fold  bool // (?i) in force
	depth int  // groups and classes open at the cursor
}

// maxRegexDepth bounds the nesting of groups and classes: the parser, compiler and matcher recurse once per
// level, and a tokenizer.json holding a pattern of a million '(' must fail to load, not overflow the stack. Real
// patterns nest two or three deep.
const maxRegexDepth = 1000

// enter opens a group or class level; the caller defers leave.
func (p *reParser) enter() error {
	if p.depth++; p.depth > maxRegexDepth {
		return p.errf("groups and classes nest deeper than %d", maxRegexDepth)
	}
	return nil
}

func (p *reParser) leave() { p.depth-- }

// parseRegex parses pattern into an AST; errors name the pattern and the offending position.
func parseRegex(pattern string) (*reNode, error) {
	p := &reParser{src: pattern, rs: []rune(pattern)}
	n, err := p.parseAlt()
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", pattern, err)
	}
	if p.pos < len(p.rs) {
		return nil, fmt.Errorf("regex %q: unmatched ')' at rune %d", pattern, p.pos)
	}
	return n, nil
}

func (p *reParser) more() bool { return p.pos < len(p.rs) }
func (p *reParser) peek() rune { return p.rs[p.pos] }
func (p *reParser) next() rune { r := p.rs[p.pos]; p.pos++; return r }
func (p *reParser) errf(format string, a ...any) error {
	return fmt.Errorf("at rune %d: %s", p.pos, fmt.Sprintf(format, a...))
}

// parseAlt parses alternatives up to ')' or the end. Inline flags like (?i) last until the end of the group.
func (p *reParser) parseAlt() (*reNode, error) {
	saved := p.fold
	defer func() { p.fold = saved }()
	var alts []*reNode
	for {
		c, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		alts = append(alts, c)
		if p.more() && p.peek() == '|' {
			p.pos++
			continue
		}
		break
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &reNode{kind: reAlt, subs: alts}, nil
}

// parseConcat parses a sequence of quantified atoms up to '|' or ')'.
func (p *reParser) parseConcat() (*reNode, error) {
	var items []*reNode
	for p.more() && p.peek() != '|' && p.peek() != ')' {
		atom, err := p.parseAtom()
		if err != nil {
			return nil, err
		}
		if atom == nil { // an inline flag group like (?i)
			continue
		}
		atom, err = p.parseQuantifiers(atom)
		if err != nil {
			return nil, err
		}
		items = append(items, atom)
	}
	switch len(items) {
	case 0:
		return &reNode{kind: reEmpty}, nil
	case 1:
		return items[0], nil
	}
	return &reNode{kind: reConcat, subs: items}, nil
}

// parseQuantifiers applies any quantifiers following atom. Oniguruma syntax: ?, *, + take a '?' (lazy) or '+'
// (possessive) suffix; an interval {n,m} takes '?' (lazy) only, and a '+' after it is a further repetition.
func (p *reParser) parseQuantifiers(atom *reNode) (*reNode, error) {
	for p.more() {
		var lo, hi int
		interval := false
		switch p.peek() {
		case '?':
			lo, hi = 0, 1
		case '*':
			lo, hi = 0, -1
		case '+':
			lo, hi = 1, -1
		case '{':
			l, h, ok := p.tryInterval()
			if !ok {
				return atom, nil // a literal '{', left for the next atom
			}
			lo, hi, interval = l, h, true
		default:
			return atom, nil
		}
		if !interval {
			p.pos++
		}
		mode := greedy
		if p.more() && p.peek() == '?' {
			p.pos++
			mode = lazy
		} else if !interval && p.more() && p.peek() == '+' {
			p.pos++
			mode = possessive
		}
		atom = &reNode{kind: reRepeat, subs: []*reNode{atom}, min: lo, max: hi, mode: mode}
	}
	return atom, nil
}

// tryInterval parses {n}, {n,}, {n,m} or {,m} at the cursor; on anything else it leaves the cursor alone.
func (p *reParser) tryInterval() (lo, hi int, ok bool) {
	end := p.pos + 1
	for end < len(p.rs) && p.rs[end] != '}' {
		end++
	}
	if end >= len(p.rs) {
		return 0, 0, false
	}
	body := string(p.rs[p.pos+1 : end])
	a, b, comma := strings.Cut(body, ",")
	num := func(s string, empty int) (int, bool) {
		if s == "" {
			return empty, true
		}
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		v, err := strconv.Atoi(s)
		return v, err == nil && v <= 100000
	}
	if a == "" && (!comma || b == "") {
		return 0, 0, false
	}
	lo, ok1 := num(a, 0)
	hi, ok2 := lo, true
	if comma {
		hi, ok2 = num(b, -1)
	}
	if !ok1 || !ok2 || (hi >= 0 && hi < lo) {
		return 0, 0, false
	}
	p.pos = end + 1
	return lo, hi, true
}

// parseAtom parses one atom; it returns nil, nil for an inline flag group that only changes flags.
func (p *reParser) parseAtom() (*reNode, error) {
	c := p.next()
	switch c {
	case '(':
		return p.parseGroup()
	case '[':
		set, err := p.parseClass()
		if err != nil {
			return nil, err
		}
		return &reNode{kind: reChar, set: set}, nil
	case '.':
		return &reNode{kind: reChar, set: &runeSet{anyButNL: true}}, nil
	case '^':
		return &reNode{kind: reAssert, assert: assertLineStart}, nil
	case '$':
		return &reNode{kind: reAssert, assert: assertLineEnd}, nil
	case '\\':
		return p.parseEscapeAtom()
	case '*', '+', '?':
		return nil, p.errf("quantifier %q with nothing to repeat", c)
	}
	return p.literal(c), nil
}

// literal is a node matching rune c (case-folded under (?i)).
func (p *reParser) literal(c rune) *reNode {
	return &reNode{kind: reChar, set: &runeSet{ranges: []rune{c, c}, fold: p.fold}}
}

// parseGroup parses what follows '(' up to and including its ')'.
func (p *reParser) parseGroup() (*reNode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	wrap := func(kind reKind, behind, negate bool) (*reNode, error) {
		sub, err := p.parseAlt()
		if err != nil {
			return nil, err
		}
		if !p.more() || p.next() != ')' {
			return nil, p.errf("missing ')'")
		}
		switch kind {
		case reEmpty: // plain group
			return sub, nil
		case reLook:
			return &reNode{kind: reLook, subs: []*reNode{sub}, behind: behind, negate: negate}, nil
		}
		return &reNode{kind: kind, subs: []*reNode{sub}}, nil
	}
	if !p.more() || p.peek() != '?' {
		return wrap(reEmpty, false, false) // capturing group; captures are not used
	}
	p.pos++
	if !p.more() {
		return nil, p.errf("truncated group")
	}
	switch c := p.next(); c {
	case ':':
		return wrap(reEmpty, false, false)
	case '=':
		return wrap(reLook, false, false)
	case '!':
		return wrap(reLook, false, true)
	case '>':
		return wrap(reAtomic, false, false)
	case '<':
		if p.more() && (p.peek() == '=' || p.peek() == '!') {
			neg := p.next() == '!'
			return wrap(reLook, true, neg)
		}
		if err := p.skipGroupName('>'); err != nil {
			return nil, err
		}
		return wrap(reEmpty, false, false)
	case 'P':
		if p.more() && p.peek() == '<' {
			p.pos++
			if err := p.skipGroupName('>'); err != nil {
				return nil, err
			}
			return wrap(reEmpty, false, false)
		}
		return nil, p.errf("unsupported group (?P%c", p.peek())
	case '\'':
		if err := p.skipGroupName('\''); err != nil {
			return nil, err
		}
		return wrap(reEmpty, false, false)
	case '#': // comment group
		for p.more() && p.peek() != ')' {
			p.pos++
		}
		if !p.more() {
			return nil, p.errf("unterminated comment group")
		}
		p.pos++
		return nil, nil
	default:
		p.pos--
		return p.parseFlagGroup()
	}
}

// skipGroupName skips a capture group's name up to its closing delimiter.
func (p *reParser) skipGroupName(close rune) error {
	for p.more() && p.peek() != close {
		p.pos++
	}
	if !p.more() {
		return p.errf("unterminated group name")
	}
	p.pos++
	return nil
}

// parseFlagGroup parses (?flags) or (?flags:sub). Only i (case folding) changes matching; m, s and x are
// refused because Oniguruma gives them meanings that differ from Perl's and no tokenizer uses them.
func (p *reParser) parseFlagGroup() (*reNode, error) {
	on := true
	fold := p.fold
	for p.more() {
		c := p.next()
		switch c {
		case 'i':
			fold = on
		case '-':
			on = false
		case ')':
			p.fold = fold // lasts to the end of the enclosing group
			return nil, nil
		case ':':
			saved := p.fold
			p.fold = fold
			sub, err := p.parseAlt()
			p.fold = saved
			if err != nil {
				return nil, err
			}
			if !p.more() || p.next() != ')' {
				return nil, p.errf("missing ')'")
			}
			return sub, nil
		default:
			return nil, p.errf("unsupported group flag %q", c)
		}
	}
	return nil, p.errf("truncated flag group")
}

// parseEscapeAtom parses what follows a '\' outside a class.
func (p *reParser) parseEscapeAtom() (*reNode, error) {
	if !p.more() {
		return nil, p.errf("trailing backslash")
	}
	switch c := p.peek(); c {
	case 'A':
		p.pos++
		return &reNode{kind: reAssert, assert: assertTextStart}, nil
	case 'z':
		p.pos++
		return &reNode{kind: reAssert, assert: assertTextEnd}, nil
	case 'Z':
		p.pos++
		return &reNode{kind: reAssert, assert: assertTextEndNL}, nil
	case 'b':
		p.pos++
		return &reNode{kind: reAssert, assert: assertWordB}, nil
	case 'B':
		p.pos++
		return &reNode{kind: reAssert, assert: assertNotWordB}, nil
	case 'G':
		// \G (the previous match's end) equals the search start in the leftmost scan used here.
		p.pos++
		return &reNode{kind: reAssert, assert: assertTextStart}, nil
	}
	set, r, err := p.parseEscape()
	if err != nil {
		return nil, err
	}
	if set != nil {
		return &reNode{kind: reChar, set: set}, nil
	}
	return p.literal(r), nil
}

// parseEscape parses a class escape (returning a set) or a single-rune escape (returning the rune), after '\'.
func (p *reParser) parseEscape() (*runeSet, rune, error) {
	c := p.next()
	switch c {
	case 's':
		return &runeSet{tables: []*unicode.RangeTable{tableSpace}}, 0, nil
	case 'S':
		return &runeSet{tables: []*unicode.RangeTable{tableSpace}, negate: true}, 0, nil
	case 'd':
		return &runeSet{tables: []*unicode.RangeTable{tableDigit}}, 0, nil
	case 'D':
		return &runeSet{tables: []*unicode.RangeTable{tableDigit}, negate: true}, 0, nil
	case 'w':
		return &runeSet{tables: tablesWord}, 0, nil
	case 'W':
		return &runeSet{tables: tablesWord, negate: true}, 0, nil
	case 'h':
		return &runeSet{tables: []*unicode.RangeTable{tableHex}}, 0, nil
	case 'H':
		return &runeSet{tables: []*unicode.RangeTable{tableHex}, negate: true}, 0, nil
	case 'p', 'P':
		t, neg, err := p.parseProperty()
		if err != nil {
			return nil, 0, err
		}
		return &runeSet{tables: []*unicode.RangeTable{t}, negate: neg != (c == 'P')}, 0, nil
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 't':
		return nil, '\t', nil
	case 'f':
		return nil, '\f', nil
	case 'v':
		return nil, '\v', nil
	case 'a':
		return nil, '\a', nil
	case 'e':
		return nil, 0x1b, nil
	case '0':
		return nil, 0, nil
	case 'x':
		r, err := p.parseHex()
		return nil, r, err
	case 'u':
		r, err := p.parseFixedHex(4)
		return nil, r, err
	}
	if c >= '1' && c <= '9' || c == 'k' || c == 'g' {
		return nil, 0, p.errf("backreferences and subroutine calls (\\%c) are not supported", c)
	}
	if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
		return nil, 0, p.errf("unsupported escape \\%c", c)
	}
	return nil, c, nil // an escaped punctuation or other literal rune
}

// parseHex parses \xHH or \x{H...} after the 'x'.
func (p *reParser) parseHex() (rune, error) {
	if p.more() && p.peek() == '{' {
		end := p.pos + 1
		for end < len(p.rs) && p.rs[end] != '}' {
			end++
		}
		if end >= len(p.rs) {
			return 0, p.errf("unterminated \\x{")
		}
		digits := string(p.rs[p.pos+1 : end])
		v, err := strconv.ParseUint(digits, 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, p.errf("bad \\x{%s}", digits)
		}
		p.pos = end + 1
		return rune(v), nil
	}
	return p.parseFixedHex(2)
}

// parseFixedHex parses exactly n hex digits.
func (p *reParser) parseFixedHex(n int) (rune, error) {
	if p.pos+n > len(p.rs) {
		return 0, p.errf("truncated hex escape")
	}
	v, err := strconv.ParseUint(string(p.rs[p.pos:p.pos+n]), 16, 32)
	if err != nil {
		return 0, p.errf("bad hex escape %q", string(p.rs[p.pos:p.pos+n]))
	}
	p.pos += n
	return rune(v), nil
}

// parseProperty parses {Name}, {^Name} or a one-letter name after \p or \P, returning the table and whether
// the name itself was negated with '^'.
func (p *reParser) parseProperty() (*unicode.RangeTable, bool, error) {
	if !p.more() {
		return nil, false, p.errf("truncated \\p")
	}
	var name string
	if p.peek() == '{' {
		end := p.pos + 1
		for end < len(p.rs) && p.rs[end] != '}' {
			end++
		}
		if end >= len(p.rs) {
			return nil, false, p.errf("unterminated \\p{")
		}
		name = string(p.rs[p.pos+1 : end])
		p.pos = end + 1
	} else {
		name = string(p.next())
	}
	neg := false
	if strings.HasPrefix(name, "^") {
		neg, name = true, name[1:]
	}
	t := unicodeTable(name)
	if t == nil {
		return nil, false, p.errf("unknown Unicode property %q", name)
	}
	return t, neg, nil
}

// propertyAliases maps the long general-category names Oniguruma accepts to Go's short ones.
var propertyAliases = map[string]string{
	"letter": "L", "uppercase_letter": "Lu", "lowercase_letter": "Ll", "titlecase_letter": "Lt",
	"modifier_letter": "Lm", "other_letter": "Lo", "mark": "M", "nonspacing_mark": "Mn",
	"spacing_mark": "Mc", "enclosing_mark": "Me", "number": "N", "decimal_number": "Nd",
	"letter_number": "Nl", "other_number": "No", "punctuation": "P", "connector_punctuation": "Pc",
	"dash_punctuation": "Pd", "open_punctuation": "Ps", "close_punctuation": "Pe",
	"initial_punctuation": "Pi", "final_punctuation": "Pf", "other_punctuation": "Po", "symbol": "S",
	"math_symbol": "Sm", "currency_symbol": "Sc", "modifier_symbol": "Sk", "other_symbol": "So",
	"separator": "Z", "space_separator": "Zs", "line_separator": "Zl", "paragraph_separator": "Zp",
	"other": "C", "control": "Cc", "format": "Cf", "private_use": "Co", "surrogate": "Cs",
}

// unicodeTable finds a general category, script or property by name (Oniguruma matches names loosely:
// case, spaces, hyphens and underscores are ignored).
func unicodeTable(name string) *unicode.RangeTable {
	if t, ok := unicode.Categories[name]; ok {
		return t
	}
	loose := strings.NewReplacer(" ", "", "-", "", "_", "").Replace(strings.ToLower(name))
	for long, short := range propertyAliases {
		if strings.ReplaceAll(long, "_", "") == loose {
			return unicode.Categories[short]
		}
	}
	for _, tables := range []map[string]*unicode.RangeTable{unicode.Categories, unicode.Scripts, unicode.Properties} {
		for k, t := range tables {
			if strings.ReplaceAll(strings.ToLower(k), "_", "") == loose {
				return t
			}
		}
	}
	switch loose {
	case "alpha", "alphabetic":
		return unicode.L
	case "space", "whitespace":
		return tableSpace
	case "digit":
		return tableDigit
	case "any":
		return &unicode.RangeTable{R32: []unicode.Range32{{Lo: 0, Hi: unicode.MaxRune, Stride: 1}}}
	}
	return nil
}

// parseClass parses a bracket class after '['.
func (p *reParser) parseClass() (*runeSet, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	set := &runeSet{fold: p.fold}
	if p.more() && p.peek() == '^' {
		p.pos++
		set.negate = true
	}
	first := true
	for {
		if !p.more() {
			return nil, p.errf("unterminated character class")
		}
		c := p.next()
		if c == ']' && !first {
			return set, nil
		}
		first = false
		switch {
		case c == '[':
			if p.more() && p.peek() == ':' {
				return nil, p.errf("POSIX bracket classes are not supported")
			}
			sub, err := p.parseClass()
			if err != nil {
				return nil, err
			}
			set.subsets = append(set.subsets, sub)
			continue
		case c == '&' && p.more() && p.peek() == '&':
			return nil, p.errf("class intersection (&&) is not supported")
		}
		lo := c
		if c == '\\' {
			if !p.more() {
				return nil, p.errf("trailing backslash in class")
			}
			sub, r, err := p.parseEscape()
			if err != nil {
				return nil, err
			}
			if sub != nil {
				addSubset(set, sub)
				continue
			}
			lo = r
		}
		// A range lo-hi, unless the '-' is last in the class.
		if p.pos+1 < len(p.rs) && p.peek() == '-' && p.rs[p.pos+1] != ']' {
			p.pos++
			hi := p.next()
			if hi == '\\' {
				if !p.more() {
					return nil, p.errf("trailing backslash in class")
				}
				sub, r, err := p.parseEscape()
				if err != nil {
					return nil, err
				}
				if sub != nil {
					return nil, p.errf("class escape as a range end")
				}
				hi = r
			}
			if hi < lo {
				return nil, p.errf("reversed range %q-%q", lo, hi)
			}
			set.ranges = append(set.ranges, lo, hi)
			continue
		}
		set.ranges = append(set.ranges, lo, lo)
	}
}

// addSubset folds a class escape into a bracket class: plain tables join directly, negated ones as complements.
func addSubset(set, sub *runeSet) {
	switch {
	case !sub.negate && len(sub.ranges) == 0 && len(sub.subsets) == 0:
		set.tables = append(set.tables, sub.tables...)
	case sub.negate && len(sub.tables) == 1 && len(sub.ranges) == 0 && len(sub.subsets) == 0:
		set.notTables = append(set.notTables, sub.tables[0])
	default:
		set.subsets = append(set.subsets, sub)
	}
}
