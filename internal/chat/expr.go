// This file parses the expressions inside template tags exactly as the engine (ardanlabs/jinja v1.8.0,
// parse.go) does — same tokens, same precedence, same quirks — into a small tree that guard.go prints back with
// guard calls around the constructs that can take unbounded memory or time. Printing never changes what the
// engine parses: every operator is parenthesized and every other node is printed in a form that binds as tightly
// as a name, so the engine builds the same tree (plus the guards) from the printed text.
//
// The mirror is deliberate: it lets limits.go bound string repetition, concatenation, filters and methods
// without a hook in the engine, which has none. A template the mirror cannot parse is one the engine cannot
// parse either (the test suite renders every fixture and whitespace case through both).
package chat

import (
	"fmt"
	"strconv"
	"strings"
)

// maxExprDepth bounds expression nesting; the engine's recursive-descent parser and evaluator would otherwise
// recurse as deep as the text nests (a megabyte of "(" overflows the Go stack, which no recover catches).
// Python's Jinja2 stops far earlier, at its recursion limit.
const maxExprDepth = 200

type tokKind int

// Token kinds, as the engine's tokenizer (tokenizeExpr) makes them.
const (
	tName tokKind = iota
	tInt
	tFloat
	tString
	tOp // + - * / % < > = == != <= >=
	tComma
	tDot
	tColon
	tLParen
	tRParen
	tLBracket
	tRBracket
	tLBrace
	tRBrace
	tPipe
	tTilde
	tPower
	tFloorDiv
	tEOF
)

type token struct {
	kind       tokKind
	val        string // decoded (string literals) or as written
	start, end int    // byte offsets in the expression text
}

// tokenize mirrors the engine's tokenizeExpr byte for byte, including that it skips characters it does not know.
func tokenize(s string) []token {
	var toks []token
	i := 0
	for i < len(s) {
		ch := s[i]
		start := i
		if ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' {
			i++
			continue
		}
		if ch == '\'' || ch == '"' {
			quote := ch
			i++
			var b strings.Builder
			for i < len(s) && s[i] != quote {
				if s[i] == '\\' && i+1 < len(s) {
					i++
					switch s[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case '\\', '\'', '"':
						b.WriteByte(s[i])
					default:
						b.WriteByte('\\')
						b.WriteByte(s[i])
					}
				} else {
					b.WriteByte(s[i])
				}
				i++
			}
			if i < len(s) {
				i++
			}
			toks = append(toks, token{tString, b.String(), start, i})
			continue
		}
		if ch >= '0' && ch <= '9' {
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			kind := tInt
			if i < len(s) && s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				kind = tFloat
				i++
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++
				}
				if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
					i++
					if i < len(s) && (s[i] == '+' || s[i] == '-') {
						i++
					}
					for i < len(s) && s[i] >= '0' && s[i] <= '9' {
						i++
					}
				}
			}
			toks = append(toks, token{kind, s[start:i], start, i})
			continue
		}
		if ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' {
			for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
			toks = append(toks, token{tName, s[start:i], start, i})
			continue
		}
		if i+1 < len(s) {
			switch two := s[i : i+2]; two {
			case "**", "//", "==", "!=", "<=", ">=":
				kind := tOp
				if two == "**" {
					kind = tPower
				} else if two == "//" {
					kind = tFloorDiv
				}
				toks = append(toks, token{kind, two, start, i + 2})
				i += 2
				continue
			}
		}
		kind := tEOF // unknown: skipped
		switch ch {
		case ',':
			kind = tComma
		case '.':
			kind = tDot
		case ':':
			kind = tColon
		case '(':
			kind = tLParen
		case ')':
			kind = tRParen
		case '[':
			kind = tLBracket
		case ']':
			kind = tRBracket
		case '{':
			kind = tLBrace
		case '}':
			kind = tRBrace
		case '|':
			kind = tPipe
		case '~':
			kind = tTilde
		case '+', '-', '*', '/', '%', '<', '>', '=':
			kind = tOp
		}
		if kind != tEOF {
			toks = append(toks, token{kind, string(ch), start, i + 1})
		}
		i++
	}
	return append(toks, token{kind: tEOF, start: len(s), end: len(s)})
}

