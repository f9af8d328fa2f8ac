// The generation loop for one sequence: chunked prefill of the prompt, then one decode step per token. The token
// choice is the caller's Picker; whether a token ends the sequence is the caller's sample.Stopper (end ids and
// stop strings); each step's logits are checked for NaN and ±Inf before a token is picked from them. A plain greedy
// picker (PicksGreedily) takes the device's picks instead (ForwardPicks: only a row that picked token 0 brings its
// logits back, to be checked and picked as before). With a Drafter, a decode step also runs the drafted tokens as
// further rows at the next positions; the picker then picks from those rows in turn while its choice equals the
// draft, so the output is the one without drafts.
package model

import (
	"errors"
	"fmt"
	"time"

	"github.com/mlxbun/mlxbun/internal/sample"
)

// Picker chooses the next token from the last row's logits (scratch: it may modify them) and the ids so far.
type Picker interface {
	Pick(logits []float32, history []int) (int, error)
}

// GenOptions configures Generate.
type GenOptions struct {
	MaxTokens    int // new tokens at most
	Context      int // KV cache length; 0 = prompt + MaxTokens, capped by max_position_embeddings
	PrefillChunk int // prompt rows per forward call; 0 = 512
	Picker       Picker
	// Stop decides after each new id whether generation ends (the id is kept in Generated) and why: an end id
	// (sample.EndIDs) or a stop string. Generate pushes every id into it with its text from Text and hands what it
	// emits to OnText. nil: sample.NewStopper(EOS, nil).
	Stop *sample.Stopper
	// EOS is the end ids of a Stop that Generate makes when Stop is nil (callers that stream no text).
	EOS []int
	// Text returns each new id's text as the stream continues (a tokenizer.Stream's Add); nil: no text.
	Text func(id int) string
	// OnText receives the text that is certain to be output, stop strings held back and cut; nil: none.
	OnText func(s string)
	// Halt, when set, is asked after each new id (after Stop): true ends generation with StopReason "grammar"
	// (a constrained decoder whose grammar can only end).
	Halt func() bool
	// Draft, when set, proposes speculative tokens (package draft), at most DraftMax a step (0: 8, within
	// backend.MaxDecodeRows with the step's own row). The model's cache must be Rewindable.
	Draft    Drafter
	DraftMax int
}

// Drafter proposes tokens likely to follow history, at most limit; Feedback reports how many of a round's
// proposed drafts were accepted, so the drafter can adapt its length.
type Drafter interface {
	Draft(history []int, limit int) []int
	Feedback(proposed, accepted int)
}

// GenResult reports what Generate did.
type GenResult struct {
	Prompt, Generated []int
	PromptTime        time.Duration // prefill, including the first token's logits
	GenTime           time.Duration // the decode steps after the first token
	StopReason        string        // "eos", "stop", "length", "context" or "grammar" (GenOptions.Halt)
	Drafted, Accepted int           // speculative tokens verified and kept (GenOptions.Draft)
	Steps             int           // decode forward calls after the prompt
}

// ErrContext is wrapped when the prompt does not fit the context.
var ErrContext = errors.New("prompt does not fit the context")

// ErrNonFinite is wrapped (by a *NonFiniteError) when a step's logits hold NaN or ±Inf: bad weights or an
// overflow. Generation stops there instead of picking a token from them.
var ErrNonFinite = errors.New("logits are not finite")

// NonFiniteError names the step (1: the prompt's logits, choosing the first new token; k: those choosing the
// k-th) and the first id whose logit is NaN or ±Inf.
type NonFiniteError struct {
	Step, ID int
	Value    float32
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("step %d: logits hold %v (first at id %d)", e.Step, e.Value, e.ID)
}

func (e *NonFiniteError) Unwrap() error { return ErrNonFinite }

// checkLogits returns a *NonFiniteError for the first NaN or ±Inf in one step's logits. It reads the row on the
// host, where every backend's logits arrive, at the cost of one pass over the vocabulary.
func checkLogits(logits []float32, step int) error {
	for i, l := range logits {
		if l-l != 0 { // NaN for NaN and ±Inf, 0 for every finite value
			return &NonFiniteError{Step: step, ID: i, Value: l}
		}
	}
	return nil
}

