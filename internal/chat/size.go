// This file measures template values for the guards of limits.go, and guards the engine's builtin filters.
//
// A value's measure is what printing it would make (the engine's printValue / String) plus containerCost per
// list item or dict entry, counting a list shared by several parents at every use: that is what printing,
// comparing or encoding it costs, even when it takes little memory. A walk visits each distinct list or dict
// once, stops past its limit, and refuses a container that contains itself or nests too deep (printing one
// would recurse forever, or as deep as it nests, on the Go stack).
package chat

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ardanlabs/jinja"
)

// measure is a value's size: bytes as above, items the lists' items and dicts' entries in all, depth the deepest
// nesting of containers.
type measure struct {
	bytes, items int64
	depth        int
}

// measure walks v until its bytes pass limit.
func (b *budget) measure(s *site, v jinja.Value, limit int64) (measure, error) {
	if !v.IsList() && !v.IsDict() {
		m := measure{bytes: scalarBytes(v, false)}
		return m, b.charge(s, 1)
	}
	if b.memo == nil {
		b.memo, b.parents = map[any]measure{}, map[any]map[any]bool{}
	}
	w := &walker{memo: b.memo, parents: b.parents, open: map[any]bool{}, limit: limit}
	m, err := w.walk(v, false, 0)
	if err == nil {
		err = b.charge(s, w.visits)
	}
	if err != nil {
		if le, ok := err.(*limitError); ok && le.what == "" && s != nil {
			le.what = s.what
		}
		return m, err
	}
	return m, nil
}

type walker struct {
	memo    map[any]measure      // finished containers (the render's: budget.memo)
	parents map[any]map[any]bool // container → the memoized containers holding it (budget.parents)
	open    map[any]bool         // containers on the current path
	limit   int64
	visits  int64
}

// scalarBytes is what the engine prints for a scalar, quoted as it is inside a container when quoted.
func scalarBytes(v jinja.Value, quoted bool) int64 {
	switch {
	case v.IsString():
		if quoted {
			return int64(len(v.AsString())) + 2
		}
		return int64(len(v.AsString()))
	case v.IsInt(), v.IsFloat():
		return 24
	case v.IsBool():
		return 5
	case v.IsCallable():
		return 64
	}
	return 9 // "None", "Undefined"
}

func (w *walker) walk(v jinja.Value, quoted bool, depth int) (measure, error) {
	w.visits++
	var key any
	switch {
	case v.IsList():
		key = v.AsList()
	case v.IsDict():
		key = v.AsDict()
	default:
		return measure{bytes: scalarBytes(v, quoted)}, nil
	}
	if m, ok := w.memo[key]; ok {
		return m, nil
	}
	if w.open[key] {
		return measure{}, &limitError{msg: "a list or dict contains itself"}
	}
	if depth >= maxValueDepth {
		return measure{}, &limitError{msg: fmt.Sprintf("lists and dicts nest deeper than %d levels", maxValueDepth)}
	}
	w.open[key] = true
	defer delete(w.open, key)
	var children []any
	child := func(v jinja.Value) {
		if v.IsList() {
			children = append(children, v.AsList())
		} else if v.IsDict() {
			children = append(children, v.AsDict())
		}
	}
	m := measure{bytes: 2}
	add := func(x measure, extra int64) {
		m.bytes = min(m.bytes+x.bytes+extra, math.MaxInt64/4)
		m.items = min(m.items+x.items+1, math.MaxInt64/4)
		m.depth = max(m.depth, x.depth)
	}
	if v.IsList() {
		for _, item := range v.AsList().Items {
			x, err := w.walk(item, true, depth+1)
			if err != nil {
				return m, err
			}
			child(item)
			add(x, 2+containerCost)
			if m.bytes > w.limit {
				return m, nil // past the limit: the caller refuses it; no need to look further
			}
		}
	} else {
		d := v.AsDict()
		for _, k := range d.Keys {
			x, err := w.walk(d.Data[k], true, depth+1)
			if err != nil {
				return m, err
			}
			child(d.Data[k])
			add(x, int64(len(k))+6+containerCost)
			if m.bytes > w.limit {
				return m, nil
			}
		}
	}
	if m.depth++; m.depth > maxValueDepth {
		return m, &limitError{msg: fmt.Sprintf("lists and dicts nest deeper than %d levels", maxValueDepth)}
	}
	w.memo[key] = m
	for _, c := range children {
		if w.parents[c] == nil {
			w.parents[c] = map[any]bool{}
		}
		w.parents[c][key] = true
	}
	return m, nil
}