type nodeKind int

const (
	nLit    nodeKind = iota // tok: the literal (none/true/false spelled as names)
	nName                   // tok
	nAttr                   // x.tok
	nItem                   // x[a]
	nSlice                  // x[a:b:c], each of a, b, c possibly nil
	nUnary                  // op x
	nBinary                 // x op a
	nCond                   // x if a [else b]
	nCall                   // x(args)
	nFilter                 // x|tok(args), paren tells whether "(...)" was written
	nTest                   // x is [not] tok(args)
	nList                   // [args] (also tuples)
	nDict                   // {args[0]: args[1], ...}
)

// node is one expression. x is the operand (the object of a postfix, the left of a binary, the true value of a
// conditional); a and b the other operands; args the arguments or items.
type node struct {
	kind       nodeKind
	tok        token
	op         string
	x, a, b, c *node
	args       []*node
	kwargs     []kwarg
	paren      bool // nFilter, nTest: arguments in parentheses were written
	negated    bool // nTest
	start, end int  // the source span, for naming the construct in errors
}

type kwarg struct {
	name string
	val  *node
}

// parser mirrors the engine's exprParser.
type parser struct {
	toks  []token
	pos   int
	depth int
}

// parseExpr parses s as the engine's parseExpr does; an empty s is None.
func parseExpr(s string) (*node, error) {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" {
		return &node{kind: nLit, tok: token{kind: tName, val: "none"}}, nil
	}
	p := &parser{toks: tokenize(s)}
	n, err := p.expression()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, fmt.Errorf("unexpected token %q after expression", t.val)
	}
	return n, nil
}

func (p *parser) peek() token {
	if p.pos >= len(p.toks) {
		return token{kind: tEOF}
	}
	return p.toks[p.pos]
}

func (p *parser) advance() token {
	t := p.peek()
	p.pos++
	return t
}

func (p *parser) isName(v string) bool { t := p.peek(); return t.kind == tName && t.val == v }

func (p *parser) expect(kind tokKind, v string) error {
	if t := p.advance(); t.kind != kind {
		return fmt.Errorf("expected %q but got %q", v, t.val)
	}
	return nil
}

// enter counts nesting; every recursive production calls it.
func (p *parser) enter() error {
	if p.depth++; p.depth > maxExprDepth {
		return fmt.Errorf("expression nests deeper than %d levels", maxExprDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// span sets n's source span from token index from to the last token consumed.
func (p *parser) span(n *node, from int) *node {
	n.start = p.toks[from].start
	n.end = p.toks[max(from, p.pos-1)].end
	return n
}

func (p *parser) expression() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	from := p.pos
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.isName("if") {
		p.advance()
		cond, err := p.or()
		if err != nil {
			return nil, err
		}
		n := &node{kind: nCond, x: e, a: cond}
		if p.isName("else") {
			p.advance()
			if n.b, err = p.expression(); err != nil {
				return nil, err
			}
		}
		return p.span(n, from), nil
	}
	return e, nil
}

// binaryLevel parses a left-associative chain of next separated by the operators ok accepts.
func (p *parser) binaryLevel(next func() (*node, error), ok func(token) (string, bool)) (*node, error) {
	from := p.pos
	left, err := next()
	if err != nil {
		return nil, err
	}
	for {
		op, match := ok(p.peek())
		if !match {
			return left, nil
		}
		p.advance()
		right, err := next()
		if err != nil {
			return nil, err
		}
		left = p.span(&node{kind: nBinary, op: op, x: left, a: right}, from)
	}
}

func (p *parser) or() (*node, error) {
	return p.binaryLevel(p.and, func(t token) (string, bool) { return "or", t.kind == tName && t.val == "or" })
}

func (p *parser) and() (*node, error) {
	return p.binaryLevel(p.not, func(t token) (string, bool) { return "and", t.kind == tName && t.val == "and" })
}

func (p *parser) not() (*node, error) {
	if p.isName("not") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		from := p.pos
		p.advance()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return p.span(&node{kind: nUnary, op: "not", x: x}, from), nil
	}
	return p.comparison()
}

func (p *parser) comparison() (*node, error) {
	from := p.pos
	left, err := p.concat()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		op := ""
		switch {
		case t.kind == tOp && (t.val == "==" || t.val == "!=" || t.val == "<" || t.val == ">" || t.val == "<=" || t.val == ">="):
			op = t.val
			p.advance()
		case t.kind == tName && t.val == "in":
			op = "in"
			p.advance()
		case t.kind == tName && t.val == "not" && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tName && p.toks[p.pos+1].val == "in":
			op = "not in"
			p.pos += 2
		case t.kind == tName && t.val == "is":
			p.advance()
			n := &node{kind: nTest, x: left}
			if p.isName("not") {
				p.advance()
				n.negated = true
			}
			n.tok = p.advance()
			if p.peek().kind == tLParen {
				p.advance()
				n.paren = true
				for p.peek().kind != tRParen && p.peek().kind != tEOF {
					a, err := p.expression()
					if err != nil {
						return nil, err
					}
					n.args = append(n.args, a)
					if p.peek().kind == tComma {
						p.advance()
					}
				}
				if err := p.expect(tRParen, ")"); err != nil {
					return nil, err
				}
			}
			left = p.span(n, from)
			continue
		default:
			return left, nil
		}
		right, err := p.concat()
		if err != nil {
			return nil, err
		}
		left = p.span(&node{kind: nBinary, op: op, x: left, a: right}, from)
	}
}

