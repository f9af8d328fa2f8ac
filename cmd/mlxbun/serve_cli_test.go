// Tests of `mlxbun serve` as a process on loopback, through HTTP: streamed and non-streamed answers agree for a
// seed; a seed gives the same output on 1 and 4 slots; 200 concurrent streams of which 50 disconnect mid-stream
// leave the other 150 intact and the server back at its goroutine and slot baseline; bad requests are 400s naming
// the field; the API key guards every endpoint but /health; a shared prefix comes back as cached tokens; SIGTERM
// lets a running request finish and exits 0.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/loratest"
)

// chatTemplate is a minimal role-tagged template: the fixture model has none.
const chatTemplate = `{% for m in messages %}<|{{ m.role }}|>
{{ m.content }}
{% endfor %}{% if add_generation_prompt %}<|assistant|>
{% endif %}`

type serveProc struct {
	url    string
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{} // closed when the process has exited, with its error in err
	err    error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs serve on pycoder-12m on a free loopback port and waits until /health is 200.
func startServe(t *testing.T, args ...string) *serveProc {
	t.Helper()
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	tmpl := filepath.Join(t.TempDir(), "chat.jinja")
	if err := os.WriteFile(tmpl, []byte(chatTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, append([]string{"serve", "--model", dir, "--port", "0", "--chat-template", tmpl}, args...)...)
	pr, pw := io.Pipe()
	p := &serveProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = io.MultiWriter(pw, p.stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.exited); pw.Close() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
	})
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`listening on (http://\S+)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case p.url = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve printed no address: %s", p.stderr)
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(p.url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("serve not healthy in 30 s: %s", p.stderr)
		}
	}
}

type client struct {
	t   *testing.T
	url string
	key string
	hc  *http.Client
}

func (c *client) post(path string, body any) (int, []byte) {
	c.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", c.url+path, bytes.NewReader(b))
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// completion is the parts of a (chat) completion the tests read.
type completion struct {
	Text, Reason string
	Usage        struct {
		Prompt  int `json:"prompt_tokens"`
		Tokens  int `json:"completion_tokens"`
		Details struct {
			Cached int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
}

func (c *client) complete(path string, body map[string]any) completion {
	c.t.Helper()
	code, out := c.post(path, body)
	if code != 200 {
		c.t.Fatalf("%s: %d %s", path, code, out)
	}
	var r struct {
		Choices []struct {
			Text    string `json:"text"`
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Choices) != 1 {
		c.t.Fatalf("%s: %v in %s", path, err, out)
	}
	res := completion{Text: r.Choices[0].Text + r.Choices[0].Message.Content, Reason: r.Choices[0].FinishReason}
	json.Unmarshal(r.Usage, &res.Usage)
	return res
}

// stream posts with stream: true and reads the events to [DONE]; stopAfter > 0 closes the connection after that
// many events instead.
func (c *client) stream(ctx context.Context, path string, body map[string]any, stopAfter int) (completion, error) {
	body["stream"] = true
	body["stream_options"] = map[string]any{"include_usage": true}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, "POST", c.url+path, bytes.NewReader(b))
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return completion{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		out, _ := io.ReadAll(resp.Body)
		return completion{}, fmt.Errorf("%d %s", resp.StatusCode, out)
	}
	var res completion
	sc := bufio.NewScanner(resp.Body)
	events := 0
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			return res, nil
		}
		events++
		if stopAfter > 0 && events >= stopAfter {
			return res, nil // the deferred Close drops the connection mid-stream
		}
		var ch struct {
			Choices []struct {
				Text  string `json:"text"`
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage json.RawMessage `json:"usage"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &ch); err != nil {
			return res, fmt.Errorf("event %q: %v", line, err)
		}
		if ch.Error != nil {
			return res, fmt.Errorf("error event %s", ch.Error)
		}
		for _, x := range ch.Choices {
			res.Text += x.Text + x.Delta.Content
			if x.FinishReason != nil {
				res.Reason = *x.FinishReason
			}
		}
		if ch.Usage != nil && string(ch.Usage) != "null" {
			json.Unmarshal(ch.Usage, &res.Usage)
		}
	}
	return res, fmt.Errorf("stream ended without [DONE] (%v)", sc.Err())
}

