// Requests encoding/json would read silently as something else, each a 400 naming the field: bytes that are not
// UTF-8, a field name in another case, a key given twice, a logit_bias key that is not the token id as written,
// a user message without content, and sampling values out of range named by the request's field (not the CLI
// flag). FuzzRequestBody holds the decoders to an answer for any body, never a panic.
package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mlxbun/mlxbun/internal/scheduler"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

func TestRefusesWhatJSONWouldBend(t *testing.T) {
	s := New(Options{ModelName: "m"})
	s.Ready(newEngine(t, scheduler.Config{Parallel: 1}))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	const user = `"messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct {
		name, path, body string
		param, msg       string
	}{
		{"invalid UTF-8", "/v1/completions", "{\"prompt\":\"ab\xffcd\",\"max_tokens\":2}", "",
			"invalid request body: byte 13 is not valid UTF-8 (JSON text is UTF-8)"},
		{"invalid UTF-8 in a message", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"\xc3\"}]}", "",
			"invalid request body: byte 39 is not valid UTF-8 (JSON text is UTF-8)"},
		{"field in another case", "/v1/completions", `{"prompt":"x","max_tokens":2,"Max_Tokens":50}`, "Max_Tokens",
			`invalid request body: unsupported field "Max_Tokens" (field names are case-sensitive)`},
		{"nested field in another case", "/v1/chat/completions", `{"messages":[{"Role":"user","content":"hi"}]}`, "messages.Role",
			`invalid request body: unsupported field "messages.Role" (field names are case-sensitive)`},
		{"content part in another case", "/v1/chat/completions", `{"messages":[{"role":"user","content":[{"type":"text","Text":"hi"}]}]}`,
			"messages[0].content", `messages[0].content: must be a string or an array of text parts ({"type":"text","text":...}): ` +
				`unsupported field "Text" (field names are case-sensitive)`},
		{"key twice", "/v1/completions", `{"prompt":"x","max_tokens":2,"max_tokens":300}`, "max_tokens",
			`invalid request body: field "max_tokens" appears twice`},
		{"nested key twice", "/v1/chat/completions", `{"messages":[{"role":"user","role":"system","content":"hi"}]}`, "messages.role",
			`invalid request body: field "messages.role" appears twice`},
		{"logit_bias key twice", "/v1/completions", `{"prompt":"x","logit_bias":{"5":1,"5":-1}}`, "logit_bias.5",
			`invalid request body: field "logit_bias.5" appears twice`},
		{"logit_bias key not as written", "/v1/completions", `{"prompt":"x","logit_bias":{"01":5,"1":-5}}`, "logit_bias",
			`logit_bias: key "01" is not a token id of the vocabulary of 384`},
		{"logit_bias key with a sign", "/v1/completions", `{"prompt":"x","logit_bias":{"+1":5}}`, "logit_bias",
			`logit_bias: key "+1" is not a token id of the vocabulary of 384`},
		{"user message without content", "/v1/chat/completions", `{"messages":[{"role":"user"}]}`, "messages[0].content",
			"messages[0].content: is required in a user message"},
		{"system message with null content", "/v1/chat/completions", `{"messages":[{"role":"system","content":null},{"role":"user","content":"hi"}]}`,
			"messages[0].content", "messages[0].content: is required in a system message"},
		{"two sampling values out of range", "/v1/completions", `{"prompt":"x","temperature":-1,"top_p":2}`, "temperature",
			"temperature: -1 must be finite and ≥ 0 (0: greedy)"},
		{"top_p out of range", "/v1/chat/completions", `{` + user + `,"top_p":1.5}`, "top_p",
			"top_p: 1.5 must lie in [0, 1] (0 and 1 mean off)"},
		// encoding/json's type errors in the API's words, not Go's type names
		{"body an array", "/v1/chat/completions", `[{"messages":[]}]`, "", "invalid request body: a JSON array, want an object"},
		{"body empty", "/v1/completions", ``, "", "invalid request body: empty (want a JSON object)"},
		{"content a number", "/v1/chat/completions", `{"messages":[{"role":"user","content":5}]}`, "messages[0].content",
			`messages[0].content: must be a string or an array of text parts ({"type":"text","text":...}): a JSON number, want an array`},
		{"max_tokens a string", "/v1/completions", `{"prompt":"x","max_tokens":"3"}`, "max_tokens",
			`invalid request body: field "max_tokens": a JSON string, want an integer in range`},
		{"max_tokens past int", "/v1/completions", `{"prompt":"x","max_tokens":1e20}`, "max_tokens",
			`invalid request body: field "max_tokens": a JSON number 1e20, want an integer in range`},
		{"max_tokens past the context", "/v1/completions", `{"prompt":"x","max_tokens":100000}`, "max_tokens",
			"max_tokens: 100000 is over the server's limit of 2048 (the context size, --ctx-size)"},
		{"repetition_context_size negative", "/v1/completions", `{"prompt":"x","repetition_context_size":-1}`, "repetition_context_size",
			"repetition_context_size: -1 must be ≥ 0 (0 means 20)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want400(t, ts.URL+c.path, c.body, c.param, c.msg)
		})
	}
	// What stays accepted: an assistant turn without content, fields as OpenAI spells them, null for absent.
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null},{"role":"user","content":"more"}],"max_tokens":1}`,
		`{` + user + `,"max_tokens":1,"logit_bias":{"0":-100,"17":5},"stop":null,"seed":3,"stream_options":null}`,
	} {
		if code, out := post(t, ts.URL+"/v1/chat/completions", []byte(body)); code != 200 {
			t.Errorf("%s: %d %s, want 200", body, code, out)
		}
	}
}

