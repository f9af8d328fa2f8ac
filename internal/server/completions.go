// Chat and text completions: a request becomes a scheduler.Request (prompt ids, sampler or grammar picker,
// stopper, text stream), goes to the scheduler, and its events come back as one JSON response or as server-sent
// events (a chunk per step, the usage chunk when stream_options.include_usage, then [DONE]). A client that goes
// away cancels its request, which leaves the batch at the next step.
package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/grammar"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/scheduler"
)

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request, e *Engine) int {
	body, aerr := s.readBody(r)
	if aerr != nil {
		return writeError(w, aerr)
	}
	var req chatRequest
	if aerr := decodeStrict(body, &req); aerr != nil {
		return writeError(w, aerr)
	}
	if err := req.unsupported(); err != nil {
		return writeError(w, err)
	}
	if e.Template == nil {
		return writeError(w, badRequest("this model has no chat template: use /v1/completions, or start the server with --chat-template FILE"))
	}
	if len(req.Messages) == 0 {
		return writeError(w, badField("messages", "is required and must not be empty"))
	}
	var msgs []chat.Message
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "user", "assistant", "developer":
		default:
			return writeError(w, badField(fmt.Sprintf("messages[%d].role", i), fmt.Sprintf("%q: want system, developer, user or assistant", m.Role)))
		}
		text, err := m.text(i)
		if err != nil {
			return writeError(w, err)
		}
		cm := chat.Message{Role: m.Role, Content: text}
		if m.Name != "" {
			cm.Extra = map[string]any{"name": m.Name}
		}
		msgs = append(msgs, cm)
	}
	rendered, err := e.Template.Render(msgs, true, req.ChatTemplateKwargs)
	if err != nil {
		return writeError(w, badRequest("chat template: %v", err))
	}
	prompt := e.Tok.Encode(rendered, false)
	top := -1
	if req.Logprobs {
		top = 0
		if req.TopLogprobs != nil {
			if *req.TopLogprobs < 0 || *req.TopLogprobs > 20 {
				return writeError(w, badField("top_logprobs", fmt.Sprintf("%d: want 0..20", *req.TopLogprobs)))
			}
			top = *req.TopLogprobs
		}
	} else if req.TopLogprobs != nil {
		return writeError(w, badField("top_logprobs", "needs logprobs: true"))
	}
	return s.generate(w, r, e, &req.sampling, prompt, top, true)
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request, e *Engine) int {
	body, aerr := s.readBody(r)
	if aerr != nil {
		return writeError(w, aerr)
	}
	var req completionRequest
	if aerr := decodeStrict(body, &req); aerr != nil {
		return writeError(w, aerr)
	}
	if err := req.unsupported(); err != nil {
		return writeError(w, err)
	}
	text, prompt, err := req.prompt()
	if err != nil {
		return writeError(w, err)
	}
	if prompt == nil {
		prompt = e.Tok.Encode(text, true)
	}
	for i, id := range prompt {
		if id < 0 || id >= e.VocabSize {
			return writeError(w, badField(fmt.Sprintf("prompt[%d]", i), fmt.Sprintf("token id %d is outside the vocabulary of %d", id, e.VocabSize)))
		}
	}
	top := -1
	if req.Logprobs != nil {
		if *req.Logprobs < 0 || *req.Logprobs > 5 {
			return writeError(w, badField("logprobs", fmt.Sprintf("%d: want 0..5", *req.Logprobs)))
		}
		top = *req.Logprobs
	}
	return s.generate(w, r, e, &req.sampling, prompt, top, false)
}

