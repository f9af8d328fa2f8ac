// Rollback at Qwen3 scale, as speculative decoding uses it: replaying a document's tokens, every few steps the
// matcher rolls back a random number of tokens and re-accepts them, and each mask must equal the one the
// straight replay produced; a rejected token leaves the state as it was.
package grammar

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRollbackReplay(t *testing.T) {
	tok, v := qwenVocab(t)
	bs := benchSchemas[0]
	a, _ := compileSchema(t, bs.file)
	tabs := NewTables(a, v)
	ids := tok.Encode(bs.docs[1], false)
	// The straight replay's masks.
	m := NewMatcher(tabs)
	var want [][]int32
	for _, id := range ids {
		mask := make([]int32, v.MaskWords())
		m.FillMask(mask)
		want = append(want, mask)
		if err := m.AcceptToken(id); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	m = NewMatcher(tabs)
	mask := make([]int32, v.MaskWords())
	for i := 0; i < len(ids); {
		m.FillMask(mask)
		if !slices.Equal(mask, want[i]) {
			t.Fatalf("mask before token %d differs from the straight replay", i)
		}
		// A token the mask rejects must fail and change nothing.
		for bad := range v.Size() {
			if mask[bad>>5]>>(bad&31)&1 == 0 && v.Bytes(bad) != nil {
				if m.AcceptToken(bad) == nil {
					t.Fatalf("masked-out token %d accepted", bad)
				}
				break
			}
		}
		if err := m.AcceptToken(ids[i]); err != nil {
			t.Fatal(err)
		}
		i++
		if i%5 == 0 {
			n := 1 + rng.IntN(min(i, 4))
			if err := m.Rollback(n); err != nil {
				t.Fatal(err)
			}
			i -= n
			if m.Accepted() != i {
				t.Fatalf("after rollback %d accepted, want %d", m.Accepted(), i)
			}
			// Re-accept part of what was undone, then go on from the matcher's position.
			for range rng.IntN(n + 1) {
				m.FillMask(mask)
				if !slices.Equal(mask, want[i]) {
					t.Fatalf("mask at token %d after rollback differs", i)
				}
				if err := m.AcceptToken(ids[i]); err != nil {
					t.Fatal(err)
				}
				i++
			}
		}
	}
	if err := m.Rollback(m.Accepted() + 1); err == nil {
		t.Fatal("rolling back more than was accepted succeeded")
	}
}