// metric reads one sample of /metrics.
func (c *client) metric(name string) float64 {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.url+"/metrics", nil)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	c.t.Fatalf("metric %s not found", name)
	return 0
}

func newClient(t *testing.T, url, key string) *client {
	return &client{t: t, url: url, key: key, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 2 * time.Minute}}
}

func TestServe(t *testing.T) {
	p := startServe(t, "--parallel", "4", "--api-key", "sekret", "--max-tokens", "512")
	c := newClient(t, p.url, "sekret")
	chatBody := func(seed int) map[string]any {
		return map[string]any{"messages": []map[string]any{{"role": "user", "content": "def add(a, b):"}},
			"max_tokens": 16, "temperature": 0.8, "seed": seed}
	}
	textBody := func(prompt string, seed int) map[string]any {
		return map[string]any{"prompt": prompt, "max_tokens": 16, "temperature": 0.8, "seed": seed}
	}

	t.Run("api key", func(t *testing.T) {
		anon := newClient(t, p.url, "")
		if code, out := anon.post("/v1/completions", textBody("x", 1)); code != 401 || !bytes.Contains(out, []byte("API key")) {
			t.Errorf("no key: %d %s", code, out)
		}
		wrong := newClient(t, p.url, "nope")
		if code, _ := wrong.post("/tokenize", map[string]any{"content": "x"}); code != 401 {
			t.Errorf("wrong key: %d", code)
		}
		resp, err := http.Get(p.url + "/v1/models")
		if err != nil || resp.StatusCode != 401 {
			t.Errorf("models without a key: %v %v", resp.StatusCode, err)
		}
		resp.Body.Close()
		resp, err = http.Get(p.url + "/health")
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("health without a key: %v %v", resp.StatusCode, err)
		}
		resp.Body.Close()
	})

	t.Run("streamed equals non-streamed", func(t *testing.T) {
		for _, path := range []string{"/v1/chat/completions", "/v1/completions"} {
			body := chatBody(11)
			if path == "/v1/completions" {
				body = textBody("class Point:\n    def __init__(self", 11)
			}
			plain := c.complete(path, body)
			streamed, err := c.stream(context.Background(), path, body, 0)
			if err != nil {
				t.Fatal(err)
			}
			if streamed.Text != plain.Text || streamed.Reason != plain.Reason || streamed.Usage.Tokens != plain.Usage.Tokens {
				t.Errorf("%s: streamed %+v, non-streamed %+v", path, streamed, plain)
			}
			if plain.Usage.Tokens != 16 || plain.Reason != "length" {
				t.Errorf("%s: %+v, want 16 tokens to the length limit", path, plain)
			}
		}
	})

	t.Run("same seed on 1 and 4 slots", func(t *testing.T) {
		one := startServe(t, "--parallel", "1")
		c1 := newClient(t, one.url, "")
		prompts := []string{"import sys\n", "def main():\n", "x = [", "# sum of squares\n", "while n > 0:\n", "return {"}
		outs := make([]string, len(prompts))
		var wg sync.WaitGroup
		for i, pr := range prompts { // concurrently on 4 slots, so they share batch steps
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := c.stream(context.Background(), "/v1/completions", textBody(pr, 100+i), 0)
				if err != nil {
					t.Error(err)
				}
				outs[i] = res.Text
			}()
		}
		wg.Wait()
		for i, pr := range prompts {
			if got := c1.complete("/v1/completions", textBody(pr, 100+i)).Text; got != outs[i] {
				t.Errorf("prompt %q seed %d: 4 slots %q, 1 slot %q", pr, 100+i, outs[i], got)
			}
		}
	})

	t.Run("bad requests", func(t *testing.T) {
		msgs := []map[string]any{{"role": "user", "content": "hi"}}
		for _, tc := range []struct {
			body map[string]any
			want string
		}{
			{map[string]any{"messages": msgs, "frobnicate": true}, `"param":"frobnicate"`},
			{map[string]any{"messages": msgs, "tools": []any{}}, `"param":"tools"`},
			{map[string]any{"messages": msgs, "n": 2}, `"param":"n"`},
			{map[string]any{"messages": msgs, "max_tokens": 100000}, `"param":"max_tokens"`},
			{map[string]any{"messages": msgs, "temperature": "hot"}, `"param":"temperature"`},
			{map[string]any{"messages": msgs, "response_format": map[string]any{"type": "json_schema",
				"json_schema": map[string]any{"name": "x", "schema": map[string]any{"type": "object", "minProperties": 2}}}}, `minProperties`},
			{map[string]any{"messages": msgs, "response_format": map[string]any{"type": "xml"}}, `"param":"response_format.type"`},
			{map[string]any{"messages": []map[string]any{{"role": "user", "content": []map[string]any{{"type": "image_url"}}}}}, `image_url`},
			{map[string]any{"messages": msgs, "model": "gpt-4"}, `model_not_found`},
		} {
			code, out := c.post("/v1/chat/completions", tc.body)
			if code/100 != 4 || !bytes.Contains(out, []byte(tc.want)) {
				t.Errorf("%v: %d %s, want a 4xx naming %s", tc.body, code, out, tc.want)
			}
		}
		if code, out := c.post("/v1/completions", map[string]any{"prompt": []string{"a", "b"}}); code != 400 {
			t.Errorf("two prompts: %d %s", code, out)
		}
	})

	t.Run("prompt cache", func(t *testing.T) {
		shared := strings.Repeat("# the same long header of a file\n", 8)
		first := c.complete("/v1/completions", textBody(shared+"def one():\n", 1))
		second := c.complete("/v1/completions", textBody(shared+"def two():\n", 2))
		if first.Usage.Details.Cached >= len(shared) || second.Usage.Details.Cached < len(shared) {
			t.Errorf("cached tokens: first %d, second %d; want the second to reuse the %d-token header",
				first.Usage.Details.Cached, second.Usage.Details.Cached, len(shared))
		}
	})

	t.Run("200 streams, 50 disconnect", func(t *testing.T) {
		prompts := []string{"def f(x):\n", "import os\n", "class A:\n", "for i in range(3):\n", "if x:\n"}
		want := map[string]string{}
		for _, pr := range prompts {
			body := textBody(pr, 0)
			body["temperature"] = 0
			body["max_tokens"] = 6
			want[pr] = c.complete("/v1/completions", body).Text
		}
		c.hc.Transport.(*http.Transport).CloseIdleConnections()
		time.Sleep(200 * time.Millisecond)
		baseGoroutines := c.metric("mlxbun_goroutines")
		// Two bursts: the server must come back to its baseline after each, and the second must not grow its
		// resident memory past what the first left (a leak per request would).
		var rss []int64
		for burst := range 2 {
			baseCancelled := c.metric(`mlxbun_requests_finished_total{reason="cancelled"}`)
			var wg sync.WaitGroup
			var mu sync.Mutex
			intact, dropped := 0, 0
			for i := range 200 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					pr := prompts[i%len(prompts)]
					body := textBody(pr, 0)
					body["temperature"] = 0
					if i%4 == 3 { // 50 of them leave after the second event, long before their 400 tokens
						body["max_tokens"] = 400
						if _, err := c.stream(context.Background(), "/v1/completions", body, 2); err != nil {
							t.Errorf("disconnecting stream %d: %v", i, err)
						}
						mu.Lock()
						dropped++
						mu.Unlock()
						return
					}
					body["max_tokens"] = 6
					res, err := c.stream(context.Background(), "/v1/completions", body, 0)
					if err != nil {
						t.Errorf("stream %d: %v", i, err)
						return
					}
					if res.Text != want[pr] || res.Usage.Tokens != 6 || res.Reason != "length" {
						t.Errorf("stream %d (%q): %+v, want %q in 6 tokens", i, pr, res, want[pr])
						return
					}
					mu.Lock()
					intact++
					mu.Unlock()
				}()
			}
			wg.Wait()
			if intact != 150 || dropped != 50 {
				t.Errorf("burst %d: %d intact streams, %d dropped: want 150 and 50", burst, intact, dropped)
			}
			c.hc.Transport.(*http.Transport).CloseIdleConnections()
			deadline := time.Now().Add(20 * time.Second)
			for {
				busy, queued := c.metric("mlxbun_slots_busy"), c.metric("mlxbun_queue_depth")
				cancelled := c.metric(`mlxbun_requests_finished_total{reason="cancelled"}`) - baseCancelled
				g := c.metric("mlxbun_goroutines")
				if busy == 0 && queued == 0 && cancelled == 50 && g <= baseGoroutines+2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after burst %d: %v slots busy, %v queued, %v cancelled (want 50), %v goroutines (baseline %v)",
						burst, busy, queued, cancelled, g, baseGoroutines)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if kb, ok := residentKB(p.cmd.Process.Pid); ok {
				rss = append(rss, kb)
			}
		}
		if len(rss) == 2 && rss[1] > rss[0]+32<<10 {
			t.Errorf("resident memory grew from %d to %d KiB over the second burst", rss[0], rss[1])
		}
		t.Logf("resident memory after each burst: %v KiB", rss)
	})

	t.Run("sigterm finishes the running request", func(t *testing.T) {
		q := startServe(t)
		cq := newClient(t, q.url, "")
		type out struct {
			res completion
			err error
		}
		got := make(chan out, 1)
		go func() {
			body := textBody("def f():\n", 3)
			body["max_tokens"] = 48
			res, err := cq.stream(context.Background(), "/v1/completions", body, 0)
			got <- out{res, err}
		}()
		for cq.metric("mlxbun_slots_busy") == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		q.cmd.Process.Signal(syscall.SIGTERM)
		r := <-got
		if r.err != nil || r.res.Usage.Tokens != 48 {
			t.Errorf("the request running at SIGTERM: %+v %v, want its 48 tokens", r.res, r.err)
		}
		select {
		case <-q.exited:
			if q.err != nil {
				t.Errorf("exit after SIGTERM: %v\n%s", q.err, q.stderr)
			}
		case <-time.After(20 * time.Second):
			t.Error("no exit 20 s after SIGTERM")
		}
	})
}

