// The OpenAI request and response shapes the server speaks, decoded strictly: a field that is not listed here is
// a 400 naming it, and a listed field the server cannot honour (tools, n > 1, echo, ...) is a 400 naming it too,
// never silently ignored. Extensions beside OpenAI's fields, as llama.cpp and vLLM name them: top_k, min_p,
// repetition_penalty, repetition_context_size, grammar (GBNF), regex, cache_prompt, ignore_eos,
// chat_template_kwargs. A seed is a whole number from 0, as the CLI's --seed takes: a negative one (llama.cpp's -1
// for "random" included) is a 400, and a request without seed (or with null) draws one at random.
package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// sampling holds the fields chat and text completions share.
type sampling struct {
	Model               string             `json:"model"`
	MaxTokens           *int               `json:"max_tokens"`
	MaxCompletionTokens *int               `json:"max_completion_tokens"`
	Temperature         *float32           `json:"temperature"`
	TopP                *float32           `json:"top_p"`
	TopK                *int               `json:"top_k"`
	MinP                *float32           `json:"min_p"`
	PresencePenalty     *float32           `json:"presence_penalty"`
	FrequencyPenalty    *float32           `json:"frequency_penalty"`
	RepetitionPenalty   *float32           `json:"repetition_penalty"`
	RepetitionContext   *int               `json:"repetition_context_size"`
	Seed                *int64             `json:"seed"` // from 0, as the CLI's --seed; absent or null: drawn at random
	Stop                json.RawMessage    `json:"stop"`
	Stream              bool               `json:"stream"`
	StreamOptions       *streamOptions     `json:"stream_options"`
	N                   *int               `json:"n"`
	LogitBias           map[string]float32 `json:"logit_bias"`
	ResponseFormat      *responseFormat    `json:"response_format"`
	Grammar             string             `json:"grammar"`
	Regex               string             `json:"regex"`
	CachePrompt         *bool              `json:"cache_prompt"`
	IgnoreEOS           bool               `json:"ignore_eos"`
	User                string             `json:"user"` // an end-user id for the caller's logs; it changes nothing here

	// Known to OpenAI, not served: present and not null is a 400.
	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls json.RawMessage `json:"parallel_tool_calls"`
	Functions         json.RawMessage `json:"functions"`
	FunctionCall      json.RawMessage `json:"function_call"`
	Modalities        json.RawMessage `json:"modalities"`
	Audio             json.RawMessage `json:"audio"`
	Prediction        json.RawMessage `json:"prediction"`
	ReasoningEffort   json.RawMessage `json:"reasoning_effort"`
	WebSearchOptions  json.RawMessage `json:"web_search_options"`
	ServiceTier       json.RawMessage `json:"service_tier"`
	Metadata          json.RawMessage `json:"metadata"`
	Store             json.RawMessage `json:"store"`
}

// unsupported names the listed-but-unserved fields that are set.
func (s *sampling) unsupported() *apiError {
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"tools", s.Tools}, {"tool_choice", s.ToolChoice}, {"parallel_tool_calls", s.ParallelToolCalls},
		{"functions", s.Functions}, {"function_call", s.FunctionCall}, {"modalities", s.Modalities}, {"audio", s.Audio},
		{"prediction", s.Prediction}, {"reasoning_effort", s.ReasoningEffort}, {"web_search_options", s.WebSearchOptions},
		{"service_tier", s.ServiceTier}, {"metadata", s.Metadata}} {
		if set(f.v) {
			return badField(f.name, "is not supported by this server")
		}
	}
	if set(s.Store) && !bytes.Equal(bytes.TrimSpace(s.Store), []byte("false")) {
		return badField("store", "is not supported by this server (nothing is stored)")
	}
	if s.N != nil && *s.N != 1 {
		return badField("n", fmt.Sprintf("%d: only n = 1 is supported", *s.N))
	}
	if s.StreamOptions != nil && !s.Stream {
		return badField("stream_options", "is only allowed with stream: true")
	}
	return nil
}

func set(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *jsonSchemaSpec `json:"json_schema"`
}

type jsonSchemaSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Strict      *bool           `json:"strict"`
}

