// The constrained token picker of a generation loop (model.Picker): it joins the mask fill started after the
// previous token, samples under the mask, accepts the token, and starts the next fill in a goroutine, so that the
// fill runs while the model's forward pass for the accepted token does (the loop calls Forward right after Pick
// returns). The mask is applied by sample.Sampler on the host, where every backend's logits arrive.
package grammar

import (
	"fmt"
	"time"

	"github.com/mlxbun/mlxbun/internal/sample"
)

// Picker samples under a grammar. Not safe for concurrent use.
type Picker struct {
	s       *sample.Sampler
	m       *Matcher
	mask    []int32
	filled  chan struct{}
	pending bool
	waited  time.Duration // time Pick spent waiting for fills (the part the forward pass did not hide)
	fills   int
}

// NewPicker starts a sequence of t and the fill of its first mask (which overlaps the prompt's prefill).
func NewPicker(s *sample.Sampler, t *Tables) *Picker {
	p := &Picker{s: s, m: NewMatcher(t), mask: make([]int32, t.Vocab().MaskWords())}
	p.startFill()
	return p
}

func (p *Picker) startFill() {
	p.filled = make(chan struct{})
	p.pending = true
	go func() {
		p.m.FillMask(p.mask)
		close(p.filled)
	}()
}

func (p *Picker) join() {
	if p.pending {
		start := time.Now()
		<-p.filled
		p.waited += time.Since(start)
		p.fills++
		p.pending = false
	}
}

// Waited reports how many fills Pick joined and how long it waited for them in all: near zero when each fill
// ran within the forward pass it overlapped.
func (p *Picker) Waited() (int, time.Duration) { return p.fills, p.waited }

// Pick chooses the next token of logits (one row, used as scratch) under the grammar and accepts it.
func (p *Picker) Pick(logits []float32, history []int) (int, error) {
	p.join()
	id, err := p.s.Sample(logits, history, p.mask)
	if err != nil {
		return 0, fmt.Errorf("constrained sampling: %w", err)
	}
	if err := p.m.AcceptToken(id); err != nil {
		return 0, fmt.Errorf("constrained sampling picked a token the grammar rejects: %w", err)
	}
	if !p.m.MustEnd() {
		p.startFill()
	}
	return id, nil
}

// Halt reports that the grammar admits nothing more (model.GenOptions.Halt): generation ends here.
func (p *Picker) Halt() bool { return p.m.MustEnd() }

// Complete reports whether the output so far is a complete sentence of the grammar.
func (p *Picker) Complete() bool {
	p.join()
	return p.m.Done() || p.m.CanEnd()
}
