// The quantize verb: trellis-code a Hugging Face checkpoint's attention and MLP projections into an mlxbun model
// directory (internal/quantize does the work), with a progress bar on a terminal, a line per layer at info level
// (--verbose), per-tensor lines at debug level, and a summary of bits per weight and SNR.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/quantize"
)

func newQuantize() *cobra.Command {
	var in, out, rules, emb, head, device, calib, lflag, cpuProf string
	best := quantize.Best(0)
	o := best
	var workers int
	var quiet, fast bool
	cmd := &cobra.Command{
		Use:   "quantize",
		Short: "Trellis-code a Hugging Face model's linear layers (1-8 bits per weight; 2-4 are the useful widths)",
		Long: `quantize reads an unquantized Hugging Face model directory (bf16, f16 or f32 safetensors) and writes an mlxbun
model: the q/k/v/o and gate/up projections trellis-coded, down_proj along its output dimension (3-bit down
projections in the block-interleaved layout when out-features are a multiple of 512), lm_head as MLX affine 8-bit
in groups of 64 (--head bf16 keeps it bf16), the embeddings and norms in bf16 (the embeddings affine 8-bit too with
--embeddings affine8), and config.json with a "quantization" block recording the settings; the tokenizer files are
copied. A tied model (no lm_head: the embedding table is the output projection) stays tied, its one table affine
8-bit unless both --head and --embeddings say bf16. In the hybrids (Qwen3.5, Qwen3-Next) the DeltaNet
projections and the MoE experts are coded too (each expert stack as one matrix along its input dimension); their
small gates and routers, conv weights, A_log and dt_bias are kept as they are.

The defaults are the best settings measured (docs/quantize.md): --rht codes each layer projection's
random-Hadamard-rotated weight R_out·W·R_inᵀ (incoherence processing; the sign vectors are stored beside the
codes), --axis0 codes every unfused projection whose out-features allow it along its output dimension, and
--calib auto runs the unquantized model (on --device) over --calib-tokens tokens it samples itself (temperature 1,
top-p 0.95, seeded by --calib-seed: no corpus needed), collects each linear's input Hessian H = XᵀX and chooses
the codes by LDLQ (feedback rounding against H + --damp·mean(diag H)·I, every --ldlq-rows inputs along axis 0),
then refits the axis-0 scales against H (--refit-scales). --calib FILE calibrates on the first --calib-tokens
tokens of a text file instead; --calib none rounds plainly. Each piece turns off on its own (--rht=false,
--axis0=false, --refit-scales=false). --fast is the plain coder (no rotation, no calibration: minutes instead of
the calibration's extra time, and lower quality); flags given beside it turn single pieces back on.

--bits-per-path gives some projections other widths: comma-separated pattern=bits rules over module paths such as
model.layers.0.mlp.down_proj, a pattern matching when the path contains it ('*' matching any run of characters);
the first matching rule wins. A projection whose coded dimension is not a multiple of --group-size is an error.

A progress bar shows on a terminal with the time left for the layer and for the run (--quiet: none); each layer
logs an info line with its time and the run's time left (--verbose); the summary on stdout gives the SNR and the
proxy loss tr(ΔW·H·ΔWᵀ) relative to tr(W·H·Wᵀ) (H = I without calibration).

The output is built beside --out and renamed into place when complete; an existing --out is an error unless
--force (which replaces only a model directory). Every finished layer is checkpointed in that work folder: a run
stopped by Ctrl-C or SIGTERM (which keeps the folder and says so) or killed continues from its last finished layer
with --resume (the same command plus --resume; the result is byte for byte an uninterrupted run's; a work folder
made from other inputs or settings is refused). Without --resume, work folders of runs that died are removed.

--device auto (the default) runs the trellis search on a CUDA GPU when one opens, else on the CPU (--device cuda
insists on the GPU, --device cpu keeps the CPU), with the same codes bit for bit (k 2-4, L 12-16; other specs
stay on the CPU), and the calibration model there too: the sampling and the Hessians XᵀX, accumulated on the
GPU in f32 and summed in f64 every 16,384 tokens (docs/quantize.md gives the bound), in passes over the layers
when the accumulators do not fit beside the model. The sampled tokens and the Hessians then differ from the
CPU's by the devices' rounding. --L auto (the default) codes at L 16 when the search runs on the GPU and serves
every width of the run there, else at L 12: the search costs 2^L states per position, about 10 µs per weight
per core at L 12 (a 1B-parameter model in on the order of an hour on 16 cores) and 16× that at L 16, which only
a GPU makes affordable (about 8 % lower coding error than L 12). The summary names the L used; the run record
holds it, so a run started on a GPU resumes on the CPU only with --L 16 given.`,
		Example: `  mlxbun quantize --model ./Qwen3-0.6B --bits 3 --out ./Qwen3-0.6B-3bit
  mlxbun quantize --model ./Qwen3-0.6B --bits 3 --out ./Qwen3-0.6B-3bit --resume     # after Ctrl-C or a crash
  mlxbun quantize --model ./pycoder-12m --bits 2 --calib calib.txt --out ./pycoder-2bit
  mlxbun quantize --model ./Llama-3.2-1B --bits 2 --bits-per-path 'mlp.down_proj=3,layers.0.*=4' --out ./llama-2bit
  mlxbun quantize --model ./pycoder-12m --bits 4 --fast --embeddings affine8 --out ./pycoder-4bit --force
  mlxbun quantize --model ./Qwen3-8B --bits 3 --head bf16 --out ./Qwen3-8B-3bit-bf16-head`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return errors.New("quantize: --model and --out are required")
			}
			if !cmd.Flags().Changed("bits") {
				return errors.New("quantize: --bits is required: " + bitsHelp)
			}
			var err error
			if o.L, err = parseL(lflag); err != nil {
				return err
			}
			if o.GroupSize < 1 {
				return fmt.Errorf("quantize: --group-size %d must be positive", o.GroupSize)
			}
			if workers < 0 {
				return fmt.Errorf("quantize: --workers %d must be positive (0: every core)", workers)
			}
			if err := checkFinite("quantize: --damp", o.Damp); err != nil {
				return err
			}
			if err := quantizeSettings(cmd, &o, calib, fast); err != nil {
				return err
			}
			if in, err = resolveModel(in); err != nil {
				return err
			}
			if o.Rules, err = quantize.ParseRules(rules); err != nil {
				return fmt.Errorf("quantize: %w", err)
			}
			o.Embeddings, o.Head = emb, head
			if workers > 0 {
				runtime.GOMAXPROCS(workers)
			}
			// Ctrl-C stops at the next trellis search batch or calibration step, keeping the finished layers' checkpoints
			// for --resume; a second one kills.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() { <-ctx.Done(); stop() }()
			o.Context = ctx

			dev, err := openEncoder(device)
			if err != nil {
				return err
			}
			defer dev.done()
			o.Searcher, o.Device = dev.search, dev.calib
			L, why := quantize.ResolveL(o)
			log.Info().Int("L", L).Str("why", why).Msg("trellis state bits")
			if cpuProf != "" {
				stopProf, err := startCPUProfile(cpuProf)
				if err != nil {
					return fmt.Errorf("quantize: %w", err)
				}
				defer func() {
					if err := stopProf(); err != nil {
						log.Error().Err(err).Msg("quantize: CPU profile")
					}
				}()
			}
			p := newQuantizeProgress(cmd.ErrOrStderr(), quiet)
			rep, err := quantize.Run(in, out, o, p.event)
			p.finish()
			if err != nil {
				if ctx.Err() != nil && errors.Is(err, context.Canceled) { // it said "quantize: context canceled"
					return &exitError{code: 130, err: stoppedMessage(out, err)}
				}
				return err
			}
			printQuantizeSummary(cmd.OutOrStdout(), out, rep)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&in, "model", "m", "", "input model directory (config.json + safetensors) or hub name org/name[@revision] (required)")
	fl.StringVar(&out, "out", "", "output model directory (required)")
	fl.IntVar(&o.Bits, "bits", 0, "trellis "+bitsHelp+" of the coded projections (required)")
	fl.StringVar(&lflag, "L", "auto", lHelp)
	fl.IntVar(&o.GroupSize, "group-size", quantize.DefaultGroupSize, "positions per coded block; group-size·bits must be a multiple of 32")
	fl.StringVar(&rules, "bits-per-path", "", "per-path bits: comma-separated pattern=bits rules, first match wins (e.g. 'mlp.down_proj=4,layers.0.*=4')")
	fl.StringVar(&emb, "embeddings", quantize.EmbeddingsBF16, "embed_tokens storage: bf16 or affine8 (MLX affine 8-bit, group 64)")
	fl.StringVar(&head, "head", quantize.HeadAffine8, "lm_head storage (of a tied model, the shared table's): affine8 (MLX affine 8-bit, group 64) or bf16")
	fl.BoolVar(&o.Force, "force", false, "replace an existing output model directory")
	fl.IntVar(&workers, "workers", 0, "encoder goroutines (0: every core)")
	fl.BoolVar(&quiet, "quiet", false, "no progress bar (the summary still goes to stdout)")
	fl.StringVar(&device, "device", "auto", encoderHelp)
	fl.BoolVar(&fast, "fast", false, "the plain coder: no rotation, no axis-0 coding, no calibration (flags given with it turn pieces back on)")
	fl.BoolVar(&o.Resume, "resume", false, "continue the stopped (Ctrl-C) or killed run for --out from its last finished layer (same flags; a run made with others is refused)")
	fl.BoolVar(&o.RHT, "rht", best.RHT, "random Hadamard incoherence processing (sign vectors stored beside the codes)")
	fl.Uint64Var(&o.Seed, "seed", quantize.DefaultSeed, "seed of the Hadamard sign vectors")
	fl.StringVar(&cpuProf, "cpu-profile", "", "write a CPU profile of the run to FILE (go tool pprof; also when the run is stopped)")
	fl.StringVar(&calib, "calib", "auto", "calibration: auto (tokens sampled from the model itself), a text FILE, or none (plain rounding, no LDLQ)")
	fl.Uint64Var(&o.CalibSeed, "calib-seed", best.CalibSeed, "with --calib auto: seed of the sampled calibration tokens")
	fl.BoolVar(&o.Axis0, "axis0", best.Axis0, "code every unfused projection whose out-features allow it along its output dimension (LDLQ feeds back every --ldlq-rows inputs)")
	fl.IntVar(&o.CalibTokens, "calib-tokens", best.CalibTokens, "calibration tokens: sampled (--calib auto) or read from the start of --calib FILE")
	fl.Float64Var(&o.Damp, "damp", best.Damp, "LDLQ damping λ: H + λ·mean(diag H)·I")
	fl.BoolVar(&o.Sequential, "sequential", false, "with calibration: collect each layer's Hessians with the earlier layers already quantized (one calibration pass per layer; not resumable)")
	fl.BoolVar(&o.Asymmetric, "asymmetric", false, "with --sequential: code the weight that maps the quantized model's layer inputs to the unquantized outputs (GPTAQ; experimental: worse on pycoder-12m)")
	fl.BoolVar(&o.RefitScales, "refit-scales", best.RefitScales, "with calibration: after LDLQ, re-solve the axis-0 scales jointly by least squares against the Hessian")
	fl.StringVar(&o.Hessians, "hessians", "", "with calibration: Hessian cache file, read when it matches the model and calibration, else written")
	fl.IntVar(&o.LDLQRows, "ldlq-rows", best.LDLQRows, "with calibration: axis-0 LDLQ feedback block in input features (0: 16; smaller feeds back more, searches less in parallel)")
	return cmd
}

