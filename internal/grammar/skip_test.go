// pureWalk accepts whole trie subtrees in states that loop on every byte or character in them; at Qwen3's full
// vocabulary (partial UTF-8 tokens included) every state's table must equal the one a byte-by-byte walk builds.
package grammar

import (
	"slices"
	"testing"
)

func TestSubtreeSkipExact(t *testing.T) {
	_, v := qwenVocab(t)
	for _, src := range []string{
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","pattern":"^[a-z ]+$"},"c":{"type":"array","items":{"type":"string","maxLength":3}}},"required":["a","b","c"],"additionalProperties":false}`,
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
		skipped := 0
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
		}
		if skipped == 0 {
			t.Fatal("no state has a text run: the skip was not exercised")
		}
	}
}
