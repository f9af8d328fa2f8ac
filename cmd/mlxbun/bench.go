// The bench verb, llama-bench style: pp (prompt) and tg (generation) rows in tokens per second as mean ± sd over
// runs, for a model directory or a synthetic model of a real architecture; optionally a per-kernel profile
// against the device's copy bandwidth, launches per token and peak device memory. A synthetic model's run ends
// with its bandwidth roofline: the weight bytes a decode step reads over the measured copy bandwidth.
package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

type benchFlags struct {
	modelDir, synthetic, dtype, device, output string
	save                                       string // --save: write the synthetic checkpoint here instead
	head                                       string // a synthetic trellis model's output head: affine8 or bf16
	pp, tg                                     []int  // llama-bench's -p and -n lists: a row per value
	reps, bits, batch                          int
	depth                                      int // pp and tg rows run after a prompt of this many tokens per sequence (llama-bench's -d)
	profile, dryRun                            bool
	readLogits                                 bool // every row's logits back instead of the device's greedy picks
	seed                                       uint64
	jsonSchema                                 string // bench --json-schema: constrained-decoding costs (benchgrammar.go)
	draft, draftPrompt                         string // bench --draft ngram: speculative decoding (benchdraft.go)
	streams                                    int    // bench --streams N: continuous batching (benchserve.go)
}

// benchRow is one test's result; JSON field names follow llama-bench's.
type benchRow struct {
	Model   string    `json:"model"`
	Size    int64     `json:"model_size"`     // stored bytes of the weights
	Params  int64     `json:"model_n_params"` // parameters of the unquantized model
	Device  string    `json:"device"`
	Threads int       `json:"n_threads"` // host threads (GOMAXPROCS)
	Test    string    `json:"test"`
	NPrompt int       `json:"n_prompt"`
	NGen    int       `json:"n_gen"`
	AvgTS   float64   `json:"avg_ts"`
	StdTS   float64   `json:"stddev_ts"`
	Samples []float64 `json:"samples_ts"`
}

type benchReport struct {
	Rows            []benchRow           `json:"results"`
	Kernels         []backend.KernelTime `json:"kernels,omitempty"`
	PromptKernels   []backend.KernelTime `json:"prompt_kernels,omitempty"` // one ppN prompt
	PromptRows      int                  `json:"prompt_rows,omitempty"`
	LaunchesPerTok  float64              `json:"launches_per_token,omitempty"`
	CopyBandwidth   float64              `json:"copy_bandwidth_bytes_per_s,omitempty"`
	PeakDeviceBytes int64                `json:"peak_device_bytes,omitempty"`
	PeakHostGB      float64              `json:"peak_host_memory_gb"`
	// A synthetic model's weight bytes read per decode step, and the tokens per second reading them at the copy
	// bandwidth would give (× --batch: the weights are read once per step for every sequence). A MoE model's
	// step reads its active parameters only (the routed experts' share of each stack, SyntheticSize), which
	// ActiveParams of Params counts.
	DecodeBytes  int64   `json:"decode_bytes_per_token,omitempty"`
	RooflineTS   float64 `json:"roofline_ts,omitempty"`
	Params       int64   `json:"params,omitempty"`
	ActiveParams int64   `json:"active_params,omitempty"`
}

// sizeReport is bench --dry-run's answer: a synthetic model counted from its tensor headers.
type sizeReport struct {
	Model        string `json:"model"`
	Params       int64  `json:"params"`
	ActiveParams int64  `json:"active_params"` // a MoE model's parameters one token computes with (Params otherwise)
	StoredBytes  int64  `json:"stored_bytes"`
	DecodeBytes  int64  `json:"decode_bytes_per_token"` // a MoE model's routed experts only
}

