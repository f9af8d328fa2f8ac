// Package server is mlxbun's OpenAI-compatible HTTP API over a scheduler (package scheduler): chat and text
// completions, streamed as server-sent events or not, the model list, llama.cpp's /health, /tokenize and
// /detokenize, and Prometheus /metrics. The server listens while the model loads (/health answers 503 until it is
// ready); with an API key every endpoint but /health wants it as a Bearer token. Bodies are bounded and decoded
// strictly (openai.go); a body sent with Content-Encoding gzip is decoded, the bound applying to the decoded bytes
// as well, and any other coding but identity is a 415.
package server

import (
	"compress/gzip"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/grammar"
	"github.com/mlxbun/mlxbun/internal/scheduler"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

// Options configure a Server.
type Options struct {
	ModelName    string // the id /v1/models lists and responses carry
	APIKey       string // "" : no authentication
	MaxBodyBytes int64  // request bodies larger are a 413; 0: 4 MiB
	MaxTokens    int    // the most tokens a request may ask for; 0: the context size
	Log          zerolog.Logger
}

// Engine is what serves requests once the model is loaded.
type Engine struct {
	Sched     *scheduler.Scheduler
	Tok       *tokenizer.Tokenizer
	Template  *chat.Template // nil: chat completions are refused
	EOS       []int          // end ids (sample.EndIDs)
	VocabSize int            // logits row width
	Adapters  []string       // named adapter sets a request may pick by model name
}

// Server is the HTTP API. Ready installs the engine; until then the model endpoints answer 503.
type Server struct {
	opt     Options
	eng     atomic.Pointer[Engine]
	failed  atomic.Pointer[error]
	met     *metrics
	mux     *http.ServeMux
	created int64

	vocabOnce sync.Once
	vocab     *grammar.Vocab
	grammars  *grammarCache
}

// New makes a server without an engine (loading).
func New(opt Options) *Server {
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = 4 << 20
	}
	s := &Server{opt: opt, met: newMetrics(), created: time.Now().Unix(), grammars: newGrammarCache(32)}
	mux := http.NewServeMux()
	routes := []struct {
		method, path string
		h            http.Handler
	}{
		{"GET", "/health", http.HandlerFunc(s.health)},
		{"GET", "/v1/health", http.HandlerFunc(s.health)},
		{"GET", "/metrics", s.guard("/metrics", false, s.metrics)},
		{"GET", "/v1/models", s.guard("/v1/models", false, s.models)},
		{"POST", "/v1/chat/completions", s.guard("/v1/chat/completions", true, s.chatCompletions)},
		{"POST", "/v1/completions", s.guard("/v1/completions", true, s.completions)},
		{"POST", "/tokenize", s.guard("/tokenize", true, s.tokenize)},
		{"POST", "/detokenize", s.guard("/detokenize", true, s.detokenize)},
	}
	methods := map[string]string{} // path → the method it takes
	for _, rt := range routes {
		mux.Handle(rt.method+" "+rt.path, rt.h)
		methods[rt.path] = rt.method
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// The catch-all would answer GET /v1/chat/completions "no such endpoint": it is one, under another method.
		if m, ok := methods[r.URL.Path]; ok {
			allow := m
			if m == "GET" {
				allow = "GET, HEAD"
			}
			w.Header().Set("Allow", allow)
			writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Type: "invalid_request_error",
				Message: fmt.Sprintf("%s %s: this endpoint takes %s", r.Method, r.URL.Path, m)})
			return
		}
		writeError(w, &apiError{Status: http.StatusNotFound, Type: "not_found_error",
			Message: fmt.Sprintf("%s %s: no such endpoint", r.Method, r.URL.Path)})
	})
	s.mux = mux
	return s
}

// Ready installs the loaded engine.
func (s *Server) Ready(e *Engine) { s.eng.Store(e) }

// Fail records that loading failed; /health then says why.
func (s *Server) Fail(err error) { s.failed.Store(&err) }