func (p *parser) concat() (*node, error) {
	return p.binaryLevel(p.addSub, func(t token) (string, bool) { return "~", t.kind == tTilde })
}

func (p *parser) addSub() (*node, error) {
	return p.binaryLevel(p.mulDiv, func(t token) (string, bool) {
		return t.val, t.kind == tOp && (t.val == "+" || t.val == "-")
	})
}

func (p *parser) mulDiv() (*node, error) {
	return p.binaryLevel(p.power, func(t token) (string, bool) {
		return t.val, t.kind == tOp && (t.val == "*" || t.val == "/" || t.val == "%") || t.kind == tFloorDiv
	})
}

// power parses one optional "**" (the engine does not chain them).
func (p *parser) power() (*node, error) {
	from := p.pos
	base, err := p.unary()
	if err != nil {
		return nil, err
	}
	if p.peek().kind == tPower {
		p.advance()
		exp, err := p.unary()
		if err != nil {
			return nil, err
		}
		return p.span(&node{kind: nBinary, op: "**", x: base, a: exp}, from), nil
	}
	return base, nil
}

func (p *parser) unary() (*node, error) {
	if t := p.peek(); t.kind == tOp && (t.val == "-" || t.val == "+") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		from := p.pos
		p.advance()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return p.span(&node{kind: nUnary, op: t.val, x: x}, from), nil
	}
	return p.postfix()
}

