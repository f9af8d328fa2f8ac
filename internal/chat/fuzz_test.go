// Fuzz target for chat templates: any template source must Parse or fail, and a parsed template rendered with a
// fixed conversation must return text or an error within limit.FuzzInput, never panic (in the engine either),
// hang or run out of memory (limits.go bounds repetition, values, output, loops, macro recursion and work). Seeds are the real templates in the fixtures, the Jinja2 whitespace cases and a few written to
// reach loops, macros, call blocks and filters.
package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

// fuzzConversation is what every parsed template renders.
var fuzzConversation = []Message{
	{Role: "system", Content: "You are terse."},
	{Role: "user", Content: "Hi <|im_start|> {{ x }} {% raw %}"},
	{Role: "assistant", Content: "<think>\nhm\n</think>\n\nHello.", Extra: map[string]any{
		"reasoning_content": "hm",
		"tool_calls":        []any{map[string]any{"function": map[string]any{"name": "f", "arguments": map[string]any{"a": 1}}}},
	}},
	{Role: "tool", Content: "42"},
	{Role: "user", Content: "And?"},
}

var fuzzKwargs = map[string]any{
	"enable_thinking": false,
	"tools":           []any{map[string]any{"type": "function", "function": map[string]any{"name": "f", "parameters": map[string]any{"type": "object"}}}},
}

func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		"",
		"{{ bos_token }}{% for m in messages %}{{ m.role }}: {{ m.content | trim }}\n{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}",
		"{% macro render(m, depth=0) %}{% if depth < 3 %}[{{ m.role | upper }}{{ render(m, depth + 1) }}]{% endif %}{% endmacro %}{% for m in messages %}{{ render(m) }}{% endfor %}",
		"{% for i in range(3) %}{% for j in range(i, 10, 2) %}{{ loop.index }}{{ loop.cycle('a', 'b') }}{% endfor %}{% else %}none{% endfor %}",
		"{% set ns = namespace(n=0) %}{% for m in messages[::-1] if m.role != 'tool' %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}",
		"{% macro w() %}<{{ caller() }}>{% endmacro %}{% call w() %}{{ messages | length }}{% endcall %}{% filter upper %}x{% endfilter %}",
		"{{ tools | tojson }}{{ messages[2].tool_calls[0].function.arguments | tojson(indent=2) }}{{ 'a,b' .split(',') | join('|') }}",
		"{% if messages[0].role == 'system' %}{{ raise_exception('no system') }}{% endif %}{{ strftime_now('%Y') }}",
		"{%- raw %}{{ not rendered }}{% endraw -%}  {#- comment -#}  {{ '\\u00e9\\x41' ~ \"\\n\" }}",
	} {
		f.Add(s)
	}
	for _, name := range []string{"qwen3", "llama3"} {
		var cfg struct {
			ChatTemplate string `json:"chat_template"`
		}
		if b := testutil.FixtureBytes(f, "tokenizers/"+name+"/tokenizer_config.json"); b != nil {
			if err := json.Unmarshal(b, &cfg); err != nil {
				f.Fatalf("%s: %v", name, err)
			}
			f.Add(cfg.ChatTemplate)
		}
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "jinja2_whitespace.json")); err == nil {
		var ws struct {
			Cases []struct {
				Template string `json:"template"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(b, &ws); err != nil {
			f.Fatal(err)
		}
		for i, c := range ws.Cases {
			if i%8 == 0 { // a sample: the cases differ mostly in whitespace
				f.Add(c.Template)
			}
		}
	}
	// Each input is held to limit.FuzzInput (time and allocation): the render budgets are lowered so that any
	// template stops well inside it, and a template that escapes them fails the fuzzer.
	defer func(t time.Duration, w int64) { renderTimeLimit, workLimit = t, w }(renderTimeLimit, workLimit)
	renderTimeLimit, workLimit = time.Second, 1<<27
	f.Fuzz(func(t *testing.T, src string) {
		defer limit.Watch(t, limit.FuzzInput)()
		tmpl, err := Parse(src, "<s>", "</s>")
		if err != nil {
			return
		}
		if tmpl.Source() != src {
			t.Fatalf("Source() = %q, want %q", tmpl.Source(), src)
		}
		for _, gen := range []bool{false, true} {
			if _, err := tmpl.Render(fuzzConversation, gen, fuzzKwargs); err != nil && strings.Contains(err.Error(), "panicked") {
				t.Fatalf("the engine panicked: %v", err)
			}
		}
	})
}