// ObserveStep records one forward call's duration (scheduler.Config.OnStep).
func (s *Server) ObserveStep(rows int, d time.Duration) { s.met.step.observe(d.Seconds()) }

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// handlerFunc serves a request that passed the guard; it returns the status it answered (for the metrics).
type handlerFunc func(w http.ResponseWriter, r *http.Request, e *Engine) int

// guard checks the API key, that the engine is ready (when needsEngine), bounds the body, and counts the request.
func (s *Server) guard(endpoint string, needsEngine bool, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status := s.serveGuarded(w, r, needsEngine, h)
		d := time.Since(start)
		s.met.request(endpoint, status, d)
		ev := s.opt.Log.Debug()
		if status >= 500 && status != 503 {
			ev = s.opt.Log.Warn()
		}
		ev.Str("endpoint", endpoint).Int("status", status).Dur("took", d).Msg("request")
	})
}

func (s *Server) serveGuarded(w http.ResponseWriter, r *http.Request, needsEngine bool, h handlerFunc) int {
	if s.opt.APIKey != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.opt.APIKey)) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			return writeError(w, &apiError{Status: http.StatusUnauthorized, Type: "authentication_error", Code: "invalid_api_key",
				Message: "missing or wrong API key (send Authorization: Bearer KEY)"})
		}
	}
	gz, aerr := bodyCoding(r.Header)
	if aerr != nil {
		w.Header().Set("Accept-Encoding", "gzip") // RFC 7694: the codings the server takes
		return writeError(w, aerr)
	}
	e := s.eng.Load()
	if e == nil && needsEngine {
		return writeError(w, s.unavailable())
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes)
	if gz {
		// Bounded before and after decoding: a small gzip bomb stops at the limit, not at the end of memory.
		r.Body = http.MaxBytesReader(w, &gzipBody{raw: r.Body}, s.opt.MaxBodyBytes)
	}
	return h(w, r, e)
}

// bodyCoding reads Content-Encoding: true for gzip (x-gzip is its old name), false for none or identity, and a
// 415 naming the header for anything else, a list of codings included.
func bodyCoding(h http.Header) (isGzip bool, aerr *apiError) {
	vals := h.Values("Content-Encoding")
	if len(vals) == 0 {
		return false, nil
	}
	var codings []string
	for _, v := range vals {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	switch {
	case len(codings) == 0:
		return false, nil
	case len(codings) == 1 && (codings[0] == "gzip" || codings[0] == "x-gzip"):
		return true, nil
	}
	return false, &apiError{Status: http.StatusUnsupportedMediaType, Type: "invalid_request_error",
		Message: fmt.Sprintf("Content-Encoding %q: this server decodes gzip only (or send the body uncompressed)", strings.Join(vals, ", "))}
}

// gzipBody decodes a gzip request body, opening the decoder at the first read so that a bad header is a read
// error (a 400 from readBody) like any other.
type gzipBody struct {
	raw io.ReadCloser
	zr  *gzip.Reader
	err error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.raw)
		if g.err == io.EOF {
			g.err = io.ErrUnexpectedEOF // an empty body is no gzip stream (one of nothing is 20 bytes)
		}
		if g.err != nil {
			g.err = &gzipError{g.err}
		}
	}
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		var mb *http.MaxBytesError
		if !errors.As(err, &mb) {
			err = &gzipError{err}
		}
	}
	return n, err
}

func (g *gzipBody) Close() error { return g.raw.Close() }

// gzipError is a body that is not valid gzip.
type gzipError struct{ err error }

func (e *gzipError) Error() string {
	return "Content-Encoding gzip: the body is not valid gzip: " + strings.TrimPrefix(e.err.Error(), "gzip: ")
}
func (e *gzipError) Unwrap() error { return e.err }

func (s *Server) unavailable() *apiError {
	if p := s.failed.Load(); p != nil {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "unavailable_error", Message: "the model failed to load: " + (*p).Error()}
	}
	return &apiError{Status: http.StatusServiceUnavailable, Type: "unavailable_error", Message: "Loading model"}
}

