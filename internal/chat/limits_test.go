// Tests for the render limits: each template here hung or crashed the process before limits.go (found writing
// FuzzTemplate; the same inputs are its regression seeds), and now fails with an error naming the limit, while
// templates inside the limits render as before.
package chat

import (
	"strings"
	"testing"
)

func TestRenderLimits(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hi"}}
	for _, c := range []struct{ name, src, want string }{
		{"recursive macro", "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "macro calls nest deeper than 1000"},
		{"mutual recursion via call", "{% macro g() %}{{ caller() }}{% endmacro %}{% macro f() %}{% call g() %}{{ f() }}{% endcall %}{% endmacro %}{{ f() }}",
			"macro calls nest deeper than 1000"},
		{"huge range", "{{ range(100000000000) | length }}", "range: 100000000000 items; the sandbox allows at most 100000"},
		{"range wrapping at MaxInt64", "{{ range(0, 9223372036854775807, 2) | length }}", "the sandbox allows at most 100000"},
		{"nested loops", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "for loops ran more than 1048576 iterations"},
		{"loop keyword glued to a paren", "{% for(i) in range(100000) %}{% for(j) in range(100000) %}{% endfor %}{% endfor %}", "for loops ran more than"},
	} {
		tmpl, err := Parse(c.src, "", "")
		if err != nil {
			t.Errorf("%s: Parse: %v", c.name, err)
			continue
		}
		if _, err := tmpl.Render(msgs, false, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Render error %v, want one containing %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct{ name, src, want string }{
		{"recursion within the limit", "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% else %}ok{% endif %}{% endmacro %}{{ f(900) }}", "ok"},
		{"range at the limit", "{{ range(100000) | length }} {{ range(10, 0, -3) | list }} {{ range(1, 4) | list }}", "100000 [10, 7, 4, 1] [1, 2, 3]"},
		{"sibling calls do not add up", "{% macro f() %}x{% endmacro %}{% for i in range(5000) %}{{ f() }}{% endfor %}", strings.Repeat("x", 5000)},
	} {
		tmpl, err := Parse(c.src, "", "")
		if err != nil {
			t.Errorf("%s: Parse: %v", c.name, err)
			continue
		}
		if got, err := tmpl.Render(msgs, false, nil); err != nil || got != c.want {
			t.Errorf("%s: Render = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
