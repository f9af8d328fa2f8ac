// Fuzz targets: any GBNF text, regular expression or schema either compiles or returns one error line wrapping
// ErrGrammar, within limit.FuzzInput (time and allocation); nothing panics, hangs or runs out of memory. The seed corpus runs with every go test; go test -fuzz explores further.
package grammar

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

// compileOrErr parses and compiles within limit.FuzzInput: the budgets must stop any input well inside it.
func compileOrErr(t *testing.T, parse func() (*Grammar, error)) {
	defer limit.Watch(t, limit.FuzzInput)()
	g, err := parse()
	if err == nil {
		_, err = Compile(g)
	}
	if err != nil && (!errors.Is(err, ErrGrammar) || strings.Contains(err.Error(), "\n")) {
		t.Fatalf("error %q does not wrap ErrGrammar or is not one line", err)
	}
}

func FuzzGBNF(f *testing.F) {
	for _, fg := range fixedGrammars {
		f.Add(fg.src)
	}
	for _, s := range []string{"", "root", "root ::=", "root ::= |", `root ::= "\x`, "root ::= [^]", "root ::= a\na ::= a", "root ::= ()*", "root ::= \"\"*", "root ::= x{0,}\nx ::= \"\"", `root ::= [\U0010FFFF-\U0010FFFF]`, `root ::= (("a"{1,50}){1,50}){1,50}`, "root ::= x{1000}\nx ::= y{1000}\ny ::= \"ab\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compileOrErr(t, func() (*Grammar, error) { return ParseGBNF(src) })
	})
}

func FuzzRegex(f *testing.F) {
	for _, s := range []string{"", "a|", "(|)", "()*", "[]a]", "[^]", `\`, `\x{110000}`, "a{,3}", "x**", "(?P<n>a)", "^$", "[a-\\d]", `\u00e9+`, "(a*)*b", "((a{1,50}){1,50}){1,50}", "(a{100}){60}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compileOrErr(t, func() (*Grammar, error) { return ParseRegex(src) })
	})
}

func FuzzJSONSchema(f *testing.F) {
	for _, s := range genSchemas {
		f.Add(s.src)
	}
	for _, s := range []string{"", "true", "false", "{}", `{"type":[]}`, `{"enum":[]}`, `{"anyOf":[]}`, `{"$ref":"#"}`, `{"items":{"$ref":"#"}}`,
		`{"type":"string","maxLength":10001}`, `{"properties":{"a":false},"required":["a"]}`, `{"type":"array","maxItems":0}`,
		nestedItems(20), nestedItems(30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		compileOrErr(t, func() (*Grammar, error) { return ParseJSONSchema([]byte(src)) })
	})
}
