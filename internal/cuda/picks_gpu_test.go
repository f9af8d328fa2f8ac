// The greedy picks forward on the CUDA backend (MLXBUN_CUDA=1): the device argmax recorded as the last node of
// the decode graph. What the CPU tests cannot show: the two recordings of one workspace (the logits graph and
// the picks graph) are told apart by their key and each replays its own ops, and the picks that come back equal
// sample.GreedyNormalizedArgmax of the logits the same device computes.

package cuda

import (
	"context"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/draft"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/scheduler"
)

// logitsGreedy is the greedy choice from the logits, without saying so (not a model.GreedyPicker).
type logitsGreedy struct{}

func (logitsGreedy) Pick(l []float32, _ []int) (int, error) {
	return sample.GreedyNormalizedArgmax(l, sample.F32), nil
}

// TestPicksOnDevice: for 1..8 decode rows, steps alternate between ForwardInto on one cache and ForwardPicks on
// another, each shape's workspace shared by both recordings, and every pick equals GreedyNormalizedArgmax of the
// logits row; Generate with model.Greedy (picks) gives the tokens of the logits path, with and without n-gram
// drafts; the scheduler with four streams gives the same tokens with its picks on and off.
func TestPicksOnDevice(t *testing.T) {
	g, _ := bk(t)
	for _, name := range []string{"trained/pycoder-12m", "models/tiny-qwen3", "models/tiny-gemma2"} {
		t.Run(name, func(t *testing.T) {
			m, err := model.Load(fixture(t, name), g)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			v := m.Config.VocabSize
			tok := func(i int) int32 { return int32((i*7919 + 13) % v) }
			for rows := 1; rows <= 8; rows++ {
				ref, _ := m.NewCache(rows, 32)
				got, _ := m.NewCache(rows, 32)
				var p model.Picks
				var logits []float32
				for pos := range 6 { // pos 0 records both graphs of this shape; later steps replay them
					s := model.Step{}
					for q := range rows {
						s.IDs, s.Seq, s.Pos = append(s.IDs, tok(pos*rows+q)), append(s.Seq, int32(q)), append(s.Pos, int32(pos))
					}
					if logits, err = m.ForwardInto(s, ref, rows, logits); err != nil {
						t.Fatal(err)
					}
					if err := m.ForwardPicks(s, got, rows, &p); err != nil {
						t.Fatal(err)
					}
					for r := range rows {
						if want := sample.GreedyNormalizedArgmax(logits[r*v:(r+1)*v], sample.F32); int(p.IDs[r]) != want {
							t.Errorf("MISMATCH %d rows, position %d, row %d: pick %d, argmax of the logits %d", rows, pos, r, p.IDs[r], want)
						}
					}
				}
				m.ReleaseCache(ref)
				m.ReleaseCache(got)
			}
			prompt := []int{10, 11, 12, 13, 10, 11, 12, 13, 10, 11, 12, 13, 10, 11}
			for _, withDraft := range []bool{false, true} {
				if withDraft && !m.Rewindable(len(prompt)+32) {
					continue // tiny-gemma2's sliding-window rings cannot take drafts
				}
				var outs [2][]int
				for i, p := range []model.Picker{logitsGreedy{}, model.Greedy{}} {
					opt := model.GenOptions{MaxTokens: 32, Picker: p}
					if withDraft {
						opt.Draft = draft.NewNGram(7, 1, 3)
					}
					res, err := m.Generate(prompt, opt)
					if err != nil {
						t.Fatal(err)
					}
					outs[i] = res.Generated
				}
				if !slices.Equal(outs[0], outs[1]) {
					t.Errorf("MISMATCH Generate (drafts %v): logits %v, picks %v", withDraft, outs[0], outs[1])
				}
			}
			var outs [2][][]int
			var picked [2]int64
			for i, noPicks := range []bool{true, false} {
				s, err := scheduler.New(m, scheduler.Config{Parallel: 4, CtxSize: 128, Draft: true, NoPicks: noPicks})
				if err != nil {
					t.Fatal(err)
				}
				var sts []*scheduler.Stream
				for k := range 4 {
					ids := make([]int, 9+5*k)
					for j := range ids {
						ids[j] = (j%7*131 + k*17 + 5) % v
					}
					st, err := s.Submit(&scheduler.Request{Prompt: ids, MaxTokens: 24, Picker: model.Greedy{}, TopLogprobs: -1, NoCache: true})
					if err != nil {
						t.Fatal(err)
					}
					sts = append(sts, st)
				}
				for _, st := range sts {
					_, _, res, ok := st.Wait(context.Background())
					if !ok || res.Err != nil {
						t.Fatalf("scheduler: %v", res)
					}
					outs[i] = append(outs[i], res.Generated)
				}
				s.Close(context.Background())
				picked[i] = s.Stats().PickSteps
			}
			for k := range outs[0] {
				if !slices.Equal(outs[0][k], outs[1][k]) {
					t.Errorf("MISMATCH scheduler request %d: logits %v, picks %v", k, outs[0][k], outs[1][k])
				}
			}
			if picked[0] != 0 || picked[1] == 0 {
				t.Errorf("scheduler picks steps: %d with NoPicks, %d without", picked[0], picked[1])
			}
			record("picks       %-16s 1..8 rows equal the logits' argmax; Generate and the scheduler identical with picks", name)
		})
	}
}
