// Tests for chat template parsing and rendering: the Qwen3 goldens produced
// by Hugging Face, a Llama 3 sanity check, and the error paths.
package chat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

// goldenCase is one entry of chat_templates/qwen3_golden.json, rendered by
// transformers' apply_chat_template.
type goldenCase struct {
	Messages            []struct{ Role, Content string } `json:"messages"`
	Kwargs              map[string]any                   `json:"kwargs"`
	AddGenerationPrompt bool                             `json:"add_generation_prompt"`
	Text                string                           `json:"text"`
}

// loadFixture parses the chat template and tokens of a fixture's tokenizer_config.json as package modeldir does
// for a model directory (which also looks for chat_template.jinja; these fixtures have none).
func loadFixture(t *testing.T, rel string) (*Template, error) {
	t.Helper()
	path := testutil.Fixture(t, rel)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tokenizer.ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := cfg.ChatTemplate()
	if err != nil {
		t.Fatal(err)
	}
	return ParseFrom(path, src, cfg.BOS, cfg.EOS)
}

func TestQwen3Golden(t *testing.T) {
	golden := testutil.Fixture(t, "chat_templates/qwen3_golden.json")
	tmpl, err := loadFixture(t, "tokenizers/qwen3/tokenizer_config.json")
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.EOSToken() != "<|im_end|>" || tmpl.BOSToken() != "" {
		t.Errorf("tokens: bos %q eos %q, want \"\" and <|im_end|>", tmpl.BOSToken(), tmpl.EOSToken())
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for i, c := range cases {
		msgs := make([]Message, len(c.Messages))
		for j, m := range c.Messages {
			msgs[j] = Message{Role: m.Role, Content: m.Content}
		}
		got, err := tmpl.Render(msgs, c.AddGenerationPrompt, c.Kwargs)
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		if got != c.Text {
			t.Errorf("case %d:\n got %q\nwant %q", i, got, c.Text)
		}
	}
}

// TestQwen3ReasoningExtra checks that Message.Extra reaches the template:
// with reasoning_content set, the Qwen3 template (read by hand, not a golden)
// puts it in a <think> block on the final assistant turn after the last user
// query.
func TestQwen3ReasoningExtra(t *testing.T) {
	tmpl, err := loadFixture(t, "tokenizers/qwen3/tokenizer_config.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render([]Message{
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: "Hello.", Extra: map[string]any{"reasoning_content": "ok"}},
	}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nok\n</think>\n\nHello.<|im_end|>\n"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

// TestLlama3Sanity is a sanity check, not a golden: the expected text was
// derived by reading the Llama 3 template in the fixture (bos_token before
// the first message, each message as a header block with trimmed content and
// <|eot_id|>, then an assistant header that this template always appends).
func TestLlama3Sanity(t *testing.T) {
	tmpl, err := loadFixture(t, "tokenizers/llama3/tokenizer_config.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render([]Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "  Hello!\n"},
	}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>" +
		"<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>" +
		"<|start_header_id|>assistant<|end_header_id|>\n\n"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

// TestMalformedTemplate checks that broken templates fail in Parse with an
// error that says so and, where the engine or our lexer knows it, the line.
func TestMalformedTemplate(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"{% if messages %}never closed", "unclosed if block"},
		{"x\n{{ messages[0].content ", `line 2: tag opened with "{{" is never closed`},
		{"{% endif %}", `line 1: unknown statement "endif"`},
		{"{{ 1 + }}", "line 1: unexpected token"},
		{"{% for %}{% endfor %}", "line 1: for loop missing 'in'"},
		// Trimmed whitespace must not shift the line the engine reports.
		{"a\n\n{%- if x -%}\n{% else %}\n  {%- else %}{% endif %}", `line 5: unknown statement "else"`},
		{"{# never closed", "line 1: missing end of comment tag"},
		{"\n{{ 'a\\x4' }}", `line 2: string literal 'a\x4': truncated \x escape`},
		{"{% raw %}x", "line 1: missing end of raw directive"},
	} {
		_, err := Parse(c.src, "", "")
		if err == nil {
			t.Errorf("Parse(%q): no error", c.src)
			continue
		}
		if !strings.Contains(err.Error(), "chat template: parse:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): error %q, want one saying it failed to parse and containing %q", c.src, err, c.want)
		}
	}
}

