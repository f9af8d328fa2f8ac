// Request hardening beside the strict decoder: an empty stop string and a negative seed are 400s naming the
// field (the stopper dropped "" and a seed of -1 wrapped to 2⁶⁴-1), and a body's Content-Encoding is honoured: gzip
// is decoded under the same body limit (a gzip bomb is a 413 that allocates about the limit, not the bomb), any
// other coding is a 415 naming the header.
package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/scheduler"
)

func TestEmptyStopAndNegativeSeed(t *testing.T) {
	s := New(Options{ModelName: "m"})
	s.Ready(newEngine(t, scheduler.Config{Parallel: 1}))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	const user = `"messages":[{"role":"user","content":"hi"}],"max_tokens":2`
	for _, c := range []struct {
		name, path, body string
		param, msg       string
	}{
		{"stop empty", "/v1/completions", `{"prompt":"x","max_tokens":2,"stop":""}`, "stop",
			"stop: an empty string (give the text that ends the output, or leave stop out)"},
		{"stop array with an empty string", "/v1/chat/completions", `{` + user + `,"stop":["a",""]}`, "stop[1]",
			"stop[1]: an empty string (give the text that ends the output)"},
		{"stop array of one empty string", "/v1/completions", `{"prompt":"x","stop":[""]}`, "stop[0]",
			"stop[0]: an empty string (give the text that ends the output)"},
		{"seed -1", "/v1/completions", `{"prompt":"x","max_tokens":2,"seed":-1}`, "seed",
			"seed: -1: want a whole number from 0 (leave seed out, or null, for a random one)"},
		{"seed -7 in a chat", "/v1/chat/completions", `{` + user + `,"seed":-7}`, "seed",
			"seed: -7: want a whole number from 0 (leave seed out, or null, for a random one)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want400(t, ts.URL+c.path, c.body, c.param, c.msg)
		})
	}
	// What stays accepted: seed 0 and null, stop strings that are not empty, an empty list of them.
	for _, body := range []string{
		`{"prompt":"x","max_tokens":2,"seed":0,"stop":["a"," "]}`,
		`{"prompt":"x","max_tokens":2,"seed":null,"stop":[]}`,
		`{"prompt":"x","max_tokens":2,"seed":9007199254740993,"stop":"\n"}`,
	} {
		if code, out := post(t, ts.URL+"/v1/completions", []byte(body)); code != 200 {
			t.Errorf("%s: %d %s, want 200", body, code, out)
		}
	}
	// The same seed replays the same sampled text.
	body := []byte(`{"prompt":"def f(x):","max_tokens":8,"temperature":1.5,"seed":12345}`)
	_, a := post(t, ts.URL+"/v1/completions", body)
	_, b := post(t, ts.URL+"/v1/completions", body)
	if text(t, a) != text(t, b) {
		t.Errorf("seed 12345 twice: %q and %q", text(t, a), text(t, b))
	}
}

func text(t *testing.T, out []byte) string {
	t.Helper()
	var r struct{ Choices []struct{ Text string } }
	if err := json.Unmarshal(out, &r); err != nil || len(r.Choices) != 1 {
		t.Fatalf("not a completion: %s", out)
	}
	return r.Choices[0].Text
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// send posts body with the Content-Encoding header (none when enc is "") and returns the status, the error body
// and the Accept-Encoding header of the answer.
func send(t *testing.T, url, enc string, body []byte) (int, apiError, string, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var got struct{ Error apiError }
	json.Unmarshal(out, &got)
	return resp.StatusCode, got.Error, resp.Header.Get("Accept-Encoding"), out
}

func TestContentEncoding(t *testing.T) {
	const limit = 1 << 20
	s := New(Options{ModelName: "m", MaxBodyBytes: limit})
	s.Ready(newEngine(t, scheduler.Config{Parallel: 1}))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	tok := []byte(`{"content":"def f(x):\n    return x","with_pieces":true}`)
	code, _, _, plain := send(t, ts.URL+"/tokenize", "", tok)
	if code != 200 {
		t.Fatalf("plain /tokenize: %d %s", code, plain)
	}

	for _, enc := range []string{"gzip", "GZIP", "x-gzip", "identity, gzip"} {
		code, _, _, out := send(t, ts.URL+"/tokenize", enc, gzipped(t, tok))
		if code != 200 || !bytes.Equal(out, plain) {
			t.Errorf("Content-Encoding %s: %d %s, want 200 and the plain answer %s", enc, code, out, plain)
		}
	}
	if code, _, _, out := send(t, ts.URL+"/tokenize", "identity", tok); code != 200 || !bytes.Equal(out, plain) {
		t.Errorf("Content-Encoding identity: %d %s, want 200 and the plain answer", code, out)
	}
	comp := gzipped(t, []byte(`{"prompt":"def f(x):","max_tokens":3,"temperature":0}`))
	if code, _, _, out := send(t, ts.URL+"/v1/completions", "gzip", comp); code != 200 || len(text(t, out)) == 0 {
		t.Errorf("a gzip completion request: %d %s", code, out)
	}

	t.Run("other codings are a 415", func(t *testing.T) {
		for _, enc := range []string{"br", "deflate", "zstd", "gzip, br", "gzip, gzip"} {
			code, e, accept, out := send(t, ts.URL+"/tokenize", enc, gzipped(t, tok))
			want := `Content-Encoding "` + enc + `": this server decodes gzip only (or send the body uncompressed)`
			if code != 415 || e.Message != want || accept != "gzip" {
				t.Errorf("Content-Encoding %s: %d (Accept-Encoding %q) %s\nwant 415 (Accept-Encoding \"gzip\") %q", enc, code, accept, out, want)
			}
		}
	})
	t.Run("not gzip", func(t *testing.T) {
		for name, body := range map[string][]byte{"plain JSON": tok, "empty": nil, "cut short": gzipped(t, tok)[:20]} {
			code, e, _, out := send(t, ts.URL+"/tokenize", "gzip", body)
			if code != 400 || !strings.HasPrefix(e.Message, "Content-Encoding gzip: the body is not valid gzip: ") || strings.Contains(e.Message, "\n") {
				t.Errorf("%s sent as gzip: %d %s, want a 400 saying it is not valid gzip", name, code, out)
			}
		}
	})
	t.Run("a gzip bomb is a 413", func(t *testing.T) {
		// 256 MiB of spaces inside a JSON string, about 250 KiB compressed: under the limit before decoding.
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write([]byte(`{"content":"`))
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for range 256 {
			zw.Write(chunk)
		}
		zw.Write([]byte(`"}`))
		zw.Close()
		if buf.Len() >= limit {
			t.Fatalf("the bomb is %d bytes compressed, not under the %d-byte limit", buf.Len(), limit)
		}
		bomb := buf.Bytes()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, e, _, out := send(t, ts.URL+"/tokenize", "gzip", bomb)
		runtime.ReadMemStats(&after)
		want := "request body over the server's limit of 1048576 bytes (the limit holds for the gzip-decoded body too)"
		if code != 413 || e.Message != want {
			t.Errorf("%d %s\nwant 413 %q", code, out, want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Errorf("answering the bomb allocated %d MiB, want about the 1 MiB limit", got>>20)
		}
	})
}
