// The guards change nothing a template renders: every template here renders the same text (or fails alike) with
// the guards planted as the engine renders the same rewrite without them. The templates exercise every
// operator, precedence level, postfix form, filter, method, test and statement the mirror parser (expr.go)
// reprints, and the fixtures' real templates.
package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ardanlabs/jinja"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// sameAsEngine renders src guarded and bare and fails t if they differ.
func sameAsEngine(t *testing.T, name, src string) {
	t.Helper()
	tmpl, err := Parse(src, "<s>", "</s>")
	if err != nil {
		// The mirror parser refused it: so must the engine, given the bare rewrite.
		if bare, _, berr := rewrite(src, true); berr == nil {
			if _, cerr := jinja.Compile(bare); cerr == nil {
				t.Errorf("%s: Parse failed (%v) but the engine compiles it", name, err)
			}
		}
		return
	}
	got, gerr := tmpl.Render(fuzzConversation, true, fuzzKwargs)
	bare, _, err := rewrite(src, true)
	if err != nil {
		t.Fatalf("%s: bare rewrite: %v", name, err)
	}
	engine, err := jinja.Compile(bare)
	if err != nil {
		t.Errorf("%s: the engine does not compile the bare rewrite (%v) but Parse did", name, err)
		return
	}
	vars, err := tmpl.variables(fuzzConversation, true, fuzzKwargs)
	if err != nil {
		t.Fatal(err)
	}
	want, werr := func() (out string, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = &limitError{msg: "panic"}
			}
		}()
		return engine.RenderValues(vars)
	}()
	if (gerr != nil) != (werr != nil) || gerr == nil && got != want {
		t.Errorf("%s: %q\nguarded: %q, %v\nengine:  %q, %v", name, src, got, gerr, want, werr)
	}
}

