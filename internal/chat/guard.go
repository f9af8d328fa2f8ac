// This file plants the guards of limits.go into a template while lex.go rewrites it: each tag's expressions are
// found the way the engine's statement parser splits them (parse.go: parseIf, parseFor, parseSet, parseMacro,
// parseCall, parseFilterBlock), parsed by expr.go, and printed back with a guard call around every construct
// that can take unbounded memory or time:
//
//	{{ e }} and every text run      __mlxbun_N(e)          output counted against the render's output budget
//	a * b                           __mlxbun_N(a)(b)       a string repetition checked before it is built
//	a ~ b, a + b, [..], {..}, f(..) __mlxbun_N(...)        the value made is checked (size, nesting)
//	x.m(args)                       __mlxbun_N(__mlxbun_M(x).m)(args)   the method checked with its receiver
//	x|f(args)                       x|__mlxbun_N(args)     the filter's output estimated before it runs
//	for v in e                      for v in __mlxbun_N(e) the loop's items charged before it starts
//	set ns.a = e                    set ns.a = __mlxbun_N(ns)(e)  no namespace made to contain itself
//	{% call f(a) %}                 {% call __mlxbun_N(f, a) %}   the call block's output counted
//	{% filter f %}...{% endfilter %}   {% set __mlxbun_fbN %}...{% endset %}{{ __mlxbun_M(__mlxbun_fbN|..f) }}
//
// N names a site: the guard knows its kind and the construct's line and text, which errors quote. A guard never
// adds a comma where the source had none, because the engine splits macro parameters at every comma.
package chat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// maxBlockDepth bounds nested blocks ({% if %} in {% for %} in ...): the engine parses them recursively.
const maxBlockDepth = 200

// maxSites bounds the guarded constructs of one template; each costs a variable per render.
const maxSites = 1 << 16

type siteKind uint8

const (
	siteOut    siteKind = iota // output of an expression or text
	siteValue                  // a value just made
	siteMul                    // a multiplication, curried: (a)(b)
	siteRecv                   // records a method call's receiver for the next siteMethod
	siteMethod                 // wraps a bound method
	siteFilter                 // a builtin filter, by name
	siteIter                   // a for loop's iterable
	siteStore                  // a namespace assignment, curried: (ns)(value)
	siteCall                   // a call block's callee and arguments
	siteMacro                  // a macro's body starts (its end is guardMacroLeave)
	siteTick                   // a loop iteration or a loop filter's test: work and time are checked
)

// site is one guarded construct.
type site struct {
	kind siteKind
	name string // siteFilter, siteMethod: the filter or method
	recv int    // siteMethod: its siteRecv
	what string // "line 3: 'x' * 10000000000", for messages
}

func guardName(i int) string { return "__mlxbun_" + strconv.Itoa(i) }

// sites is the table a rewrite fills.
type sites struct {
	list []site
	err  error // the first failure (too many sites)
}

func (s *sites) add(k siteKind, name string, what string) int {
	if len(s.list) >= maxSites && s.err == nil {
		s.err = fmt.Errorf("the template has more than %d expressions", maxSites)
	}
	s.list = append(s.list, site{kind: k, name: name, what: what})
	return len(s.list) - 1
}

// construct describes the source of n in expr for a message: its line and its text on one line, shortened.
func construct(expr string, n *node, line int) string {
	text := strings.Join(strings.Fields(expr[n.start:n.end]), " ")
	if len(text) > 60 {
		cut := 57
		for cut > 0 && text[cut]&0xC0 == 0x80 {
			cut--
		}
		text = text[:cut] + "..."
	}
	return fmt.Sprintf("line %d: %s", line+strings.Count(expr[:n.start], "\n"), text)
}

// guarded prints expr (the expression text at line) with its guards, adding sites to s.
func (s *sites) guarded(expr string, line int) (string, error) {
	n, err := parseExpr(expr)
	if err != nil {
		return "", fmt.Errorf("line %d: %w", line, err)
	}
	return s.printer(expr, line).print(n), nil
}

// printer returns a printer of nodes parsed from expr (at line) that adds their guards to s, each node once.
func (s *sites) printer(expr string, line int) *printer {
	done := map[*node]string{}
	pr := &printer{}
	what := func(n *node) string { return construct(expr, n, line) }
	pr.wrap = func(n *node, printed string) string {
		if p, ok := done[n]; ok {
			return p
		}
		p := s.guard(pr, n, printed, what)
		done[n] = p
		return p
	}
	return pr
}