// request builds the scheduler's request from the shared fields.
func (s *Server) request(r *http.Request, e *Engine, sp *sampling, prompt []int, top int) (*scheduler.Request, *apiError) {
	adapter := ""
	switch {
	case sp.Model == "" || sp.Model == s.opt.ModelName:
	case slices.Contains(e.Adapters, sp.Model):
		adapter = sp.Model
	default:
		names := append([]string{s.opt.ModelName}, e.Adapters...)
		return nil, &apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
			Message: fmt.Sprintf("model %q: this server serves %q", sp.Model, names)}
	}
	if len(prompt) == 0 {
		return nil, badField("prompt", "is empty")
	}
	ctx := e.Sched.Config().CtxSize
	if len(prompt) >= ctx {
		return nil, &apiError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
			Message: fmt.Sprintf("the prompt is %d tokens; the context is %d (--ctx-size)", len(prompt), ctx)}
	}
	limit, whose := s.opt.MaxTokens, "--max-tokens"
	if limit <= 0 {
		limit, whose = ctx, "the context size, --ctx-size" // the server was given no --max-tokens
	}
	maxTok, field := sp.MaxTokens, "max_tokens"
	if sp.MaxCompletionTokens != nil {
		if sp.MaxTokens != nil {
			return nil, badRequest("give max_tokens or max_completion_tokens, not both")
		}
		maxTok, field = sp.MaxCompletionTokens, "max_completion_tokens"
	}
	n := min(limit, ctx-len(prompt))
	if maxTok != nil {
		switch {
		case *maxTok < 1:
			return nil, badField(field, fmt.Sprintf("%d: want at least 1", *maxTok))
		case *maxTok > limit:
			return nil, badField(field, fmt.Sprintf("%d is over the server's limit of %d (%s)", *maxTok, limit, whose))
		case len(prompt)+*maxTok > ctx:
			return nil, &apiError{Status: 400, Type: "invalid_request_error", Param: field, Code: "context_length_exceeded",
				Message: fmt.Sprintf("%d prompt tokens + %s %d is over the context of %d (--ctx-size)", len(prompt), field, *maxTok, ctx)}
		}
		n = *maxTok
	}
	p := sample.Params{TopK: deref(sp.TopK), MinP: deref(sp.MinP), PresencePenalty: deref(sp.PresencePenalty),
		FrequencyPenalty: deref(sp.FrequencyPenalty), RepetitionPenalty: deref(sp.RepetitionPenalty),
		RepetitionContextSize: deref(sp.RepetitionContext), TopP: 1, Temp: 1}
	if sp.Temperature != nil {
		p.Temp = *sp.Temperature
	}
	if sp.TopP != nil {
		p.TopP = *sp.TopP
	}
	if sp.Seed != nil {
		if *sp.Seed < 0 { // it would wrap to a seed near 2⁶⁴; the CLI's --seed refuses it too
			return nil, badField("seed", fmt.Sprintf("%d: want a whole number from 0 (leave seed out, or null, for a random one)", *sp.Seed))
		}
		p.Seed = uint64(*sp.Seed)
	} else {
		p.Seed = mrand.Uint64()
	}
	if len(sp.LogitBias) > 0 {
		p.LogitBias = map[int]float32{}
		for k, v := range sp.LogitBias {
			// The key as a token id is written: "01" or "+1" would be token 1 beside "1", and one of the two
			// biases would win at random.
			id, err := strconv.Atoi(k)
			if err != nil || id < 0 || id >= e.VocabSize || strconv.Itoa(id) != k {
				return nil, badField("logit_bias", fmt.Sprintf("key %q is not a token id of the vocabulary of %d", k, e.VocabSize))
			}
			if v < -100 || v > 100 || math.IsNaN(float64(v)) {
				return nil, badField("logit_bias", fmt.Sprintf("token %d: bias %v outside -100..100", id, v))
			}
			p.LogitBias[id] = v
		}
	}
	sampler, err := sample.New(p)
	if err != nil {
		var pe *sample.ParamError
		if errors.As(err, &pe) { // the first bad field, by the name the request gave it (sample names the CLI flags)
			return nil, badField(paramField(pe.Param), pe.Msg)
		}
		return nil, badRequest("sampling parameters: %v", err)
	}
	stops, aerr := sp.stops()
	if aerr != nil {
		return nil, aerr
	}
	eos := e.EOS
	if sp.IgnoreEOS {
		eos = nil
	}
	tabs, aerr := s.constraint(e, sp)
	if aerr != nil {
		return nil, aerr
	}
	stream := e.Tok.NewStream(true)
	req := &scheduler.Request{Ctx: r.Context(), Prompt: prompt, MaxTokens: n, Stop: sample.NewStopper(eos, stops),
		Text: stream.Add, Flush: stream.Flush, TopLogprobs: top, Adapter: adapter,
		NoCache: sp.CachePrompt != nil && !*sp.CachePrompt}
	if tabs != nil {
		gp := grammar.NewPicker(sampler, tabs)
		req.Picker, req.Halt = gp, gp.Halt
	} else {
		req.Picker = sampler // a model.GreedyPicker: plain greedy requests take the device's picks
	}
	return req, nil
}

