// Grammars that cannot compile give one error line naming the construct (wrapping ErrGrammar), never a panic.
package grammar

import (
	"errors"
	"strings"
	"testing"
)

func TestBadGrammarsNameTheConstruct(t *testing.T) {
	cases := []struct {
		kind, src, want string
	}{
		{"gbnf", `root ::= "a" undefined`, `rule "undefined" is used (line 1) but never defined`},
		{"gbnf", `start ::= "a"`, "no rule named root"},
		{"gbnf", `root ::= "abc`, "line 1:10: unterminated string literal"},
		{"gbnf", "root ::= [a-", "unclosed character class"},
		{"gbnf", `root ::= ("a"`, "unclosed group"},
		{"gbnf", `root ::= [z-a]`, "reversed"},
		{"gbnf", "root ::= x\nx ::= x \"a\" | \"b\"", "left recursion: x -> x"},
		{"gbnf", "root ::= y \"c\"\ny ::= z? root | \"d\"\nz ::= \"q\"", "left recursion: root -> y -> root"},
		{"gbnf", `root ::= "a"{3,1}`, "bad upper bound"},
		{"gbnf", `root ::= "a" x
x ::= "b" x`, `matches no string`},
		{"gbnf", `root ::= "a" \q`, `unexpected "\\q"`},
		{"gbnf", "root ::= \"a\"\nroot ::= \"b\"", `rule "root" defined twice`},
		{"regex", `(a|b`, "unclosed group"},
		{"regex", `(?=a)b`, "lookaround"},
		{"regex", `(a)\1`, "backreference"},
		{"regex", `\bword`, `word boundary \b`},
		{"regex", `a{2,1}`, "bad upper bound"},
		{"regex", `*a`, "nothing to repeat"},
		{"regex", `a++`, "possessive"},
		{"regex", `a^b`, "^ is supported only at the start"},
		{"regex", `(a|b)*a(a|b){16}`, "automaton exceeds"},
		{"schema", `{"type": "object", "properties": {"a": {"type": "string", "format": "hostname"}}}`, `#/properties/a/format: format "\"hostname\"" is not supported`},
		{"schema", `{"type": "integer", "minimum": 3}`, `keyword "minimum" is not supported`},
		{"schema", `{"oneOf": [{"type": "string"}]}`, `keyword "oneOf" is not supported`},
		{"schema", `{"type": "strin"}`, `unknown type "strin"`},
		{"schema", `{"$ref": "#/$defs/missing"}`, `"#/$defs/missing" does not resolve`},
		{"schema", `{"type": "object", "properties": {"a": {}}, "required": ["b"]}`, `required: "b" is not a listed property`},
		{"schema", `{"type": "string", "maxLength": 2, "minLength": 5}`, "maxLength 2 < minLength 5"},
		{"schema", `{"type": "array", "items": {"type": "string", "pattern": "(?<=x)"}}`, `grammar: JSON schema #/items/pattern: regex "(?<=x)" at offset 0: lookaround`},
		{"schema", `{"type": "string", "foo": 1}`, `keyword "foo" is not supported here`},
		{"schema", `{"type": "object"`, "JSON schema: the document ends early"},
		{"schema", `[1]`, "a schema must be an object or a boolean"},
		{"schema", `{"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a|b)*a(a|b){16}$"}}}`, `grammar: JSON schema #/properties/code/pattern "^(a|b)*a(a|b){16}$": rule "pattern": automaton exceeds`},
		{"schema", `{"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`, `can never finish: "ref #/$defs/a"`},
	}
	for _, c := range cases {
		var g *Grammar
		var err error
		switch c.kind {
		case "gbnf":
			g, err = ParseGBNF(c.src)
		case "regex":
			g, err = ParseRegex(c.src)
		case "schema":
			g, err = ParseJSONSchema([]byte(c.src))
		}
		if err == nil {
			_, err = Compile(g)
		}
		if err == nil {
			t.Errorf("%s %q: no error, want %q", c.kind, c.src, c.want)
			continue
		}
		if !errors.Is(err, ErrGrammar) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %q: error %q, want one line wrapping ErrGrammar containing %q", c.kind, c.src, err, c.want)
		}
	}
}
