// Random grammars and schemas for the mask exactness check (exact_test.go): GBNF text with literals, classes
// (negated ones reach multi-byte UTF-8), groups, every repetition form and references between rules (recursion
// included; grammars the compiler rejects for left recursion are skipped), and JSON schemas mixing every
// supported keyword.
package grammar

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var randAlphabet = []string{"a", "b", "c", "é", "1", "-"}

func randItem(rng *rand.Rand, rules, depth int) string {
	var s string
	switch k := rng.IntN(10); {
	case k < 3:
		s = `"` + randAlphabet[rng.IntN(len(randAlphabet))] + []string{"", "a", "1"}[rng.IntN(3)] + `"`
	case k < 5:
		s = []string{"[ab]", "[a-c1]", "[^a-c]", "[é-]", "[^b]"}[rng.IntN(5)]
	case k < 7 && depth < 2:
		s = "(" + randAlts(rng, rules, depth+1) + ")"
	case k < 9:
		s = fmt.Sprintf("r%d", rng.IntN(rules))
	default:
		s = `"` + randAlphabet[rng.IntN(len(randAlphabet))] + `"`
	}
	return s + []string{"", "", "", "*", "+", "?", "{0,2}", "{2}", "{1,}"}[rng.IntN(9)]
}

func randSeq(rng *rand.Rand, rules, depth int) string {
	var items []string
	for range 1 + rng.IntN(3) {
		items = append(items, randItem(rng, rules, depth))
	}
	return strings.Join(items, " ")
}

func randAlts(rng *rand.Rand, rules, depth int) string {
	var alts []string
	for range 1 + rng.IntN(3) {
		alts = append(alts, randSeq(rng, rules, depth))
	}
	return strings.Join(alts, " | ")
}

// randGrammar writes rules r0..rN-1 and root; each rule's first alternative is a terminal, so every rule can
// finish (the recognizer's prefix answers rely on it).
func randGrammar(rng *rand.Rand) string {
	n := 1 + rng.IntN(3)
	var sb strings.Builder
	fmt.Fprintf(&sb, "root ::= %s\n", randSeq(rng, n, 0))
	for i := range n {
		fmt.Fprintf(&sb, "r%d ::= \"%s\" | %s\n", i, randAlphabet[rng.IntN(len(randAlphabet))], randAlts(rng, n, 0))
	}
	return sb.String()
}

func TestMaskExactRandomGrammars(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	alphabet := append(append([]string(nil), randAlphabet...), "ab", "\xc3", "\xa9", "é1", "\xe2\x82\xac", "z")
	compiled := 0
	for i := 0; compiled < 60 && i < 400; i++ {
		src := randGrammar(rng)
		g, err := ParseGBNF(src)
		if err != nil {
			t.Fatalf("random grammar does not parse: %v\n%s", err, src)
		}
		if _, err := Compile(g); err != nil {
			if errors.Is(err, ErrGrammar) && strings.Contains(err.Error(), "left recursion") {
				continue
			}
			t.Fatalf("%v\n%s", err, src)
		}
		compiled++
		v, toks := smallVocab(rng, alphabet, 30)
		checkWalks(t, src, g, v, toks, rng, 3, 8)
	}
	if compiled < 60 {
		t.Fatalf("only %d random grammars compiled", compiled)
	}
}

// randSchema builds a random schema of bounded depth.
func randSchema(rng *rand.Rand, depth int) string {
	k := rng.IntN(12)
	if depth >= 2 {
		k = []int{0, 1, 2, 3, 4, 5, 10}[rng.IntN(7)]
	}
	switch k {
	case 0, 11:
		return `{"type":"integer"}`
	case 1:
		return `{"type":"boolean"}`
	case 2:
		return fmt.Sprintf(`{"type":"string","maxLength":%d}`, rng.IntN(4))
	case 3:
		return `{"enum":["a","bc",1,null]}`
	case 4:
		return `{"type":"string","pattern":"^[ab]+c?$"}`
	case 5:
		return `{"type":["number","null"]}`
	case 6:
		return fmt.Sprintf(`{"type":"array","items":%s,"minItems":%d,"maxItems":2}`, randSchema(rng, depth+1), rng.IntN(2))
	case 7:
		return fmt.Sprintf(`{"anyOf":[%s,%s]}`, randSchema(rng, depth+1), randSchema(rng, depth+1))
	case 8:
		return `{"$ref":"#/$defs/tree"}`
	case 9:
		return `{"type":"string","format":"date"}`
	case 10:
		return `{"type":"string"}`
	}
	var props, req []string
	for i := range 1 + rng.IntN(3) {
		props = append(props, fmt.Sprintf(`"p%d":%s`, i, randSchema(rng, depth+1)))
		if rng.IntN(2) == 0 {
			req = append(req, fmt.Sprintf(`"p%d"`, i))
		}
	}
	return fmt.Sprintf(`{"type":"object","properties":{%s},"required":[%s],"additionalProperties":false}`,
		strings.Join(props, ","), strings.Join(req, ","))
}

func TestMaskExactRandomSchemas(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	alphabet := []string{"{", "}", "[", "]", `"`, ":", ",", " ", "\n", "p", "0", "1", "2", "a", "b", "c", "-", ".", "e",
		"true", "false", "null", "n", "u", "l", "t", `"p0"`, `"p1": `, `{"`, `"}`, `", "`, "],", "20", "-0", "1.5e",
		"\\", `\"`, "é", "2024-", "01", "02-2", "3", "k", `"k":[`, "\xc3", "\xa9", "€", "\xe2\x82", "ab é", `\u00e9`, "\t"}
	for i := range 40 {
		src := fmt.Sprintf(`{"$defs":{"tree":{"type":"object","properties":{"k":{"type":"array","items":{"$ref":"#/$defs/tree"},"maxItems":2}},"additionalProperties":false}},%s`,
			strings.TrimPrefix(randSchema(rng, 0), "{"))
		g, err := ParseJSONSchema([]byte(src))
		if err != nil {
			t.Fatalf("schema %d: %v\n%s", i, err, src)
		}
		v, toks := smallVocab(rng, alphabet, 40)
		checkWalks(t, src, g, v, toks, rng, 3, 10)
	}
}
