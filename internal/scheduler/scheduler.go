// Package scheduler runs many generations on one model at once: continuous batching over a cache of Parallel
// sequences (slots). Requests wait in a bounded queue, join the running batch between steps and leave it when
// they end or their context is cancelled; a prompt is prefilled in chunks, one chunk a step beside the decode rows
// of the others, so streams keep flowing while a long prompt goes in. A slot keeps what its last request left in
// the cache, and the prompt cache (promptcache.go) keeps more of it across requests: a new request starts from
// the longest prefix either holds. With drafts on, each decoding sequence may carry prompt-lookup draft tokens as
// further rows of its step (package draft), verified as model.Generate does. One goroutine owns the model.
package scheduler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/draft"
	"github.com/mlxbun/mlxbun/internal/model"
)

// Config sizes a Scheduler; zero fields take the defaults named.
type Config struct {
	Parallel     int // sequences decoding together (cache sequences); 4
	CtxSize      int // positions per sequence; the model's max_position_embeddings capped at 4096
	QueueLimit   int // requests waiting for a slot at most; 64 per slot
	PrefillChunk int // prompt rows a step carries; 256
	// MaxRows bounds the decode rows (drafts included) of one forward call: on a backend that records decode
	// graphs (CUDA) the decode forms stop at backend.MaxDecodeRows, which is the default there; elsewhere no bound.
	MaxRows        int
	CacheBytes     int64 // prompt cache bound in bytes; 0: no prompt cache beyond the slots' own contents
	MinCacheTokens int   // contexts shorter than this are not kept in the prompt cache; 16
	Draft          bool  // prompt-lookup drafts for every request that does not opt out
	DraftMax       int   // draft tokens a step at most; 8
	// DraftModel, when set, drafts instead of prompt lookup: a small model of the same vocabulary (package draft),
	// with a cache sequence per slot. The scheduler does not close it.
	DraftModel *model.Model
	// NoPicks reads every call's logits back even when all its rows are picked plain greedily, which would take
	// the device's picks instead (model.ForwardPicks): for comparing the two, as the tests and bench do.
	NoPicks bool
	Log     zerolog.Logger
	// OnStep, when set, is told each forward call's rows and duration (metrics).
	OnStep func(rows int, d time.Duration)
}

// Stats is a snapshot of the scheduler's counters.
type Stats struct {
	Queued, Busy, Slots                    int
	Admitted, Prompt, Cached, Generated    int64
	Drafted, Accepted, Steps, Rows         int64
	PickSteps                              int64            // forward calls answered by the device's greedy picks alone
	Finished                               map[string]int64 // by reason
	CacheEntries                           int
	CacheBytes, CacheLimit                 int64
	CacheHits, CacheMisses, CacheEvictions int64
	CacheEvictedBytes                      int64
}

// slot is one cache sequence: the request in it, or what the last one left (held: the tokens at positions
// 0..len-1 of the cache, computed under adapter set heldSet; for a sequence that cannot rewind, its state stands
// at len).
type slot struct {
	active  *seq
	held    []int
	heldSet string
	used    uint64
}

// Scheduler batches requests onto one model. Submit and Stats are safe for concurrent use.
type Scheduler struct {
	m       *model.Model
	cfg     Config
	log     zerolog.Logger
	cache   backend.KVCache
	slots   []slot
	pc      *promptCache     // nil without a prompt cache
	pool    *draft.ModelPool // the draft model's cache (Config.DraftModel); nil without
	rewind  bool             // model.Rewindable at CtxSize
	clock   uint64
	scratch []float32
	rows    model.StepRows // the last call's picks or logits, whose buffers the next one reuses

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []*seq
	closed bool
	stats  Stats
	abort  atomic.Bool
	done   chan struct{}
}