func newBench() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure prompt (pp) and generation (tg) speed, llama-bench style",
		Long: `bench runs a prompt of -p tokens (row ppN) and a generation of -n tokens one at a time (row tgN) -r
times each and prints tokens per second as mean ± standard deviation; -p and -n take comma-separated lists (a
row per value), and the table gives the model's stored size, its parameters and the host threads, as
llama-bench's does (-o md, csv or json). --synthetic builds a random-weight model
of a real architecture (` + strings.Join(model.Presets(), ", ") + `) with no files; with --bits its projections
are random trellis codes (axis 1, down_proj axis 0, the 3-bit interleave) and its output head MLX affine 8-bit
(--head bf16 keeps it bf16), as mlxbun quantize stores a model, and its run ends with the bandwidth roofline (weight
bytes read per decode step / the device's copy bandwidth; a MoE model's step reads its routed experts only, so with
--batch above 1, when the sequences route to more experts, the roofline is an upper bound).
--dry-run counts a synthetic model's parameters and bytes without building it. --profile adds a per-kernel
table (device time, GB/s, % of the measured copy bandwidth) on backends that can time kernels.`,
		Example: `  mlxbun bench --model ./Qwen3-0.6B
  mlxbun bench --synthetic qwen3-14b --dtype bf16 --device cuda --profile -o md
  mlxbun bench --synthetic qwen3-14b --bits 3 --device cuda
  mlxbun bench --synthetic qwen3.5-27b --bits 3 --dry-run
  mlxbun bench --synthetic qwen3-30b-a3b --bits 3 --device cuda
  mlxbun bench --synthetic qwen3-14b --save ./qwen3-14b-synthetic     # a bf16 checkpoint to quantize`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBench(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.modelDir, "model", "m", "", "model directory or hub name org/name[@revision]")
	fl.StringVar(&f.synthetic, "synthetic", "", "synthetic architecture: "+strings.Join(model.Presets(), ", "))
	fl.StringVar(&f.dtype, "dtype", "bf16", "weight dtype of a synthetic model (bf16)")
	fl.IntVar(&f.bits, "bits", 0, "trellis "+bitsHelp+" of a synthetic model's projections (0: dense --dtype)")
	fl.StringVar(&f.head, "head", quantize.HeadAffine8, "with --bits: the synthetic model's output head, affine8 (as quantize writes it) or bf16")
	fl.StringVar(&f.device, "device", "auto", deviceHelp("device"))
	fl.StringVarP(&f.output, "output", "o", "md", "output format: md, csv or json")
	fl.IntSliceVarP(&f.pp, "n-prompt", "p", []int{512}, "prompt tokens, comma-separated for several rows (0: no pp row)")
	fl.IntSliceVarP(&f.tg, "n-gen", "n", []int{128}, "generated tokens, comma-separated for several rows (0: no tg row)")
	fl.IntVarP(&f.reps, "repetitions", "r", 5, "runs per test")
	fl.IntVar(&f.batch, "batch", 1, fmt.Sprintf("sequences decoding together in the tg row (1..%d; tokens/s counts all of them)", backend.MaxDecodeRows))
	fl.IntVarP(&f.depth, "depth", "d", 0, "pp and tg rows run after a prompt of this many tokens in every sequence (untimed), as llama-bench's -d")
	fl.BoolVar(&f.profile, "profile", false, "per-kernel device time table (backends with a profiler)")
	fl.BoolVar(&f.readLogits, "read-logits", false, "read every row's logits back, as a sampler does, instead of the device's greedy picks (tg, --streams, --draft)")
	fl.StringVar(&f.save, "save", "", "with --synthetic (dense): write its bf16 checkpoint (config.json, safetensors shards) into this new directory and measure nothing")
	fl.BoolVar(&f.dryRun, "dry-run", false, "with --synthetic: print its parameters, stored bytes and bytes read per decode token, build nothing")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the synthetic weights and token ids")
	fl.StringVar(&f.draft, "draft", "", "ngram: greedy -n tokens with and without prompt-lookup drafts (speed-up, acceptance)")
	fl.StringVar(&f.draftPrompt, "draft-prompt", "", "with --draft: a prompt text file (tokenized by --model's tokenizer) instead of -p repeated ids")
	fl.IntVar(&f.streams, "streams", 0, "N requests through the serve scheduler at once (tokens/s against --batch N), then the prompt cache")
	fl.StringVar(&f.jsonSchema, "json-schema", "", "measure this schema's compile time and per-token mask fill over --model's tokenizer (no forward pass; -n tokens per walk, -r walks)")
	return cmd
}

