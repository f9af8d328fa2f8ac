// Package grammar constrains generation to a formal language: JSON Schemas (the structured-outputs subset),
// regular expressions and GBNF grammars are parsed into one grammar form (this file), compiled to a pushdown
// automaton over bytes (compile.go: one minimized DFA per rule, rule references as push edges), and run over a
// tokenizer's vocabulary (vocab.go, tables.go, matcher.go) to fill the packed token bitmask of package sample.
//
// This file holds the grammar form every front end produces: rules whose bodies are expression trees over single
// bytes (sets of bytes), sequences, alternatives, bounded or unbounded repetition and rule references. Characters
// outside ASCII are spelled as their UTF-8 byte sequences (utf8.go), so the automaton never sees a code point.
package grammar

import (
	"errors"
	"fmt"
	"strings"
)

// ErrGrammar is wrapped by every error about a grammar, schema or regular expression that cannot be compiled;
// the message names the construct.
var ErrGrammar = errors.New("grammar")

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// errf returns an error wrapping ErrGrammar. Its message is one line: a control character quoted from the
// source (a newline inside a repetition's braces, in a property name) is written as an escape.
func errf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrGrammar, oneLine.Replace(fmt.Sprintf(format, a...)))
}

var oneLine = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`, "\x00", `\x00`)

// errAt puts where in front of a grammar error's message (one "grammar:" prefix, still wrapping ErrGrammar).
func errAt(where string, err error) error {
	return errf("%s: %s", where, strings.TrimPrefix(err.Error(), ErrGrammar.Error()+": "))
}

// kind is an expression node's type.
type kind uint8

const (
	kEmpty  kind = iota // the empty string
	kBytes              // one byte from set
	kSeq                // subs in order
	kAlt                // any one of subs
	kRepeat             // subs[0] repeated min..max times (max < 0: unbounded)
	kRef                // the rule numbered ref
)

// byteSet is a set of byte values, bit b%64 of word b/64.
type byteSet [4]uint64

func (s *byteSet) add(lo, hi byte) {
	for b := int(lo); b <= int(hi); b++ {
		s[b>>6] |= 1 << (b & 63)
	}
}

func (s byteSet) has(b byte) bool { return s[b>>6]>>(b&63)&1 != 0 }

func (s byteSet) empty() bool { return s == byteSet{} }

// expr is a node of a rule body. Trees may share subtrees (they are never mutated after construction).
type expr struct {
	k        kind
	set      byteSet // kBytes
	subs     []*expr // kSeq, kAlt, kRepeat (one)
	min, max int     // kRepeat
	ref      int     // kRef
	// what names the source construct this node was parsed from ("regex construct ... at offset 4", a JSON
	// schema path), set by the front ends on the nodes worth naming when a budget is exceeded (budget.go).
	what string
}

// rule is one named nonterminal.
type rule struct {
	name string
	body *expr
}

// Grammar is a parsed grammar, schema or regular expression before compilation: named rules and a root.
type Grammar struct {
	rules  []rule
	byName map[string]int
	root   int
}

func newGrammar() *Grammar { return &Grammar{byName: map[string]int{}} }

// declare returns the index of rule name, adding it (without a body) when it is new.
func (g *Grammar) declare(name string) int {
	if i, ok := g.byName[name]; ok {
		return i
	}
	g.rules = append(g.rules, rule{name: name})
	g.byName[name] = len(g.rules) - 1
	return len(g.rules) - 1
}

// define sets the body of rule name, declaring it if needed.
func (g *Grammar) define(name string, body *expr) int {
	i := g.declare(name)
	g.rules[i].body = body
	return i
}

// Constructors. They simplify the trivial cases so that generated grammars stay small.

var empty = &expr{k: kEmpty}

func byteRange(lo, hi byte) *expr {
	e := &expr{k: kBytes}
	e.set.add(lo, hi)
	return e
}

func bytesOf(s byteSet) *expr { return &expr{k: kBytes, set: s} }

// lit is the byte string s.
func lit(s string) *expr {
	if len(s) == 1 {
		return byteRange(s[0], s[0])
	}
	subs := make([]*expr, len(s))
	for i := range len(s) {
		subs[i] = byteRange(s[i], s[i])
	}
	return seq(subs...)
}

func seq(subs ...*expr) *expr {
	var out []*expr
	for _, s := range subs {
		switch {
		case s.k == kEmpty:
		case s.k == kSeq && s.what == "": // a labelled node keeps its label (and is the same language)
			out = append(out, s.subs...)
		default:
			out = append(out, s)
		}
	}
	switch len(out) {
	case 0:
		return empty
	case 1:
		return out[0]
	}
	return &expr{k: kSeq, subs: out}
}

func alt(subs ...*expr) *expr {
	var out []*expr
	for _, s := range subs {
		if s.k == kAlt && s.what == "" {
			out = append(out, s.subs...)
		} else {
			out = append(out, s)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return &expr{k: kAlt, subs: out}
}

// repeat is e repeated lo..hi times; hi < 0 means no upper bound.
func repeat(e *expr, lo, hi int) *expr {
	if hi == 0 || e.k == kEmpty {
		return empty
	}
	if lo == 1 && hi == 1 {
		return e
	}
	return &expr{k: kRepeat, subs: []*expr{e}, min: lo, max: hi}
}

func opt(e *expr) *expr  { return repeat(e, 0, 1) }
func star(e *expr) *expr { return repeat(e, 0, -1) }
func plus(e *expr) *expr { return repeat(e, 1, -1) }

func refTo(i int) *expr { return &expr{k: kRef, ref: i} }

// named returns e labelled with the construct it came from: a copy, since nodes are shared and immutable. A node
// already labelled keeps its (more specific) label: a rule whose body is one construct is named by the construct.
func named(e *expr, what string) *expr {
	if e.what != "" {
		return e
	}
	c := *e
	c.what = what
	return &c
}

// nothing is the empty language (an alternative with no options): a schema that no value satisfies.
var nothing = &expr{k: kAlt}