// stoppedMessage is the one line of a run stopped by a signal: --out was not written, and either what its work
// folder keeps and how to continue (--resume; it deleted the folder before, so only a kill -9 could be resumed)
// or that nothing was kept.
func stoppedMessage(out string, err error) error {
	const head = "quantize: stopped by a signal before it finished; --out %s was not written"
	var s *quantize.Stopped
	if errors.As(err, &s) && s.Work != "" {
		return fmt.Errorf(head+"; %s are kept in %s: to continue, rerun the same command with --resume", out, s.Kept(), s.Work)
	}
	return fmt.Errorf(head+" (nothing to resume was finished: its work folder is removed)", out)
}

// quantizeSettings turns the flags into o: --calib's three spellings, --fast's plain coder under the flags given
// beside it, the calibration-only settings dropped (unless given) when there is no calibration, and one error
// for a flag whose setting the others switch off.
func quantizeSettings(cmd *cobra.Command, o *quantize.Options, calib string, fast bool) error {
	changed := cmd.Flags().Changed
	if fast {
		if !changed("rht") {
			o.RHT = false
		}
		if !changed("axis0") {
			o.Axis0 = false
		}
		if !changed("calib") {
			calib = "none"
		}
	}
	o.CalibAuto, o.Calib = false, ""
	switch calib {
	case "auto":
		o.CalibAuto = true
	case "none", "":
	default:
		o.Calib = calib
	}
	calibrated := o.CalibAuto || o.Calib != ""
	if !calibrated {
		if !changed("refit-scales") {
			o.RefitScales = false
		}
		if !changed("ldlq-rows") {
			o.LDLQRows = 0
		}
	}
	noCalib := "--calib none"
	if fast && !changed("calib") {
		noCalib = "--fast"
	}
	for _, c := range []struct {
		flag  string
		needs bool
		msg   string
	}{
		{"seed", o.RHT, "--seed draws the Hadamard signs: it needs --rht (off with --rht=false or --fast)"},
		{"damp", calibrated, "--damp damps LDLQ's Hessian: it needs calibration (" + noCalib + " turns it off)"},
		{"calib-tokens", calibrated, "--calib-tokens counts the calibration tokens: it needs calibration (" + noCalib + " turns it off)"},
		{"calib-seed", o.CalibAuto, "--calib-seed seeds the sampled calibration tokens: it needs --calib auto"},
		{"refit-scales", calibrated || !o.RefitScales, "--refit-scales refits against the calibration Hessians: it needs calibration (" + noCalib + " turns it off)"},
		{"ldlq-rows", calibrated, "--ldlq-rows is LDLQ's feedback block: it needs calibration (" + noCalib + " turns it off)"},
		{"sequential", calibrated || !o.Sequential, "--sequential collects the Hessians layer by layer: it needs calibration (" + noCalib + " turns it off)"},
		{"hessians", calibrated, "--hessians caches the calibration Hessians: it needs calibration (" + noCalib + " turns it off)"},
	} {
		if changed(c.flag) && !c.needs {
			return errors.New("quantize: " + c.msg)
		}
	}
	if changed("calib-tokens") && o.CalibTokens == 0 { // it ran as the package's 32768, not the 131072 the help gives
		return fmt.Errorf("quantize: --calib-tokens 0: want a positive number of tokens (default %d; %s turns calibration off)", quantize.BestCalibTokens, "--calib none")
	}
	return nil
}