func runBench(cmd *cobra.Command, f *benchFlags) error {
	if f.jsonSchema != "" {
		return runGrammarBench(cmd, f)
	}
	if (f.modelDir == "") == (f.synthetic == "") {
		return errors.New("bench: give exactly one of --model or --synthetic")
	}
	if f.modelDir != "" && (f.bits != 0 || cmd.Flags().Changed("dtype")) {
		return errors.New("bench: --bits and --dtype describe a --synthetic model; a --model directory is measured as stored")
	}
	if f.output != "md" && f.output != "json" && f.output != "csv" {
		return fmt.Errorf("bench: -o %q: want md, csv or json", f.output)
	}
	if f.dtype != "bf16" {
		return fmt.Errorf("bench: --dtype %q: synthetic models are bf16 for now", f.dtype)
	}
	if f.head != quantize.HeadAffine8 && f.head != quantize.HeadBF16 {
		return fmt.Errorf("bench: --head %q: want %s or %s", f.head, quantize.HeadAffine8, quantize.HeadBF16)
	}
	if f.bits == 0 && cmd.Flags().Changed("head") {
		return errors.New("bench: --head chooses a synthetic trellis model's head: it needs --synthetic and --bits")
	}
	if f.batch < 1 || f.batch > backend.MaxDecodeRows {
		return fmt.Errorf("bench: --batch %d: want 1..%d sequences", f.batch, backend.MaxDecodeRows)
	}
	if f.depth < 0 {
		return fmt.Errorf("bench: --depth %d: want 0 or more prompt tokens", f.depth)
	}
	if f.streams < 0 {
		return fmt.Errorf("bench: --streams %d: want 1 or more requests (0: no streams row)", f.streams)
	}
	if f.draftPrompt != "" && f.draft == "" { // else the file is never read, and the run measures plain decoding
		return errors.New("bench: --draft-prompt is the prompt of --draft ngram: give --draft ngram with it")
	}
	if f.draft != "" && f.draft != "ngram" {
		return fmt.Errorf("bench: --draft %q: want ngram", f.draft)
	}
	if f.profile && f.draft != "" {
		return errors.New("bench: --profile profiles the pp and tg rows (and --streams), not --draft")
	}
	if f.depth > 0 && (f.streams > 0 || f.draft != "") {
		return errors.New("bench: --depth sets where the tg rows decode; --streams and --draft take their prompts from -p and --draft-prompt")
	}
	if err := checkBenchSizes(f); err != nil {
		return err
	}
	if f.dryRun {
		return benchDryRun(cmd.OutOrStdout(), f)
	}
	if f.save != "" {
		return benchSave(cmd, f)
	}
	b, m, name, err := openBenchModel(f)
	if err != nil {
		return err
	}
	defer b.Close()
	defer m.Close()
	if _, ok := b.(backend.Profiler); f.profile && !ok { // else the table is left out without a word
		return fmt.Errorf("bench: --profile: the %s backend has no kernel profiler (cuda has)", b.Name())
	}
	if f.draft != "" {
		return runDraftBench(cmd, f, b, m, name)
	}
	if f.streams > 0 {
		return runStreamsBench(cmd, f, b, m, name)
	}
	maxPP, maxTG := slices.Max(f.pp), slices.Max(f.tg)
	ctx := f.depth + maxPP + maxTG + 1 // the profile decodes after its prompt
	if mp := m.Config.MaxPositions; mp > 0 && ctx > mp {
		return fmt.Errorf("bench: -p %d -d %d -n %d needs %d positions, the model has %d", maxPP, f.depth, maxTG, ctx, mp)
	}
	size, err := benchSize(f, m)
	if err != nil {
		return err
	}
	vocab := m.Config.VocabSize
	token := func(i int) int32 { return int32((uint64(i)*2654435761 + f.seed) % uint64(vocab)) }
	rep := benchReport{}
	measure := func(test string, np, ng int, once func() (time.Duration, error)) error {
		if _, err := once(); err != nil { // warm-up: compiles, graphs, caches
			return err
		}
		row := benchRow{Model: name, Size: size.StoredBytes, Params: size.Params, Device: b.Name(), Threads: runtime.GOMAXPROCS(0),
			Test: test, NPrompt: np, NGen: ng}
		for r := 0; r < f.reps; r++ {
			d, err := once()
			if err != nil {
				return err
			}
			row.Samples = append(row.Samples, float64(np+ng)/d.Seconds())
		}
		row.AvgTS, row.StdTS = meanSD(row.Samples)
		rep.Rows = append(rep.Rows, row)
		return nil
	}
	var rows model.StepRows // each forward's picks, or with --read-logits its logits, in buffers reused call after call
	// promptSeq prefills positions from..from+n−1 of sequence seq as one prompt.
	promptSeq := func(cache backend.KVCache, seq, from, n int) error {
		s := model.Step{}
		for p := from; p < from+n; p++ {
			s.IDs, s.Seq, s.Pos = append(s.IDs, token(p+7919*seq)), append(s.Seq, int32(seq)), append(s.Pos, int32(p))
		}
		return rows.Forward(m, s, cache, 1, !f.readLogits) // the first token's pick, as greedy generation takes it
	}
	// deep fills every sequence's first --depth positions (untimed) so the tg rows attend over them.
	deep := func(cache backend.KVCache) error {
		for q := 0; q < f.batch && f.depth > 0; q++ {
			if err := promptSeq(cache, q, 0, f.depth); err != nil {
				return err
			}
		}
		return nil
	}
	// decode steps n positions from start, one row per sequence (--batch), each row's greedy pick read back as
	// greedy decoding does (the device argmax in the step), or with --read-logits every row's logits as a sampler
	// reads them.
	decode := func(cache backend.KVCache, start, n int) error {
		for p := start; p < start+n; p++ {
			var s model.Step
			for q := range f.batch {
				s.IDs, s.Seq, s.Pos = append(s.IDs, token(p+7919*q)), append(s.Seq, int32(q)), append(s.Pos, int32(p))
			}
			if err := rows.Forward(m, s, cache, f.batch, !f.readLogits); err != nil {
				return err
			}
		}
		return nil
	}
	withCache := func(fn func(backend.KVCache) (time.Duration, error)) (time.Duration, error) {
		cache, err := m.NewCache(f.batch, ctx)
		if err != nil {
			return 0, err
		}
		defer m.ReleaseCache(cache)
		return fn(cache)
	}
	for _, pp := range f.pp {
		if pp == 0 {
			continue
		}
		test := fmt.Sprintf("pp%d", pp)
		if f.depth > 0 {
			test += fmt.Sprintf(" @ d%d", f.depth)
		}
		err := measure(test, pp, 0, func() (time.Duration, error) {
			return withCache(func(c backend.KVCache) (time.Duration, error) {
				if f.depth > 0 { // the prompt follows the depth's positions of sequence 0, as llama-bench's pp @ d
					if err := promptSeq(c, 0, 0, f.depth); err != nil {
						return 0, err
					}
				}
				start := time.Now()
				err := promptSeq(c, 0, f.depth, pp)
				return time.Since(start), err
			})
		})
		if err != nil {
			return err
		}
	}
	for _, tg := range f.tg {
		if tg == 0 {
			continue
		}
		test := fmt.Sprintf("tg%d", tg)
		if f.batch > 1 {
			test += fmt.Sprintf(" ×%d seqs", f.batch)
		}
		if f.depth > 0 {
			test += fmt.Sprintf(" @ d%d", f.depth)
		}
		err := measure(test, 0, f.batch*tg, func() (time.Duration, error) {
			return withCache(func(c backend.KVCache) (time.Duration, error) {
				if err := deep(c); err != nil {
					return 0, err
				}
				start := time.Now()
				err := decode(c, f.depth, tg)
				return time.Since(start), err
			})
		})
		if err != nil {
			return err
		}
	}
	if p, ok := b.(backend.Profiler); ok && f.profile { // the largest -p prompt, then up to 16 steps of the largest -n
		steps := max(1, min(maxTG, 16))
		_, err := withCache(func(c backend.KVCache) (time.Duration, error) {
			if f.depth > 0 { // the prompt and the steps after the depth, as the rows measured
				if err := deep(c); err != nil {
					return 0, err
				}
			}
			if maxPP > 0 {
				p.StartProfile()
				err := promptSeq(c, 0, f.depth, maxPP)
				rep.PromptKernels, rep.PromptRows = p.StopProfile(), maxPP
				if err != nil {
					return 0, err
				}
			}
			start := maxPP // after the prompt, as the tg row would follow it; a batch from 0 (its other sequences have no prompt)
			if f.batch > 1 {
				start = 0
			}
			if f.depth > 0 { // or after the depth, as the tg rows decode
				start = f.depth
			}
			p.StartProfile()
			err := decode(c, start, steps)
			rep.Kernels = p.StopProfile()
			return 0, err
		})
		if err != nil {
			return err
		}
		calls := 0
		for _, k := range rep.Kernels {
			calls += k.Calls
		}
		rep.LaunchesPerTok = float64(calls) / float64(steps)
	}
	if bw, ok := b.(backend.Bandwidth); ok && (f.profile || f.synthetic != "") {
		if v, err := bw.CopyBandwidth(); err == nil {
			rep.CopyBandwidth = v
		}
	}
	if f.synthetic != "" {
		rep.DecodeBytes, rep.Params, rep.ActiveParams = size.DecodeBytes, size.Params, size.ActiveParams
		if rep.CopyBandwidth > 0 {
			rep.RooflineTS = rep.CopyBandwidth / float64(size.DecodeBytes) * float64(f.batch)
		}
	}
	if mr, ok := b.(backend.MemoryReporter); ok {
		_, rep.PeakDeviceBytes = mr.MemoryUsed()
	}
	rep.PeakHostGB = peakMemoryGB()
	switch f.output {
	case "json":
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	case "csv":
		return writeBenchCSV(cmd.OutOrStdout(), rep.Rows)
	}
	writeBenchMD(cmd.OutOrStdout(), rep)
	return nil
}

