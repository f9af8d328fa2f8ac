// In-process tests of the HTTP API over a real scheduler on pycoder-12m (httptest on loopback): /health is 503
// until the engine is ready, a full queue is a 429, a body over the limit a 413, log-probabilities are the model's
// (the greedy choice is the top one), a json_schema answer parses and fits, stop strings cut the text, /tokenize
// and /detokenize invert each other, and /metrics is well-formed exposition text.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/scheduler"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

func newEngine(t *testing.T, cfg scheduler.Config) *Engine {
	t.Helper()
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	d, err := modeldir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := d.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	b := cpu.New()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scheduler.New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()); m.Close(); b.Close() })
	tmpl, err := chat.Parse("{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}\n{% endfor %}<|assistant|>\n", "", "")
	if err != nil {
		t.Fatal(err)
	}
	return &Engine{Sched: s, Tok: tok, Template: tmpl, EOS: sample.EndIDs(m.Config.EOS, tok.Specials().EOS, false), VocabSize: m.Config.VocabSize}
}

func post(t *testing.T, url string, body any) (int, []byte) {
	t.Helper()
	b, ok := body.([]byte)
	if !ok {
		b, _ = json.Marshal(body)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func TestLoadingThenReady(t *testing.T) {
	s := New(Options{ModelName: "m"})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, _ := http.Get(ts.URL + "/health")
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("health while loading: %d, want 503", resp.StatusCode)
	}
	if code, out := post(t, ts.URL+"/v1/completions", map[string]any{"prompt": "x"}); code != 503 || !bytes.Contains(out, []byte("Loading")) {
		t.Errorf("completion while loading: %d %s", code, out)
	}
	s.Ready(newEngine(t, scheduler.Config{Parallel: 1}))
	resp, _ = http.Get(ts.URL + "/health")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("health when ready: %d", resp.StatusCode)
	}
}

