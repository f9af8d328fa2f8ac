// Tests for the geometry record: a record read back against the geometry it was written with passes, and every
// field a config can disagree on is refused by name with both values.
package trellis

import (
	"errors"
	"strings"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	for _, g := range []Geometry{
		{Spec: Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: 0}, Rows: 64, Cols: 512, Interleaved: true},
		{Spec: Spec{K: 2, L: 8, T: 64, Code: "1mad", Axis: 1}, Rows: 32, Cols: 128},
	} {
		if err := CheckRecord(g.Record(), g.Spec, g.StoredShape()); err != nil {
			t.Errorf("%+v: %v", g, err)
		}
	}
}

func TestRecordMismatches(t *testing.T) {
	g := Geometry{Spec: Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: 1}, Rows: 8, Cols: 512}
	rec := g.Record()
	if rec != `{"K":3,"L":12,"T":256,"axis":1,"code":"1mad","interleave":false}` {
		t.Errorf("record %s", rec)
	}
	shape := g.StoredShape()
	with := func(edit func(*Spec)) Spec { s := g.Spec; edit(&s); return s }
	for _, c := range []struct {
		name  string
		rec   string
		spec  Spec
		shape []int
		want  string
	}{
		{"L edited", rec, with(func(s *Spec) { s.L = 10 }), shape, "gives trellis.L 10, but the codes were written with 12"},
		{"group size edited", rec, with(func(s *Spec) { s.T = 128 }), shape, "gives group_size 128, but the codes were written with 256"},
		{"bits edited", rec, with(func(s *Spec) { s.K = 4 }), shape, "gives bits 4, but the codes were written with 3"},
		{"axis edited", rec, with(func(s *Spec) { s.Axis = 0 }), shape, "gives trellis.axis 0, but the codes were written with 1"},
		{"code edited", rec, with(func(s *Spec) { s.Code = "3inst" }), shape, `gives trellis.code 3inst, but the codes were written with 1mad`},
		{"interleave", rec, g.Spec, []int{1, 8, 48}, "is the block interleave, but the codes were written without it"},
		{"not JSON", "K=3", g.Spec, shape, "is not valid JSON"},
		{"field missing", `{"K":3,"L":12,"T":256,"axis":1,"code":"1mad"}`, g.Spec, shape, "lacks a field"},
	} {
		err := CheckRecord(c.rec, c.spec, c.shape)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrFormat containing %q", c.name, err, c.want)
		}
	}
}