// benchPicker is the bench verb's greedy picker: model.Greedy, which takes the device's picks, or with
// --read-logits the same choice made from every row's logits on the host (the path a sampler takes).
func benchPicker(readLogits bool) model.Picker {
	if readLogits {
		return pickerFunc(func(l []float32, _ []int) (int, error) {
			return sample.GreedyNormalizedArgmax(l, model.PicksRounding), nil
		})
	}
	return model.Greedy{}
}

// checkBenchSizes range-checks -r and every -p and -n value: a cache of positions is int32-indexed.
func checkBenchSizes(f *benchFlags) error {
	if err := checkRange("bench: -r", f.reps, 1, 1<<20, "1..1048576 runs per test"); err != nil {
		return err
	}
	if err := checkRange("bench: --bits", f.bits, 0, trellis.MaxK, "0 (dense) or "+bitsRange()); err != nil {
		return err
	}
	if f.bits != 0 && f.bits < trellis.MinK {
		return fmt.Errorf("bench: --bits %d: want 0 (dense) or %s", f.bits, bitsRange())
	}
	total := 0
	for _, l := range []struct {
		flag string
		v    []int
	}{{"-p", f.pp}, {"-n", f.tg}} {
		if len(l.v) == 0 {
			return fmt.Errorf("bench: %s: give at least one value (0: none)", l.flag)
		}
		for _, n := range l.v {
			if err := checkRange("bench: "+l.flag, n, 0, maxPositions/2, fmt.Sprintf("0..%d tokens", maxPositions/2)); err != nil {
				return err
			}
			total += n
		}
	}
	if total == 0 {
		return errors.New("bench: -p and -n are all 0: nothing to measure")
	}
	return nil
}

