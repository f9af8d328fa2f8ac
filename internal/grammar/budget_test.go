// Acceptance tests for the compile budgets (budget.go): every schema, regular expression and grammar here ran out
// of memory or hung before them (the first of each kind was reported by a user); now each fails with one error
// line naming the construct, within the acceptance bound (10 s, 1 GiB allocated), and grammars just inside the
// budgets still compile.
package grammar

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

// nestedItems is a schema of n arrays nested in each other's items.
func nestedItems(n int) string {
	return strings.Repeat(`{"type":"array","items":`, n) + `{"type":"string"}` + strings.Repeat("}", n)
}

// compileSrc parses src as kind and compiles it.
func compileSrc(kind, src string) (*Automaton, error) {
	var g *Grammar
	var err error
	switch kind {
	case "gbnf":
		g, err = ParseGBNF(src)
	case "regex":
		g, err = ParseRegex(src)
	default:
		g, err = ParseJSONSchema([]byte(src))
	}
	if err != nil {
		return nil, err
	}
	return Compile(g)
}

func TestBudgetsNameTheConstruct(t *testing.T) {
	manyStrings := `{"type":"object","properties":{`
	for i := range 40 {
		if i > 0 {
			manyStrings += ","
		}
		manyStrings += fmt.Sprintf(`"p%d":{"type":"string","maxLength":10000}`, i)
	}
	manyStrings += "}}"
	var recursive strings.Builder
	recursive.WriteString("root ::= r0\n")
	for i := range 40 {
		fmt.Fprintf(&recursive, "r%d ::= [a-z]{0,9000} \"(\" r%d \")\" | r%d | \"x\"\n", i, i, (i+1)%40)
	}
	for _, c := range []struct{ name, kind, src, want string }{
		// The cases of the issue.
		{"20 nested items", "schema", nestedItems(20), "JSON schema #/items/items"},
		{"30 nested items", "schema", nestedItems(30), "would unroll to more than 1048576 automaton states"},
		{"nested bounded repetitions", "regex", "((a{1,50}){1,50}){1,50}", `regex construct "((a{1,50}){1,50}){1,50}" at offset 0: rule "root": determinizing the automaton needs more than`},
		// More of each kind.
		{"100 nested items", "schema", nestedItems(100), "would unroll to more than"},
		{"nested items with bounds", "schema", strings.Repeat(`{"type":"array","minItems":3,"maxItems":9,"items":`, 8) + `{}` + strings.Repeat("}", 8), "JSON schema #/items"},
		{"many long strings", "schema", manyStrings, "would unroll to more than"},
		{"deep anyOf chain", "schema", strings.Repeat(`{"anyOf":[`, 300) + `{}` + strings.Repeat("]}", 300), "subschemas nest deeper than 128"},
		{"deep JSON document", "schema", strings.Repeat("[", 5000) + strings.Repeat("]", 5000), "objects and arrays nest deeper than 1000"},
		{"repetition of a repetition", "regex", "(a{5000}){5000}", `regex construct "(a{5000}){5000}" at offset 0 would unroll to more than 1048576 automaton states`},
		{"repetition at the state limit", "regex", "a{1000}{1000}", "automaton exceeds 65536 states"},
		{"alternation blowup", "regex", "(a|b)*a(a|b){20}", "automaton exceeds 65536 states"},
		{"gbnf nested repetitions", "gbnf", `root ::= (("a"{1,50}){1,50}){1,50}`, "determinizing the automaton needs more than"},
		{"gbnf inlined repetitions", "gbnf", "root ::= x{1000}\nx ::= y{1000}\ny ::= \"ab\"", `GBNF line 1:10 "x{1000}" would unroll`},
		{"gbnf many large recursive rules", "gbnf", recursive.String(), "over all"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := limit.Within(t, limit.Acceptance, func() error { _, err := compileSrc(c.kind, c.src); return err })
			limit.OneLine(t, err, c.want)
			if !errors.Is(err, ErrGrammar) {
				t.Errorf("%v does not wrap ErrGrammar", err)
			}
		})
	}
	// Just inside: each compiles within the bound.
	for _, c := range []struct{ name, kind, src string }{
		{"8 nested items", "schema", nestedItems(8)},
		{"long chains", "regex", "(a{10000}){6}"},
		{"a long string", "schema", `{"type":"string","maxLength":2000}`},
		{"nested small repetitions", "regex", "((a{1,5}){1,5}){1,5}"},
		{"gbnf recursion", "gbnf", "root ::= \"(\" root \")\" | [a-z]{1,100}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := limit.Within(t, limit.Acceptance, func() error { _, err := compileSrc(c.kind, c.src); return err }); err != nil {
				t.Fatal(err)
			}
		})
	}
}
