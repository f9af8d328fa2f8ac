// The hub's HTTP errors as one line each, named by the X-Error-Code header the hub sends (huggingface_hub's
// hf_raise_for_status reads the same codes), with a sentinel per kind for errors.Is.
package hub

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Sentinels wrapped by the hub's answers.
var (
	ErrRepoNotFound     = errors.New("repository not found")
	ErrGated            = errors.New("gated repository")
	ErrRevisionNotFound = errors.New("revision not found")
	ErrEntryNotFound    = errors.New("file not found")
	ErrOffline          = errors.New("HF_HUB_OFFLINE is set")
	ErrSize             = errors.New("size mismatch")
)

// HTTPError is a failed hub request: the status, the hub's error code and message, and what was asked.
type HTTPError struct {
	Ref      Ref
	File     string // "" for a repository call
	Endpoint string
	Status   int
	Code     string // X-Error-Code
	Message  string // X-Error-Message, on one line
	Token    bool   // a token was sent
	commit   string // X-Repo-Commit, which the hub sends with EntryNotFound
	sentinel error
}

func (e *HTTPError) Unwrap() error { return e.sentinel }

func (e *HTTPError) Error() string {
	status := fmt.Sprintf("HTTP %d", e.Status)
	if e.Code != "" {
		status += " " + e.Code
	}
	if e.Message != "" {
		status += ": " + e.Message
	}
	switch e.sentinel {
	case ErrRepoNotFound:
		hint := "check the name; a private model needs a token in HF_TOKEN"
		if e.Token {
			hint = "check the name; the token sent (HF_TOKEN or $HF_HOME/token) may not have access"
		}
		return fmt.Sprintf("model %s not found on %s (%s): %s", e.Ref.Repo, e.Endpoint, status, hint)
	case ErrGated:
		hint := "accept its conditions on " + e.Endpoint + "/" + e.Ref.Repo + " and set HF_TOKEN (or write the token to $HF_HOME/token)"
		if e.Token {
			hint = "the token sent (HF_TOKEN or $HF_HOME/token) has no access yet: accept the conditions on " + e.Endpoint + "/" + e.Ref.Repo
		}
		return fmt.Sprintf("model %s is gated (%s): %s", e.Ref.Repo, status, hint)
	case ErrRevisionNotFound:
		return fmt.Sprintf("model %s has no revision %q on %s (%s)", e.Ref.Repo, e.Ref.Rev(), e.Endpoint, status)
	case ErrEntryNotFound:
		return fmt.Sprintf("model %s has no file %s at %s (%s)", e.Ref.Repo, e.File, e.Ref.Rev(), status)
	}
	what := "model " + e.Ref.String()
	if e.File != "" {
		what += " file " + e.File
	}
	return fmt.Sprintf("%s: %s answered %s", what, e.Endpoint, status)
}

// transient reports whether a retry may succeed: timeouts, rate limits and server errors
// (huggingface_hub's _DEFAULT_RETRY_ON_STATUS_CODES).
func (e *HTTPError) transient() bool {
	switch e.Status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// httpError reads a failed response. A 401 without a code is the hub's answer for a missing or private repository
// (hf_raise_for_status treats it as RepoNotFound unless the token itself was refused).
func (c *Client) httpError(resp *http.Response, ref Ref, file string, token bool) *HTTPError {
	e := &HTTPError{
		Ref: ref, File: file, Endpoint: c.cfg.Endpoint, Status: resp.StatusCode, Token: token,
		Code:    resp.Header.Get("X-Error-Code"),
		Message: strings.Join(strings.Fields(resp.Header.Get("X-Error-Message")), " "),
		commit:  resp.Header.Get("X-Repo-Commit"),
	}
	switch {
	case e.Code == "RevisionNotFound":
		e.sentinel = ErrRevisionNotFound
	case e.Code == "EntryNotFound":
		e.sentinel = ErrEntryNotFound
	case e.Code == "GatedRepo":
		e.sentinel = ErrGated
	case e.Code == "RepoNotFound" || resp.StatusCode == http.StatusUnauthorized && e.Message != "Invalid credentials in Authorization header":
		e.sentinel = ErrRepoNotFound
	}
	return e
}
