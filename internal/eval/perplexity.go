// Package eval scores a model on text: perplexity and bits per token and per byte over non-overlapping windows,
// the measure mlx-lm's and llama.cpp's perplexity tools report.
package eval

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/model"
)

// Result is a perplexity run's outcome.
type Result struct {
	Windows      int     `json:"windows"`
	Ctx          int     `json:"ctx"`
	TokensScored int     `json:"tokens_scored"`
	BytesScored  int     `json:"bytes_scored"`
	NLL          float64 `json:"nll_nats"` // total negative log-likelihood
	Perplexity   float64 `json:"perplexity"`
	BitsPerToken float64 `json:"bits_per_token"`
	BitsPerByte  float64 `json:"bits_per_byte"`
}

// Perplexity cuts tokens (less the last one, which no window could be scored against) into whole windows of ctx
// tokens starting at token 0, runs each window from an empty cache and scores every token after the window's
// first from the logits of the position before it. bytesOf gives a token's length in bytes (for bits per byte);
// progress, if set, is called after each window.
func Perplexity(m *model.Model, tokens []int, ctx int, bytesOf func(id int) int, progress func(done, total int)) (*Result, error) {
	if ctx < 2 {
		return nil, fmt.Errorf("perplexity: --ctx %d: need at least 2 tokens per window", ctx)
	}
	if mp := m.Config.MaxPositions; mp > 0 && ctx > mp {
		return nil, fmt.Errorf("perplexity: --ctx %d exceeds the model's %d positions", ctx, mp)
	}
	windows := (len(tokens) - 1) / ctx
	if windows < 1 {
		return nil, fmt.Errorf("perplexity: %d tokens make no window of %d", len(tokens), ctx)
	}
	cache, err := m.NewCache(1, ctx)
	if err != nil {
		return nil, err
	}
	defer m.ReleaseCache(cache)
	vocab := m.Config.VocabSize
	res := &Result{Windows: windows, Ctx: ctx}
	s := model.Step{IDs: make([]int32, ctx), Seq: make([]int32, ctx), Pos: make([]int32, ctx)}
	for w := 0; w < windows; w++ {
		win := tokens[w*ctx : (w+1)*ctx]
		for i, id := range win {
			s.IDs[i], s.Pos[i] = int32(id), int32(i)
		}
		logits, err := m.Forward(s, cache, ctx)
		if err != nil {
			return nil, fmt.Errorf("perplexity: window %d: %w", w, err)
		}
		for i := 1; i < ctx; i++ {
			nll := -logSoftmaxAt(logits[(i-1)*vocab:i*vocab], win[i])
			if math.IsNaN(nll) || math.IsInf(nll, 0) {
				return nil, fmt.Errorf("perplexity: window %d, position %d: %w (NLL %v)", w, i-1, model.ErrNonFinite, nll)
			}
			res.NLL += nll
			res.TokensScored++
			res.BytesScored += bytesOf(win[i])
		}
		if progress != nil {
			progress(w+1, windows)
		}
	}
	res.Perplexity = math.Exp(res.NLL / float64(res.TokensScored))
	res.BitsPerToken = res.NLL / math.Ln2 / float64(res.TokensScored)
	if res.BytesScored > 0 {
		res.BitsPerByte = res.NLL / math.Ln2 / float64(res.BytesScored)
	}
	return res, nil
}

// logSoftmaxAt is log p(id) under softmax(row), in float64.
func logSoftmaxAt(row []float32, id int) float64 {
	mx := math.Inf(-1)
	for _, v := range row {
		mx = max(mx, float64(v))
	}
	var sum float64
	for _, v := range row {
		sum += math.Exp(float64(v) - mx)
	}
	return float64(row[id]) - mx - math.Log(sum)
}