// chatRequest is POST /v1/chat/completions.
type chatRequest struct {
	sampling
	Messages           []chatMessage  `json:"messages"`
	Logprobs           bool           `json:"logprobs"`
	TopLogprobs        *int           `json:"top_logprobs"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// text returns the message's content: a string, or text parts joined.
func (m *chatMessage) text(i int) (string, *apiError) {
	field := fmt.Sprintf("messages[%d].content", i)
	if set(m.ToolCalls) || m.ToolCallID != "" {
		return "", badField(fmt.Sprintf("messages[%d].tool_calls", i), "tool calls are not supported by this server")
	}
	if !set(m.Content) {
		if m.Role != "assistant" { // an assistant turn may be empty; a user's would render as nothing said
			return "", badField(field, fmt.Sprintf("is required in a %s message", m.Role))
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if aerr := decodeStrict(m.Content, &parts); aerr != nil {
		return "", badField(field, "must be a string or an array of text parts ({\"type\":\"text\",\"text\":...}): "+
			strings.TrimPrefix(aerr.Message, "invalid request body: "))
	}
	var b strings.Builder
	for j, p := range parts {
		if p.Type != "text" {
			return "", badField(fmt.Sprintf("%s[%d].type", field, j), fmt.Sprintf("%q: only text parts are supported", p.Type))
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// completionRequest is POST /v1/completions.
type completionRequest struct {
	sampling
	Prompt   json.RawMessage `json:"prompt"`
	Logprobs *int            `json:"logprobs"`
	Echo     bool            `json:"echo"`
	Suffix   json.RawMessage `json:"suffix"`
	BestOf   *int            `json:"best_of"`
}

// prompt is the request's prompt: text, or token ids (OpenAI accepts both, and arrays of either for a batch, of
// which one element is served).
func (r *completionRequest) prompt() (text string, ids []int, aerr *apiError) {
	if !set(r.Prompt) {
		return "", nil, badField("prompt", "is required")
	}
	if err := json.Unmarshal(r.Prompt, &text); err == nil {
		return text, nil, nil
	}
	if err := json.Unmarshal(r.Prompt, &ids); err == nil {
		return "", ids, nil
	}
	var texts []string
	if err := json.Unmarshal(r.Prompt, &texts); err == nil {
		if len(texts) != 1 {
			return "", nil, badField("prompt", fmt.Sprintf("an array of %d prompts: give one (batches are not supported)", len(texts)))
		}
		return texts[0], nil, nil
	}
	var batches [][]int
	if err := json.Unmarshal(r.Prompt, &batches); err == nil {
		if len(batches) != 1 {
			return "", nil, badField("prompt", fmt.Sprintf("an array of %d prompts: give one (batches are not supported)", len(batches)))
		}
		return "", batches[0], nil
	}
	return "", nil, badField("prompt", "must be a string, an array of token ids, or a one-element array of either")
}

func (r *completionRequest) unsupported() *apiError {
	if r.Echo {
		return badField("echo", "is not supported by this server")
	}
	if set(r.Suffix) {
		return badField("suffix", "is not supported by this server")
	}
	if r.BestOf != nil && *r.BestOf != 1 {
		return badField("best_of", fmt.Sprintf("%d: only best_of = 1 is supported", *r.BestOf))
	}
	return r.sampling.unsupported()
}

// stops parses stop: a string or an array of strings.
func (s *sampling) stops() ([]string, *apiError) {
	if !set(s.Stop) {
		return nil, nil
	}
	// An empty stop string is refused, as the CLI refuses --stop "": the stopper would drop it, so the request
	// would run on without the stop its caller meant.
	var one string
	if err := json.Unmarshal(s.Stop, &one); err == nil {
		if one == "" {
			return nil, badField("stop", "an empty string (give the text that ends the output, or leave stop out)")
		}
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(s.Stop, &many); err != nil {
		return nil, badField("stop", "must be a string or an array of strings")
	}
	if len(many) > 16 {
		return nil, badField("stop", fmt.Sprintf("%d strings: at most 16", len(many)))
	}
	for i, t := range many {
		if t == "" {
			return nil, badField(fmt.Sprintf("stop[%d]", i), "an empty string (give the text that ends the output)")
		}
	}
	return many, nil
}

// apiError is an OpenAI error body with its HTTP status.
type apiError struct {
	Status  int    `json:"-"`
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   string `json:"param,omitempty"`
	Code    string `json:"code,omitempty"`
}

func (e *apiError) Error() string { return e.Message }

func badField(field, why string) *apiError {
	return &apiError{Status: 400, Type: "invalid_request_error", Param: field, Message: fmt.Sprintf("%s: %s", field, why)}
}

func badRequest(format string, a ...any) *apiError {
	return &apiError{Status: 400, Type: "invalid_request_error", Message: fmt.Sprintf(format, a...)}
}

// jsonError rewrites encoding/json's messages into the field language of the API.
func jsonError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// In JSON's words: Go's type names (server.chatRequest, []struct { Type string "json:..." }) are not the API's.
		if fieldName(te) == "" {
			return fmt.Sprintf("a JSON %s, want %s", te.Value, jsonWant(te.Type))
		}
		return fmt.Sprintf("field %q: a JSON %s, want %s", fieldName(te), te.Value, jsonWant(te.Type))
	}
	if errors.Is(err, io.EOF) {
		return "empty (want a JSON object)"
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Sprintf("unsupported field %s", f)
	}
	return strings.TrimPrefix(msg, "json: ")
}

// jsonWant names what a Go type takes in JSON.
func jsonWant(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer in range"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer from 0"
	case reflect.Float32, reflect.Float64:
		return "a number in range"
	case reflect.Pointer:
		return jsonWant(t.Elem())
	}
	return t.String()
}

// fieldName is the JSON path of a type error without the embedded struct's name.
func fieldName(te *json.UnmarshalTypeError) string { return strings.TrimPrefix(te.Field, "sampling.") }

// decodeStrict reads one JSON object into v, refusing unknown fields and trailing data, and what encoding/json
// would take silently: bytes that are not UTF-8 (it reads them as U+FFFD, so the prompt would change), a key
// spelled in another case ("Max_Tokens" would set max_tokens) and a key given twice (the last would win).
func decodeStrict(body []byte, v any) *apiError {
	if !utf8.Valid(body) {
		i := 0
		for i < len(body) {
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return badRequest("invalid request body: byte %d is not valid UTF-8 (JSON text is UTF-8)", i)
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		e := badRequest("invalid request body: %s", jsonError(err))
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			e.Param = fieldName(te)
		} else if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			e.Param = strings.Trim(f, `"`)
		}
		return e
	}
	if d.More() {
		return badRequest("invalid request body: data after the JSON object")
	}
	return exactKeys(body, reflect.TypeOf(v))
}

