// Tests of the spec, the geometry a stored shape implies (every rejection a clear ErrFormat error) and the word
// and scale counts NewWeights demands.
package trellis

import (
	"errors"
	"strings"
	"testing"
)

var (
	k3Axis1 = Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: 1}
	k3Axis0 = Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: 0}
)

func TestNewGeometryAccepts(t *testing.T) {
	cases := []struct {
		name              string
		spec              Spec
		shape             []int
		rows, cols        int
		in, out, wordsRow int
		interleaved       bool
	}{
		// Qwen3-14B's gate: [17408, 5120·3/32 = 480] words.
		{"gate k3 axis1", k3Axis1, []int{17408, 480}, 17408, 5120, 5120, 17408, 480, false},
		// Its down projection stored Wᵀ: [in 17408, out 5120·3/32].
		{"down k3 axis0", k3Axis0, []int{17408, 480}, 17408, 5120, 17408, 5120, 480, false},
		{"down k3 interleaved", k3Axis0, []int{10, 17408, 48}, 17408, 5120, 17408, 5120, 480, true},
		{"k2 T128", Spec{K: 2, L: 16, T: 128, Code: "1mad", Axis: 1}, []int{4, 16}, 4, 256, 256, 4, 16, false},
		{"k4 L16", Spec{K: 4, L: 16, T: 256, Code: "1mad", Axis: 1}, []int{1, 64}, 1, 512, 512, 1, 64, false},
		{"k1 T32", Spec{K: 1, L: 8, T: 32, Code: "1mad", Axis: 0}, []int{3, 2}, 3, 64, 3, 64, 2, false},
		{"k8 T4", Spec{K: 8, L: 16, T: 4, Code: "1mad", Axis: 1}, []int{2, 3}, 2, 12, 12, 2, 3, false},
		{"k5 T32", Spec{K: 5, L: 10, T: 32, Code: "1mad", Axis: 1}, []int{2, 10}, 2, 64, 64, 2, 10, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGeometry(c.spec, c.shape)
			if err != nil {
				t.Fatal(err)
			}
			if g.Rows != c.rows || g.Cols != c.cols || g.InFeatures() != c.in || g.OutFeatures() != c.out ||
				g.WordsPerRow() != c.wordsRow || g.Interleaved != c.interleaved {
				t.Fatalf("got rows %d cols %d in %d out %d words/row %d interleaved %v", g.Rows, g.Cols,
					g.InFeatures(), g.OutFeatures(), g.WordsPerRow(), g.Interleaved)
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if s := g.StoredShape(); len(s) != len(c.shape) || s[0] != c.shape[0] || s[1] != c.shape[1] {
				t.Fatalf("StoredShape %v, want %v", s, c.shape)
			}
		})
	}
}

