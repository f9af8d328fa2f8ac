// The Sampler: mlx-lm's logits processors, the token bitmask, then greedy selection or a seeded draw from the
// temperature-scaled distribution that the top-k/top-p/min-p filters leave.
package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// pcgStream is the PCG stream constant paired with Params.Seed (any fixed odd-looking constant works; this one is
// the 64-bit golden ratio).
const pcgStream = 0x9e3779b97f4a7c15

// Sampler holds validated parameters, the seeded generator and scratch buffers reused by every call. It is not
// safe for concurrent use; give each sequence its own Sampler.
type Sampler struct {
	p    Params
	rng  *rand.Rand
	bias []biasEntry // LogitBias sorted by id, so the processor walks a slice instead of a map

	// Scratch, grown to the vocabulary on first use and kept.
	window []int     // the penalty window, sorted to group repeats
	cands  []cand    // candidate tokens of the filtered path
	w      []float64 // exp weights of the unfiltered path
}

type biasEntry struct {
	id   int
	bias float32
}

// New validates p (Validate's errors, unwrapped) and returns a Sampler seeded from p.Seed.
func New(p Params) (*Sampler, error) {
	if err := p.Validate(); err != nil {
		return nil, err // Validate's *ParamError values, each already naming its parameter
	}
	s := &Sampler{p: p, rng: rand.New(rand.NewPCG(p.Seed, pcgStream))}
	for id, b := range p.LogitBias {
		s.bias = append(s.bias, biasEntry{id, b})
	}
	slices.SortFunc(s.bias, func(a, b biasEntry) int { return a.id - b.id })
	return s, nil
}

// Params returns the parameters the Sampler was built with.
func (s *Sampler) Params() Params { return s.p }

// Sample picks the next token from one row of logits (length = vocabulary size). logits is used as scratch and
// holds the processed, masked logits afterwards. history is every id so far (prompt then generated); the penalties
// look at its last RepetitionContextSize entries. mask is a packed token bitmask (see ApplyBitmask), nil for none.
//
// Order, as mlx-lm applies it: logit bias, repetition penalty, presence penalty, frequency penalty, then the
// bitmask; then greedy (Temp 0) or the filters and a draw (Temp > 0; see sampleFiltered).
//
// Greedy selection is GreedyNormalizedArgmax with Params.LogitsRounding over the processed row, with one guard:
// Sample never returns a token whose processed logit is -Inf (rejected by the mask or banned by a -Inf bias). The
// reference picks token 0 for a degenerate row (every logit -Inf, or a NaN/+Inf logit); when token 0 is -Inf,
// Sample returns ErrNoCandidate instead.
//
// Errors: ErrBadInput for an empty row or an id (history window, logit bias) outside the vocabulary;
// ErrAllRejected when mask allows no token; ErrNoCandidate when no token above -Inf can be chosen.
func (s *Sampler) Sample(logits []float32, history []int, mask []int32) (int, error) {
	v := len(logits)
	if v == 0 {
		return 0, fmt.Errorf("%w: empty logits row", ErrBadInput)
	}
	if mask != nil && CountAllowed(mask, v) == 0 {
		return 0, fmt.Errorf("%w (%d mask words, vocabulary %d)", ErrAllRejected, len(mask), v)
	}
	if err := s.process(logits, history); err != nil {
		return 0, err // the sentinels say "sample:" already
	}
	if mask != nil {
		ApplyBitmask(logits, mask)
	}
	if s.p.Temp == 0 {
		id := GreedyNormalizedArgmax(logits, s.p.LogitsRounding)
		// The reference answers token 0 for a degenerate row; that token may be masked or banned, and a
		// constrained decoder must never emit it.
		if math.IsInf(float64(logits[id]), -1) {
			return 0, fmt.Errorf("%w (greedy: degenerate row, token %d is -Inf)", ErrNoCandidate, id)
		}
		return id, nil
	}
	return s.sampleFiltered(logits)
}

// Pick is Sample without a mask (the model.Picker a generation loop calls).
func (s *Sampler) Pick(logits []float32, history []int) (int, error) {
	return s.Sample(logits, history, nil)
}

// Greedy reports whether Pick is plain greedy selection, GreedyNormalizedArgmax(row, r), for every row and every
// history of in-vocabulary ids, and in which rounding r: Temp 0 with no logit bias and no penalty (a repetition
// penalty of 1 divides and multiplies by 1, which changes no float). Its one other answer is the degenerate-row
// error (see Sample). A caller may then take the argmax from elsewhere (a device's) instead of calling Pick.
func (s *Sampler) Greedy() (Rounding, bool) {
	p := s.p
	plain := p.Temp == 0 && len(p.LogitBias) == 0 && (p.RepetitionPenalty == 0 || p.RepetitionPenalty == 1) &&
		p.PresencePenalty == 0 && p.FrequencyPenalty == 0
	return p.LogitsRounding, plain
}

// process applies the logits processors in mlx-lm's order. Each is a per-token update, so doing all of a token's
// updates together gives the same result as doing each processor over the whole row in turn.
func (s *Sampler) process(logits []float32, history []int) error {
	v := len(logits)
	for _, b := range s.bias {
		if b.id >= v {
			return fmt.Errorf("%w: logit bias names token %d, vocabulary is %d", ErrBadInput, b.id, v)
		}
		logits[b.id] += b.bias
	}
	rep, pres, freq := s.p.RepetitionPenalty, s.p.PresencePenalty, s.p.FrequencyPenalty
	if rep == 0 && pres == 0 && freq == 0 {
		return nil
	}
	win := history[max(0, len(history)-s.p.contextSize()):]
	s.window = append(s.window[:0], win...)
	slices.Sort(s.window)
	for i := 0; i < len(s.window); {
		t := s.window[i]
		j := i + 1
		for j < len(s.window) && s.window[j] == t {
			j++
		}
		count := j - i
		i = j
		if t < 0 || t >= v {
			return fmt.Errorf("%w: history id %d outside vocabulary %d", ErrBadInput, t, v)
		}
		l := logits[t]
		// mlx-lm gathers the window's logits and scatters them back, so a repeated token is penalized once.
		if rep != 0 {
			if l < 0 {
				l *= rep
			} else {
				l /= rep
			}
		}
		l -= pres // also a gather/scatter in mlx-lm: once per distinct token
		// mlx-lm's .at[].subtract accumulates, once per occurrence.
		for range count {
			l -= freq
		}
		logits[t] = l
	}
	return nil
}
