package draft

import (
	"slices"
	"testing"
)

func TestNGramFindsTheLatestLongestMatch(t *testing.T) {
	g := NewNGram(4, 1, 3)
	// The tail "1 2 3" occurred twice: the most recent earlier occurrence (at 5) is followed by 7 8 9.
	h := []int{1, 2, 3, 4, 4, 1, 2, 3, 7, 8, 9, 5, 1, 2, 3}
	if got := g.Draft(h, 3); !slices.Equal(got, []int{7, 8, 9}) {
		t.Errorf("draft %v, want [7 8 9]", got)
	}
	// No 3- or 2-gram repeats, the 1-gram 6 does: what followed it.
	if got := g.Draft([]int{6, 0, 9, 6}, 4); !slices.Equal(got, []int{0, 9, 6}) {
		t.Errorf("draft %v, want [0 9 6]", got)
	}
	if got := g.Draft([]int{1, 2, 3}, 4); got != nil {
		t.Errorf("draft %v of a history without repeats, want none", got)
	}
}

func TestNGramLengthAdapts(t *testing.T) {
	g := NewNGram(8, 1, 3)
	if g.Length() != 4 {
		t.Fatalf("initial length %d, want 4", g.Length())
	}
	g.Feedback(4, 4)
	g.Feedback(6, 6)
	if g.Length() != 8 {
		t.Errorf("after two full rounds %d, want 8 (capped)", g.Length())
	}
	for range 10 {
		g.Feedback(3, 1)
	}
	if g.Length() != 1 {
		t.Errorf("after cut rounds %d, want 1", g.Length())
	}
}