// changed forgets the measure of container c and of every memoized container holding it, before c changes; when
// now is given (a measure c will have after the change, computed without walking it again) c gets it.
func (b *budget) changed(c jinja.Value, now *measure) {
	var key any
	switch {
	case c.IsList():
		key = c.AsList()
	case c.IsDict():
		key = c.AsDict()
	default:
		return
	}
	stack := []any{key}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		delete(b.memo, k)
		for p := range b.parents[k] {
			if _, ok := b.memo[p]; ok {
				stack = append(stack, p)
			}
		}
		delete(b.parents, k)
	}
	if now != nil && b.memo != nil {
		b.memo[key] = *now
	}
}

// reaches reports whether container c (a list or dict) is v or inside v.
func reaches(v, c jinja.Value) bool {
	var target any
	switch {
	case c.IsList():
		target = c.AsList()
	case c.IsDict():
		target = c.AsDict()
	default:
		return false
	}
	seen := map[any]bool{}
	var visit func(v jinja.Value) bool
	visit = func(v jinja.Value) bool {
		var key any
		switch {
		case v.IsList():
			key = v.AsList()
		case v.IsDict():
			key = v.AsDict()
		default:
			return false
		}
		if key == target {
			return true
		}
		if seen[key] {
			return false
		}
		seen[key] = true
		if v.IsList() {
			for _, item := range v.AsList().Items {
				if visit(item) {
					return true
				}
			}
			return false
		}
		for _, x := range v.AsDict().Data {
			if visit(x) {
				return true
			}
		}
		return false
	}
	return visit(v)
}

// growth is, per builtin filter, a bound on the bytes its output (and its working copies) takes per byte of its
// input's measure; filters whose output depends on their arguments are estimated in filter. The names are the
// engine's (builtins.go registerFilters).
var growth = map[string]float64{
	"tojson": 2, "from_json": 32, "fromjson": 32, "items": 3, "join": 1, "default": 1, "d": 1, "trim": 1,
	"lower": 3, "upper": 3, "title": 7, "capitalize": 7, "first": 0, "last": 0, "length": 4, "count": 4,
	"reverse": 5, "sort": 2, "unique": 3, "list": containerCost + 24, "int": 0, "float": 0, "string": 1,
	"safe": 0, "replace": 1, "round": 0, "abs": 0, "map": 2, "select": 2, "reject": 2, "selectattr": 2,
	"rejectattr": 2, "indent": 1, "wordcount": 8, "escape": 6, "e": 6, "dictsort": 3, "max": 0, "min": 0,
	"sum": 0, "batch": 3,
}

// builtinFilters are the engine's filter functions by name, taken from its builtin scope once: a template can
// name each as the variable "__filter_NAME", which is how the engine stores them.
var builtinFilters = func() map[string]jinja.Value {
	names := make([]string, 0, len(growth))
	for n := range growth {
		names = append(names, n)
	}
	var got []jinja.Value
	grab := jinja.NewCallable("grab", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		got = args
		return jinja.NewString(""), nil
	})
	src := "{{ grab(__filter_" + strings.Join(names, ", __filter_") + ") }}"
	t, err := jinja.Compile(src)
	if err == nil {
		_, err = t.RenderValues(map[string]jinja.Value{"grab": grab})
	}
	out := map[string]jinja.Value{}
	if err != nil || len(got) != len(names) {
		return out // no guard can call them: filters are left to the engine (TestBuiltinFiltersFound fails)
	}
	for i, n := range names {
		if got[i].IsCallable() {
			out[n] = got[i]
		}
	}
	return out
}()

