package model_test

import (
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// TestBatchedDecodeMatchesSingle: two prompts of different lengths decoded together, one row per sequence at its
// own position (what left padding emulates elsewhere), give each sequence's logits as decoding it alone does.
func TestBatchedDecodeMatchesSingle(t *testing.T) {
	dir := testutil.Fixture(t, "models/tiny-qwen2-yarn")
	b := cpu.New()
	defer b.Close()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	prompts := [][]int32{{5, 17, 99, 1000, 3, 42, 7}, {8, 640, 2}}
	next := []int32{11, 12}
	prefill := func(seq int32, ids []int32) model.Step {
		s := model.Step{}
		for p, id := range ids {
			s.IDs, s.Seq, s.Pos = append(s.IDs, id), append(s.Seq, seq), append(s.Pos, int32(p))
		}
		return s
	}
	// Alone: each prompt in its own cache, then its next token.
	var alone [][]float32
	for i, p := range prompts {
		c, _ := m.NewCache(1, 16)
		if _, err := m.Forward(prefill(0, p), c, 1); err != nil {
			t.Fatal(err)
		}
		l, err := m.Forward(model.Step{IDs: []int32{next[i]}, Seq: []int32{0}, Pos: []int32{int32(len(p))}}, c, 1)
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, l)
	}
	// Together: both prompts in one two-sequence cache, then one decode step with a row per sequence.
	c, _ := m.NewCache(2, 16)
	for i, p := range prompts {
		if _, err := m.Forward(prefill(int32(i), p), c, 1); err != nil {
			t.Fatal(err)
		}
	}
	both, err := m.Forward(model.Step{IDs: next, Seq: []int32{0, 1}, Pos: []int32{int32(len(prompts[0])), int32(len(prompts[1]))}}, c, 2)
	if err != nil {
		t.Fatal(err)
	}
	v := m.Config.VocabSize
	for i := range prompts {
		if d := maxDiff(both[i*v:(i+1)*v], alone[i]); d > 1e-5 {
			t.Errorf("sequence %d: batched logits differ from single by %.3g", i, d)
		}
	}
}
