// One batch step: the forward calls that advance every running sequence by a decode row (plus its drafts) and one
// prefilling sequence by a prompt chunk, grouped by adapter set (a call serves one set) and cut at Config.MaxRows
// decode rows; then each sequence's picks from its rows, its events, and the end of those that finished. A call
// whose every row is picked plain greedily takes the device's picks (model.ForwardPicks) instead of the logits.
package scheduler

import (
	"math"
	"slices"
	"time"

	"github.com/mlxbun/mlxbun/internal/model"
)

// seq is a request in the scheduler: queued, then in a slot.
type seq struct {
	req        *Request
	out        *Stream
	slot       int
	tokens     []int // prompt, then generated ids; tokens[:fed] are in the cache
	fed        int
	gen        int
	drafter    model.Drafter // nil: no drafts
	drafts     []int         // this step's draft tokens, fed after tokens[fed]
	snapshotAt int           // a chunk boundary to keep in the prompt cache once prefilled (0: none)
	res        Result
	ev         Event // what this step produced, pushed by flushEvents
	dirty      bool
	done       bool
	submitted  time.Time
	admitted   time.Time
	first      time.Time
}

func (q *seq) prefilling() bool { return q.fed < len(q.req.Prompt) }

// call is one forward call: optionally a prompt chunk first, then the decode rows of its sequences.
type call struct {
	adapter  string
	step     model.Step
	pre      *seq
	preEnd   int
	decode   []*seq
	decRows  int
	preFinal bool
}

func (c *call) add(q *seq, id int32, pos int) {
	c.step.IDs, c.step.Seq, c.step.Pos = append(c.step.IDs, id), append(c.step.Seq, int32(q.slot)), append(c.step.Pos, int32(pos))
}

// step runs one batch step over the running sequences.
func (s *Scheduler) step() {
	var pre *seq // the prefilling sequence admitted first gets this step's chunk
	var groups []string
	for i := range s.slots {
		q := s.slots[i].active
		if q == nil {
			continue
		}
		if !slices.Contains(groups, q.req.Adapter) {
			groups = append(groups, q.req.Adapter)
		}
		if q.prefilling() && (pre == nil || q.admitted.Before(pre.admitted)) {
			pre = q
		}
	}
	for _, g := range groups {
		for _, c := range s.plan(g, pre) {
			s.run(c)
		}
	}
}

// plan lays out the calls of one adapter group.
func (s *Scheduler) plan(group string, pre *seq) []*call {
	cur := &call{adapter: group}
	calls := []*call{cur}
	if pre != nil && pre.req.Adapter == group {
		chunk := s.cfg.PrefillChunk
		end := min(len(pre.req.Prompt), (pre.fed/chunk+1)*chunk) // chunk ends on multiples of the chunk (hybrid snapshots)
		cur.pre, cur.preEnd, cur.preFinal = pre, end, end == len(pre.req.Prompt)
		for p := pre.fed; p < end; p++ {
			cur.add(pre, int32(pre.tokens[p]), p)
		}
	}
	for i := range s.slots {
		q := s.slots[i].active
		if q == nil || q.req.Adapter != group || q.prefilling() {
			continue
		}
		room := -1 // drafts this call still has rows for; −1: no bound
		if s.cfg.MaxRows > 0 {
			if cur.decRows >= s.cfg.MaxRows {
				cur = &call{adapter: group}
				calls = append(calls, cur)
			}
			room = s.cfg.MaxRows - cur.decRows - 1
		}
		q.drafts = nil
		if q.drafter != nil {
			limit := min(s.cfg.DraftMax, s.cfg.CtxSize-1-q.fed, q.req.MaxTokens-q.gen-1)
			if room >= 0 {
				limit = min(limit, room)
			}
			if limit > 0 {
				q.drafts = q.drafter.Draft(q.tokens, limit)
			}
		}
		cur.add(q, int32(q.tokens[q.fed]), q.fed)
		for j, d := range q.drafts {
			cur.add(q, int32(d), q.fed+1+j)
		}
		cur.decode = append(cur.decode, q)
		cur.decRows += 1 + len(q.drafts)
	}
	if len(cur.step.IDs) == 0 {
		calls = calls[:len(calls)-1]
	}
	return calls
}