// guard is n's printed form with its guard, if it needs one (the table atop this file).
func (s *sites) guard(pr *printer, n *node, printed string, what func(*node) string) string {
	switch n.kind {
	case nBinary:
		switch n.op {
		case "*":
			i := s.add(siteMul, "", what(n))
			return guardName(i) + "(" + pr.print(n.x) + ")(" + pr.print(n.a) + ")"
		case "~", "+":
			return guardName(s.add(siteValue, "", what(n))) + "(" + printed + ")"
		}
	case nList, nDict:
		return guardName(s.add(siteValue, "", what(n))) + "(" + printed + ")"
	case nCall:
		if n.x.kind == nAttr {
			recv := s.add(siteRecv, "", what(n))
			m := s.add(siteMethod, n.x.tok.val, what(n))
			s.list[m].recv = recv
			return guardName(m) + "(" + guardName(recv) + "(" + pr.print(n.x.x) + ")." + n.x.tok.val + ")(" +
				pr.callArgs(n.args, n.kwargs) + ")"
		}
		return guardName(s.add(siteValue, "", what(n))) + "(" + printed + ")"
	case nFilter:
		if _, ok := builtinFilters[n.tok.val]; ok {
			f := pr.object(n.x) + "|" + guardName(s.add(siteFilter, n.tok.val, what(n)))
			if n.paren {
				f += "(" + pr.callArgs(n.args, n.kwargs) + ")"
			}
			return f
		}
		// Not a builtin: the engine looks the name up among the variables (a macro used as a filter).
		return guardName(s.add(siteValue, "", what(n))) + "(" + printed + ")"
	}
	return printed
}

// keyword reads a statement's keyword as the engine's stmtKeyword does: the leading run of letters and "_".
func keyword(content string) string {
	content = strings.TrimSpace(content)
	end := strings.IndexFunc(content, func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
	if end < 0 {
		end = len(content)
	}
	return content[:end]
}

// findKeyword mirrors the engine's findKeyword: the first kw outside quotes and brackets, as a whole word.
func findKeyword(s, kw string) int {
	depth := 0
	var inStr byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr != 0 {
			if ch == '\\' && i+1 < len(s) {
				i++
			} else if ch == inStr {
				inStr = 0
			}
			continue
		}
		switch ch {
		case '\'', '"':
			inStr = ch
			continue
		case '(', '[', '{':
			depth++
			continue
		case ')', ']', '}':
			depth--
			continue
		}
		if depth == 0 && strings.HasPrefix(s[i:], kw) {
			before := i == 0 || !isIdentByte(s[i-1])
			after := i+len(kw) >= len(s) || !isIdentByte(s[i+len(kw)])
			if before && after {
				return i
			}
		}
	}
	return -1
}

