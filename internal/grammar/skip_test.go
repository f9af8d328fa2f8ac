// pureWalk accepts whole trie subtrees in states that loop on every byte or character in them, or whose text run
// covers them, and sorts the subtree's tokens by length at the closed end of a bounded string; at Qwen3's full
// vocabulary (partial UTF-8 tokens included) every state's table must equal the one a byte-by-byte walk builds.
package grammar

import (
	"slices"
	"testing"
)

func TestSubtreeSkipExact(t *testing.T) {
	_, v := qwenVocab(t)
	for _, src := range []string{
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","pattern":"^[a-z ]+$"},"c":{"type":"array","items":{"type":"string","maxLength":3}},"d":{"type":"string","minLength":2,"maxLength":12},"e":{"type":"string","pattern":"^[a-zé]{0,6}$"}},"required":["a","b","c","d","e"],"additionalProperties":false}`,
	} {
		g, err := ParseJSONSchema([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		a, err := Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		w := newWalker(a, v)
		skipped, closed := 0, 0
		for s, st := range a.rules[0].states {
			if st.next == nil {
				continue
			}
			fast := w.table(0, int32(s))
			noSubtreeSkip = true
			slow := w.table(0, int32(s))
			noSubtreeSkip = false
			if !slices.Equal(fast.dense, slow.dense) || !slices.Equal(fast.sparse, slow.sparse) {
				t.Fatalf("state %d: tables differ with and without subtree skipping", s)
			}
			if a.textLen[s] > 0 {
				skipped++
			}
			if a.textLen[s] > 0 && a.textClosed[s] {
				closed++
			}
		}
		if skipped == 0 || closed == 0 {
			t.Fatalf("%d states with text runs, %d closed: the skips were not exercised", skipped, closed)
		}
		t.Logf("%d states with text runs, %d closed", skipped, closed)
	}
}