// New allocates the cache and starts the scheduler's goroutine.
func New(m *model.Model, cfg Config) (*Scheduler, error) {
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	if cfg.CtxSize <= 0 {
		cfg.CtxSize = 4096
		if mp := m.Config.MaxPositions; mp > 0 {
			cfg.CtxSize = min(cfg.CtxSize, mp)
		}
	}
	if mp := m.Config.MaxPositions; mp > 0 && cfg.CtxSize > mp {
		return nil, fmt.Errorf("scheduler: context %d is past the model's max_position_embeddings %d", cfg.CtxSize, mp)
	}
	if cfg.QueueLimit <= 0 {
		cfg.QueueLimit = 64 * cfg.Parallel
	}
	if cfg.PrefillChunk <= 0 {
		cfg.PrefillChunk = 256
	}
	if cfg.MaxRows <= 0 {
		if _, rec := m.Backend().(backend.Recorder); rec {
			cfg.MaxRows = backend.MaxDecodeRows
		}
	}
	if cfg.MinCacheTokens <= 0 {
		cfg.MinCacheTokens = 16
	}
	if cfg.DraftMax <= 0 {
		cfg.DraftMax = 8
	}
	if cfg.MaxRows > 0 {
		cfg.DraftMax = min(cfg.DraftMax, cfg.MaxRows-1)
	}
	s := &Scheduler{m: m, cfg: cfg, log: cfg.Log, slots: make([]slot, cfg.Parallel), rewind: m.Rewindable(cfg.CtxSize),
		done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	if (cfg.Draft || cfg.DraftModel != nil) && !s.rewind {
		s.log.Warn().Msg("speculative drafts are off: this model's cache cannot rewind (a hybrid, or sliding-window layers shorter than the context)")
		s.cfg.Draft, s.cfg.DraftModel = false, nil
	}
	c, err := m.NewCache(cfg.Parallel, cfg.CtxSize)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %d sequences of %d positions: %w", cfg.Parallel, cfg.CtxSize, err)
	}
	s.cache = c
	if s.cfg.DraftModel != nil {
		if s.pool, err = draft.NewModelPool(s.cfg.DraftModel, cfg.Parallel, cfg.CtxSize, m.Config.VocabSize); err != nil {
			m.ReleaseCache(c)
			return nil, fmt.Errorf("scheduler: %w", err)
		}
		s.cfg.Draft = true
	}
	if cfg.CacheBytes > 0 {
		if m.CanCopySequences() {
			s.pc = newPromptCache(cfg.CacheBytes, !s.rewind, m.ReleaseCache, func(n int, b int64) {
				s.stats.CacheEvictions += int64(n)
				s.stats.CacheEvictedBytes += b
			})
		} else {
			s.log.Warn().Str("device", m.Backend().Name()).Msg("prompt cache off: the device copies no cache sequences; slots still reuse their own prefix")
		}
	}
	s.stats.Finished = map[string]int64{}
	for _, r := range []string{"eos", "stop", "length", "context", "grammar", ReasonCancelled, ReasonError} {
		s.stats.Finished[r] = 0 // every reason from the start, as Prometheus counters should be
	}
	s.stats.Slots = cfg.Parallel
	s.stats.CacheLimit = cfg.CacheBytes
	go s.loop()
	return s, nil
}

// Config is the configuration in force (defaults filled in).
func (s *Scheduler) Config() Config { return s.cfg }

// Submit queues r; its events arrive on the returned Stream. ErrQueueFull when QueueLimit requests wait already,
// ErrClosed after Close.
func (s *Scheduler) Submit(r *Request) (*Stream, error) {
	if len(r.Prompt) == 0 || len(r.Prompt) >= s.cfg.CtxSize {
		return nil, fmt.Errorf("scheduler: %d prompt tokens, context %d: %w", len(r.Prompt), s.cfg.CtxSize, model.ErrContext)
	}
	if r.Picker == nil || r.MaxTokens <= 0 {
		return nil, fmt.Errorf("scheduler: a request needs a picker and max tokens ≥ 1 (got %d)", r.MaxTokens)
	}
	if r.Ctx == nil {
		r.Ctx = context.Background()
	}
	q := &seq{req: r, out: newStream(), submitted: time.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if len(s.queue) >= s.cfg.QueueLimit {
		return nil, ErrQueueFull
	}
	s.queue = append(s.queue, q)
	s.stats.Queued = len(s.queue)
	s.cond.Signal()
	return q.out, nil
}

// Stats returns a snapshot of the counters.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Finished = maps.Clone(s.stats.Finished)
	return st
}

// Close stops taking requests and lets the queued and running ones finish; when ctx ends first, those left are
// cancelled (reason "cancelled"). It returns when the scheduler's goroutine has ended and the cache is released.
func (s *Scheduler) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		s.abort.Store(true)
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
		<-s.done
		return ctx.Err()
	}
}

// loop is the scheduler's goroutine: admit, drop the cancelled, run one step, until closed and drained.
func (s *Scheduler) loop() {
	defer close(s.done)
	defer s.release()
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && s.busy() == 0 && !s.closed {
			s.cond.Wait()
		}
		if s.abort.Load() || s.closed && len(s.queue) == 0 && s.busy() == 0 {
			queued := s.queue
			s.queue = nil
			s.mu.Unlock()
			for _, q := range queued {
				s.finish(q, ReasonCancelled, nil)
			}
			for i := range s.slots {
				if q := s.slots[i].active; q != nil {
					s.finish(q, ReasonCancelled, nil)
				}
			}
			s.flushEvents()
			return
		}
		var admit []*seq
		keep := s.queue[:0]
		free := s.cfg.Parallel - s.busy()
		for _, q := range s.queue {
			switch {
			case q.req.Ctx.Err() != nil:
				admit = append(admit, q) // finished below as cancelled
			case free > 0:
				admit = append(admit, q)
				free--
			default:
				keep = append(keep, q)
			}
		}
		clear(s.queue[len(keep):])
		s.queue = keep
		s.stats.Queued = len(s.queue)
		s.mu.Unlock()
		for _, q := range admit {
			if q.req.Ctx.Err() != nil {
				s.finish(q, ReasonCancelled, nil)
				continue
			}
			s.admit(q)
		}
		for i := range s.slots {
			if q := s.slots[i].active; q != nil && q.req.Ctx.Err() != nil {
				s.finish(q, ReasonCancelled, nil)
			}
		}
		s.step()
		s.flushEvents()
	}
}