func TestGuardsChangeNothing(t *testing.T) {
	for i, src := range []string{
		"{{ 1 + 2 * 3 - 4 / 2 }}|{{ (1 + 2) * 3 }}|{{ 2 ** 3 * 2 }}|{{ -2 ** 2 }}|{{ 7 // 2 ~ 7 % 3 }}",
		"{{ 'a' ~ 'b' * 3 ~ 'c' }}|{{ 'ab' * 2 + 'c' }}|{{ 3 * 'x' }}|{{ 2.5 * 2 }}|{{ '3' * 2.0 }}|{{ True * 3 }}|{{ 'x' * 0 }}",
		"{{ [1, 2] + [3] }}|{{ [1,2,3][1:] }}|{{ 'hello'[::-1] }}|{{ 'hello'[1:3] }}|{{ [1,2,3][:-1] }}|{{ [1,2,3][::2] }}",
		"{{ not true and false or true }}|{{ 1 if false else 2 if true else 3 }}|{{ x if x is defined else 'u' }}|{{ 1 if false }}",
		"{{ messages | length > 0 and messages[0].role == 'system' }}|{{ 'a' in 'cat' }}|{{ 'z' not in ['a'] }}|{{ 1 is odd }}|{{ 2 is not divisibleby(3) }}",
		"{{ messages | map(attribute='role') | join(', ') }}|{{ messages | selectattr('role', 'equalto', 'user') | list | length }}",
		"{{ {'a': 1, 'b': {'c': [1, 2]}} | tojson }}|{{ {'a': 1}['a'] }}|{{ {'a': {'b': 2}}.a.b }}|{{ {} }}|{{ {'k': 'v'} }}",
		"{{ ' x '.strip() ~ '|' ~ 'a,b'.split(',') | join('-') }}|{{ 'Hello {0} {1}'.format('a', 'b') }}|{{ 'abc'.replace('b', 'XX') | upper }}",
		"{{ (messages | first).content | trim }}|{{ messages[-1]['content'] }}|{{ messages[0].content.upper() }}|{{ messages|length * 2 }}",
		"{% set ns = namespace(x=1, l=[]) %}{% for m in messages %}{% set ns.x = ns.x * 2 %}{{ ns.l.append(m.role) }}{% endfor %}{{ ns.x }} {{ ns.l | join }}",
		"{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}{% for x in [] %}{{ x }}{% else %}empty{% endfor %}",
		"{% for m in messages if m.role != 'system' %}{{ loop.index }}:{{ m.role }}{% if not loop.last %},{% endif %}{% endfor %}",
		"{% macro f(a, b='d') %}[{{ a }}{{ b }}]{% endmacro %}{{ f('x') }}{{ f('x', b='y') }}{{ f(1 + 2) }}{{ f(a='k') }}",
		"{% macro w() %}<{{ caller() }}>{% endmacro %}{% call w() %}in{% endcall %}{% macro w2(x) %}<{{ caller(x) }}>{% endmacro %}{% call(y) w2(5) %}{{ y * 2 }}{% endcall %}",
		"{% filter upper %}abc{{ 1 }}{% endfilter %}{% set x %}block {{ 1 + 1 }}{% endset %}{{ x | trim }}",
		"{{ range(3) | list }} {{ range(1, 10, 3) | sum }} {{ [3, 1, 2] | sort | first }} {{ [1, 1, 2] | unique | list }}",
		"{{ 'x' | default('y') }} {{ undefined_var | default('y') }} {{ tools | tojson(indent=2) }} {{ tools | tojson }}",
		`{{ "double \"quoted\"" }} {{ 'it\'s' }} {{ 1 == 1.0 }} {{ 'a' < 'b' }} {{ [1] == [1] }} {{ none is none }} {{ (1, 2) | length }} {{ () | length }}`,
		"{{ dict(a=1) | tojson }} {{ x.y.z is undefined }} {{ (1 + 2)|string ~ 'x' }} {{ -1|abs }} {{ 10|string|length }} {{ 3|float }} {{ '7'|int + 1 }}",
		"{% if messages[0]['role'] == 'system' %}{% set sys = messages[0]['content'] %}{% else %}{% set sys = '' %}{% endif %}{{ sys }}",
		"{{ messages[2].tool_calls[0].function.arguments | tojson }} {{ messages[2].tool_calls | length }} {{ messages[2]['reasoning_content'] }}",
		"{{ loop.cycle('a') if loop is defined else 'n' }}{% for i in range(4) %}{{ loop.cycle('a', 'b') }}{{ loop.revindex }}{{ loop.first }}{% endfor %}",
		"{{ 'a b  c'.split() | length }} {{ 'a-b'.split('-')[1] }} {{ 'abc'.startswith('a') }} {{ 'abc'.endswith('x') }} {{ 'abca'.count('a') }} {{ 'abc'.find('c') }}",
		"{{ 'hi'.title() }} {{ 'HI'.lower() }} {{ 'hi'.capitalize() }} {{ ' a '.lstrip() }}|{{ ' a '.rstrip() }}| {{ 'xax'.strip('x') }}",
		"{{ {'a': 1}.get('a') }} {{ {'a': 1}.get('b', 2) }} {{ {'a': 1}.keys() | list }} {{ {'a': 1}.values() | list }} {{ [1, 2].pop() }}",
		"{% set d = {'a': 1} %}{{ d.update({'b': 2}) }}{{ d | tojson }}{% set l = [1] %}{{ l.insert(0, 5) }}{{ l }}",
		"{{ 'ab' | list }} {{ 'a\nb' | indent(2) }} {{ 'a\nb' | indent(2, true) }} {{ '<a>' | e }} {{ 'a b c' | wordcount }} {{ [1, 2, 3, 4, 5] | batch(2) | list }}",
		"{{ [1, 2, 3] | reverse | list }} {{ 'abc' | reverse }} {{ [1, 2, 3] | max }} {{ [1, 2, 3] | min }} {{ {'b': 1, 'a': 2} | dictsort }} {{ 2.567 | round(1) }}",
		"{{ [1, none, 2] | select | list }} {{ [1, 0, 2] | reject | list }} {{ messages | rejectattr('role', 'equalto', 'user') | length }}",
		`{{ '{"a": [1, 2]}' | fromjson }} {{ 'a' ~ 1 ~ none ~ true }} {{ 1 + true }} {{ 'a' + 1 }} {{ [1] + 'a' }}`,
		"{{ x.0 }} {{ [[1, 2]][0][1] }} {{ (1) }} {{ ((2)) * 3 }} {{ -(1 + 2) }} {{ not not true }} {{ 1 < 2 < 3 }} {{ 1 is odd is true }}",
		"{{ 'a' if 'b' in 'abc' and not 1 > 2 or false else 'c' }} {{ 5 - -3 }} {{ 10 / 4 }} {{ 2 ** -1 }} {{ 9 // -2 }}",
		"{%- for m in messages -%}\n  {{- m.role -}}\n{%- endfor %}\n{# c #}{{ raise_exception('x') if false }}",
		"{{ strftime_now('%Y') | length }} {{ bos_token ~ eos_token }} {{ add_generation_prompt }} {{ enable_thinking }}",
		"{{ f(1) }}", "{{ x | nosuchfilter }}", "{{ 1 + }}", "{% for %}", "{% if %}{% endif %}", "{{ a.b( }}", "{{ [1, 2 }}",
		"{% set ns = namespace(a=1) %}{% set ns.a = ns.a + 1 %}{{ ns.a }}{% set t = (1, 2) %}{{ t }}",
		"{% macro m(x=none) %}{{ x is none }}{% endmacro %}{{ m() }}{{ m(1) }}{% macro n() %}{{ varargs }}{% endmacro %}{{ n() }}",
	} {
		sameAsEngine(t, "case "+string(rune('A'+i%26))+string(rune('0'+i/26)), src)
	}
}

