// Tests of the Stopper: hand-written streams, and random streams against a reference that rescans the whole text
// after every token.
package sample

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

type step struct {
	id   int
	text string
	emit string
	stop bool
}

func TestStopperHandCases(t *testing.T) {
	const eos = 2
	cases := []struct {
		name  string
		stops []string
		steps []step
		flush string
	}{
		{"stop string across tokens", []string{"STOP"}, []step{
			{5, "Hel", "Hel", false},
			{5, "lo ST", "lo ", false}, // "ST" could begin STOP: held
			{5, "OP more", "", true},   // STOP completes: nothing from it on
			{5, "after", "", true},
		}, ""},
		{"false start is released", []string{"STOP"}, []step{
			{5, "ST", "", false},
			{5, "ART", "START", false},
			{5, "S", "", false},
		}, "S"},
		{"EOS drops its text, releases the held part", []string{"STOP"}, []step{
			{5, "a S", "a ", false},
			{eos, "</s>", "S", true},
			{5, "x", "", true},
		}, ""},
		{"earliest of several stops wins", []string{"abc", "bcd"}, []step{
			{5, "xbcdabc", "x", true},
		}, ""},
		{"a stop inside one token", []string{"\n\n"}, []step{
			{5, "one\n\ntwo", "one", true},
		}, ""},
		{"held across several tokens", []string{"<|end|>"}, []step{
			{5, "hi <", "hi ", false},
			{5, "|e", "", false},
			{5, "nd", "", false},
			{5, "|x", "<|end|x", false},
		}, ""},
		{"overlapping prefix keeps the longest candidate", []string{"aab"}, []step{
			{5, "aa", "", false},
			{5, "a", "a", false}, // "aaa": "aa" could still begin aab
			{5, "b", "", true},
		}, ""},
		{"no stop strings", nil, []step{{5, "text", "text", false}, {eos, "", "", true}}, ""},
		{"empty stop strings are ignored", []string{""}, []step{{5, "text", "text", false}}, ""},
		{"multi-byte text", []string{"。"}, []step{{5, "日本", "日本", false}, {5, "語。次", "語", true}}, ""},
	}
	for _, c := range cases {
		s := NewStopper([]int{7, eos}, c.stops)
		for i, st := range c.steps {
			emit, stop := s.Push(st.id, st.text)
			if emit != st.emit || stop != st.stop {
				t.Fatalf("%s step %d: Push(%d, %q) = %q, %v; want %q, %v", c.name, i, st.id, st.text, emit, stop, st.emit, st.stop)
			}
		}
		if f := s.Flush(); f != c.flush {
			t.Fatalf("%s: Flush = %q, want %q", c.name, f, c.flush)
		}
	}
}

// refStop runs a stream through the definition: after token k the text so far is P_k; the first k at which some
// stop string occurs in P_k ends the stream with P_k cut at the earliest occurrence; an EOS ends it with the text
// before it; otherwise everything comes out. It also returns the most text that may be held back after each token
// (the longest suffix of P_k that is a proper prefix of a stop string).
func refStop(ids []int, texts []string, eos int, stops []string) (string, []int) {
	var holds []int
	p := ""
	for k, text := range texts {
		if ids[k] == eos {
			return p, holds
		}
		p += text
		first := -1
		for _, s := range stops {
			if i := strings.Index(p, s); i >= 0 && (first < 0 || i < first) {
				first = i
			}
		}
		if first >= 0 {
			return p[:first], holds
		}
		hold := 0
		for n := 1; n <= len(p); n++ {
			for _, s := range stops {
				if n < len(s) && strings.HasPrefix(s, p[len(p)-n:]) {
					hold = n
				}
			}
		}
		holds = append(holds, hold)
	}
	return p, holds
}

func TestStopperMatchesRescan(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 27))
	const eos = 99
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc"[rng.IntN(3)]
		}
		return string(b)
	}
	for trial := range 5000 {
		var stops []string
		for range rng.IntN(4) {
			stops = append(stops, word(1+rng.IntN(5)))
		}
		n := 1 + rng.IntN(12)
		ids, texts := make([]int, n), make([]string, n)
		for i := range texts {
			ids[i] = rng.IntN(50)
			if rng.IntN(25) == 0 {
				ids[i] = eos
			}
			texts[i] = word(rng.IntN(4))
		}
		want, holds := refStop(ids, texts, eos, stops)
		s := NewStopper([]int{eos}, stops)
		got, sofar := "", ""
		stopped := false
		for k := range texts {
			emit, stop := s.Push(ids[k], texts[k])
			got += emit
			if stop {
				stopped = true
				break
			}
			sofar += texts[k]
			if held := len(sofar) - len(got); held != holds[k] {
				t.Fatalf("trial %d stops %q texts %q: after token %d %d bytes held, want %d", trial, stops, texts, k, held, holds[k])
			}
		}
		if !stopped {
			got += s.Flush()
		}
		if got != want {
			t.Fatalf("trial %d stops %q ids %v texts %q: output %q, want %q", trial, stops, ids, texts, got, want)
		}
	}
}

func TestEndIDs(t *testing.T) {
	for _, c := range []struct {
		model  []int
		tok    int
		ignore bool
		want   []int
	}{
		{[]int{2}, 7, false, []int{2, 7}},
		{[]int{2, 7}, 7, false, []int{2, 7}},
		{nil, 7, false, []int{7}},
		{[]int{2}, -1, false, []int{2}},
		{nil, -1, false, nil},
		{[]int{2}, 7, true, nil},
	} {
		if got := EndIDs(c.model, c.tok, c.ignore); !slices.Equal(got, c.want) {
			t.Errorf("EndIDs(%v, %d, %v) = %v, want %v", c.model, c.tok, c.ignore, got, c.want)
		}
	}
	model := make([]int, 1, 4) // room to append into: EndIDs must copy instead
	model[0] = 2
	EndIDs(model, 7, false)
	if model[:2][1] == 7 {
		t.Error("EndIDs wrote into its argument's spare capacity")
	}
}

func TestStopperReasonAndFinish(t *testing.T) {
	s := NewStopper([]int{2}, []string{"STOP"})
	if s.IsEnd(-1) || !s.IsEnd(2) || s.IsEnd(3) {
		t.Error("IsEnd")
	}
	s.Push(5, "a")
	if s.Reason() != "" || s.Stopped() {
		t.Fatal("stopped early")
	}
	s.Push(2, "</s>")
	if s.Reason() != ReasonEOS || s.Finish("more") != "" {
		t.Fatalf("after EOS: reason %q", s.Reason())
	}
	s = NewStopper(nil, []string{"STOP"})
	s.Push(5, "x ST")
	if got := s.Finish("OP y"); got != "" || s.Reason() != ReasonStop {
		t.Fatalf("Finish completing a stop string: %q, reason %q", got, s.Reason())
	}
	s = NewStopper(nil, []string{"STOP"})
	if emit, _ := s.Push(5, "x ST"); emit != "x " {
		t.Fatalf("emit %q", emit)
	}
	if got := s.Finish("A"); got != "STA" || s.Reason() != "" {
		t.Fatalf("Finish = %q (reason %q), want the held text and the rest", got, s.Reason())
	}
}