// benchSize is the model's stored bytes and parameters for the size and params columns.
func benchSize(f *benchFlags, m *model.Model) (model.SyntheticSize, error) {
	if f.synthetic != "" {
		return model.SyntheticStats(f.synthetic, f.quant())
	}
	return m.Size()
}

// humanParams writes a parameter count as llama-bench does: "494.03 M", "7.24 B".
func humanParams(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f B", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2f M", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.2f K", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// humanSize writes stored bytes as llama-bench does: "4.33 GiB", "12.50 MiB".
func humanSize(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
}

// writeBenchCSV writes the rows under a header of their JSON names, as llama-bench -o csv does.
func writeBenchCSV(w io.Writer, rows []benchRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "model_size", "model_n_params", "device", "n_threads", "test", "n_prompt", "n_gen", "avg_ts", "stddev_ts"})
	for _, r := range rows {
		cw.Write([]string{r.Model, fmt.Sprint(r.Size), fmt.Sprint(r.Params), r.Device, fmt.Sprint(r.Threads), r.Test,
			fmt.Sprint(r.NPrompt), fmt.Sprint(r.NGen), fmt.Sprintf("%.6f", r.AvgTS), fmt.Sprintf("%.6f", r.StdTS)})
	}
	cw.Flush()
	return cw.Error()
}