// readBody reads a bounded body: 413 past the limit.
func (s *Server) readBody(r *http.Request) ([]byte, *apiError) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			decoded := ""
			if gz, _ := bodyCoding(r.Header); gz {
				decoded = " (the limit holds for the gzip-decoded body too)"
			}
			return nil, &apiError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error",
				Message: fmt.Sprintf("request body over the server's limit of %d bytes%s", mb.Limit, decoded)}
		}
		var ge *gzipError
		if errors.As(err, &ge) {
			return nil, badRequest("%v", ge)
		}
		return nil, badRequest("reading the request body: %v", err)
	}
	return b, nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if s.eng.Load() == nil {
		e := s.unavailable()
		writeJSON(w, e.Status, map[string]any{"error": map[string]any{"code": e.Status, "message": e.Message, "type": e.Type}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request, e *Engine) int {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	var st *scheduler.Stats
	if e != nil {
		x := e.Sched.Stats()
		st = &x
	}
	s.met.write(w, st)
	return http.StatusOK
}

func (s *Server) models(w http.ResponseWriter, r *http.Request, e *Engine) int {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := []model{{ID: s.opt.ModelName, Object: "model", Created: s.created, OwnedBy: "mlxbun"}}
	if e != nil {
		for _, a := range e.Adapters {
			list = append(list, model{ID: a, Object: "model", Created: s.created, OwnedBy: "mlxbun"})
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": list})
}

// tokenize is llama.cpp's POST /tokenize: {"content", "add_special", "with_pieces"} → {"tokens"}.
func (s *Server) tokenize(w http.ResponseWriter, r *http.Request, e *Engine) int {
	body, aerr := s.readBody(r)
	if aerr != nil {
		return writeError(w, aerr)
	}
	var req struct {
		Content    *string `json:"content"`
		AddSpecial bool    `json:"add_special"`
		WithPieces bool    `json:"with_pieces"`
	}
	if aerr := decodeStrict(body, &req); aerr != nil {
		return writeError(w, aerr)
	}
	if req.Content == nil {
		return writeError(w, badField("content", "is required"))
	}
	ids := e.Tok.Encode(*req.Content, req.AddSpecial)
	if !req.WithPieces {
		if ids == nil {
			ids = []int{}
		}
		return writeJSON(w, http.StatusOK, map[string]any{"tokens": ids})
	}
	type piece struct {
		ID    int `json:"id"`
		Piece any `json:"piece"` // the text, or its bytes when they are not valid UTF-8 (as llama.cpp answers)
	}
	pieces := []piece{}
	for _, id := range ids {
		b := e.Tok.TokenBytes(id)
		if b == nil {
			t, _ := e.Tok.Token(id)
			b = []byte(t)
		}
		p := piece{ID: id, Piece: string(b)}
		if !validUTF8(b) {
			p.Piece = byteInts(b)
		}
		pieces = append(pieces, p)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"tokens": pieces})
}

// detokenize is llama.cpp's POST /detokenize: {"tokens"} → {"content"}.
func (s *Server) detokenize(w http.ResponseWriter, r *http.Request, e *Engine) int {
	body, aerr := s.readBody(r)
	if aerr != nil {
		return writeError(w, aerr)
	}
	var req struct {
		Tokens []int `json:"tokens"`
	}
	if aerr := decodeStrict(body, &req); aerr != nil {
		return writeError(w, aerr)
	}
	for i, id := range req.Tokens {
		if id < 0 || id >= e.Tok.VocabSize() {
			return writeError(w, badField(fmt.Sprintf("tokens[%d]", i), fmt.Sprintf("id %d is outside the vocabulary of %d", id, e.Tok.VocabSize())))
		}
	}
	return writeJSON(w, http.StatusOK, map[string]string{"content": e.Tok.Decode(req.Tokens, false)})
}

func writeJSON(w http.ResponseWriter, status int, v any) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return status
}

func writeError(w http.ResponseWriter, e *apiError) int {
	if e.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	return writeJSON(w, e.Status, map[string]*apiError{"error": e})
}