// TestWhitespaceMatchesJinja2 renders templates that mix text, tags, comments,
// raw blocks and every whitespace-control sign, and compares with Python
// Jinja2 under Hugging Face's settings (testdata/gen_jinja2_whitespace.py).
// The engine alone gets many of these wrong; see lex.go.
func TestWhitespaceMatchesJinja2(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "jinja2_whitespace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Template string  `json:"template"`
			Flag     bool    `json:"flag"`
			Expected *string `json:"expected"`
			Error    *string `json:"error"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 200 {
		t.Fatalf("only %d cases", len(golden.Cases))
	}
	for i, c := range golden.Cases {
		tmpl, err := Parse(c.Template, "", "")
		var got string
		if err == nil {
			got, err = tmpl.Render(nil, false, map[string]any{"x": "X", "items": []string{"p", "q"}, "flag": c.Flag})
		}
		switch {
		case c.Error != nil:
			if err == nil {
				t.Errorf("case %d %q: rendered %q, Jinja2 fails with %q", i, c.Template, got, *c.Error)
			}
		case err != nil:
			t.Errorf("case %d %q: %v", i, c.Template, err)
		case got != *c.Expected:
			t.Errorf("case %d %q:\n got %q\nwant %q", i, c.Template, got, *c.Expected)
		}
	}
}

func TestRaiseException(t *testing.T) {
	tmpl, err := Parse(`{% if messages[0].role != 'user' %}{{ raise_exception('Conversation must start with user, got ' ~ messages[0].role) }}{% endif %}ok`, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tmpl.Render([]Message{{Role: "user", Content: "x"}}, false, nil); err != nil || got != "ok" {
		t.Fatalf("user first: %q, %v", got, err)
	}
	_, err = tmpl.Render([]Message{{Role: "assistant", Content: "x"}}, false, nil)
	var re *RaiseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a *RaiseError", err)
	}
	if re.Message != "Conversation must start with user, got assistant" {
		t.Errorf("message %q", re.Message)
	}
}

func TestRenderVariables(t *testing.T) {
	tmpl, err := Parse(
		"{{ bos_token is defined }}|{{ eos_token }}|{{ tools is none }}|{{ documents is none }}|"+
			"{{ add_generation_prompt }}|{{ enable_thinking is defined }}|{{ messages|length }}",
		"", "</s>")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render(nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "False|</s>|True|True|True|False|0"; got != want {
		t.Errorf("defaults: got %q want %q", got, want)
	}
	got, err = tmpl.Render([]Message{{Role: "user"}}, false, map[string]any{
		"bos_token": "<s>", "tools": []any{}, "enable_thinking": false,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "True|</s>|False|True|False|True|1"; got != want {
		t.Errorf("with kwargs: got %q want %q", got, want)
	}
}

func TestKwargErrors(t *testing.T) {
	tmpl, err := Parse("x", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmpl.Render(nil, false, map[string]any{"messages": []any{}}); err == nil || !strings.Contains(err.Error(), `"messages"`) {
		t.Errorf("reserved kwarg: err = %v", err)
	}
	if _, err := tmpl.Render(nil, false, map[string]any{"when": time.Now()}); err == nil || !strings.Contains(err.Error(), `kwarg "when"`) {
		t.Errorf("unsupported kwarg type: err = %v", err)
	}
	if _, err := tmpl.Render([]Message{{Role: "user", Extra: map[string]any{"role": "x"}}}, false, nil); err == nil || !strings.Contains(err.Error(), "messages[0]") {
		t.Errorf("Extra clash: err = %v", err)
	}
}

// TestRawJSONKeepsKeyOrder checks that a json.RawMessage tool schema renders
// through |tojson with its keys in source order and Python's spacing, as HF
// would print the same dict.
func TestRawJSONKeepsKeyOrder(t *testing.T) {
	tmpl, err := Parse("{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}", "", "")
	if err != nil {
		t.Fatal(err)
	}
	tool := json.RawMessage(`{"type": "function", "function": {"name": "get_weather", "parameters": {"z": 3, "a": [1.5, true, null, "<b>"]}}}`)
	got, err := tmpl.Render(nil, false, map[string]any{"tools": []any{tool}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type": "function", "function": {"name": "get_weather", "parameters": {"z": 3, "a": [1.5, true, null, "<b>"]}}}` + "\n"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	if _, err := tmpl.Render(nil, false, map[string]any{"tools": json.RawMessage(`{"a": 1} x`)}); err == nil {
		t.Error("trailing JSON data accepted")
	}
}

func TestStrftimeNow(t *testing.T) {
	tmpl, err := Parse(`Today Date: {{ strftime_now("%d %b %Y") }}`, "", "")
	if err != nil {
		t.Fatal(err)
	}
	tmpl.now = func() time.Time { return time.Date(2024, 7, 4, 15, 5, 9, 0, time.UTC) }
	got, err := tmpl.Render(nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Today Date: 04 Jul 2024"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

// TestStrftime compares against Python's datetime(2024, 7, 4, 15, 5, 9)
// .strftime(f) on Linux (C locale), and one date for the 12 o'clock and
// space-padded cases.
func TestStrftime(t *testing.T) {
	tm := time.Date(2024, 7, 4, 15, 5, 9, 0, time.UTC)
	for _, c := range []struct{ f, want string }{
		{"%d %b %Y", "04 Jul 2024"},
		{"%-d %B %Y", "4 July 2024"},
		{"%A %a %I:%M:%S %p", "Thursday Thu 03:05:09 PM"},
		{"%j %y %m %H %e|%u %w", "186 24 07 15  4|4 4"},
		{"%F %T %D %R", "2024-07-04 15:05:09 07/04/24 15:05"},
		{"%c", "Thu Jul  4 15:05:09 2024"},
		{"100%% 2006 Jan %Q", "100% 2006 Jan %Q"},
		{"trailing %", "trailing %"},
	} {
		if got := strftime(tm, c.f); got != c.want {
			t.Errorf("strftime(%q) = %q, want %q", c.f, got, c.want)
		}
	}
	midnight := time.Date(2025, 1, 12, 0, 30, 0, 0, time.UTC)
	if got, want := strftime(midnight, "%I %p %-I %j %-j %a"), "12 AM 12 012 12 Sun"; got != want {
		t.Errorf("midnight: got %q want %q", got, want)
	}
}