func writeBenchMD(w io.Writer, rep benchReport) {
	fmt.Fprintf(w, "| model | size | params | device | threads | test | t/s |\n| --- | ---: | ---: | --- | ---: | --- | ---: |\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %s | %.2f ± %.2f |\n", r.Model, humanSize(r.Size), humanParams(r.Params),
			r.Device, r.Threads, r.Test, r.AvgTS, r.StdTS)
	}
	if len(rep.PromptKernels) > 0 {
		fmt.Fprintf(w, "\nper-kernel profile of one pp%d prompt\n\n", rep.PromptRows)
		writeKernelTable(w, rep.PromptKernels, rep.CopyBandwidth)
	}
	if len(rep.Kernels) > 0 {
		fmt.Fprintf(w, "\nper-kernel profile of decode steps (%.1f launches per token)\n\n", rep.LaunchesPerTok)
		writeKernelTable(w, rep.Kernels, rep.CopyBandwidth)
	}
	if rep.CopyBandwidth > 0 && len(rep.Kernels)+len(rep.PromptKernels) > 0 {
		fmt.Fprintf(w, "\ncopy bandwidth measured: %.0f GB/s\n", rep.CopyBandwidth/1e9)
	}
	writeRoofline(w, rep)
	if rep.PeakDeviceBytes > 0 {
		fmt.Fprintf(w, "\npeak device memory: %.2f GiB\n", float64(rep.PeakDeviceBytes)/(1<<30))
	}
	fmt.Fprintf(w, "peak host memory: %.2f GB\n", rep.PeakHostGB)
}

// writeKernelTable prints kernels by device time, largest first, with their rate against the copy bandwidth.
func writeKernelTable(w io.Writer, kernels []backend.KernelTime, copyBW float64) {
	ks := append([]backend.KernelTime(nil), kernels...)
	sort.Slice(ks, func(i, j int) bool { return ks[i].Seconds > ks[j].Seconds })
	var total float64
	for _, k := range ks {
		total += k.Seconds
	}
	fmt.Fprintf(w, "| kernel | calls | time ms | share | GB/s | %% of copy bw |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, k := range ks {
		gbs := k.Bytes / k.Seconds / 1e9
		pct := "-"
		if copyBW > 0 {
			pct = fmt.Sprintf("%.1f", 100*k.Bytes/k.Seconds/copyBW)
		}
		fmt.Fprintf(w, "| %s | %d | %.3f | %.1f%% | %.1f | %s |\n", k.Name, k.Calls, 1e3*k.Seconds, 100*k.Seconds/total, gbs, pct)
	}
}

func meanSD(xs []float64) (float64, float64) {
	var s float64
	for _, x := range xs {
		s += x
	}
	mean := s / float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / float64(len(xs)-1))
}

// openBenchModel opens the device and the model bench measures: a model directory, or synthetic weights of a
// named architecture (built on the device that serves them).
func openBenchModel(f *benchFlags) (backend.Backend, *model.Model, string, error) {
	if f.synthetic == "" {
		d, err := openModelDir(f.modelDir)
		if err != nil {
			return nil, nil, "", err
		}
		b, m, err := openModel(f.device, d, false)
		return b, m, f.modelDir, err
	}
	qs, err := model.SyntheticQueries(f.synthetic)
	if f.bits > 0 {
		qs, err = model.SyntheticTrellisQueries(f.synthetic, f.quant())
	}
	if err != nil {
		return nil, nil, "", err
	}
	b, err := openFor(f.device, qs)
	if err != nil {
		return nil, nil, "", err
	}
	name := f.syntheticName()
	log.Info().Str("model", name).Msg("building synthetic weights")
	start := time.Now()
	var m *model.Model
	if f.bits > 0 {
		m, err = model.SyntheticTrellis(f.synthetic, f.quant(), f.seed, b)
	} else {
		m, err = model.Synthetic(f.synthetic, f.seed, b)
	}
	log.Info().Str("model", name).Dur("took", time.Since(start)).Msg("synthetic weights loaded")
	if err != nil {
		b.Close()
		return nil, nil, "", err
	}
	return b, m, name, nil
}

// quant is how the synthetic model is stored.
func (f *benchFlags) quant() model.SyntheticQuant {
	return model.SyntheticQuant{Bits: f.bits, BF16Head: f.bits > 0 && f.head == quantize.HeadBF16}
}