// TestDraftVerbs: generate --draft ngram prints what plain generate prints, bench --draft reports the acceptance
// with identical outputs, and bench --streams the scheduler's rate and a prompt-cache reuse.
func TestDraftVerbs(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	prompt := "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n\ndef mul(a, b):\n"
	plain := mlxbun(t, "", "generate", "--model", dir, "--prompt", prompt, "--no-chat-template", "--max-tokens", "24")
	spec := mlxbun(t, "", "generate", "--model", dir, "--prompt", prompt, "--no-chat-template", "--max-tokens", "24", "--draft", "ngram")
	if plain.code != 0 || spec.code != 0 || plain.stdout != spec.stdout || !strings.Contains(spec.stderr, "Drafts:") {
		t.Errorf("generate: plain %q (%d), with drafts %q (%d): %s", plain.stdout, plain.code, spec.stdout, spec.code, spec.stderr)
	}
	file := filepath.Join(t.TempDir(), "edit.py")
	os.WriteFile(file, []byte(prompt), 0o644)
	b := mlxbun(t, "", "bench", "--model", dir, "--draft", "ngram", "--draft-prompt", file, "-n", "16", "-r", "1")
	if b.code != 0 || !strings.Contains(b.stdout, "outputs identical: true") || !strings.Contains(b.stdout, "+ngram") {
		t.Errorf("bench --draft: %d\n%s\n%s", b.code, b.stdout, b.stderr)
	}
	st := mlxbun(t, "", "bench", "--model", dir, "--streams", "3", "-p", "40", "-n", "8", "-r", "1")
	if st.code != 0 || !strings.Contains(st.stdout, "×3 streams (scheduler, with prefill)") ||
		!strings.Contains(st.stdout, "×3 streams (scheduler, all decoding)") || !strings.Contains(st.stdout, "(24 cached") {
		t.Errorf("bench --streams: %d\n%s\n%s", st.code, st.stdout, st.stderr)
	}
}

