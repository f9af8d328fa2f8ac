// Package chat renders a model's chat template (the Jinja source shipped in
// tokenizer_config.json or chat_template.jinja) into the exact prompt text the
// model was trained on, with the variables and helper functions Hugging Face's
// apply_chat_template provides.
package chat

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// Message is one turn of a conversation. Role and Content become the
// "role" and "content" keys the template reads; Extra carries any further
// keys a template may look at (tool_calls, reasoning_content, name, ...)
// so callers need not wait for dedicated fields.
type Message struct {
	Role    string
	Content string
	// Extra holds additional message keys. It may not set "role" or
	// "content": those come from the fields above, and a clash is an error
	// rather than a silent choice of one over the other.
	Extra map[string]any
}

// Template is a compiled chat template together with the special tokens it
// may refer to. It is safe for concurrent use: every Render builds its own
// variable scope.
type Template struct {
	tmpl   *jinja.Template
	sites  []site // the guards the rewrite planted (guard.go), defined afresh for every render
	source string
	// origin names where the template came from (a file path, or
	// "chat template" for Parse) so render errors point at the right file.
	origin   string
	bosToken string
	eosToken string
	// now is the clock strftime_now reads; tests replace it to get
	// reproducible dates.
	now func() time.Time
}

// RaiseError is returned by Render when the template calls
// raise_exception(msg), which templates use to reject conversations they
// cannot format (e.g. roles out of order). Callers can detect it with
// errors.As to tell a bad conversation from a broken template.
type RaiseError struct {
	Message string
}

func (e *RaiseError) Error() string {
	return "template raised exception: " + e.Message
}

// Parse compiles source. bosToken and eosToken become the template variables
// bos_token and eos_token; an empty token is left undefined, as Hugging Face
// omits unset special tokens from the variables it passes.
func Parse(source string, bosToken, eosToken string) (*Template, error) {
	return parse(source, "chat template", bosToken, eosToken)
}

// ParseFrom is Parse with errors naming origin, the file source was read from. Package modeldir finds a model's
// template (chat_template.jinja, else tokenizer_config.json's chat_template) and its tokens, and calls this.
func ParseFrom(origin, source, bosToken, eosToken string) (*Template, error) {
	return parse(source, origin, bosToken, eosToken)
}

func parse(source, origin, bosToken, eosToken string) (t *Template, err error) {
	// The engine is third-party code fed untrusted template text; a panic
	// inside it must surface as an error, not crash the server.
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("%s: parse: template engine panicked: %v", origin, r)
		}
	}()
	if int64(len(source)) > maxSourceBytes {
		return nil, fmt.Errorf("%s: parse: the template is %d bytes, more than the %s a chat template may hold", origin, len(source), mib(maxSourceBytes))
	}
	normalized, sites, err := normalizeSource(source)
	if err != nil {
		return nil, fmt.Errorf("%s: parse: %w", origin, err)
	}
	tmpl, err := jinja.Compile(normalized)
	if err != nil {
		return nil, fmt.Errorf("%s: parse: %w", origin, err)
	}
	return &Template{
		tmpl:     tmpl,
		sites:    sites,
		source:   source,
		origin:   origin,
		bosToken: bosToken,
		eosToken: eosToken,
		now:      time.Now,
	}, nil
}

// Source returns the template's Jinja text.
func (t *Template) Source() string { return t.source }

// BOSToken returns the bos_token the template renders with ("" if unset).
func (t *Template) BOSToken() string { return t.bosToken }

// EOSToken returns the eos_token the template renders with ("" if unset).
func (t *Template) EOSToken() string { return t.eosToken }

// reserved are variables Render sets itself; Hugging Face passes them as
// named arguments, so a duplicate in kwargs is a TypeError there and an
// error here.
var reserved = map[string]bool{"messages": true, "add_generation_prompt": true}