// syntheticName names the synthetic model in the rows: "qwen3-14b bf16", "qwen3-14b trellis 3-bit" (the head
// affine 8-bit, as quantize writes it), "qwen3-14b trellis 3-bit bf16-head".
func (f *benchFlags) syntheticName() string {
	switch {
	case f.bits == 0:
		return f.synthetic + " " + f.dtype
	case f.head == quantize.HeadBF16:
		return fmt.Sprintf("%s trellis %d-bit bf16-head", f.synthetic, f.bits)
	}
	return fmt.Sprintf("%s trellis %d-bit", f.synthetic, f.bits)
}

// writeRoofline prints a synthetic run's bandwidth roofline and how close each tg row came to it; without a
// measured copy bandwidth (the CPU), only the bytes.
func writeRoofline(w io.Writer, rep benchReport) {
	if rep.DecodeBytes == 0 {
		return
	}
	gb := float64(rep.DecodeBytes) / 1e9
	read := fmt.Sprintf("%.2f GB of weights read per decode step", gb)
	if rep.ActiveParams > 0 && rep.ActiveParams < rep.Params {
		read += fmt.Sprintf(" (the active parameters: %.2f G of %.2f G, the routed experts only)",
			float64(rep.ActiveParams)/1e9, float64(rep.Params)/1e9)
	}
	if rep.RooflineTS == 0 {
		fmt.Fprintf(w, "\nroofline: %s; no copy bandwidth measured on this device\n", read)
		return
	}
	fmt.Fprintf(w, "\nroofline: %s / %.0f GB/s copy bandwidth = %.1f tok/s\n", read, rep.CopyBandwidth/1e9, rep.RooflineTS)
	for _, r := range rep.Rows {
		if r.NGen > 0 {
			fmt.Fprintf(w, "%s: %.1f %% of the roofline\n", r.Test, 100*r.AvgTS/rep.RooflineTS)
		}
	}
}

// benchDryRun counts a synthetic model from its tensor headers: nothing is built and no device is opened.
func benchDryRun(w io.Writer, f *benchFlags) error {
	if f.synthetic == "" {
		return errors.New("bench: --dry-run counts a synthetic model: give --synthetic")
	}
	size, err := model.SyntheticStats(f.synthetic, f.quant())
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	rep := sizeReport{Model: f.syntheticName(), Params: size.Params, ActiveParams: size.ActiveParams, StoredBytes: size.StoredBytes,
		DecodeBytes: size.DecodeBytes}
	switch f.output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	case "csv": // -o csv used to print the markdown table
		cw := csv.NewWriter(w)
		cw.Write([]string{"model", "params", "active_params", "stored_bytes", "decode_bytes_per_token"})
		cw.Write([]string{rep.Model, fmt.Sprint(rep.Params), fmt.Sprint(rep.ActiveParams), fmt.Sprint(rep.StoredBytes), fmt.Sprint(rep.DecodeBytes)})
		cw.Flush()
		return cw.Error()
	}
	fmt.Fprintf(w, "| model | params | active params | stored GB | GB read per decode token |\n| --- | ---: | ---: | ---: | ---: |\n")
	fmt.Fprintf(w, "| %s | %d (%.2f G) | %.2f G | %.2f | %.2f |\n", rep.Model, rep.Params, float64(rep.Params)/1e9,
		float64(rep.ActiveParams)/1e9, float64(rep.StoredBytes)/1e9, float64(rep.DecodeBytes)/1e9)
	return nil
}

// benchSave is bench --save: the dense synthetic model written as a checkpoint (model.WriteSynthetic).
func benchSave(cmd *cobra.Command, f *benchFlags) error {
	if f.synthetic == "" || f.bits != 0 {
		return errors.New("bench: --save writes a dense --synthetic model (without --bits)")
	}
	start := time.Now()
	log.Info().Str("model", f.synthetic).Str("dir", f.save).Msg("writing the synthetic checkpoint")
	n, err := model.WriteSynthetic(f.synthetic, f.seed, f.save, model.SyntheticShardBytes)
	if err != nil {
		return fmt.Errorf("bench: --save: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s bf16, %.2f GB of tensors in %s\n", f.save, f.synthetic, float64(n)/1e9,
		time.Since(start).Round(100*time.Millisecond))
	return nil
}