// quantizeProgress shows a bar over the weights to encode with the time left for the layer and the run, or at
// debug level one log line per tensor instead, and an info line per calibration milestone and per finished layer.
type quantizeProgress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	show  bool
	debug bool
	layer layerTally
	eta   etaClock
	// Starts of the calibration stages (sampling, a pass over the windows, a flush), for the took fields of their
	// log lines: what scripts/device/quant.sh q14b extrapolates a full run from.
	sampleStart, calibStart, flushStart time.Time
	flushTook                           time.Duration // this pass's flushes so far
}

// etaClock estimates the time left from the encoding rate of this run: weights encoded (not taken from a
// checkpoint) per second since the first tensor was encoded.
type etaClock struct {
	start     time.Time
	startWork int64
	rate      float64 // weights per second; 0 until a tensor has been encoded
}

// update measures the rate at a Done event of an encoded tensor (work: the weights done so far).
func (c *etaClock) update(e quantize.Event) {
	if c.start.IsZero() {
		return
	}
	if d := time.Since(c.start).Seconds(); d > 0 && e.Work > c.startWork {
		c.rate = float64(e.Work-c.startWork) / d
	}
}

// skip leaves weights taken from a checkpoint after the clock started out of the rate.
func (c *etaClock) skip(weights int64) {
	if !c.start.IsZero() {
		c.startWork += weights
	}
}

