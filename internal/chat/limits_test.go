// Acceptance tests for the render budgets (limits.go, guard.go): each template here hung, crashed the process or
// ran out of memory before them (the first three were found writing FuzzTemplate, the first one by a user); now
// each fails with one error line naming the construct, within the acceptance bound (10 s, 1 GiB allocated),
// while templates inside the limits render as before.
package chat

import (
	"strings"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

func TestRenderLimits(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hi"}}
	defer func(d time.Duration) { renderTimeLimit = d }(renderTimeLimit)
	deep := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	for _, c := range []struct{ name, src, want string }{
		// The cases of the issue, then more of each kind. The "slow" ones are stopped by the render's time
		// limit, which is then 1 s, not 5.
		{"string repetition", "{{ 'x' * 10000000000 }}", "line 1: 'x' * 10000000000: repeating a 1-byte string 10000000000 times"},
		{"huge range", "{{ range(100000000000) | length }}", "range: 100000000000 items; the sandbox allows at most 100000"},
		{"range wrapping at MaxInt64", "{{ range(0, 9223372036854775807, 2) | length }}", "the sandbox allows at most 100000"},
		{"nested loops", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "for loops would run more than 1048576 iterations"},
		{"loop keyword glued to a paren", "{% for(i) in range(10) %}{% for(j) in 'x' * 2000000 %}{% endfor %}{% endfor %}", "for loops would run more than"},
		{"recursive macro", "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "line 1: macro f: macro calls nest deeper than 1000"},
		{"mutual recursion via call", "{% macro g() %}{{ caller() }}{% endmacro %}{% macro f() %}{% call g() %}{{ f() }}{% endcall %}{% endmacro %}{{ f() }}",
			"macro calls nest deeper than 1000"},
		{"repetition in a condition", "{% if ('ab' * 99999999999) %}x{% endif %}", "line 1: 'ab' * 99999999999"},
		{"repetition in a macro default", "{% macro f(x='a' * 10000000000) %}{{ x }}{% endmacro %}{{ f() }}", "'a' * 10000000000"},
		{"repetition on a later line", "a\nb\n{{ messages[0].content * 100000000 }}", "line 3: messages[0].content * 100000000"},
		{"doubling a string", "{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "32 MiB"},
		{"doubling a list", "{% set ns = namespace(l=[1]) %}{% for i in range(100) %}{% set ns.l = ns.l + ns.l %}{% endfor %}", "32 MiB"},
		{"a list of itself, twice", "{% set ns = namespace(l=[1]) %}{% for i in range(100) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l }}", "[ns.l, ns.l]: makes a value"},
		{"concatenations in one expression", "{% set s = 'x' * 20000000 %}{{ s ~ s ~ s }}", "s ~ s: makes a value of more than 32 MiB"},
		{"list appended to itself", "{% set l = [] %}{{ l.append(l) }}{{ l }}", "l.append(l): would make the list contain itself"},
		{"list in a list appended", "{% set l = [] %}{% set m = [l] %}{{ l.append(m) }}{{ l }}", "would make the list contain itself"},
		{"namespace holding itself", "{% set ns = namespace() %}{% set ns.x = ns %}{{ ns }}", "line 1: set ns.x: would make the namespace contain itself"},
		{"dict updated with itself", "{% set d = {} %}{{ d.update({'a': d}) }}{{ d }}", "would make the dict contain itself"},
		{"nesting too deep", "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = [ns.l] %}{% endfor %}", "nest deeper than 256 levels"},
		{"indent width", "{{ 'a\nb' | indent(10000000000) }}", "'a b' | indent(10000000000): filter indent would make about"},
		{"tojson indent", "{{ messages | tojson(indent=100000000) }}", "filter tojson would make about"},
		{"replace method", "{% set s = 'x' * 1000000 %}{{ s.replace('x', 'y' * 1000) }}", "replace() would make about 1001000000 bytes"},
		{"replace filter", "{{ ('x' * 1000000) | replace('x', 'yyyyyyyyyy' * 100) }}", "filter replace would make about"},
		{"replace of the empty string", "{{ ('x' * 1000000).replace('', 'y' * 100) }}", "replace() would make about"},
		{"join with a long separator", "{{ range(100000) | join('x' * 10000) }}", "filter join would make about"},
		{"format placeholders", "{{ ('{0}' * 1000000).format('x' * 1000) }}", "format() would make about"},
		{"split into characters", "{{ ('x' * 30000000).split('') | length }}", "split() would make about"},
		{"list of characters", "{{ ('x' * 30000000) | list | length }}", "filter list would make about"},
		{"iterating a long string", "{% for c in 'x' * 30000000 %}{% endfor %}", "for loops would run more than 1048576 iterations"},
		{"output", "{% set s = 'x' * 30000000 %}{{ s }}{{ s }}{{ s }}", "line 1: s: the rendered text would exceed 64 MiB"},
		{"text in a loop", "{% for i in range(10000) %}" + strings.Repeat("y", 10000) + "{% endfor %}", "line 1: template text: the rendered text would exceed 64 MiB"},
		{"filter block", "{% filter indent(100000000) %}a\nb{% endfilter %}", "filter indent would make about"},
		{"strftime format", "{{ strftime_now('%c' * 1000000) }}", "strftime_now: a format of 2000000 bytes"},
		{"slow comparisons in a loop", "{% set s = 'x' * 30000000 %}{% for i in range(1000) %}{% for j in range(1000) %}{% if s ~ '' == s %}{% endif %}{% endfor %}{% endfor %}",
			"the render"},
		{"slow loop filter", "{% set s = 'x' * 30000000 %}{% for i in range(100000) if (s ~ 'y') == ('y' ~ s) %}{% endfor %}", "the render"},
		{"slow copies in a loop", "{% set s = 'x' * 30000000 %}{% for i in range(100000) %}{% set t = s ~ 'y' %}{% endfor %}", "the render"},
		{"raise with a multi-line message", "{{ raise_exception('a\nb\n' ~ 'c' * 100000) }}", "template raised exception: a b ccc"},
	} {
		t.Run(c.name, func(t *testing.T) {
			renderTimeLimit = 5 * time.Second
			if strings.HasPrefix(c.name, "slow") {
				renderTimeLimit = time.Second
			}
			err := limit.Within(t, limit.Acceptance, func() error {
				tmpl, err := Parse(c.src, "", "")
				if err != nil {
					return err
				}
				_, err = tmpl.Render(msgs, false, nil)
				return err
			})
			limit.OneLine(t, err, c.want)
		})
	}
	for _, c := range []struct{ name, src, want string }{
		{"nested expression", "{{ " + deep + " }}", "expression nests deeper than 200 levels"},
		{"nested blocks", strings.Repeat("{% if true %}", 300) + strings.Repeat("{% endif %}", 300), "blocks nest deeper than 200"},
		{"huge source", "{{ 1 }}" + strings.Repeat(" ", 5<<20), "more than the 4 MiB a chat template may hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := limit.Within(t, limit.Acceptance, func() error { _, err := Parse(c.src, "", ""); return err })
			limit.OneLine(t, err, c.want)
		})
	}
	for _, c := range []struct{ name, src, want string }{
		{"recursion within the limit", "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% else %}ok{% endif %}{% endmacro %}{{ f(900) }}", "ok"},
		{"range at the limit", "{{ range(100000) | length }} {{ range(10, 0, -3) | list }} {{ range(1, 4) | list }}", "100000 [10, 7, 4, 1] [1, 2, 3]"},
		{"sibling calls do not add up", "{% macro f() %}x{% endmacro %}{% for i in range(5000) %}{{ f() }}{% endfor %}", strings.Repeat("x", 5000)},
		{"a large value within the limit", "{{ ('ab' * 1000000) | length }}", "2000000"},
		{"negative repetition is empty, as in Python", "[{{ 'x' * -3 }}]", "[]"},
		{"a list shared but small", "{% set l = [1, 2] %}{{ [l, l, l] | length }}", "3"},
		{"appending many", "{% set ns = namespace(l=[]) %}{% for i in range(10000) %}{{ ns.l.append(i) }}{% endfor %}{{ ns.l | length }}", "10000"},
		{"filter block with arguments, as Jinja2", "{% filter indent(2, true) %}a\nb{% endfilter %}", "  a\n  b"},
	} {
		tmpl, err := Parse(c.src, "", "")
		if err != nil {
			t.Errorf("%s: Parse: %v", c.name, err)
			continue
		}
		if got, err := tmpl.Render(msgs, false, nil); err != nil || strings.TrimPrefix(got, "None") != c.want && !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: Render = %.80q, %v; want %.80q", c.name, got, err, c.want)
		}
	}
}
