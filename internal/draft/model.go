// Drafting with a small model of the same vocabulary (llama.cpp's -md, transformers' assistant model): the draft
// model continues the history greedily for a few tokens, one row a step. A ModelPool holds one cache of the draft
// model with a sequence per slot of the caller; each sequence remembers which tokens its cache holds, so a draft
// call feeds only the history past the longest prefix it already holds (rejected drafts are simply overwritten,
// which needs a cache that can rewind).
package draft

import (
	"errors"
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
)

// ModelPool is a draft model's cache for seqs sequences of up to ctx positions. Not safe for concurrent use.
type ModelPool struct {
	m     *model.Model
	cache backend.KVCache
	held  [][]int // per sequence, the tokens at its cache positions 0..len-1
	ctx   int
	picks model.Picks // the last forward's greedy picks
}

// NewModelPool allocates the draft model's cache. The draft model must share the target's vocabulary (vocab ids)
// and be able to rewind at ctx (model.Rewindable).
func NewModelPool(m *model.Model, seqs, ctx, vocab int) (*ModelPool, error) {
	if m.Config.VocabSize != vocab {
		return nil, fmt.Errorf("draft model: a vocabulary of %d ids, the target's has %d (they must be the same tokenizer)", m.Config.VocabSize, vocab)
	}
	if !m.Rewindable(ctx) {
		return nil, errors.New("draft model: its cache cannot rewind (a hybrid, or sliding-window layers shorter than the context)")
	}
	c, err := m.NewCache(seqs, ctx)
	if err != nil {
		return nil, fmt.Errorf("draft model: %w", err)
	}
	return &ModelPool{m: m, cache: c, held: make([][]int, seqs), ctx: ctx}, nil
}

// Close releases the cache.
func (p *ModelPool) Close() { p.m.ReleaseCache(p.cache) }

// Drafter returns the drafter of sequence seq, drafting up to most tokens a call.
func (p *ModelPool) Drafter(seq, most int) *ModelDrafter {
	return &ModelDrafter{p: p, seq: seq, max: most, length: max(1, min(most, 4))}
}

// ModelDrafter drafts one sequence with the pool's model; its length adapts as NGram's does.
type ModelDrafter struct {
	p           *ModelPool
	seq         int
	max, length int
	Err         error // the last forward error (a draft call then proposes nothing)
}

// Draft feeds the history the sequence's cache lacks and continues it greedily by up to min(limit, the adaptive
// length) tokens.
func (d *ModelDrafter) Draft(history []int, limit int) []int {
	p := d.p
	k := min(limit, d.length, p.ctx-len(history))
	if k <= 0 || len(history) == 0 {
		return nil
	}
	held := p.held[d.seq]
	at := 0
	for at < len(held) && at < len(history) && held[at] == history[at] {
		at++
	}
	at = min(at, len(history)-1) // at least one row for the logits
	// The draft model's continuation is greedy (sample.GreedyNormalizedArgmax with F32 rounding): the picks
	// forward's answer, so only the picks come back (a row picked 0 brings its logits too, unused here).
	const chunk = 512
	for at < len(history) {
		end := min(len(history), at+chunk)
		var s model.Step
		for q := at; q < end; q++ {
			s.IDs, s.Seq, s.Pos = append(s.IDs, int32(history[q])), append(s.Seq, int32(d.seq)), append(s.Pos, int32(q))
		}
		if err := p.m.ForwardPicks(s, p.cache, 1, &p.picks); err != nil {
			d.Err, p.held[d.seq] = err, nil
			return nil
		}
		at = end
	}
	held = append(held[:0], history...)
	var out []int
	for {
		id := int(p.picks.IDs[0])
		out = append(out, id)
		if len(out) == k {
			break
		}
		pos := len(held)
		if err := p.m.ForwardPicks(model.Step{IDs: []int32{int32(id)}, Seq: []int32{int32(d.seq)}, Pos: []int32{int32(pos)}}, p.cache, 1, &p.picks); err != nil {
			d.Err = err
			break
		}
		held = append(held, id)
	}
	p.held[d.seq] = held
	return out
}

// Feedback adapts the draft length: two more after a round accepted whole, one fewer after one that was cut.
func (d *ModelDrafter) Feedback(proposed, accepted int) {
	if proposed == 0 {
		return
	}
	if accepted == proposed {
		d.length = min(d.max, d.length+2)
	} else {
		d.length = max(1, d.length-1)
	}
}