// isIdent reports whether s is a name the engine's tokenizer reads as one token.
func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := range len(s) {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

func isIdentByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// statement rewrites a block tag's content (already string-converted) with its guards: what goes into the tag,
// and the expressions of output tags to emit before and after it ("" for none).
func (w *rewriter) statement(content string, line int) (before, tag, after string, err error) {
	kw := keyword(content)
	body := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(content), kw))
	switch kw {
	case "if", "elif", "for", "macro", "call", "filter", "set", "generation":
		if kw != "set" || !strings.Contains(body, "=") { // an inline set opens no block
			if w.blocks++; w.blocks > maxBlockDepth {
				return "", "", "", fmt.Errorf("line %d: blocks nest deeper than %d", line, maxBlockDepth)
			}
		}
		if kw == "elif" {
			w.blocks-- // continues the if's block
		}
	case "endif", "endfor", "endmacro", "endcall", "endfilter", "endset", "endgeneration":
		w.blocks--
	}
	g := &w.sites
	switch kw {
	case "if", "elif":
		// The engine strips the keyword's letters only: "if(x)" is the condition "(x)".
		cond, err := g.guarded(strings.TrimPrefix(strings.TrimSpace(content), kw), line)
		if err != nil {
			return "", "", "", err
		}
		return "", kw + " " + cond, "", nil
	case "for":
		in := findKeyword(body, "in")
		if in < 0 {
			return "", content, "", nil // the engine's error
		}
		vars, iter := strings.TrimSpace(body[:in]), strings.TrimSpace(body[in+2:])
		recursive := ""
		if r := findKeyword(iter, "recursive"); r >= 0 {
			recursive, iter = " recursive", strings.TrimSpace(iter[:r])
		}
		cond := ""
		if i := findKeyword(iter, "if"); i >= 0 {
			c, err := g.guarded(strings.TrimSpace(iter[i+2:]), line)
			if err != nil {
				return "", "", "", err
			}
			// The filter runs once per item, before (and whether or not) the body does: it ticks too.
			tick := g.add(siteTick, "", fmt.Sprintf("line %d: for loop filter", line))
			cond, iter = " if "+guardName(tick)+"("+c+")", strings.TrimSpace(iter[:i])
		}
		n, err := parseExpr(iter)
		if err != nil {
			return "", "", "", fmt.Errorf("line %d: for iterable: %w", line, err)
		}
		it := g.add(siteIter, "", construct(iter, n, line))
		tick := g.add(siteTick, "", fmt.Sprintf("line %d: for loop", line))
		return "", "for " + vars + " in " + guardName(it) + "(" + g.printer(iter, line).print(n) + ")" + cond + recursive,
			guardName(tick) + "()", nil
	case "set":
		if !strings.Contains(body, "=") {
			return "", content, "", nil // a block set: no expression
		}
		target, value, _ := strings.Cut(body, "=")
		target = strings.TrimSpace(target)
		v, err := g.guarded(strings.TrimSpace(value), line)
		if err != nil {
			return "", "", "", err
		}
		if ns, attr, ok := strings.Cut(target, "."); ok && isIdent(strings.TrimSpace(ns)) {
			st := g.add(siteStore, attr, fmt.Sprintf("line %d: set %s", line, target))
			v = guardName(st) + "(" + strings.TrimSpace(ns) + ")(" + v + ")"
		}
		return "", "set " + target + " = " + v, "", nil
	case "macro":
		name, params, ok := strings.Cut(body, "(")
		if !ok {
			return "", content, "", nil // the engine's error
		}
		params = strings.TrimSuffix(params, ")")
		var out []string
		if strings.TrimSpace(params) != "" {
			for part := range strings.SplitSeq(params, ",") {
				part = strings.TrimSpace(part)
				if pname, def, ok := strings.Cut(part, "="); ok {
					d, err := g.guarded(strings.TrimSpace(def), line)
					if err != nil {
						return "", "", "", err
					}
					part = strings.TrimSpace(pname) + "=" + d
				}
				out = append(out, part)
			}
		}
		enter := g.add(siteMacro, "", fmt.Sprintf("line %d: macro %s", line, strings.TrimSpace(name)))
		return "", "macro " + strings.TrimSpace(name) + "(" + strings.Join(out, ", ") + ")", guardName(enter) + "()", nil
	case "endmacro":
		return guardMacroLeave + "()", content, "", nil
	case "call":
		callerArgs := ""
		if strings.HasPrefix(body, "(") {
			end := strings.Index(body, ")")
			if end < 0 {
				return "", content, "", nil // the engine's error
			}
			callerArgs, body = body[:end+1], strings.TrimSpace(body[end+1:])
		}
		n, err := parseExpr(body)
		if err != nil {
			return "", "", "", fmt.Errorf("line %d: call expression: %w", line, err)
		}
		pr := g.printer(body, line)
		c := guardName(g.add(siteCall, "", construct(body, n, line))) + "("
		if n.kind == nCall {
			c += pr.print(n.x)
			if args := pr.callArgs(n.args, n.kwargs); args != "" {
				c += ", " + args
			}
		} else {
			c += pr.print(n)
		}
		return "", "call" + callerArgs + " " + c + ")", "", nil
	case "filter":
		// The body is rendered into a variable and the filter applied by an output tag, so that the filter is
		// guarded like any other (the engine applies a filter block's builtin without a lookup we could hook).
		// A filter with arguments is applied with them, as Jinja2 does.
		n, err := parseExpr(body)
		if err != nil {
			return "", "", "", fmt.Errorf("line %d: filter expression: %w", line, err)
		}
		v := "__mlxbun_fb" + strconv.Itoa(len(g.list))
		var applied *node
		switch n.kind {
		case nName:
			applied = &node{kind: nFilter, x: &node{kind: nName, tok: token{kind: tName, val: v}}, tok: n.tok, start: n.start, end: n.end}
		case nCall:
			if n.x.kind == nName {
				applied = &node{kind: nFilter, x: &node{kind: nName, tok: token{kind: tName, val: v}}, tok: n.x.tok,
					paren: true, args: n.args, kwargs: n.kwargs, start: n.start, end: n.end}
			}
		}
		if applied == nil {
			return "", "", "", fmt.Errorf("line %d: filter block %q: expected a filter name, with or without arguments", line, body)
		}
		out := guardName(g.add(siteOut, "", construct(body, n, line))) + "(" + g.printer(body, line).print(applied) + ")"
		w.filters = append(w.filters, out)
		return "", "set " + v, "", nil
	case "endfilter":
		if len(w.filters) == 0 {
			return "", content, "", nil // the engine's error
		}
		out := w.filters[len(w.filters)-1]
		w.filters = w.filters[:len(w.filters)-1]
		return "", "endset", out, nil
	}
	return "", content, "", nil
}

// output rewrites an output tag's content.
func (w *rewriter) output(content string, line int) (string, error) {
	n, err := parseExpr(content)
	if err != nil {
		return "", fmt.Errorf("line %d: %w", line, err)
	}
	if strings.TrimSpace(content) == "" {
		return content, nil
	}
	out := w.sites.add(siteOut, "", construct(content, n, line))
	return guardName(out) + "(" + w.sites.printer(content, line).print(n) + ")", nil
}