// run issues one call and hands each sequence its rows.
func (s *Scheduler) run(c *call) {
	if err := s.m.UseAdapterSet(c.adapter); err != nil {
		s.failCall(c, err)
		return
	}
	out := c.decRows
	if c.preFinal {
		out++
	}
	out = max(out, 1)
	start := time.Now()
	// No row outlives this call: the next one reuses the buffers. A row that picked token 0 brings every row's
	// logits back, and they take the logits' way.
	err := s.rows.Forward(s.m, c.step, s.cache, out, !s.cfg.NoPicks && picksOnly(c))
	d := time.Since(start)
	if s.cfg.OnStep != nil {
		s.cfg.OnStep(len(c.step.IDs), d)
	}
	s.mu.Lock()
	s.stats.Steps++
	s.stats.Rows += int64(len(c.step.IDs))
	if err == nil && s.rows.PicksOnly() {
		s.stats.PickSteps++
	}
	s.mu.Unlock()
	if err != nil {
		s.failCall(c, err)
		return
	}
	choose := func(q *seq, i int) (int, bool) { // q's token from output row i
		if id, ok := s.rows.Picked(i); ok {
			return s.accept(q, Token{ID: id})
		}
		return s.take(q, s.rows.Row(i))
	}
	next := 0
	if c.pre != nil {
		q := c.pre
		q.fed = c.preEnd
		if q.fed == q.snapshotAt {
			s.keepTokens(q.slot, q.req.Adapter, q.tokens[:q.fed])
		}
		if c.preFinal {
			q.first = time.Now()
			q.res.PromptTime = q.first.Sub(q.admitted)
			choose(q, 0)
			next = 1
		}
	}
	for _, q := range c.decode {
		rows := 1 + len(q.drafts)
		accepted, p := 0, q.fed
		for r := range rows {
			q.fed = p + r + 1 // row r's input (tokens[p+r]) is stored, and every draft before it was accepted
			id, ok := choose(q, next+r)
			if !ok || r == len(q.drafts) || id != q.drafts[r] {
				break
			}
			accepted++
		}
		next += rows
		if q.drafter != nil && len(q.drafts) > 0 {
			q.drafter.Feedback(len(q.drafts), accepted)
			q.res.Drafted += len(q.drafts)
			q.res.Accepted += accepted
		}
		if !q.done && q.fed >= s.cfg.CtxSize {
			s.finish(q, "context", nil)
		}
	}
}

// failCall ends every sequence of a call whose forward failed.
func (s *Scheduler) failCall(c *call, err error) {
	s.log.Error().Err(err).Int("rows", len(c.step.IDs)).Msg("forward failed")
	if c.pre != nil {
		s.finish(c.pre, ReasonError, err)
	}
	for _, q := range c.decode {
		s.finish(q, ReasonError, err)
	}
}

// take picks q's next token from row; false when q has finished (with that token or without one).
func (s *Scheduler) take(q *seq, row []float32) (int, bool) {
	if q.done {
		return 0, false
	}
	for i, l := range row {
		if l-l != 0 {
			s.finish(q, ReasonError, &model.NonFiniteError{Step: q.gen + 1, ID: i, Value: l})
			return 0, false
		}
	}
	var lse float64
	var top []TopLogprob
	if q.req.TopLogprobs >= 0 {
		lse = logSumExp(row)
		top = topK(row, q.req.TopLogprobs, lse)
		s.scratch = append(s.scratch[:0], row...) // the picker may scribble on row
	}
	id, err := q.req.Picker.Pick(row, q.tokens)
	if err != nil {
		s.finish(q, ReasonError, err)
		return 0, false
	}
	tok := Token{ID: id}
	if q.req.TopLogprobs >= 0 {
		tok.Logprob, tok.Top = float32(float64(s.scratch[id])-lse), top
	}
	return s.accept(q, tok)
}