// TestChat: the terminal chat keeps the conversation (the second turn reuses the first from the cache) and
// /reset starts over (the same first message then gets the same greedy reply).
func TestChat(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	tmpl := filepath.Join(t.TempDir(), "chat.jinja")
	os.WriteFile(tmpl, []byte(chatTemplate), 0o644)
	args := []string{"chat", "--model", dir, "--chat-template", tmpl, "--max-tokens", "8"}
	one := mlxbun(t, "def f():\n", args...)
	three := mlxbun(t, "def f():\nx = 1\n/reset\ndef f():\n/exit\nnever read\n", args...)
	if one.code != 0 || three.code != 0 {
		t.Fatalf("chat: %d %s / %d %s", one.code, one.stderr, three.code, three.stderr)
	}
	if !strings.HasPrefix(three.stdout, one.stdout) || !strings.HasSuffix(three.stdout, one.stdout) || three.stdout == one.stdout {
		t.Errorf("one turn %q; turn, turn, /reset, the first turn again %q", one.stdout, three.stdout)
	}
	turns := regexp.MustCompile(`\[(\d+) prompt tokens, (\d+) cached`).FindAllStringSubmatch(three.stderr, -1)
	if len(turns) != 3 {
		t.Fatalf("want 3 turn lines in %s", three.stderr)
	}
	if cached, _ := strconv.Atoi(turns[1][2]); cached == 0 {
		t.Errorf("second turn reused nothing of the first: %v", turns[1])
	}
	if strings.Contains(three.stdout+three.stderr, "never read") {
		t.Error("input after /exit was read")
	}
}