// filter runs builtin filter s.name on args (the input first) after estimating what it makes.
func (b *budget) filter(s *site, args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	fn, ok := builtinFilters[s.name]
	if !ok {
		return jinja.Undefined(), fmt.Errorf("unknown filter %q", s.name)
	}
	input := arg0(args)
	if growth[s.name] == 0 || !input.IsString() && (s.name == "length" || s.name == "count") {
		// Their output is a number or an item of the input, and the engine's work is one pass over the input at
		// most: nothing to measure (a list's length is asked in every iteration of some templates).
		res, err := fn.AsCallable().Fn(args, kwargs)
		if err != nil {
			return jinja.Undefined(), err
		}
		return res, b.charge(s, 1)
	}
	in, err := b.measure(s, input, maxValueBytes)
	if err != nil {
		return jinja.Undefined(), err
	}
	if in.bytes > maxValueBytes {
		return jinja.Undefined(), b.fail(s, "filter %s on a value of more than %s", s.name, mib(maxValueBytes))
	}
	for _, a := range args[min(1, len(args)):] {
		if _, err := b.measure(s, a, maxValueBytes); err != nil {
			return jinja.Undefined(), err
		}
	}
	for _, a := range kwargs {
		if _, err := b.measure(s, a, maxValueBytes); err != nil {
			return jinja.Undefined(), err
		}
	}
	n := float64(in.bytes)
	est := growth[s.name] * n
	argAt := func(i int, kw string) (jinja.Value, bool) {
		if v, ok := kwargs[kw]; ok {
			return v, true
		}
		if i < len(args) {
			return args[i], true
		}
		return jinja.Undefined(), false
	}
	switch s.name {
	case "tojson":
		seps := float64(2 + 2)
		if sp, ok := kwargs["separators"]; ok && sp.IsList() {
			for _, x := range sp.AsList().Items {
				seps += float64(len(plain(x)))
			}
		}
		est += float64(in.items+1) * seps
		if ind, ok := kwargs["indent"]; ok && !ind.IsNone() && !ind.IsUndefined() {
			width := toInt(ind)
			if width < 0 {
				return jinja.Undefined(), b.fail(s, "tojson: indent %d is negative", width)
			}
			est += float64(in.items+1) * (1 + float64(in.depth+1)*float64(width))
		}
	case "join":
		sep := ""
		if v, ok := argAt(1, "d"); ok {
			sep = plain(v)
		}
		items := float64(0)
		if input.IsList() {
			items = float64(input.AsList().Len())
		}
		est += items * float64(len(sep))
	case "replace":
		if len(args) >= 3 {
			est = replaced(plain(input), plain(args[1]), float64(len(plain(args[2]))))
		}
	case "indent":
		width := int64(4)
		if v, ok := argAt(1, "width"); ok {
			width = toInt(v)
		}
		if width < 0 {
			return jinja.Undefined(), b.fail(s, "indent: width %d is negative", width)
		}
		lines := float64(in.bytes + 1)
		if input.IsString() {
			lines = float64(strings.Count(input.AsString(), "\n") + 1)
		}
		est += lines * float64(width)
	case "list":
		if !input.IsString() {
			est = n
		} else {
			est = float64(utf8.RuneCountInString(input.AsString())) * (containerCost + 24)
		}
	}
	if err := b.room(s, est, "filter "+s.name, true); err != nil {
		return jinja.Undefined(), err
	}
	res, err := fn.AsCallable().Fn(args, kwargs)
	if err != nil {
		return jinja.Undefined(), err
	}
	return res, b.value(s, res)
}