func TestNewGeometryRejects(t *testing.T) {
	cases := []struct {
		name  string
		spec  Spec
		shape []int
		want  string // a fragment the message must hold
	}{
		{"unknown code", Spec{K: 3, L: 12, T: 256, Code: "2mad", Axis: 1}, []int{4, 96}, "unknown code"},
		{"empty code", Spec{K: 3, L: 12, T: 256, Axis: 1}, []int{4, 96}, "unknown code"},
		{"L 17", Spec{K: 3, L: 17, T: 256, Code: "1mad", Axis: 1}, []int{4, 96}, "L=17"},
		{"L below k", Spec{K: 4, L: 3, T: 256, Code: "1mad", Axis: 1}, []int{4, 96}, "L=3 < k=4"},
		{"k 0", Spec{K: 0, L: 12, T: 256, Code: "1mad", Axis: 1}, []int{4, 96}, "k=0"},
		{"k 9", Spec{K: 9, L: 12, T: 256, Code: "1mad", Axis: 1}, []int{4, 96}, "k=9"},
		{"axis 2", Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: 2}, []int{4, 96}, "axis 2"},
		{"T 0", Spec{K: 3, L: 12, T: 0, Code: "1mad", Axis: 1}, []int{4, 96}, "T=0"},
		{"T·k not words", Spec{K: 3, L: 12, T: 100, Code: "1mad", Axis: 1}, []int{4, 96}, "not a multiple of 32"},
		{"partial symbol", k3Axis1, []int{4, 95}, "whole number of 3-bit symbols"},
		{"partial block", k3Axis1, []int{4, 93}, "not a multiple of block 256"},
		{"1-D", k3Axis1, []int{96}, "expected 2-D"},
		{"4-D", k3Axis0, []int{1, 1, 1, 48}, "expected 2-D"},
		{"no shape", k3Axis1, nil, "expected 2-D"},
		{"zero rows", k3Axis1, []int{0, 96}, "empty"},
		{"negative words", k3Axis1, []int{4, -96}, "empty"},
		{"interleave on axis 1", k3Axis1, []int{2, 4, 48}, "interleaved"},
		{"interleave k2", Spec{K: 2, L: 12, T: 256, Code: "1mad", Axis: 0}, []int{2, 4, 48}, "interleaved"},
		{"interleave T128", Spec{K: 3, L: 12, T: 128, Code: "1mad", Axis: 0}, []int{2, 4, 48}, "interleaved"},
		{"interleave L16", Spec{K: 3, L: 16, T: 256, Code: "1mad", Axis: 0}, []int{2, 4, 48}, "interleaved"},
		{"interleave 47 words", k3Axis0, []int{2, 4, 47}, "interleaved"},
		{"interleave zero groups", k3Axis0, []int{0, 4, 48}, "empty"},
		{"huge", k3Axis1, []int{1 << 62, 96}, "overflow"},
		{"huge words", k3Axis1, []int{1, 1 << 60}, "too large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewGeometry(c.spec, c.shape)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %q does not wrap ErrFormat", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestGeometryValidateRejectsHandBuilt(t *testing.T) {
	good, err := NewGeometry(k3Axis0, []int{2, 8, 48})
	if err != nil {
		t.Fatal(err)
	}
	bad := []Geometry{
		{Spec: k3Axis1, Rows: 4, Cols: 300},                    // not whole blocks
		{Spec: k3Axis1, Rows: 0, Cols: 256},                    // empty
		{Spec: k3Axis1, Rows: 4, Cols: 512, Interleaved: true}, // interleave on axis 1
		{Spec: k3Axis0, Rows: 4, Cols: 256, Interleaved: true}, // not whole groups of 512
		{Spec: Spec{K: 3, L: 20, T: 256, Code: "1mad", Axis: 0}, Rows: 4, Cols: 256},
	}
	for i, g := range bad {
		if err := g.Validate(); err == nil || !errors.Is(err, ErrFormat) {
			t.Errorf("case %d: Validate(%+v) = %v", i, g, err)
		}
		if _, err := NewWeights(g, nil, nil); err == nil {
			t.Errorf("case %d: NewWeights accepted %+v", i, g)
		}
	}
	if _, err := NewWeights(good, make([]uint32, good.Words()), make([]float32, good.Rows)); err != nil {
		t.Errorf("NewWeights(good): %v", err)
	}
}

func TestNewWeightsCounts(t *testing.T) {
	g, err := NewGeometry(k3Axis1, []int{4, 96})
	if err != nil {
		t.Fatal(err)
	}
	if g.Words() != 384 || g.Blocks() != 4 || g.WordsPerBlock() != 24 {
		t.Fatalf("words %d blocks %d words/block %d", g.Words(), g.Blocks(), g.WordsPerBlock())
	}
	for _, c := range []struct {
		words, scales int
		want          string
	}{
		{383, 4, "383 words"}, {385, 4, "385 words"}, {384, 3, "3 scales"}, {384, 5, "5 scales"}, {0, 0, "0 words"},
	} {
		_, err := NewWeights(g, make([]uint32, c.words), make([]float32, c.scales))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewWeights(%d words, %d scales) = %v, want an error saying %q", c.words, c.scales, err, c.want)
		}
	}
	if _, err := NewWeights(g, make([]uint32, 384), make([]float32, 4)); err != nil {
		t.Errorf("right counts rejected: %v", err)
	}
}

func TestBlockAddressing(t *testing.T) {
	// Row-major: block b of row r at r·WordsPerRow + b·wpb.
	g, _ := NewGeometry(k3Axis0, []int{3, 96})
	w, _ := NewWeights(g, seq(g.Words()), make([]float32, 3))
	if b := w.Block(2, 1); b[0] != 2*96+24 || len(b) != 24 {
		t.Errorf("row-major block (2,1) starts at word %d (len %d), want %d", b[0], len(b), 2*96+24)
	}
	// Interleaved [groups, rows, 48]: block 2q+h of row r at ((q·rows)+r)·48 + h·24.
	gi, _ := NewGeometry(k3Axis0, []int{2, 3, 48})
	wi, _ := NewWeights(gi, seq(gi.Words()), make([]float32, 3))
	for _, c := range []struct{ r, b, want int }{
		{0, 0, 0}, {0, 1, 24}, {1, 0, 48}, {2, 1, 2*48 + 24}, {0, 2, 3 * 48}, {2, 3, (3+2)*48 + 24},
	} {
		if got := wi.Block(c.r, c.b); int(got[0]) != c.want {
			t.Errorf("interleaved block (%d,%d) starts at word %d, want %d", c.r, c.b, got[0], c.want)
		}
	}
}

func seq(n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i)
	}
	return s
}

// TestOutputRows: a block of output rows of an axis-1 matrix decodes to those rows of the whole, with its own
// scales; axis 0 and out-of-range blocks are refused.
func TestOutputRows(t *testing.T) {
	g, _ := NewGeometry(Spec{K: 2, L: 8, T: 64, Code: "1mad", Axis: 1}, []int{6, 8})
	scales := []float32{1, 2, 3, 4, 5, 6}
	w, _ := NewWeights(g, seq(g.Words()), scales)
	part, err := w.OutputRows(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if part.OutFeatures() != 3 || part.InFeatures() != w.InFeatures() || part.Scales[0] != 3 {
		t.Fatalf("part %d→%d, first scale %g", part.InFeatures(), part.OutFeatures(), part.Scales[0])
	}
	whole, got := make([]float32, w.Cols), make([]float32, w.Cols)
	for r := range 3 {
		w.DecodeRow(2+r, Exact, whole)
		part.DecodeRow(r, Exact, got)
		for c := range got {
			if got[c] != whole[c] {
				t.Fatalf("part row %d col %d = %g, the whole's row %d has %g", r, c, got[c], 2+r, whole[c])
			}
		}
	}
	for _, bad := range [][2]int{{-1, 2}, {5, 2}, {0, 0}} {
		if _, err := w.OutputRows(bad[0], bad[1]); !errors.Is(err, ErrFormat) {
			t.Errorf("rows [%d, +%d): %v", bad[0], bad[1], err)
		}
	}
	g0, _ := NewGeometry(k3Axis0, []int{3, 96})
	w0, _ := NewWeights(g0, seq(g0.Words()), make([]float32, 3))
	if _, err := w0.OutputRows(0, 1); err == nil || !strings.Contains(err.Error(), "axis 0") {
		t.Errorf("axis 0: %v", err)
	}
}