// busy counts the occupied slots (under s.mu or from the loop).
func (s *Scheduler) busy() int {
	n := 0
	for i := range s.slots {
		if s.slots[i].active != nil {
			n++
		}
	}
	return n
}

// release frees the cache and the prompt cache's entries when the loop ends.
func (s *Scheduler) release() {
	if s.pc != nil {
		s.pc.clear()
	}
	if s.pool != nil {
		s.pool.Close()
	}
	s.m.ReleaseCache(s.cache)
}

// admit places q in a free slot, starting from the longest cached prefix of its prompt: what a free slot still
// holds (no copy) or a prompt cache entry (copied in).
func (s *Scheduler) admit(q *seq) {
	prompt := q.req.Prompt
	maxK := len(prompt) - 1 // at least one prompt row is run, for the first token's logits
	best, bestK := -1, 0
	victim := -1
	for i := range s.slots {
		sl := &s.slots[i]
		if sl.active != nil {
			continue
		}
		if victim < 0 || sl.used < s.slots[victim].used {
			victim = i
		}
		if q.req.NoCache || sl.heldSet != q.req.Adapter {
			continue
		}
		k := min(commonPrefix(sl.held, prompt), maxK)
		if !s.rewind && k != len(sl.held) {
			k = 0
		}
		if k > bestK {
			best, bestK = i, k
		}
	}
	var e *entry
	ek := 0
	if s.pc != nil && !q.req.NoCache {
		e, ek = s.pc.lookup(q.req.Adapter, prompt, maxK)
	}
	at, k := victim, 0
	switch {
	case bestK > 0 && bestK >= ek:
		at, k = best, bestK
		if len(s.slots[at].held)-k >= s.cfg.MinCacheTokens {
			s.keep(at) // what lies past the shared prefix would be overwritten
		}
	default:
		s.keep(at)
		if ek > 0 {
			if err := s.m.CopySequence(s.cache, at, e.cache, 0, ek); err != nil {
				s.log.Warn().Err(err).Msg("prompt cache: copy failed; prefilling the whole prompt")
			} else {
				k = ek
			}
		}
	}
	sl := &s.slots[at]
	s.clock++
	sl.active, sl.held, sl.heldSet, sl.used = q, nil, q.req.Adapter, s.clock
	q.slot, q.fed = at, k
	q.tokens = slices.Clone(prompt)
	q.admitted = time.Now()
	q.res.PromptTokens, q.res.CachedTokens = len(prompt), k
	q.res.Queued = q.admitted.Sub(q.submitted)
	switch {
	case q.req.NoDraft || !s.cfg.Draft:
	case s.pool != nil:
		q.drafter = s.pool.Drafter(at, s.cfg.DraftMax)
	default:
		q.drafter = draft.NewNGram(s.cfg.DraftMax, 1, 3)
	}
	if !s.rewind && s.pc != nil && !q.req.NoCache {
		// A state cannot be cut back: keep it at the last chunk boundary inside the prompt, so a later prompt
		// sharing that much (a system prompt) starts there.
		if b := (maxK / s.cfg.PrefillChunk) * s.cfg.PrefillChunk; b > k && b >= s.cfg.MinCacheTokens {
			q.snapshotAt = b
		}
	}
	s.mu.Lock()
	s.stats.Admitted++
	s.stats.Prompt += int64(len(prompt))
	s.stats.Cached += int64(k)
	if s.pc != nil && !q.req.NoCache {
		if k > 0 {
			s.stats.CacheHits++
		} else {
			s.stats.CacheMisses++
		}
	}
	s.stats.Busy = s.busy()
	s.mu.Unlock()
	s.log.Debug().Int("slot", at).Int("prompt", len(prompt)).Int("cached", k).Bool("in_place", at == best && k > 0).Msg("admitted")
}

// keep moves what slot i holds into the prompt cache (when there is one and the context is worth keeping).
func (s *Scheduler) keep(i int) {
	held := s.slots[i].held
	s.slots[i].held = nil
	s.keepTokens(i, s.slots[i].heldSet, held)
}

// keepTokens copies slot i's first len(tokens) positions, computed under adapter set, into a new prompt cache
// entry.
func (s *Scheduler) keepTokens(i int, adapter string, tokens []int) {
	if s.pc == nil || len(tokens) < s.cfg.MinCacheTokens || s.pc.covers(adapter, tokens) {
		return
	}
	n := len(tokens)
	bytes := s.m.CacheBytes(1, n)
	if bytes > s.pc.limit {
		return
	}
	c, err := s.m.NewCache(1, n)
	if err != nil {
		s.log.Warn().Err(err).Msg("prompt cache: no entry")
		return
	}
	if err := s.m.CopySequence(c, 0, s.cache, i, n); err != nil {
		s.m.ReleaseCache(c)
		s.log.Warn().Err(err).Msg("prompt cache: copy failed")
		return
	}
	s.mu.Lock()
	s.pc.insert(&entry{adapter: adapter, tokens: slices.Clone(tokens), cache: c, bytes: bytes})
	s.stats.CacheEntries, s.stats.CacheBytes = len(s.pc.entries), s.pc.bytes
	s.mu.Unlock()
}
