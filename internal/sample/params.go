// Package sample turns one row of logits into the next token id on the CPU: the logits processors (logit bias,
// repetition/presence/frequency penalties), the packed token bitmask of constrained decoding, greedy selection that
// reproduces MLX's argmax over dtype-rounded log-probabilities, temperature sampling with top-k/top-p/min-p, and
// the Stopper that ends a stream on EOS ids or stop strings. The semantics follow mlx-lm's sample_utils.py
// (make_sampler / make_logits_processors); where this package chooses differently its doc comments say so.
//
// This file holds the user-facing parameters and their validation.
package sample

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Sentinel errors; every error this package returns wraps one of them.
var (
	// ErrInvalidParams: a Params field is out of range (Validate, whose *ParamError values wrap it).
	ErrInvalidParams = errors.New("sample: invalid parameters")
	// ErrBadInput: the logits, history or logit-bias ids do not fit the vocabulary of this call.
	ErrBadInput = errors.New("sample: bad input")
	// ErrAllRejected: the token bitmask allows no token of the vocabulary.
	ErrAllRejected = errors.New("sample: token bitmask rejects every token")
	// ErrNoCandidate: after the processors and the mask no token has a logit above -Inf to sample from.
	ErrNoCandidate = errors.New("sample: no token has a finite logit")
)

// DefaultRepetitionContextSize is mlx-lm's default window for the repetition, presence and frequency penalties.
const DefaultRepetitionContextSize = 20

// Rounding names the dtype the model produced its logits in. Greedy selection rounds to it (see
// GreedyNormalizedArgmax) so that ties created by a narrow dtype resolve as they do in MLX.
type Rounding uint8

const (
	F32  Rounding = iota // float32: no extra rounding
	BF16                 // bfloat16: 8 significant bits, float32's exponent range
	F16                  // IEEE half: 11 significant bits, exponents -14..15
)

func (r Rounding) String() string {
	switch r {
	case F32:
		return "f32"
	case BF16:
		return "bf16"
	case F16:
		return "f16"
	}
	return fmt.Sprintf("Rounding(%d)", uint8(r))
}

// Params configures a Sampler. The zero value is greedy decoding with no processors.
//
// A zero field means "off" wherever mlx-lm's default means off: TopP 0 (or 1), MinP 0, TopK 0,
// RepetitionPenalty 0 (1 is also a no-op), PresencePenalty and FrequencyPenalty 0, RepetitionContextSize 0
// (which selects DefaultRepetitionContextSize).
type Params struct {
	// Temp is the softmax temperature; 0 selects greedy decoding. The top-k/top-p/min-p filters are measured on
	// the temperature-1 distribution and the temperature applies to the surviving tokens only, as mlx-lm's
	// categorical_sampling does after its filters.
	Temp float32
	// TopP keeps the smallest prefix of tokens, sorted by probability, whose mass reaches TopP (the top token is
	// always kept). Off when 0 or 1.
	TopP float32
	// MinP keeps tokens with p ≥ MinP·p_max. Off when 0.
	MinP float32
	// TopK keeps the K most likely tokens (lowest id first among equal logits). Off when 0 or ≥ the vocabulary.
	TopK int

	// RepetitionPenalty divides positive and multiplies negative logits of tokens seen in the last
	// RepetitionContextSize history ids (once per distinct token). Off when 0.
	RepetitionPenalty float32
	// RepetitionContextSize is the history window of all three penalties; 0 means 20. mlx-lm has one window per
	// penalty, each defaulting to 20; one shared window keeps the API small.
	RepetitionContextSize int
	// PresencePenalty is subtracted once from the logit of every distinct token in the window (OpenAI style).
	PresencePenalty float32
	// FrequencyPenalty is subtracted from a token's logit once per occurrence in the window.
	FrequencyPenalty float32
	// LogitBias is added to the logits of the given ids before anything else; -Inf bans a token, +Inf and NaN are
	// rejected.
	LogitBias map[int]float32

	// Seed seeds the sampler's PCG generator: the same seed and the same sequence of Sample inputs draw the same
	// tokens.
	Seed uint64
	// LogitsRounding is the dtype the logits came in; only greedy selection uses it.
	LogitsRounding Rounding
}

// ParamError is one out-of-range Params field. It wraps ErrInvalidParams without printing it, so the text stays
// one short phrase a caller can put behind its own name for the setting.
type ParamError struct {
	// Param names the parameter as mlx-lm's and llama.cpp's command lines spell it: "temp", "top-p", "min-p",
	// "top-k", "repetition-penalty", "repetition-context-size", "presence-penalty", "frequency-penalty",
	// "logit-bias", "logits-rounding".
	Param string
	Msg   string // the value and what is wrong with it: "1.5 must lie in [0, 1] (0 and 1 mean off)"
}

func (e *ParamError) Error() string { return e.Param + " " + e.Msg }

// Unwrap makes errors.Is(err, ErrInvalidParams) hold.
func (e *ParamError) Unwrap() error { return ErrInvalidParams }

// Validate reports every out-of-range field as a *ParamError, joined (errors.Join) in field order.
func (p Params) Validate() error {
	var errs []error
	bad := func(param, format string, args ...any) {
		errs = append(errs, &ParamError{Param: param, Msg: fmt.Sprintf(format, args...)})
	}
	finite := func(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

	if !finite(p.Temp) || p.Temp < 0 {
		bad("temp", "%v must be finite and ≥ 0 (0: greedy)", p.Temp)
	}
	if !finite(p.TopP) || p.TopP < 0 || p.TopP > 1 {
		bad("top-p", "%v must lie in [0, 1] (0 and 1 mean off)", p.TopP)
	}
	if !finite(p.MinP) || p.MinP < 0 || p.MinP > 1 {
		bad("min-p", "%v must lie in [0, 1] (0 means off)", p.MinP)
	}
	if p.TopK < 0 {
		bad("top-k", "%d must be ≥ 0 (0 means off)", p.TopK)
	}
	if !finite(p.RepetitionPenalty) || p.RepetitionPenalty < 0 {
		bad("repetition-penalty", "%v must be finite and ≥ 0 (0 and 1 mean off)", p.RepetitionPenalty)
	}
	if p.RepetitionContextSize < 0 {
		bad("repetition-context-size", "%d must be ≥ 0 (0 means %d)", p.RepetitionContextSize, DefaultRepetitionContextSize)
	}
	if !finite(p.PresencePenalty) {
		bad("presence-penalty", "%v must be finite", p.PresencePenalty)
	}
	if !finite(p.FrequencyPenalty) {
		bad("frequency-penalty", "%v must be finite", p.FrequencyPenalty)
	}
	for _, id := range slices.Sorted(maps.Keys(p.LogitBias)) { // sorted: the same input reports the same text
		b := p.LogitBias[id]
		if id < 0 {
			bad("logit-bias", "for token %d: token ids are ≥ 0", id)
		}
		if math.IsNaN(float64(b)) || math.IsInf(float64(b), 1) {
			// +Inf would make the row degenerate, where greedy selection's reference answer is token 0 whatever
			// was biased; a large finite bias forces a token reliably.
			bad("logit-bias", "for token %d is %v; use a finite value (or -Inf to ban)", id, b)
		}
	}
	if p.LogitsRounding > F16 {
		bad("logits-rounding", "%v is not f32, bf16 or f16", p.LogitsRounding)
	}
	return errors.Join(errs...)
}

// contextSize is the penalty window after applying the default.
func (p Params) contextSize() int {
	if p.RepetitionContextSize == 0 {
		return DefaultRepetitionContextSize
	}
	return p.RepetitionContextSize
}
