// Fuzz target for chat templates: any template source must Parse or fail, and a parsed template rendered with a
// fixed conversation must return text or an error, never panic or hang (limits.go bounds loops, macro recursion
// and range). Seeds are the real templates in the fixtures, the Jinja2 whitespace cases and a few written to
// reach loops, macros, call blocks and filters.
package chat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/testutil"
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
	f.Fuzz(func(t *testing.T, src string) {
		// The fuzzer has no per-input timeout; a render still running after this long crashes the worker, which
		// records the input as a failure.
		defer time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("FuzzTemplate: %q still rendering after 10s", src)) }).Stop()
		tmpl, err := Parse(src, "<s>", "</s>")
		if err != nil {
			return
		}
		if tmpl.Source() != src {
			t.Fatalf("Source() = %q, want %q", tmpl.Source(), src)
		}
		for _, gen := range []bool{false, true} {
			tmpl.Render(fuzzConversation, gen, fuzzKwargs)
		}
	})
}
