// What a caller hands the scheduler and what comes back: a Request (prompt ids, its own picker, stopper and
// text stream), and a Stream of Events, each the tokens one batch step produced for it with the text that became
// certain, the last one carrying the Result. The scheduler never blocks on a slow reader: a Stream queues.
package scheduler

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
)

// Errors Submit returns.
var (
	ErrQueueFull = errors.New("the request queue is full")
	ErrClosed    = errors.New("the server is shutting down")
)

// Request is one generation. The scheduler calls its functions from its own goroutine only.
type Request struct {
	Ctx       context.Context // cancelled: the request leaves the batch at the next step (nil: never)
	Prompt    []int
	MaxTokens int
	Picker    model.Picker
	Stop      *sample.Stopper     // end ids and stop strings; nil: none
	Halt      func() bool         // true after a pick ends generation with reason "grammar" (a constrained picker)
	Text      func(id int) string // each new id's text (a tokenizer stream); nil: no text
	Flush     func() string       // the text stream's held-back bytes at the end; nil: none
	// TopLogprobs < 0: no log-probabilities; 0: the chosen token's; k > 0: also the k most likely tokens'. They are
	// the model's: log-softmax of the raw logits, before penalties, masks and temperature.
	TopLogprobs int
	Adapter     string // named adapter set (model.UseAdapterSet); "" none
	NoCache     bool   // neither reuse a cached prefix nor keep this context for later requests
	NoDraft     bool   // no speculative drafts for this request
}

// Token is one generated id with its log-probability (when asked).
type Token struct {
	ID      int
	Logprob float32
	Top     []TopLogprob // the TopLogprobs most likely ids, most likely first
}

// TopLogprob is one alternative at a position.
type TopLogprob struct {
	ID      int
	Logprob float32
}

// Event is what one step produced for a request: its new tokens and the text now certain to be output. The last
// event of a stream has Done set.
type Event struct {
	Tokens []Token
	Text   string
	Done   *Result
}

// Finish reasons beside the model's ("eos", "stop", "length", "context", "grammar").
const (
	ReasonCancelled = "cancelled" // the request's context ended, or the server shut down
	ReasonError     = "error"     // Result.Err says what
)

// Result sums a finished request up.
type Result struct {
	Reason                      string
	Err                         error
	PromptTokens, CachedTokens  int // CachedTokens of the prompt came from the prompt cache
	Generated                   []int
	Drafted, Accepted           int           // speculative drafts verified and kept
	Queued, PromptTime, GenTime time.Duration // waiting for a slot; prefill to the first token; the rest
}

// Stream delivers a request's events in order. Safe for one reader beside the scheduler.
type Stream struct {
	mu     sync.Mutex
	events []Event
	wake   chan struct{}
}

func newStream() *Stream { return &Stream{wake: make(chan struct{}, 1)} }

func (s *Stream) push(e Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Next waits for the next event; false when ctx ended first. After the event with Done, it is not called again.
func (s *Stream) Next(ctx context.Context) (Event, bool) {
	for {
		s.mu.Lock()
		if len(s.events) > 0 {
			e := s.events[0]
			s.events[0] = Event{}
			s.events = s.events[1:]
			s.mu.Unlock()
			return e, true
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-ctx.Done():
			return Event{}, false
		}
	}
}

// Wait collects every event to the end: the tokens, the text and the Result.
func (s *Stream) Wait(ctx context.Context) ([]Token, string, *Result, bool) {
	var toks []Token
	var text []byte
	for {
		e, ok := s.Next(ctx)
		if !ok {
			return toks, string(text), nil, false
		}
		toks = append(toks, e.Tokens...)
		text = append(text, e.Text...)
		if e.Done != nil {
			return toks, string(text), e.Done, true
		}
	}
}
