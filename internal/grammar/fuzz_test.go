// Fuzz targets: any GBNF text, regular expression or schema either compiles or returns an error wrapping
// ErrGrammar; nothing panics. The seed corpus runs with every go test; go test -fuzz explores further.
package grammar

import (
	"errors"
	"testing"
)

func compileOrErr(t *testing.T, g *Grammar, err error) {
	if err == nil {
		_, err = Compile(g)
	}
	if err != nil && !errors.Is(err, ErrGrammar) {
		t.Fatalf("error %v does not wrap ErrGrammar", err)
	}
}

func FuzzGBNF(f *testing.F) {
	for _, fg := range fixedGrammars {
		f.Add(fg.src)
	}
	for _, s := range []string{"", "root", "root ::=", "root ::= |", `root ::= "\x`, "root ::= [^]", "root ::= a\na ::= a", "root ::= ()*", "root ::= \"\"*", "root ::= x{0,}\nx ::= \"\"", `root ::= [\U0010FFFF-\U0010FFFF]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ParseGBNF(src)
		compileOrErr(t, g, err)
	})
}

func FuzzRegex(f *testing.F) {
	for _, s := range []string{"", "a|", "(|)", "()*", "[]a]", "[^]", `\`, `\x{110000}`, "a{,3}", "x**", "(?P<n>a)", "^$", "[a-\\d]", `\u00e9+`, "(a*)*b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ParseRegex(src)
		compileOrErr(t, g, err)
	})
}

func FuzzJSONSchema(f *testing.F) {
	for _, s := range genSchemas {
		f.Add(s.src)
	}
	for _, s := range []string{"", "true", "false", "{}", `{"type":[]}`, `{"enum":[]}`, `{"anyOf":[]}`, `{"$ref":"#"}`, `{"items":{"$ref":"#"}}`,
		`{"type":"string","maxLength":10001}`, `{"properties":{"a":false},"required":["a"]}`, `{"type":"array","maxItems":0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ParseJSONSchema([]byte(src))
		compileOrErr(t, g, err)
	})
}