// paramField is the request field of a sample.ParamError's parameter (named there as the CLI flag).
func paramField(param string) string {
	if param == "temp" {
		return "temperature"
	}
	return strings.ReplaceAll(param, "-", "_")
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// generate runs one completion and writes its answer: chat shapes when isChat, text completion ones otherwise.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, e *Engine, sp *sampling, prompt []int, top int, isChat bool) int {
	arrive := time.Now()
	req, aerr := s.request(r, e, sp, prompt, top)
	if aerr != nil {
		return writeError(w, aerr)
	}
	st, err := e.Sched.Submit(req)
	switch {
	case errors.Is(err, scheduler.ErrQueueFull):
		return writeError(w, &apiError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "queue_full",
			Message: fmt.Sprintf("%v (%d requests wait for a slot): retry later", err, e.Sched.Config().QueueLimit)})
	case errors.Is(err, scheduler.ErrClosed):
		return writeError(w, &apiError{Status: http.StatusServiceUnavailable, Type: "unavailable_error", Message: err.Error()})
	case errors.Is(err, model.ErrContext):
		return writeError(w, &apiError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded", Message: err.Error()})
	case err != nil:
		return writeError(w, badRequest("%v", err))
	}
	o := &output{s: s, e: e, id: newID(isChat), created: time.Now().Unix(), model: sp.Model, chat: isChat, top: top, arrive: arrive}
	if o.model == "" {
		o.model = s.opt.ModelName
	}
	if sp.Stream {
		return o.stream(w, r, st, sp.StreamOptions != nil && sp.StreamOptions.IncludeUsage)
	}
	toks, text, res, ok := st.Wait(r.Context())
	if !ok {
		return 499 // the client closed the request (nginx's code; nothing is written)
	}
	if res.Err != nil {
		return writeError(w, &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: res.Err.Error()})
	}
	s.observeTokens(o, toks, time.Now())
	u := o.usage(res)
	reason := finishReason(res.Reason)
	if isChat {
		c := chatChoice{Message: &chatOut{Role: "assistant", Content: &text}, FinishReason: &reason}
		c.Logprobs = o.chatLogprobs(toks)
		return writeJSON(w, http.StatusOK, chatResponse{ID: o.id, Object: "chat.completion", Created: o.created, Model: o.model,
			Choices: []chatChoice{c}, Usage: u})
	}
	c := textChoice{Text: text, FinishReason: &reason, Logprobs: o.textLogprobs(toks, 0)}
	return writeJSON(w, http.StatusOK, textResponse{ID: o.id, Object: "text_completion", Created: o.created, Model: o.model,
		Choices: []textChoice{c}, Usage: u})
}

// output formats one request's answer.
type output struct {
	s            *Server
	e            *Engine
	id, model    string
	created      int64
	chat         bool
	top          int
	arrive, last time.Time
	offset       int // text completions' text_offset so far
}

func (o *output) usage(res *scheduler.Result) *usage {
	return &usage{PromptTokens: res.PromptTokens, CompletionTokens: len(res.Generated),
		TotalTokens: res.PromptTokens + len(res.Generated), PromptTokensDetails: promptDetails{CachedTokens: res.CachedTokens}}
}

// observeTokens feeds the latency histograms with a batch of tokens that arrived at t.
func (s *Server) observeTokens(o *output, toks []scheduler.Token, t time.Time) {
	if len(toks) == 0 {
		return
	}
	if o.last.IsZero() {
		s.met.ttft.observe(t.Sub(o.arrive).Seconds())
	} else {
		per := t.Sub(o.last).Seconds() / float64(len(toks))
		for range toks {
			s.met.perToken.observe(per)
		}
	}
	o.last = t
}