// Render formats msgs. The template sees messages, add_generation_prompt,
// bos_token and eos_token (when set), tools and documents (none unless given
// in kwargs), raise_exception and strftime_now, and every entry of kwargs
// (e.g. enable_thinking), which may also override bos_token, eos_token, tools
// and documents the way Hugging Face's keyword arguments do.
func (t *Template) Render(msgs []Message, addGenerationPrompt bool, kwargs map[string]any) (out string, err error) {
	vars, err := t.variables(msgs, addGenerationPrompt, kwargs)
	if err != nil {
		return "", err
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%s: render: template engine panicked: %v", t.origin, r)
		}
	}()
	out, err = t.tmpl.RenderValues(vars)
	if err != nil {
		var re *RaiseError
		if errors.As(err, &re) {
			return "", oneLine(fmt.Errorf("%s: %w", t.origin, err))
		}
		return "", oneLine(fmt.Errorf("%s: render: %w", t.origin, err))
	}
	return out, nil
}

// variables is the scope a render starts with: Render's documented variables, the guards' functions and kwargs.
func (t *Template) variables(msgs []Message, addGenerationPrompt bool, kwargs map[string]any) (map[string]jinja.Value, error) {
	vars := make(map[string]jinja.Value, 8+len(t.sites)+len(kwargs))

	list := make([]jinja.Value, len(msgs))
	for i, m := range msgs {
		v, err := messageValue(m)
		if err != nil {
			return nil, fmt.Errorf("%s: render: messages[%d]: %w", t.origin, i, err)
		}
		list[i] = v
	}
	vars["messages"] = jinja.NewList(list)
	vars["add_generation_prompt"] = jinja.NewBool(addGenerationPrompt)
	// Hugging Face always passes tools= and documents=, as None when absent,
	// so templates testing "tools is none" or "tools is defined" behave as
	// they do there.
	vars["tools"] = jinja.None()
	vars["documents"] = jinja.None()
	if t.bosToken != "" {
		vars["bos_token"] = jinja.NewString(t.bosToken)
	}
	if t.eosToken != "" {
		vars["eos_token"] = jinja.NewString(t.eosToken)
	}
	vars["raise_exception"] = jinja.NewCallable("raise_exception", raiseException)
	vars["strftime_now"] = jinja.NewCallable("strftime_now", t.strftimeNow)
	newBudget(t.sites).define(vars) // the guards' functions, bounded range() and the macro guards

	for k, v := range kwargs {
		if reserved[k] {
			return nil, fmt.Errorf("%s: render: kwarg %q clashes with a variable Render sets itself", t.origin, k)
		}
		jv, err := toValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s: render: kwarg %q: %w", t.origin, k, err)
		}
		vars[k] = jv
	}
	return vars, nil
}

// maxSourceBytes bounds a template's source, wherever it comes from: chat_template.jinja is capped as it is read,
// but tokenizer_config.json may carry one as a string, and callers may pass one.
var maxSourceBytes = userfile.Template.Max

// maxErrorBytes bounds a render error's text: it may quote template values (raise_exception's message).
const maxErrorBytes = 1000

// lineError is err's text made one line of at most maxErrorBytes; it still unwraps to err.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }

func oneLine(err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if msg == err.Error() && len(msg) <= maxErrorBytes {
		return err
	}
	if len(msg) > maxErrorBytes {
		cut := maxErrorBytes
		for cut > 0 && msg[cut]&0xC0 == 0x80 {
			cut--
		}
		msg = msg[:cut] + "..."
	}
	return &lineError{msg, err}
}

// messageValue builds the dict a template sees for one message.
func messageValue(m Message) (jinja.Value, error) {
	d := jinja.NewDict()
	dict := d.AsDict()
	dict.Set("role", jinja.NewString(m.Role))
	dict.Set("content", jinja.NewString(m.Content))
	for _, k := range sortedKeys(m.Extra) {
		if k == "role" || k == "content" {
			return jinja.Value{}, fmt.Errorf("message Extra may not set %q; use the Message field", k)
		}
		v, err := toValue(m.Extra[k])
		if err != nil {
			return jinja.Value{}, fmt.Errorf("message Extra[%q]: %w", k, err)
		}
		dict.Set(k, v)
	}
	return d, nil
}