// exactKeys walks body (already decoded into a value of type t without error) beside t and refuses an object key
// that names a field only case-insensitively, and a key given twice in one object. A json.RawMessage is read by
// its own decoder later; an interface value (chat_template_kwargs' values) is checked for repeats only.
func exactKeys(body []byte, t reflect.Type) *apiError {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := walkKeys(d, t, ""); err != nil {
		return err
	}
	return nil
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// walkKeys consumes one JSON value from d, read as type t (nil: any), with path its field path for errors.
func walkKeys(d *json.Decoder, t reflect.Type, path string) *apiError {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := d.Token()
	if err != nil {
		return badRequest("invalid request body: %s", jsonError(err))
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar
	}
	raw := t == rawMessageType
	switch delim {
	case '[':
		var elem reflect.Type
		if !raw && t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for d.More() {
			if err := walkKeys(d, elem, path); err != nil {
				return err
			}
		}
	case '{':
		var fields map[string]reflect.Type
		var elem reflect.Type
		if !raw && t != nil {
			switch t.Kind() {
			case reflect.Struct:
				fields = jsonFields(t)
			case reflect.Map:
				elem = t.Elem()
			}
		}
		seen := map[string]bool{}
		for d.More() {
			tok, err := d.Token()
			if err != nil {
				return badRequest("invalid request body: %s", jsonError(err))
			}
			key, _ := tok.(string)
			name := key
			if path != "" {
				name = path + "." + key
			}
			if seen[key] {
				e := badRequest("invalid request body: field %q appears twice", name)
				e.Param = name
				return e
			}
			seen[key] = true
			ft := elem
			if fields != nil {
				var known bool
				if ft, known = fields[key]; !known {
					e := badRequest("invalid request body: unsupported field %q (field names are case-sensitive)", name)
					e.Param = name
					return e
				}
			}
			if err := walkKeys(d, ft, name); err != nil {
				return err
			}
		}
	}
	if _, err := d.Token(); err != nil { // the closing delimiter
		return badRequest("invalid request body: %s", jsonError(err))
	}
	return nil
}

// jsonFields maps a struct's JSON field names, those of embedded structs included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// Responses.

type usage struct {
	PromptTokens        int           `json:"prompt_tokens"`
	CompletionTokens    int           `json:"completion_tokens"`
	TotalTokens         int           `json:"total_tokens"`
	PromptTokensDetails promptDetails `json:"prompt_tokens_details"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type chatChoice struct {
	Index        int           `json:"index"`
	Message      *chatOut      `json:"message,omitempty"`
	Delta        *chatOut      `json:"delta,omitempty"`
	Logprobs     *chatLogprobs `json:"logprobs"`
	FinishReason *string       `json:"finish_reason"`
}

type chatOut struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

type chatLogprobs struct {
	Content []tokenLogprob `json:"content"`
}

type tokenLogprob struct {
	Token       string       `json:"token"`
	Logprob     float32      `json:"logprob"`
	Bytes       []int        `json:"bytes"`
	TopLogprobs []topLogprob `json:"top_logprobs"`
}

type topLogprob struct {
	Token   string  `json:"token"`
	Logprob float32 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

type chatResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *usage       `json:"usage,omitempty"`
}

type textChoice struct {
	Index        int           `json:"index"`
	Text         string        `json:"text"`
	Logprobs     *textLogprobs `json:"logprobs"`
	FinishReason *string       `json:"finish_reason"`
}

type textLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []float32            `json:"token_logprobs"`
	TopLogprobs   []map[string]float32 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

type textResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []textChoice `json:"choices"`
	Usage   *usage       `json:"usage,omitempty"`
}