// begin starts the clock at the first encoded tensor.
func (c *etaClock) begin(e quantize.Event) {
	if c.start.IsZero() {
		c.start, c.startWork = time.Now(), e.Work
	}
}

// left is the time the remaining weights take at the measured rate, "" before there is a rate.
func (c *etaClock) left(remaining int64) string {
	if c.rate <= 0 {
		return ""
	}
	d := time.Duration(float64(remaining) / c.rate * float64(time.Second))
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// layerTally sums one layer's tensors for its log line.
type layerTally struct {
	tensors       int
	snr, proxy    float64
	weights       int64
	elapsed       time.Duration
	rotated, ldlq int
	resumed       bool
}

// flushLayer logs the finished layer's line (e: its StageLayer event).
func (p *quantizeProgress) flushLayer(e quantize.Event) {
	t := p.layer
	if t.tensors > 0 {
		ev := log.Info().Str("layer", e.Tensor).Int("index", e.Index+1).Int("of", e.Count).Int("tensors", t.tensors).Int64("weights", t.weights).
			Str("mean_snr_db", fmt.Sprintf("%.2f", t.snr/float64(t.tensors))).
			Str("mean_proxy_rel", fmt.Sprintf("%.4g", t.proxy/float64(t.tensors))).
			Int("rotated", t.rotated).Int("ldlq", t.ldlq).Str("took", t.elapsed.Round(time.Millisecond).String())
		if t.resumed {
			ev = ev.Bool("from_checkpoint", true)
		}
		if eta := p.eta.left(e.Total - e.Work); eta != "" {
			ev = ev.Str("eta", eta)
		}
		ev.Msg("layer quantized")
	}
	p.layer = layerTally{}
}

func newQuantizeProgress(w io.Writer, quiet bool) *quantizeProgress {
	debug := log.GetLevel() <= zerolog.DebugLevel
	return &quantizeProgress{w: w, show: !quiet && !debug && isTerminal(w), debug: debug}
}

func (p *quantizeProgress) event(e quantize.Event) {
	switch e.Stage {
	case quantize.StageNote:
		log.Warn().Msg(e.Note)
		return
	case quantize.StageCalibrate:
		if !e.Done && e.Index == 0 {
			p.calibStart, p.flushTook = time.Now(), 0
		}
		if e.Done && (e.Index+1 == e.Count || (e.Index+1)%max(1, e.Count/8) == 0) {
			log.Info().Int("window", e.Index+1).Int("of", e.Count).Str("took", since(p.calibStart)).
				Str("flushes_took", p.flushTook.Round(time.Millisecond).String()).Msg("calibration: Hessians collected")
		}
		return
	case quantize.StageFlush:
		if !e.Done {
			p.flushStart = time.Now()
			return
		}
		d := time.Since(p.flushStart)
		p.flushTook += d
		log.Debug().Int("flush", e.Index+1).Int("of", e.Count).Str("took", d.Round(time.Millisecond).String()).
			Msg("calibration: device accumulators added to the host sums")
		return
	case quantize.StageSample:
		if !e.Done && e.Index == 0 {
			p.sampleStart = time.Now()
		}
		if e.Done && (e.Index+1 == e.Count || (e.Index+1)%max(1, e.Count/4) == 0) {
			log.Info().Int("batch", e.Index+1).Int("of", e.Count).Str("took", since(p.sampleStart)).Msg("calibration: sequences sampled from the model")
		}
		return
	case quantize.StageLayer:
		p.flushLayer(e)
		return
	}
	if !e.Done && !e.Resumed && e.Result == nil {
		p.eta.begin(e)
	}
	if e.Done {
		if r := e.Result; r != nil && r.Spec.Mode == "trellis" {
			t := &p.layer
			t.tensors++
			t.snr += r.SNRdB
			t.proxy += r.ProxyRel
			t.weights += int64(r.Shape[0]) * int64(r.Shape[1])
			t.elapsed += r.Elapsed
			if r.RotatedIn || r.RotatedOut {
				t.rotated++
			}
			if r.LDLQ {
				t.ldlq++
			}
			t.resumed = t.resumed || e.Resumed
			if e.Resumed {
				p.eta.skip(int64(r.Shape[0]) * int64(r.Shape[1]))
			} else {
				p.eta.update(e)
			}
		}
	}
	if p.debug && e.Done {
		ev := log.Debug().Str("tensor", e.Tensor).Int("index", e.Index+1).Int("of", e.Count)
		if r := e.Result; r != nil {
			ev = ev.Str("spec", specString(r.Spec, r.Interleaved)).Ints("shape", r.Shape[:]).
				Str("snr_db", fmt.Sprintf("%.2f", r.SNRdB)).Str("proxy", fmt.Sprintf("%.4g", r.Proxy)).
				Str("proxy_rel", fmt.Sprintf("%.4g", r.ProxyRel)).Bool("rht_in", r.RotatedIn).Bool("rht_out", r.RotatedOut).
				Bool("ldlq", r.LDLQ).Str("bits", fmt.Sprintf("%.4f", r.Bits)).Str("took", r.Elapsed.Round(time.Millisecond).String())
			if e.Resumed {
				ev = ev.Bool("from_checkpoint", true)
			}
			ev.Msg("quantized")
		} else {
			ev.Msg("copied")
		}
	}
	if !p.show || e.Total == 0 {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(e.Total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(),
			progressbar.OptionSetDescription("encoding"), progressbar.OptionThrottle(200*time.Millisecond))
	}
	if !e.Done {
		p.bar.Describe(barDescription(e, &p.eta))
	}
	p.bar.Set64(e.Work)
}

// barDescription is the bar's text for a starting tensor: its name, its layer's place and the time left for the
// layer and for the run ("layers.3.mlp.down_proj  layer 4/30 12s left, run 5m2s left").
func barDescription(e quantize.Event, c *etaClock) string {
	d := shortName(e.Tensor)
	if e.Layer >= 0 && e.Layers > 0 {
		d += fmt.Sprintf("  layer %d/%d", e.Layer+1, e.Layers)
		if l := c.left(e.LayerTotal - e.LayerWork); l != "" && e.LayerTotal > 0 {
			d += " " + l + " left"
		}
	}
	if l := c.left(e.Total - e.Work); l != "" {
		d += ", run " + l + " left"
	}
	return d
}

func (p *quantizeProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// since is the time from start, rounded for a log field.
func since(start time.Time) string { return time.Since(start).Round(time.Millisecond).String() }

// shortName drops the common prefix and suffix from a tensor name for the bar ("layers.3.mlp.down_proj").
func shortName(name string) string {
	return strings.TrimSuffix(strings.TrimPrefix(name, "model."), ".weight")
}

// specString is a short spelling of a spec: "trellis k3 L12 T256 axis0 interleaved", "affine 8-bit g64".
func specString(q config.QuantSpec, interleaved bool) string {
	if q.Trellis == nil {
		return fmt.Sprintf("%s %d-bit g%d", q.Mode, q.Bits, q.GroupSize)
	}
	s := fmt.Sprintf("trellis k%d L%d T%d axis%d", q.Bits, q.Trellis.L, q.GroupSize, q.Trellis.Axis)
	if interleaved {
		s += " interleaved"
	}
	return s
}

// printQuantizeSummary prints what was written, the bits per weight and the SNR.
func printQuantizeSummary(w io.Writer, out string, rep *quantize.Report) {
	coded := 0
	widths := map[string]int{}
	for _, t := range rep.Tensors {
		if t.Spec.Mode == "trellis" {
			coded++
		}
		widths[specWidth(t)]++
	}
	keys := make([]string, 0, len(widths))
	for k := range widths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var mix []string
	for _, k := range keys {
		mix = append(mix, fmt.Sprintf("%s ×%d", k, widths[k]))
	}
	fmt.Fprintf(w, "wrote %s: %d projections trellis-coded (%d weights), %d tensors kept in bf16\n", out, coded, rep.CodedWeights, len(rep.Kept))
	fmt.Fprintf(w, "  tensors      %s\n", strings.Join(mix, ", "))
	if coded > 0 {
		fmt.Fprintf(w, "  trellis      L %d (%s)\n", rep.L, rep.LWhy)
	}
	if len(rep.Copied) > 0 {
		fmt.Fprintf(w, "  copied       %d tensors outside the language model, as read: %s\n", len(rep.Copied), moduleCounts(rep.Copied))
	}
	fmt.Fprintf(w, "  bits/weight  %.4f over the coded projections, %.4f over all %d parameters\n", rep.BitsPerWeight, rep.BitsPerParam, rep.Params)
	fmt.Fprintf(w, "  SNR          mean %.2f dB, min %.2f dB (%s)\n", rep.MeanSNRdB, rep.MinSNRdB, rep.MinSNRTensor)
	hname := "H = I (no calibration)"
	if rep.Calibrated {
		hname = "H = calibration XᵀX"
	}
	fmt.Fprintf(w, "  proxy loss   mean tr(ΔW·H·ΔWᵀ)/tr(W·H·Wᵀ) %.4g, %s\n", rep.MeanProxyRel, hname)
	for _, t := range rep.Tensors {
		if t.Spec.Mode == "trellis" {
			fmt.Fprintf(w, "    %-40s SNR %6.2f dB  proxy %.4g (rel %.4g)%s\n", t.Name, t.SNRdB, t.Proxy, t.ProxyRel, tensorFlags(t))
		}
	}
	fmt.Fprintf(w, "  files        %s\n", strings.Join(rep.Files, ", "))
	fmt.Fprintf(w, "  time         %s\n", rep.Elapsed.Round(100*time.Millisecond))
}

// specWidth names a tensor's width for the summary: "3-bit", "3-bit interleaved", "affine 8-bit".
func specWidth(t quantize.TensorReport) string {
	switch {
	case t.Spec.Mode != "trellis":
		return fmt.Sprintf("%s %d-bit", t.Spec.Mode, t.Spec.Bits)
	case t.Interleaved:
		return fmt.Sprintf("%d-bit interleaved", t.Spec.Bits)
	}
	return fmt.Sprintf("%d-bit", t.Spec.Bits)
}

// tensorFlags marks a tensor's processing for the summary: " rht(in,out) ldlq".
func tensorFlags(t quantize.TensorReport) string {
	var f []string
	switch {
	case t.RotatedIn && t.RotatedOut:
		f = append(f, "rht(in,out)")
	case t.RotatedIn:
		f = append(f, "rht(in)")
	case t.RotatedOut:
		f = append(f, "rht(out)")
	}
	if t.LDLQ {
		f = append(f, "ldlq")
	}
	if len(f) == 0 {
		return ""
	}
	return "  " + strings.Join(f, " ")
}