// TestWrongMethod: an endpoint asked with another method is a 405 naming the one it takes (it was a 404 "no such
// endpoint"); a path that is no endpoint stays a 404.
func TestWrongMethod(t *testing.T) {
	ts := httptest.NewServer(New(Options{ModelName: "m"}).Handler())
	defer ts.Close()
	for _, c := range []struct {
		method, path string
		status       int
		allow, msg   string
	}{
		{"GET", "/v1/chat/completions", 405, "POST", "GET /v1/chat/completions: this endpoint takes POST"},
		{"PUT", "/tokenize", 405, "POST", "PUT /tokenize: this endpoint takes POST"},
		{"POST", "/v1/models", 405, "GET, HEAD", "POST /v1/models: this endpoint takes GET"},
		{"DELETE", "/health", 405, "GET, HEAD", "DELETE /health: this endpoint takes GET"},
		{"GET", "/v1/chat", 404, "", "GET /v1/chat: no such endpoint"},
	} {
		req, _ := http.NewRequest(c.method, ts.URL+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Error apiError }
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Allow") != c.allow || got.Error.Message != c.msg {
			t.Errorf("%s %s: %d (Allow %q) %q; want %d (Allow %q) %q", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"),
				got.Error.Message, c.status, c.allow, c.msg)
		}
	}
}

// FuzzRequestBody decodes any body as both completion requests and reads every field the handlers read before
// the engine: an answer (a request or a 4xx) for each, within the fuzz bound, never a panic.
func FuzzRequestBody(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stop":["a","b"],"logit_bias":{"1":2}}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],"chat_template_kwargs":{"x":[1,{"y":null}]}}`,
		`{"prompt":[[1,2]],"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object"}}}}`,
		`{"prompt":["a"],"stream":true,"stream_options":{"include_usage":true},"logprobs":3}`,
		`{"prompt":"x","Max_Tokens":2,"max_tokens":2}`,
		"{\"prompt\":\"\xff\"}",
		`{"messages":[{"role":"user","content":"a","content":"b"}]}`,
		`[{"prompt":"x"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		defer limit.Watch(t, limit.FuzzInput)()
		var chat chatRequest
		if aerr := decodeStrict(body, &chat); aerr == nil {
			if !utf8.Valid(body) {
				t.Fatalf("accepted a body that is not UTF-8: %q", body)
			}
			chat.unsupported()
			chat.stops()
			for i := range chat.Messages {
				chat.Messages[i].text(i)
			}
		} else if aerr.Status != 400 || strings.Contains(aerr.Message, "\n") {
			t.Fatalf("refusal %d %q: want one line and a 400", aerr.Status, aerr.Message)
		}
		var comp completionRequest
		if aerr := decodeStrict(body, &comp); aerr == nil {
			comp.unsupported()
			comp.stops()
			comp.prompt()
		} else if aerr.Status != 400 || strings.Contains(aerr.Message, "\n") {
			t.Fatalf("refusal %d %q: want one line and a 400", aerr.Status, aerr.Message)
		}
	})
}

// want400 posts body to url and fails unless the answer is a 400 whose error names param with message msg.
func want400(t *testing.T, url, body, param, msg string) {
	t.Helper()
	code, out := post(t, url, []byte(body))
	var got struct{ Error apiError }
	if err := json.Unmarshal(out, &got); err != nil || code != 400 {
		t.Fatalf("%d %s, want a 400", code, out)
	}
	if got.Error.Message != msg || got.Error.Param != param {
		t.Errorf("message %q (param %q)\nwant    %q (param %q)", got.Error.Message, got.Error.Param, msg, param)
	}
}