// picksOnly reports whether every row of c that is picked from can take the device's greedy pick: its picker is
// plain greedy in model.PicksRounding (no temperature, penalty, bias or grammar mask) and it asks for no
// log-probabilities. Draft rows qualify: a draft is accepted when the pick equals it, which the pick alone settles.
func picksOnly(c *call) bool {
	wants := func(q *seq) bool { return q.req.TopLogprobs < 0 && model.PicksGreedily(q.req.Picker) }
	if c.preFinal && !wants(c.pre) {
		return false
	}
	for _, q := range c.decode {
		if !wants(q) {
			return false
		}
	}
	return true
}

// accept makes tok q's next token: its event, its text and the stop checks; false when q has finished (with tok
// or, already done, without it).
func (s *Scheduler) accept(q *seq, tok Token) (int, bool) {
	if q.done {
		return 0, false
	}
	id := tok.ID
	q.tokens = append(q.tokens, id)
	q.gen++
	q.res.Generated = append(q.res.Generated, id)
	q.ev.Tokens = append(q.ev.Tokens, tok)
	q.dirty = true
	text := ""
	if q.req.Text != nil {
		text = q.req.Text(id)
	}
	if q.req.Stop != nil {
		emit, stop := q.req.Stop.Push(id, text)
		q.ev.Text += emit
		if stop {
			s.finish(q, q.req.Stop.Reason(), nil)
			return id, false
		}
	} else {
		q.ev.Text += text
	}
	switch {
	case q.req.Halt != nil && q.req.Halt():
		s.finish(q, "grammar", nil)
	case q.gen >= q.req.MaxTokens:
		s.finish(q, "length", nil)
	default:
		return id, true
	}
	return id, false
}

// finish ends q: the text held back, its result in the last event, and its slot freed, keeping what the cache
// holds of it for a later request.
func (s *Scheduler) finish(q *seq, reason string, err error) {
	if q.done {
		return
	}
	q.done = true
	rest := ""
	if q.req.Flush != nil {
		rest = q.req.Flush()
	}
	if q.req.Stop != nil {
		rest = q.req.Stop.Finish(rest)
	}
	q.ev.Text += rest
	q.res.Reason, q.res.Err = reason, err
	if !q.first.IsZero() {
		q.res.GenTime = time.Since(q.first)
	}
	q.ev.Done = &q.res
	q.dirty = true
	s.mu.Lock()
	s.stats.Finished[reason]++
	s.stats.Generated += int64(q.gen)
	s.stats.Drafted += int64(q.res.Drafted)
	s.stats.Accepted += int64(q.res.Accepted)
	if !q.admitted.IsZero() {
		sl := &s.slots[q.slot]
		if sl.active == q {
			sl.active = nil
			if !q.req.NoCache && err == nil {
				sl.held = q.tokens[:q.fed:q.fed]
			}
		}
	}
	s.stats.Busy = s.busy()
	s.mu.Unlock()
	s.log.Debug().Int("slot", q.slot).Str("reason", reason).Int("generated", q.gen).Int("drafted", q.res.Drafted).
		Int("accepted", q.res.Accepted).Msg("finished")
	s.pushEvent(q)
}

// pushEvent hands q's pending event to its stream.
func (s *Scheduler) pushEvent(q *seq) {
	if q.dirty {
		q.out.push(q.ev)
		q.ev, q.dirty = Event{}, false
	}
}

// flushEvents pushes the events of this step's running sequences.
func (s *Scheduler) flushEvents() {
	for i := range s.slots {
		if q := s.slots[i].active; q != nil {
			s.pushEvent(q)
		}
	}
}

func logSumExp(row []float32) float64 {
	m := math.Inf(-1)
	for _, l := range row {
		m = max(m, float64(l))
	}
	var sum float64
	for _, l := range row {
		sum += math.Exp(float64(l) - m)
	}
	return m + math.Log(sum)
}

// topK is the k ids of highest logit (the lower id first among equals), as log-probabilities.
func topK(row []float32, k int, lse float64) []TopLogprob {
	if k <= 0 {
		return nil
	}
	var top []TopLogprob
	for id, l := range row {
		lp := float32(float64(l) - lse)
		if len(top) == k && lp <= top[k-1].Logprob {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, lp, func(t TopLogprob, x float32) int {
			if t.Logprob >= x {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, at, TopLogprob{ID: id, Logprob: lp})
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
