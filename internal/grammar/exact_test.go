// Mask exactness: on small vocabularies, every token's bit in FillMask against the independent recognizer
// (ref_test.go) at every state of random walks through fixed and random grammars; Accept agrees with the mask;
// rollback restores earlier masks exactly.
package grammar

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// smallVocab is every single byte of alphabet, some random strings over it, and an end id (the last id).
func smallVocab(rng *rand.Rand, alphabet []string, extra int) (*Vocab, [][]byte) {
	var toks [][]byte
	seen := map[string]bool{}
	addTok := func(s string) {
		if !seen[s] {
			seen[s] = true
			toks = append(toks, []byte(s))
		}
	}
	for _, a := range alphabet {
		addTok(a)
		for i := range len(a) { // every byte alone too, as byte-level vocabularies have, so no walk dead-ends
			addTok(a[i : i+1])
		}
	}
	for range extra {
		var sb strings.Builder
		for range 2 + rng.IntN(4) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		addTok(sb.String())
	}
	toks = append(toks, nil) // end id
	return NewVocab(toks, []int{len(toks) - 1}), toks
}

// checkWalks runs walks random walks of at most steps tokens and compares every mask bit with refMatch.
func checkWalks(t *testing.T, name string, g *Grammar, v *Vocab, toks [][]byte, rng *rand.Rand, walks, steps int) int {
	t.Helper()
	a, err := Compile(g)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tabs := NewTables(a, v)
	mask := make([]int32, v.MaskWords())
	checked := 0
	defer func() {
		tabs.Wait()
		for r := range tabs.tabs {
			for s := range tabs.tabs[r] {
				uncertainSeen += len(tabs.tabs[r][s].tab.uncertain)
			}
		}
	}()
	for w := range walks {
		m := NewMatcher(tabs)
		var text []byte
		var masks [][]int32
		for step := range steps {
			m.FillMask(mask)
			masks = append(masks, append([]int32(nil), mask...))
			var allowed []int
			for id, tb := range toks {
				want := false
				if v.IsEnd(id) {
					want = refMatch(g, text, true)
				} else {
					want = refMatch(g, append(append([]byte(nil), text...), tb...), false)
				}
				got := uint32(mask[id>>5])>>(id&31)&1 != 0
				if got != want {
					t.Fatalf("%s walk %d step %d after %q: token %d %q mask %v, recognizer %v", name, w, step, text, id, tb, got, want)
				}
				if got {
					allowed = append(allowed, id)
				}
				checked++
			}
			if want := refMatch(g, text, true); m.CanEnd() != want {
				t.Fatalf("%s after %q: CanEnd %v, recognizer %v", name, text, m.CanEnd(), want)
			}
			if len(allowed) == 0 {
				t.Fatalf("%s after %q: nothing allowed (dead end)", name, text)
			}
			id := allowed[rng.IntN(len(allowed))]
			if err := m.AcceptToken(id); err != nil {
				t.Fatalf("%s after %q: allowed token %d rejected: %v", name, text, id, err)
			}
			if m.Done() {
				break
			}
			text = append(text, toks[id]...)
			// A token outside the mask must be rejected without changing the state.
			for bad, tb := range toks {
				if uint32(mask[bad>>5])>>(bad&31)&1 == 0 && !v.IsEnd(bad) && tb != nil {
					_ = m.Rollback(1)
					if m.AcceptToken(bad) == nil {
						t.Fatalf("%s: token %q outside the mask accepted", name, tb)
					}
					if err := m.AcceptToken(id); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
		}
		// Roll back to random earlier points: the masks must repeat exactly.
		for m.Accepted() > 0 {
			n := 1 + rng.IntN(m.Accepted())
			if err := m.Rollback(n); err != nil {
				t.Fatal(err)
			}
			m.FillMask(mask)
			if fmt.Sprint(mask) != fmt.Sprint(masks[m.Accepted()]) {
				t.Fatalf("%s: mask after rolling back to %d tokens differs", name, m.Accepted())
			}
		}
	}
	return checked
}

// uncertainSeen counts the uncertain tokens of every table the walks built, to show the stack-dependent path ran.
var uncertainSeen int

var fixedGrammars = []struct{ name, src string }{
	{"arith", `root ::= expr
expr ::= term (("+" | "-") term)*
term ::= num | "(" expr ")"
num ::= [0-9]+`},
	{"list", `root ::= "[" (item ("," item)*)? "]"
item ::= "a" | "b" item | "[" (item ("," item)*)? "]"`},
	{"nullable", `root ::= x y "c"
x ::= "a"? 
y ::= x "b"*`},
	{"utf8", `root ::= [a-cé€😀]{1,3} [^a-z]? "."`},
	{"rightrec", `root ::= "a" root | "b"`},
}

func TestMaskExactFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, fg := range fixedGrammars {
		g, err := ParseGBNF(fg.src)
		if err != nil {
			t.Fatalf("%s: %v", fg.name, err)
		}
		alphabet := []string{"a", "b", "c", "(", ")", "+", "-", "0", "1", "9", "[", "]", ",", ".", "é", "€", "😀", "\xc3", "\xa9", "\xf0\x9f"}
		v, toks := smallVocab(rng, alphabet, 60)
		checkWalks(t, fg.name, g, v, toks, rng, 6, 12)
	}
	if uncertainSeen == 0 {
		t.Fatal("no table had uncertain tokens: the stack-dependent check was not exercised")
	}
}