func (p *parser) postfix() (*node, error) {
	from := p.pos
	e, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		switch t := p.peek(); t.kind {
		case tDot:
			p.advance()
			attr := p.advance()
			if attr.kind != tName && attr.kind != tInt {
				return nil, fmt.Errorf("expected attribute name after '.', got %q", attr.val)
			}
			e = &node{kind: nAttr, x: e, tok: attr}
			if p.peek().kind == tLParen {
				p.advance()
				args, kwargs, err := p.callArgs()
				if err != nil {
					return nil, err
				}
				e = &node{kind: nCall, x: p.span(e, from), args: args, kwargs: kwargs}
			}
			e = p.span(e, from)
		case tLBracket:
			p.advance()
			var start, stop, step *node
			slice := p.peek().kind == tColon
			if !slice {
				if start, err = p.expression(); err != nil {
					return nil, err
				}
				slice = p.peek().kind == tColon
			}
			if slice {
				if p.peek().kind == tColon {
					p.advance()
				}
				if k := p.peek().kind; k != tRBracket && k != tColon {
					if stop, err = p.expression(); err != nil {
						return nil, err
					}
				}
				if p.peek().kind == tColon {
					p.advance()
					if p.peek().kind != tRBracket {
						if step, err = p.expression(); err != nil {
							return nil, err
						}
					}
				}
				if err := p.expect(tRBracket, "]"); err != nil {
					return nil, err
				}
				e = p.span(&node{kind: nSlice, x: e, a: start, b: stop, c: step}, from)
			} else {
				if err := p.expect(tRBracket, "]"); err != nil {
					return nil, err
				}
				e = p.span(&node{kind: nItem, x: e, a: start}, from)
			}
		case tLParen:
			p.advance()
			args, kwargs, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			e = p.span(&node{kind: nCall, x: e, args: args, kwargs: kwargs}, from)
		case tPipe:
			p.advance()
			name := p.advance()
			if name.kind != tName {
				return nil, fmt.Errorf("expected filter name after '|', got %q", name.val)
			}
			n := &node{kind: nFilter, x: e, tok: name}
			if p.peek().kind == tLParen {
				p.advance()
				n.paren = true
				if n.args, n.kwargs, err = p.callArgs(); err != nil {
					return nil, err
				}
			}
			e = p.span(n, from)
		default:
			return e, nil
		}
	}
}

func (p *parser) atom() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	from := p.pos
	t := p.peek()
	switch t.kind {
	case tInt, tFloat, tString:
		p.advance()
		return p.span(&node{kind: nLit, tok: t}, from), nil
	case tName:
		p.advance()
		switch t.val {
		case "None", "none", "null", "True", "true", "False", "false":
			return p.span(&node{kind: nLit, tok: t}, from), nil
		}
		return p.span(&node{kind: nName, tok: t}, from), nil
	case tLParen:
		p.advance()
		if p.peek().kind == tRParen {
			p.advance()
			return p.span(&node{kind: nList}, from), nil
		}
		e, err := p.expression()
		if err != nil {
			return nil, err
		}
		if p.peek().kind == tComma {
			items := []*node{e}
			for p.peek().kind == tComma {
				p.advance()
				if p.peek().kind == tRParen {
					break
				}
				item, err := p.expression()
				if err != nil {
					return nil, err
				}
				items = append(items, item)
			}
			if err := p.expect(tRParen, ")"); err != nil {
				return nil, err
			}
			return p.span(&node{kind: nList, args: items}, from), nil
		}
		if err := p.expect(tRParen, ")"); err != nil {
			return nil, err
		}
		return e, nil
	case tLBracket:
		p.advance()
		n := &node{kind: nList}
		for k := p.peek().kind; k != tRBracket && k != tEOF; k = p.peek().kind {
			item, err := p.expression()
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, item)
			if p.peek().kind == tComma {
				p.advance()
			}
		}
		if err := p.expect(tRBracket, "]"); err != nil {
			return nil, err
		}
		return p.span(n, from), nil
	case tLBrace:
		p.advance()
		n := &node{kind: nDict}
		for k := p.peek().kind; k != tRBrace && k != tEOF; k = p.peek().kind {
			key, err := p.expression()
			if err != nil {
				return nil, err
			}
			if err := p.expect(tColon, ":"); err != nil {
				return nil, err
			}
			val, err := p.expression()
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, key, val)
			if p.peek().kind == tComma {
				p.advance()
			}
		}
		if err := p.expect(tRBrace, "}"); err != nil {
			return nil, err
		}
		return p.span(n, from), nil
	case tOp:
		if t.val == "-" {
			p.advance()
			x, err := p.atom()
			if err != nil {
				return nil, err
			}
			return p.span(&node{kind: nUnary, op: "-", x: x}, from), nil
		}
	}
	return nil, fmt.Errorf("unexpected token %q (kind=%d)", t.val, t.kind)
}