// stream writes the events as server-sent events.
func (o *output) stream(w http.ResponseWriter, r *http.Request, st *scheduler.Stream, includeUsage bool) int {
	fl, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	if o.chat {
		empty := ""
		if !send(o.chatChunk(&chatOut{Role: "assistant", Content: &empty}, nil, nil)) {
			return 499
		}
	}
	for {
		ev, ok := st.Next(r.Context())
		if !ok {
			return 499
		}
		o.s.observeTokens(o, ev.Tokens, time.Now())
		var reason *string
		if ev.Done != nil {
			if ev.Done.Err != nil {
				send(map[string]*apiError{"error": {Status: 500, Type: "server_error", Message: ev.Done.Err.Error()}})
				fmt.Fprint(w, "data: [DONE]\n\n")
				return http.StatusOK
			}
			f := finishReason(ev.Done.Reason)
			reason = &f
		}
		if ev.Text != "" || len(ev.Tokens) > 0 || reason != nil {
			var chunk any
			if o.chat {
				text := ev.Text
				delta := &chatOut{}
				if text != "" {
					delta.Content = &text
				}
				chunk = o.chatChunk(delta, o.chatLogprobs(ev.Tokens), reason)
			} else {
				chunk = textResponse{ID: o.id, Object: "text_completion", Created: o.created, Model: o.model,
					Choices: []textChoice{{Text: ev.Text, Logprobs: o.textLogprobs(ev.Tokens, o.offset), FinishReason: reason}}}
				o.offset += len(ev.Text)
			}
			if !send(chunk) {
				return 499
			}
		}
		if ev.Done != nil {
			if includeUsage {
				u := o.usage(ev.Done)
				if o.chat {
					send(chatResponse{ID: o.id, Object: "chat.completion.chunk", Created: o.created, Model: o.model, Choices: []chatChoice{}, Usage: u})
				} else {
					send(textResponse{ID: o.id, Object: "text_completion", Created: o.created, Model: o.model, Choices: []textChoice{}, Usage: u})
				}
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
			if fl != nil {
				fl.Flush()
			}
			return http.StatusOK
		}
	}
}

func (o *output) chatChunk(delta *chatOut, lp *chatLogprobs, reason *string) chatResponse {
	return chatResponse{ID: o.id, Object: "chat.completion.chunk", Created: o.created, Model: o.model,
		Choices: []chatChoice{{Delta: delta, Logprobs: lp, FinishReason: reason}}}
}

// tokenText is a token's bytes as text (OpenAI's "token"), and the bytes.
func (o *output) tokenText(id int) (string, []int) {
	b := o.e.Tok.TokenBytes(id)
	if b == nil {
		t, _ := o.e.Tok.Token(id)
		b = []byte(t)
	}
	return string(b), byteInts(b)
}

func (o *output) chatLogprobs(toks []scheduler.Token) *chatLogprobs {
	if o.top < 0 {
		return nil
	}
	lp := &chatLogprobs{Content: []tokenLogprob{}}
	for _, t := range toks {
		text, b := o.tokenText(t.ID)
		tl := tokenLogprob{Token: text, Logprob: t.Logprob, Bytes: b, TopLogprobs: []topLogprob{}}
		for _, alt := range t.Top {
			at, ab := o.tokenText(alt.ID)
			tl.TopLogprobs = append(tl.TopLogprobs, topLogprob{Token: at, Logprob: alt.Logprob, Bytes: ab})
		}
		lp.Content = append(lp.Content, tl)
	}
	return lp
}

func (o *output) textLogprobs(toks []scheduler.Token, offset int) *textLogprobs {
	if o.top < 0 {
		return nil
	}
	lp := &textLogprobs{Tokens: []string{}, TokenLogprobs: []float32{}, TopLogprobs: []map[string]float32{}, TextOffset: []int{}}
	for _, t := range toks {
		text, _ := o.tokenText(t.ID)
		lp.Tokens = append(lp.Tokens, text)
		lp.TokenLogprobs = append(lp.TokenLogprobs, t.Logprob)
		alts := map[string]float32{}
		for _, alt := range t.Top {
			at, _ := o.tokenText(alt.ID)
			if _, dup := alts[at]; !dup {
				alts[at] = alt.Logprob
			}
		}
		lp.TopLogprobs = append(lp.TopLogprobs, alts)
		lp.TextOffset = append(lp.TextOffset, offset)
		offset += len(text)
	}
	return lp
}

// finishReason is OpenAI's name for a scheduler reason.
func finishReason(r string) string {
	switch r {
	case "length", "context":
		return "length"
	case scheduler.ReasonCancelled, scheduler.ReasonError:
		return r
	}
	return "stop" // eos, a stop string, or a grammar that can only end
}

func newID(isChat bool) string {
	var b [12]byte
	rand.Read(b[:])
	if isChat {
		return "chatcmpl-" + hex.EncodeToString(b[:])
	}
	return "cmpl-" + hex.EncodeToString(b[:])
}

func validUTF8(b []byte) bool { return utf8.Valid(b) }

func byteInts(b []byte) []int {
	out := make([]int, len(b))
	for i, c := range b {
		out[i] = int(c)
	}
	return out
}
