// The generation loop for one sequence: chunked prefill of the prompt, then one decode step per token, with the
// token choice and stopping left to the caller (sampler, stop strings, streaming).
package model

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Picker chooses the next token from the last row's logits (scratch: it may modify them) and the ids so far.
type Picker interface {
	Pick(logits []float32, history []int) (int, error)
}

// GenOptions configures Generate.
type GenOptions struct {
	MaxTokens    int   // new tokens at most
	Context      int   // KV cache length; 0 = prompt + MaxTokens, capped by max_position_embeddings
	EOS          []int // stop after emitting one of these (the id is kept in Generated)
	PrefillChunk int   // prompt rows per forward call; 0 = 512
	Picker       Picker
	// OnToken sees each new id as it is chosen; returning stop=true ends generation after it.
	OnToken func(id int) (stop bool, err error)
}

// GenResult reports what Generate did.
type GenResult struct {
	Prompt, Generated []int
	PromptTime        time.Duration // prefill, including the first token's logits
	GenTime           time.Duration // the decode steps after the first token
	StopReason        string        // "eos", "stop", "length" or "context"
}

// ErrContext is wrapped when the prompt does not fit the context.
var ErrContext = errors.New("prompt does not fit the context")

// Generate runs prompt through the model and continues it.
func (m *Model) Generate(prompt []int, opt GenOptions) (*GenResult, error) {
	if len(prompt) == 0 {
		return nil, errors.New("generate: empty prompt")
	}
	if opt.Picker == nil {
		return nil, errors.New("generate: no token picker")
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
	start := time.Now()
	var logits []float32
	for at := 0; at < len(prompt); at += chunk {
		end := min(at+chunk, len(prompt))
		s := Step{}
		for p := at; p < end; p++ {
			s.IDs = append(s.IDs, int32(prompt[p]))
			s.Seq = append(s.Seq, 0)
			s.Pos = append(s.Pos, int32(p))
		}
		if logits, err = m.Forward(s, cache, 1); err != nil {
			return nil, err
		}
	}
	res.PromptTime = time.Since(start)
	start = time.Now()
	for {
		if len(res.Generated) >= opt.MaxTokens {
			res.StopReason = "length"
			break
		}
		id, err := opt.Picker.Pick(logits, history)
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		res.Generated = append(res.Generated, id)
		history = append(history, id)
		if opt.OnToken != nil {
			stop, err := opt.OnToken(id)
			if err != nil {
				return nil, err
			}
			if stop {
				res.StopReason = "stop"
				break
			}
		}
		if slices.Contains(opt.EOS, id) {
			res.StopReason = "eos"
			break
		}
		if len(res.Generated) >= opt.MaxTokens {
			res.StopReason = "length"
			break
		}
		pos := len(history) - 1
		if pos >= ctx {
			res.StopReason = "context"
			break
		}
		logits, err = m.Forward(Step{IDs: []int32{int32(id)}, Seq: []int32{0}, Pos: []int32{int32(pos)}}, cache, 1)
		if err != nil {
			return nil, err
		}
	}
	res.GenTime = time.Since(start)
	return res, nil
}