// Templates in the style of published ones (Mistral's role check, Llama 3.1's tool prompt, a DeepSeek-style
// namespace of flags), written here from their shape.
var styleTemplates = []string{
	"{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% endif %}{% endfor %}",
	`{%- if custom_tools is defined %}{%- set tools = custom_tools %}{%- endif %}
{%- if not tools_in_user_message is defined %}{%- set tools_in_user_message = true %}{%- endif %}
{%- if not date_string is defined %}{%- set date_string = "26 Jul 2024" %}{%- endif %}
{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content']|trim %}{%- set messages = messages[1:] %}{%- else %}{%- set system_message = "" %}{%- endif %}
{{- "<|start_header_id|>system<|end_header_id|>

" }}
{%- if tools is not none %}{{- "Environment: ipython
" }}{%- endif %}
{{- "Today Date: " + date_string + "

" }}
{%- if tools is not none and not tools_in_user_message %}{%- for t in tools %}{{- t | tojson(indent=4) }}{{- "

" }}{%- endfor %}{%- endif %}
{{- system_message }}{{- "<|eot_id|>" }}
{%- for message in messages %}{%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>

'+ message['content'] | trim + '<|eot_id|>' }}{%- elif 'tool_calls' in message %}{%- set tool_call = message.tool_calls[0].function %}{{- '{"name": "' + tool_call.name + '", ' }}{{- '"parameters": ' }}{{- tool_call.arguments | tojson }}{{- "}" }}{{- "<|eot_id|>" }}{%- elif message.role == "tool" or message.role == "ipython" %}{{- "<|start_header_id|>ipython<|end_header_id|>

" }}{%- if message.content is mapping or message.content is iterable %}{{- message.content | tojson }}{%- else %}{{- message.content }}{%- endif %}{{- "<|eot_id|>" }}{%- endif %}{%- endfor %}
{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>

' }}{%- endif %}`,
	`{% set ns = namespace(is_first=false, is_tool=false, system_prompt='', is_first_sp=true) %}{%- for message in messages %}{%- if message['role'] == 'system' %}{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}{%- else %}{% set ns.system_prompt = ns.system_prompt + '

' + message['content'] %}{%- endif %}{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is not none %}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{{'<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endfor -%}{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜><think>
'}}{% endif %}`,
}

func TestGuardsChangeNothingInRealTemplates(t *testing.T) {
	for i, src := range styleTemplates {
		sameAsEngine(t, "style template "+string(rune('0'+i)), src)
	}
	for _, name := range []string{"qwen3", "llama3", "llama2"} {
		var cfg struct {
			ChatTemplate string `json:"chat_template"`
		}
		b := testutil.FixtureBytes(t, "tokenizers/"+name+"/tokenizer_config.json")
		if b == nil {
			continue
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		sameAsEngine(t, name, cfg.ChatTemplate)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "jinja2_whitespace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ws struct {
		Cases []struct {
			Template string `json:"template"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &ws); err != nil {
		t.Fatal(err)
	}
	for i, c := range ws.Cases {
		sameAsEngine(t, "whitespace case "+string(rune('0'+i%10)), c.Template)
	}
}

// Every filter the guards know is found in the engine, or filters would go unguarded.
func TestBuiltinFiltersFound(t *testing.T) {
	if len(builtinFilters) != len(growth) {
		var missing []string
		for n := range growth {
			if _, ok := builtinFilters[n]; !ok {
				missing = append(missing, n)
			}
		}
		t.Fatalf("filters not found in the engine: %v", missing)
	}
}