func (p *parser) callArgs() ([]*node, []kwarg, error) {
	var args []*node
	var kwargs []kwarg
	for k := p.peek().kind; k != tRParen && k != tEOF; k = p.peek().kind {
		if t := p.peek(); t.kind == tName && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tOp && p.toks[p.pos+1].val == "=" {
			p.pos += 2
			v, err := p.expression()
			if err != nil {
				return nil, nil, err
			}
			kwargs = append(kwargs, kwarg{t.val, v})
		} else {
			a, err := p.expression()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, a)
		}
		if p.peek().kind == tComma {
			p.advance()
		}
	}
	if err := p.expect(tRParen, ")"); err != nil {
		return nil, nil, err
	}
	return args, kwargs, nil
}

// printTok writes a token back as the engine's tokenizer reads it.
func printTok(t token) string {
	if t.kind == tString {
		return quoteForEngine(t.val)
	}
	return t.val
}

// printer prints a tree back to engine source; wrap, when set, may replace a node's printed form (guard.go). The
// printed form of every node binds at least as tightly as a postfix expression.
type printer struct {
	wrap func(n *node, printed string) string
}

func (pr *printer) print(n *node) string {
	s := pr.plain(n)
	if pr.wrap != nil {
		s = pr.wrap(n, s)
	}
	return s
}

// object prints n as the object of a postfix operator: a filter or a number is parenthesized, since "x|f" then
// "(...)" would read as the filter's arguments and "1" then ".0" as a float.
func (pr *printer) object(n *node) string {
	s := pr.print(n)
	if n.kind == nFilter || n.kind == nLit && (n.tok.kind == tInt || n.tok.kind == tFloat) {
		return "(" + s + ")"
	}
	return s
}

func (pr *printer) list(ns []*node) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = pr.print(n)
	}
	return strings.Join(parts, ", ")
}

func (pr *printer) callArgs(args []*node, kwargs []kwarg) string {
	s := pr.list(args)
	for _, kw := range kwargs {
		if s != "" {
			s += ", "
		}
		s += kw.name + "=" + pr.print(kw.val)
	}
	return s
}

func (pr *printer) plain(n *node) string {
	switch n.kind {
	case nLit, nName:
		return printTok(n.tok)
	case nAttr:
		return pr.object(n.x) + "." + n.tok.val
	case nItem:
		return pr.object(n.x) + "[" + pr.print(n.a) + "]"
	case nSlice:
		s := pr.object(n.x) + "["
		if n.a != nil {
			s += pr.print(n.a)
		}
		s += ":"
		if n.b != nil {
			s += pr.print(n.b)
		}
		if n.c != nil {
			s += ":" + pr.print(n.c)
		}
		return s + "]"
	case nUnary:
		if n.op == "not" {
			return "(not " + pr.print(n.x) + ")"
		}
		return "(" + n.op + pr.print(n.x) + ")"
	case nBinary:
		return "(" + pr.print(n.x) + " " + n.op + " " + pr.print(n.a) + ")"
	case nCond:
		s := "(" + pr.print(n.x) + " if " + pr.print(n.a)
		if n.b != nil {
			s += " else " + pr.print(n.b)
		}
		return s + ")"
	case nCall:
		return pr.object(n.x) + "(" + pr.callArgs(n.args, n.kwargs) + ")"
	case nFilter:
		s := pr.object(n.x) + "|" + n.tok.val
		if n.paren {
			s += "(" + pr.callArgs(n.args, n.kwargs) + ")"
		}
		return s
	case nTest:
		s := "(" + pr.print(n.x) + " is "
		if n.negated {
			s += "not "
		}
		s += printTok(n.tok)
		if n.paren {
			s += "(" + pr.list(n.args) + ")"
		}
		return s + ")"
	case nList:
		return "[" + pr.list(n.args) + "]"
	case nDict:
		parts := make([]string, 0, len(n.args)/2)
		for i := 0; i+1 < len(n.args); i += 2 {
			parts = append(parts, pr.print(n.args[i])+": "+pr.print(n.args[i+1]))
		}
		// Spaces inside the braces: the engine ends a tag at the first "}}" or "{{" even inside an expression.
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	panic("chat: print of unknown node kind " + strconv.Itoa(int(n.kind)))
}
