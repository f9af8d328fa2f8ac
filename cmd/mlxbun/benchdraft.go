// bench --draft ngram: greedy generation of -n tokens after a prompt, -r times without drafts and -r times with
// prompt-lookup drafts, reporting both speeds, the speed-up, the share of drafts accepted and whether the two
// outputs agree (they must: the drafts are verified). The prompt is --draft-prompt FILE through the model's
// tokenizer (a code-editing prompt is where lookup pays), or -p synthetic ids: a 32-id block repeated.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/draft"
	"github.com/mlxbun/mlxbun/internal/model"
)

type draftReport struct {
	Model      string   `json:"model"`
	Device     string   `json:"device"`
	Prompt     int      `json:"n_prompt"`
	Gen        int      `json:"n_gen"`
	PlainTS    benchRow `json:"plain"`
	DraftTS    benchRow `json:"ngram"`
	Speedup    float64  `json:"speedup"`
	Drafted    int      `json:"draft_tokens"`
	Accepted   int      `json:"draft_accepted"`
	Acceptance float64  `json:"acceptance"`
	Identical  bool     `json:"identical_output"`
}

func runDraftBench(cmd *cobra.Command, f *benchFlags, b backend.Backend, m *model.Model, name string) error {
	pp, tg, err := oneSize(f, "--draft")
	if err != nil {
		return err
	}
	if f.draft != "ngram" {
		return fmt.Errorf("bench: --draft %q: want ngram", f.draft)
	}
	if tg < 1 {
		return errors.New("bench: --draft needs -n ≥ 1 generated tokens")
	}
	var prompt []int
	if f.draftPrompt != "" {
		if f.modelDir == "" {
			return errors.New("bench: --draft-prompt needs --model (its tokenizer)")
		}
		d, err := openModelDir(f.modelDir)
		if err != nil {
			return err
		}
		tok, err := loadTokenizer(d, true)
		if err != nil {
			return err
		}
		text, err := readArg("bench --draft-prompt", f.draftPrompt, cmd.InOrStdin(), maxPromptBytes)
		if err != nil {
			return err
		}
		prompt = tok.Encode(string(text), true)
	} else {
		for p := range max(pp, 1) {
			prompt = append(prompt, int((uint64(p%32)*2654435761+f.seed)%uint64(m.Config.VocabSize)))
		}
	}
	if mp := m.Config.MaxPositions; mp > 0 && len(prompt)+tg > mp {
		return fmt.Errorf("bench: a %d-token prompt and -n %d need %d positions, the model has %d", len(prompt), tg, len(prompt)+tg, mp)
	}
	rep := draftReport{Model: name, Device: b.Name(), Prompt: len(prompt), Gen: tg}
	var outs [2][]int
	for i, withDraft := range []bool{false, true} {
		row := benchRow{Model: name, Device: b.Name(), Test: fmt.Sprintf("tg%d greedy", tg), NGen: tg}
		if withDraft {
			row.Test += " +ngram"
		}
		for r := -1; r < f.reps; r++ { // r = -1: warm-up
			opt := model.GenOptions{MaxTokens: tg, Picker: benchPicker(f.readLogits)}
			if withDraft {
				opt.Draft = draft.NewNGram(backend.MaxDecodeRows-1, 1, 3)
			}
			res, err := m.Generate(prompt, opt)
			if err != nil {
				return err
			}
			outs[i] = res.Generated
			if r < 0 {
				continue
			}
			// The decode steps after the first token, as generate's tokens-per-second counts them.
			row.Samples = append(row.Samples, rate(len(res.Generated)-1, res.GenTime.Seconds()))
			if withDraft {
				rep.Drafted += res.Drafted
				rep.Accepted += res.Accepted
			}
		}
		row.AvgTS, row.StdTS = meanSD(row.Samples)
		if withDraft {
			rep.DraftTS = row
		} else {
			rep.PlainTS = row
		}
	}
	rep.Speedup = rep.DraftTS.AvgTS / rep.PlainTS.AvgTS
	if rep.Drafted > 0 {
		rep.Acceptance = float64(rep.Accepted) / float64(rep.Drafted)
	}
	rep.Identical = slices.Equal(outs[0], outs[1])
	if f.output == "json" {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	}
	w := cmd.OutOrStdout()
	writeBenchMD(w, benchReport{Rows: []benchRow{rep.PlainTS, rep.DraftTS}, PeakHostGB: peakMemoryGB()})
	fmt.Fprintf(w, "\nprompt %d tokens; drafts: %d of %d accepted (%.1f %%); speed-up %.2f×; outputs identical: %v\n",
		rep.Prompt, rep.Accepted, rep.Drafted, 100*rep.Acceptance, rep.Speedup, rep.Identical)
	if !rep.Identical {
		return errors.New("bench: the output with drafts differs from the output without")
	}
	return nil
}

// oneSize is the one -p and one -n value a bench mode that runs a single workload takes.
func oneSize(f *benchFlags, mode string) (pp, tg int, err error) {
	if len(f.pp) != 1 || len(f.tg) != 1 {
		return 0, 0, fmt.Errorf("bench %s: takes one -p and one -n value, got -p %v -n %v", mode, f.pp, f.tg)
	}
	return f.pp[0], f.tg[0], nil
}
