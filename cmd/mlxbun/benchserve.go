// bench --streams N: continuous batching measured without HTTP. N requests of -p prompt ids and -n greedy tokens
// go to the scheduler together (N slots), -r times; the row's tokens/s counts every stream's tokens over the wall
// time, to hold against `bench --batch N`'s tg row (the decode forms alone). Then the prompt cache: a -p prompt,
// and a second one sharing all of it but its last 16 ids, with both prefill times and the reused count.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/scheduler"
)

type streamsReport struct {
	Rows            []benchRow `json:"results"`
	FirstPrefillMS  float64    `json:"first_prefill_ms"`
	SecondPrefillMS float64    `json:"second_prefill_ms"`
	CachedTokens    int        `json:"cached_tokens"`
	kernels         []backend.KernelTime
}

// streamRun is what one stream of the --streams bench saw: when each event came and how many tokens it held.
type streamRun struct {
	at     []time.Time
	counts []int
	err    error
}

func (r streamRun) tokens() int {
	n := 0
	for _, c := range r.counts {
		n += c
	}
	return n
}

// collectStream reads st to its end, stamping each event.
func collectStream(st *scheduler.Stream) streamRun {
	var run streamRun
	for {
		e, ok := st.Next(context.Background())
		if !ok {
			run.err = errors.New("bench: a stream ended without its result")
			return run
		}
		if len(e.Tokens) > 0 {
			run.at, run.counts = append(run.at, time.Now()), append(run.counts, len(e.Tokens))
		}
		if e.Done != nil {
			run.err = e.Done.Err
			return run
		}
	}
}

// steadyRate is the tokens/s of the window in which every stream was decoding: from the last stream's first
// token to the first stream's last, counting the tokens each stream received inside it. This is the figure that
// compares with bench --batch N (decode rows alone); false when the window is empty (streams that never overlapped).
func steadyRate(runs []streamRun) (float64, bool) {
	var from, to time.Time
	for i, r := range runs {
		if len(r.at) == 0 {
			return 0, false
		}
		if i == 0 || r.at[0].After(from) {
			from = r.at[0]
		}
		if last := r.at[len(r.at)-1]; i == 0 || last.Before(to) {
			to = last
		}
	}
	if !to.After(from) {
		return 0, false
	}
	n := 0
	for _, r := range runs {
		for j, t := range r.at {
			if t.After(from) && !t.After(to) {
				n += r.counts[j]
			}
		}
	}
	return float64(n) / to.Sub(from).Seconds(), n > 0
}

func runStreamsBench(cmd *cobra.Command, f *benchFlags, b backend.Backend, m *model.Model, name string) error {
	pp, tg, err := oneSize(f, "--streams")
	if err != nil {
		return err
	}
	if tg < 1 || pp < 17 {
		return errors.New("bench: --streams needs -n ≥ 1 and -p ≥ 17")
	}
	ctx := pp + tg + 1
	s, err := scheduler.New(m, scheduler.Config{Parallel: f.streams, CtxSize: ctx, CacheBytes: 1 << 62, Log: log, NoPicks: f.readLogits})
	if err != nil {
		return err
	}
	defer s.Close(context.Background())
	vocab := m.Config.VocabSize
	prompt := func(k, n int) []int {
		ids := make([]int, n)
		for p := range ids {
			ids[p] = int((uint64(p+7919*k)*2654435761 + f.seed) % uint64(vocab))
		}
		return ids
	}
	greedy := benchPicker(f.readLogits)
	submit := func(ids []int, n int) (*scheduler.Stream, error) {
		return s.Submit(&scheduler.Request{Prompt: ids, MaxTokens: n, Picker: greedy, TopLogprobs: -1, NoCache: true})
	}
	row := benchRow{Model: name, Device: b.Name(), Test: fmt.Sprintf("tg%d ×%d streams (scheduler, with prefill)", tg, f.streams), NGen: f.streams * tg}
	steady := benchRow{Model: name, Device: b.Name(), Test: fmt.Sprintf("tg ×%d streams (scheduler, all decoding)", f.streams), NGen: f.streams * tg}
	for r := -1; r < f.reps; r++ { // r = -1: warm-up
		start := time.Now()
		var sts []*scheduler.Stream
		for k := range f.streams {
			st, err := submit(prompt(k+100*r+200, pp), tg)
			if err != nil {
				return err
			}
			sts = append(sts, st)
		}
		runs := make([]streamRun, len(sts))
		var wg sync.WaitGroup
		for i, st := range sts {
			wg.Add(1)
			go func() { defer wg.Done(); runs[i] = collectStream(st) }()
		}
		wg.Wait()
		total := 0
		for _, run := range runs {
			if run.err != nil {
				return run.err
			}
			total += run.tokens()
		}
		if r >= 0 {
			row.Samples = append(row.Samples, float64(total)/time.Since(start).Seconds())
			if v, ok := steadyRate(runs); ok {
				steady.Samples = append(steady.Samples, v)
			}
		}
	}
	row.AvgTS, row.StdTS = meanSD(row.Samples)
	rep := streamsReport{Rows: []benchRow{row}}
	if len(steady.Samples) > 0 {
		steady.AvgTS, steady.StdTS = meanSD(steady.Samples)
		rep.Rows = append(rep.Rows, steady)
	}
	// The prompt cache: the second prompt shares all but the first's last 16 ids.
	first := prompt(1, pp)
	second := append(append([]int(nil), first[:pp-16]...), prompt(2, 16)...)
	var times [2]time.Duration
	prof, _ := b.(backend.Profiler)
	for i, ids := range [][]int{first, second} {
		if i == 1 && prof != nil && f.profile {
			prof.StartProfile()
		}
		st, err := s.Submit(&scheduler.Request{Prompt: ids, MaxTokens: 1, Picker: greedy, TopLogprobs: -1})
		if err != nil {
			return err
		}
		_, _, res, _ := st.Wait(context.Background())
		if i == 1 && prof != nil && f.profile {
			rep.kernels = prof.StopProfile()
		}
		if res.Err != nil {
			return res.Err
		}
		times[i] = res.PromptTime
		rep.CachedTokens = res.CachedTokens
	}
	rep.FirstPrefillMS, rep.SecondPrefillMS = 1e3*times[0].Seconds(), 1e3*times[1].Seconds()
	if f.output == "json" {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	}
	w := cmd.OutOrStdout()
	writeBenchMD(w, benchReport{Rows: rep.Rows, PeakHostGB: peakMemoryGB()})
	if len(rep.kernels) > 0 {
		fmt.Fprintf(w, "\nper-kernel profile of the second prompt (%d new ids after %d cached)\n\n", pp-rep.CachedTokens, rep.CachedTokens)
		writeKernelTable(w, rep.kernels, 0)
	}
	fmt.Fprintf(w, "\nprompt cache: a %d-token prompt prefilled in %.1f ms; one sharing all but its last 16 in %.1f ms (%d cached, %.1f %%)\n",
		pp, rep.FirstPrefillMS, rep.SecondPrefillMS, rep.CachedTokens, 100*rep.SecondPrefillMS/rep.FirstPrefillMS)
	return nil
}