// residentKB is a process's resident set (Linux /proc), false where it cannot be read.
func residentKB(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TestServeAdapter: a request naming a LoRA adapter loaded with --adapter NAME=DIR gets what generate --adapter
// gives, one naming the base model what generate without it gives, from the same server.
func TestServeAdapter(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	ad := loratest.Random(t, dir, lora.PEFT, []string{"self_attn.q_proj", "self_attn.v_proj", "mlp.up_proj", "mlp.down_proj"}, 8, 64, 5)
	p := startServe(t, "--adapter", "tuned="+ad, "--parallel", "2")
	c := newClient(t, p.url, "")
	resp, err := http.Get(p.url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	models, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(models, []byte(`"id":"tuned"`)) {
		t.Errorf("/v1/models: %s", models)
	}
	prompt := "import numpy as np\nx = np."
	var outs []string
	for _, tc := range []struct{ model, flag string }{{"tuned", ad}, {"pycoder-12m", ""}} {
		got := c.complete("/v1/completions", map[string]any{"model": tc.model, "prompt": prompt, "max_tokens": 12, "temperature": 0}).Text
		args := []string{"generate", "--model", dir, "--prompt", prompt, "--no-chat-template", "--max-tokens", "12"}
		if tc.flag != "" {
			args = append(args, "--adapter", tc.flag)
		}
		want := mlxbun(t, "", args...)
		if want.code != 0 || strings.TrimSuffix(want.stdout, "\n") != got {
			t.Errorf("model %q: served %q, generate %q (%s)", tc.model, got, want.stdout, want.stderr)
		}
		outs = append(outs, got)
	}
	if outs[0] == outs[1] {
		t.Errorf("the adapter changed nothing (%q): the test shows nothing", outs[0])
	}
}