// Generate runs prompt through the model and continues it.
func (m *Model) Generate(prompt []int, opt GenOptions) (*GenResult, error) {
	if len(prompt) == 0 {
		return nil, errors.New("generate: empty prompt")
	}
	if opt.Picker == nil {
		return nil, errors.New("generate: no token picker")
	}
	for i, id := range prompt { // in full width, before the int32 steps could wrap an id into the vocabulary
		if id < 0 || id >= m.Config.VocabSize {
			return nil, fmt.Errorf("generate: prompt token %d is id %d, outside the vocabulary of %d (ids 0..%d)",
				i, id, m.Config.VocabSize, m.Config.VocabSize-1)
		}
	}
	limit := m.Config.MaxPositions
	if limit <= 0 {
		limit = len(prompt) + opt.MaxTokens
	}
	ctx := opt.Context
	if ctx <= 0 {
		ctx = min(len(prompt)+opt.MaxTokens, limit)
	}
	if len(prompt) >= ctx+1 || len(prompt) > limit {
		return nil, fmt.Errorf("generate: %w: %d prompt tokens, context %d (max_position_embeddings %d)", ErrContext, len(prompt), ctx, limit)
	}
	cache, err := m.NewCache(1, ctx)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	defer m.ReleaseCache(cache)
	chunk := opt.PrefillChunk
	if chunk <= 0 {
		chunk = 512
	}
	res := &GenResult{Prompt: append([]int(nil), prompt...)}
	history := append([]int(nil), prompt...)
	// A picker whose choice is the device argmax takes the picks; the others read every row's logits, into one
	// buffer reused step after step (a step's rows are all used before the next forward call).
	st, greedy := StepRows{}, PicksGreedily(opt.Picker)
	start := time.Now()
	for at := 0; at < len(prompt); at += chunk {
		end := min(at+chunk, len(prompt))
		s := Step{}
		for p := at; p < end; p++ {
			s.IDs = append(s.IDs, int32(prompt[p]))
			s.Seq = append(s.Seq, 0)
			s.Pos = append(s.Pos, int32(p))
		}
		if err = st.Forward(m, s, cache, 1, greedy); err != nil {
			return nil, err
		}
	}
	res.PromptTime = time.Since(start)
	start = time.Now()
	stop := opt.Stop
	if stop == nil {
		stop = sample.NewStopper(opt.EOS, nil)
	}
	draftMax := opt.DraftMax
	if draftMax <= 0 {
		draftMax = 8
	}
	draftMax = min(draftMax, maxRecordedRows-1)
	if opt.Draft != nil && !m.Rewindable(ctx) {
		return nil, errors.New("generate: speculative drafts need a cache that can rewind (not a hybrid model or a sliding-window ring)")
	}
	next := 0                  // the row to pick from: the step's first, then one per draft token
	var drafts []int           // the draft tokens fed after the last pick, not yet matched
	proposed, accepted := 0, 0 // this round's
	for {
		if len(res.Generated) >= opt.MaxTokens {
			res.StopReason = "length"
			break
		}
		id, err := pick(&st, next, len(res.Generated)+1, opt.Picker, history)
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		next++
		res.Generated = append(res.Generated, id)
		history = append(history, id)
		text := ""
		if opt.Text != nil {
			text = opt.Text(id)
		}
		emit, done := stop.Push(id, text)
		if opt.OnText != nil && emit != "" {
			opt.OnText(emit)
		}
		if done {
			res.StopReason = stop.Reason()
			break
		}
		if opt.Halt != nil && opt.Halt() {
			res.StopReason = "grammar"
			break
		}
		if len(res.Generated) >= opt.MaxTokens {
			res.StopReason = "length"
			break
		}
		if len(drafts) > 0 && id == drafts[0] { // the next row already continues from id
			drafts = drafts[1:]
			accepted++
			res.Accepted++
			continue
		}
		if opt.Draft != nil && proposed > 0 {
			opt.Draft.Feedback(proposed, accepted)
		}
		pos := len(history) - 1
		if pos >= ctx {
			res.StopReason = "context"
			break
		}
		s := Step{IDs: []int32{int32(id)}, Seq: []int32{0}, Pos: []int32{int32(pos)}}
		drafts, proposed, accepted = nil, 0, 0
		if opt.Draft != nil {
			drafts = opt.Draft.Draft(history, min(draftMax, ctx-1-pos, opt.MaxTokens-len(res.Generated)-1))
			for i, d := range drafts {
				s.IDs, s.Seq, s.Pos = append(s.IDs, int32(d)), append(s.Seq, 0), append(s.Pos, int32(pos+1+i))
			}
			proposed = len(drafts)
			res.Drafted += proposed
		}
		if err := st.Forward(m, s, cache, len(s.IDs), greedy); err != nil {
			return nil, err
		}
		next = 0
		res.Steps++
	}
	res.GenTime = time.Since(start)
	return res, nil
}

// pick chooses the token of output row r of the last forward (the step-th generated token): the device's pick,
// or the picker's choice from the row once its logits pass checkLogits.
func pick(st *StepRows, r, step int, p Picker, history []int) (int, error) {
	if id, ok := st.Picked(r); ok {
		return id, nil
	}
	row := st.Row(r)
	if err := checkLogits(row, step); err != nil {
		return 0, err
	}
	return p.Pick(row, history)
}