func TestLimits(t *testing.T) {
	s := New(Options{ModelName: "m", MaxBodyBytes: 512})
	s.Ready(newEngine(t, scheduler.Config{Parallel: 1, QueueLimit: 1}))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	big := []byte(`{"prompt":"` + strings.Repeat("x", 600) + `"}`)
	if code, out := post(t, ts.URL+"/v1/completions", big); code != 413 {
		t.Errorf("600-byte body over a 512-byte limit: %d %s", code, out)
	}
	// One long request holds the slot, one waits; the third finds the queue full.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := s.eng.Load()
	for want := 1; want <= 2; want++ {
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/completions",
			strings.NewReader(`{"prompt":"def f():","max_tokens":1500,"stream":true}`))
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if st := e.Sched.Stats(); st.Busy+st.Queued == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("request %d never reached the scheduler: %+v", want, e.Sched.Stats())
			}
		}
	}
	resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("third request: %d (Retry-After %q), want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestAnswers(t *testing.T) {
	s := New(Options{ModelName: "m"})
	s.Ready(newEngine(t, scheduler.Config{Parallel: 2}))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	t.Run("logprobs", func(t *testing.T) {
		code, out := post(t, ts.URL+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": "x = "}},
			"max_tokens": 6, "temperature": 0, "logprobs": true, "top_logprobs": 3})
		var r chatResponse
		if code != 200 || json.Unmarshal(out, &r) != nil {
			t.Fatalf("%d %s", code, out)
		}
		lp := r.Choices[0].Logprobs.Content
		if len(lp) != r.Usage.CompletionTokens || len(lp) != 6 {
			t.Fatalf("%d log-probabilities for %d tokens", len(lp), r.Usage.CompletionTokens)
		}
		var text string
		for i, x := range lp {
			if len(x.TopLogprobs) != 3 || x.TopLogprobs[0].Token != x.Token || x.TopLogprobs[0].Logprob != x.Logprob ||
				x.Logprob > 0 || x.TopLogprobs[1].Logprob > x.TopLogprobs[0].Logprob {
				t.Errorf("token %d: %+v: greedy picks the most likely token, listed first", i, x)
			}
			text += x.Token
		}
		if text != *r.Choices[0].Message.Content {
			t.Errorf("tokens spell %q, content %q", text, *r.Choices[0].Message.Content)
		}
	})

	t.Run("json schema", func(t *testing.T) {
		schema := `{"type":"object","properties":{"id":{"type":"integer"},"tag":{"type":"string","maxLength":5}},"required":["id","tag"],"additionalProperties":false}`
		for seed := range 3 {
			body := []byte(`{"prompt":"record = ","max_tokens":200,"seed":` + string(rune('0'+seed)) +
				`,"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":` + schema + `}}}`)
			code, out := post(t, ts.URL+"/v1/completions", body)
			var r textResponse
			if code != 200 || json.Unmarshal(out, &r) != nil {
				t.Fatalf("%d %s", code, out)
			}
			if *r.Choices[0].FinishReason != "stop" {
				t.Errorf("seed %d: %q ended by %s", seed, r.Choices[0].Text, *r.Choices[0].FinishReason)
				continue
			}
			var v struct {
				ID  *int    `json:"id"`
				Tag *string `json:"tag"`
			}
			d := json.NewDecoder(strings.NewReader(r.Choices[0].Text))
			d.DisallowUnknownFields()
			if err := d.Decode(&v); err != nil || v.ID == nil || v.Tag == nil || len([]rune(*v.Tag)) > 5 {
				t.Errorf("seed %d: %q does not fit the schema (%v)", seed, r.Choices[0].Text, err)
			}
		}
	})

	t.Run("stop string", func(t *testing.T) {
		code, out := post(t, ts.URL+"/v1/completions", map[string]any{"prompt": "def f(x):\n", "max_tokens": 60, "temperature": 0, "stop": []string{"\n"}})
		var r textResponse
		if code != 200 || json.Unmarshal(out, &r) != nil {
			t.Fatalf("%d %s", code, out)
		}
		if strings.Contains(r.Choices[0].Text, "\n") || *r.Choices[0].FinishReason != "stop" || r.Usage.CompletionTokens >= 60 {
			t.Errorf("%q (%s, %d tokens): want the text before the first newline", r.Choices[0].Text, *r.Choices[0].FinishReason, r.Usage.CompletionTokens)
		}
	})

	t.Run("tokenize", func(t *testing.T) {
		code, out := post(t, ts.URL+"/tokenize", map[string]any{"content": "héllo wörld"})
		var tk struct{ Tokens []int }
		if code != 200 || json.Unmarshal(out, &tk) != nil || len(tk.Tokens) == 0 {
			t.Fatalf("%d %s", code, out)
		}
		code, out = post(t, ts.URL+"/detokenize", map[string]any{"tokens": tk.Tokens})
		if !bytes.Contains(out, []byte(`"content":"héllo wörld"`)) {
			t.Errorf("detokenize: %d %s", code, out)
		}
		if code, _ := post(t, ts.URL+"/detokenize", map[string]any{"tokens": []int{1 << 20}}); code != 400 {
			t.Errorf("an id past the vocabulary: %d", code)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		resp, err := http.Get(ts.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		sample := regexp.MustCompile(`^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [-+0-9.eInf]+$`)
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
			if strings.HasPrefix(line, "# HELP ") || strings.HasPrefix(line, "# TYPE ") {
				continue
			}
			if !sample.MatchString(line) {
				t.Errorf("not a sample line: %q", line)
			}
			n++
		}
		for _, want := range []string{"mlxbun_generated_tokens_total", "mlxbun_time_to_first_token_seconds_count", "mlxbun_slots_busy",
			"mlxbun_prompt_cache_hits_total", "mlxbun_draft_acceptance_ratio", "mlxbun_step_duration_seconds_count"} {
			if !bytes.Contains(body, []byte("\n"+want+" ")) {
				t.Errorf("no %s", want)
			}
		}
	})
}
