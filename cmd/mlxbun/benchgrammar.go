// bench --json-schema: the constrained-decoding costs of a schema over a model directory's tokenizer, without the
// model: schema compilation, every state's token table, and the per-token mask fill along seeded random walks
// of -n tokens (uniform over the allowed tokens, restarting when the grammar ends), as median and p99.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/grammar"
	"github.com/mlxbun/mlxbun/internal/sample"
)

// grammarBenchRow is bench --json-schema's result.
type grammarBenchRow struct {
	Schema     string  `json:"schema"`
	Vocab      int     `json:"vocab"`
	States     int     `json:"states"`
	CompileMS  float64 `json:"compile_ms"`
	TablesMS   float64 `json:"tables_ms"`
	Fills      int     `json:"fills"`
	FillMedian float64 `json:"fill_median_us"`
	FillP99    float64 `json:"fill_p99_us"`
}

func runGrammarBench(cmd *cobra.Command, f *benchFlags) error {
	if f.modelDir == "" {
		return fmt.Errorf("bench --json-schema: give --model (a model or tokenizer directory with tokenizer.json)")
	}
	if len(f.tg) != 1 || f.tg[0] < 1 || f.reps < 1 {
		return fmt.Errorf("bench --json-schema: need one -n ≥ 1 (tokens per walk) and -r ≥ 1")
	}
	walk := f.tg[0]
	src, inline, err := specText("--json-schema", f.jsonSchema, cmd.InOrStdin(), looksLikeSchema)
	if err != nil {
		return err
	}
	name := f.jsonSchema
	if inline {
		name = "(inline)"
	}
	d, err := openModelDir(f.modelDir)
	if err != nil {
		return err
	}
	tok, err := d.Tokenizer()
	if err != nil {
		return err
	}
	// A tokenizer-only directory measures the tokenizer's vocabulary; a model's config widens it to the logits.
	size, eos := tok.VocabSize(), []int{tok.Specials().EOS}
	if d.ConfigJSON() != nil {
		cfg, err := d.Config()
		if err != nil {
			return err
		}
		size, eos = cfg.VocabSize, sample.EndIDs(cfg.EOS, tok.Specials().EOS, false)
	}
	start := time.Now()
	g, err := grammar.ParseJSONSchema(src)
	if err != nil {
		return fmt.Errorf("--json-schema %s: %w", name, err)
	}
	a, err := grammar.Compile(g)
	if err != nil {
		return fmt.Errorf("--json-schema %s: %w", name, err)
	}
	compile := time.Since(start)
	v := grammar.VocabFromTokenizer(tok, size, eos)
	start = time.Now()
	tabs := grammar.NewTables(a, v)
	tabs.Wait()
	tables := time.Since(start)
	rng := rand.New(rand.NewPCG(f.seed, 0))
	mask := make([]int32, v.MaskWords())
	var times []time.Duration
	var allowed []int
	for range f.reps {
		m := grammar.NewMatcher(tabs)
		for range walk {
			t0 := time.Now()
			m.FillMask(mask)
			times = append(times, time.Since(t0))
			allowed = allowed[:0]
			for id := range v.Size() {
				if sample.Allowed(mask, id) {
					allowed = append(allowed, id)
				}
			}
			if len(allowed) == 0 {
				return fmt.Errorf("bench --json-schema: the grammar allows no token after %d tokens", m.Accepted())
			}
			if err := m.AcceptToken(allowed[rng.IntN(len(allowed))]); err != nil {
				return err
			}
			if m.Done() || m.MustEnd() {
				m = grammar.NewMatcher(tabs)
			}
		}
	}
	slices.Sort(times)
	us := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Nanoseconds()) / 1e3
	}
	row := grammarBenchRow{Schema: name, Vocab: v.Size(), States: a.States(), CompileMS: compile.Seconds() * 1e3,
		TablesMS: tables.Seconds() * 1e3, Fills: len(times), FillMedian: us(0.5), FillP99: us(0.99)}
	out := cmd.OutOrStdout()
	if f.output == "json" {
		return json.NewEncoder(out).Encode(row)
	}
	fmt.Fprintln(out, "| schema | vocab | states | compile ms | tables ms | fills | fill median µs | fill p99 µs |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	fmt.Fprintf(out, "| %s | %d | %d | %.1f | %.1f | %d | %.2f | %.2f |\n", row.Schema, row.Vocab, row.States, row.CompileMS,
		row.TablesMS, row.Fills, row.FillMedian, row.FillP99)
	return nil
}
