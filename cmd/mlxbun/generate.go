// The generate verb: load a model directory, build the prompt (chat template by default), sample, and stream
// text to stdout with speed and memory on stderr.
package main

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/draft"
	"github.com/mlxbun/mlxbun/internal/grammar"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

type generateFlags struct {
	modelDir, prompt, system, promptIDs, device, logitBias string
	noChatTemplate, jsonOut, ignoreEOS, checkTensors       bool
	maxTokens, topK, repContext, ctx                       int
	temp, topP, minP, repPenalty, presence, frequency      float32
	seed                                                   uint64
	stops                                                  []string
	chatKwargs                                             string
	constraint                                             constraintFlags
	adapters                                               []string  // LoRA adapter directories (--adapter)
	adapterScales                                          []float64 // their multipliers (--adapter-scale)
	draft, draftModel                                      string    // speculative drafts: none or ngram; a draft model dir
	draftMax                                               int
}

// untilEndContext is the context of --max-tokens -1 when neither --max-kv-size nor the model bounds it lower:
// llama.cpp's default -c, so "generate until the end" does not reserve a cache for the model's whole 128k.
const untilEndContext = 4096

// maxPositions bounds --max-tokens and --max-kv-size: positions are int32 in a forward step.
const maxPositions = math.MaxInt32

func newGenerate() *cobra.Command {
	var f generateFlags
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate text from a prompt, streaming it to stdout",
		Long: `generate loads a model directory (config.json, safetensors, tokenizer.json) and continues a prompt.
The prompt goes through the model's chat template unless --no-chat-template is given; without --prompt and
--prompt-ids (or with --prompt -) it is read from stdin. Sampling flags are named as mlx-lm names them, and
llama.cpp's spellings work too (-m, -p, -n, -s, -c, --n-predict, --ctx-size, --repeat-penalty); --temp 0 is
greedy. Without --seed the seed is drawn at random and logged at info level (--verbose) and in --json, so
--seed N replays a run. Prompt and generation speed and peak memory go to stderr; --json prints one record
instead of streaming.`,
		Example: `  mlxbun generate --model ./pycoder-12m --prompt "def fibonacci(n):" --no-chat-template
  mlxbun generate --model ./Qwen3-0.6B --prompt "Why is the sky blue?" --temp 0.7 --top-p 0.9 --seed 1
  mlxbun generate -m ./Qwen3-0.6B -p "Hi" -n -1 --temp 0.8 --repeat-penalty 1.1
  mlxbun generate --model ./tiny --prompt-ids 1,2,3 --max-tokens 8 --json
  mlxbun generate --model ./Qwen3-0.6B --json-schema '{"type":"object"}' --prompt "A JSON object:"
  mlxbun generate --model ./Qwen3-0.6B --adapter ./my-lora --adapter-scale 0.5 --prompt "Hi"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runGenerate(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.modelDir, "model", "m", "", "model directory or hub name org/name[@revision] (required)")
	fl.StringVarP(&f.prompt, "prompt", "p", "", `prompt text ("-": read stdin, as is the default without --prompt-ids)`)
	fl.StringVar(&f.system, "system", "", "system message for the chat template")
	fl.StringVar(&f.promptIDs, "prompt-ids", "", "comma-separated token ids fed directly (no tokenizer needed)")
	fl.BoolVar(&f.noChatTemplate, "no-chat-template", false, "feed the prompt as plain text")
	fl.StringVar(&f.chatKwargs, "chat-template-args", "", `extra template variables as JSON, e.g. '{"enable_thinking":false}'`)
	fl.IntVarP(&f.maxTokens, "max-tokens", "n", 100, "maximum new tokens (-1: until an end-of-sequence token or a full context)")
	fl.IntVarP(&f.ctx, "max-kv-size", "c", 0, fmt.Sprintf("context length in tokens (0: prompt + max-tokens, or %d with --max-tokens -1; capped by the model)", untilEndContext))
	fl.Float32Var(&f.temp, "temp", 0, "sampling temperature (0: greedy)")
	fl.Float32Var(&f.topP, "top-p", 1, "nucleus sampling mass in [0, 1] (0 and 1: off)")
	fl.IntVar(&f.topK, "top-k", 0, "keep the k most likely tokens (0: off)")
	fl.Float32Var(&f.minP, "min-p", 0, "keep tokens with p >= min-p * p_max, in [0, 1] (0: off)")
	fl.Float32Var(&f.repPenalty, "repetition-penalty", 0, "penalty for tokens in the recent context (0 and 1: off)")
	fl.IntVar(&f.repContext, "repetition-context-size", 20, "recent tokens the penalties look at")
	fl.Float32Var(&f.presence, "presence-penalty", 0, "subtracted once from seen tokens' logits")
	fl.Float32Var(&f.frequency, "frequency-penalty", 0, "subtracted per occurrence from seen tokens' logits")
	fl.StringVar(&f.logitBias, "logit-bias", "", "comma-separated id=bias pairs, e.g. 13=-100,42=2.5")
	fl.Uint64VarP(&f.seed, "seed", "s", 0, "sampling seed (default: drawn at random, logged at info level and in --json)")
	fl.StringArrayVar(&f.stops, "stop", nil, "stop string (repeatable)")
	fl.BoolVar(&f.ignoreEOS, "ignore-eos", false, "keep generating past end-of-sequence tokens")
	fl.BoolVar(&f.checkTensors, "check-tensors", false, "scan every floating weight (adapters too) for NaN and Inf at load")
	fl.StringVar(&f.device, "device", "auto", deviceHelp("device"))
	fl.BoolVar(&f.jsonOut, "json", false, "print one JSON record (text, ids, seed, timings) instead of streaming")
	f.constraint.register(fl)
	fl.StringArrayVar(&f.adapters, "adapter", nil, "LoRA adapter directory, PEFT or mlx-lm layout (repeatable; the deltas add up)")
	fl.Float64SliceVar(&f.adapterScales, "adapter-scale", nil, "multiplier of each --adapter's own scale, in the same order (default 1 each)")
	fl.StringVar(&f.draft, "draft", "none", "speculative decoding: none, or ngram (prompt lookup, as llama.cpp's --lookup; same output)")
	fl.IntVar(&f.draftMax, "draft-max", 7, "draft tokens a step at most (with --draft)")
	fl.StringVar(&f.draftModel, "draft-model", "", "a small model of the same vocabulary that drafts (speculative decoding; same output)")
	aliases(cmd, map[string]string{
		"system-prompt": "system", "ignore-chat-template": "no-chat-template", "adapter-path": "adapter", // mlx-lm
		"n-predict": "max-tokens", "ctx-size": "max-kv-size", "repeat-penalty": "repetition-penalty", // llama.cpp
		"temperature": "temp", // the OpenAI request field's name, as people type it
	})
	return cmd
}

// genRecord is the --json output. GenTPS is null when no decode step ran (fewer than two tokens: the first
// comes from the prompt's step).
type genRecord struct {
	Text         string   `json:"text"`
	PromptIDs    []int    `json:"prompt_ids"`
	GeneratedIDs []int    `json:"generated_ids"`
	StopReason   string   `json:"stop_reason"`
	Device       string   `json:"device"`
	Seed         uint64   `json:"seed"`
	PromptTPS    float64  `json:"prompt_tps"`
	GenTPS       *float64 `json:"generation_tps"`
	PromptSec    float64  `json:"prompt_seconds"`
	GenSec       float64  `json:"generation_seconds"`
	PeakMemGB    float64  `json:"peak_memory_gb"`
	Drafted      int      `json:"draft_tokens,omitempty"`
	Accepted     int      `json:"draft_accepted,omitempty"`
}

// checkGenerateFlags refuses flag values out of range and flags that would be ignored, before anything is read.
func checkGenerateFlags(f *generateFlags) error {
	if f.modelDir == "" {
		return errors.New("generate: --model is required")
	}
	if f.prompt != "" && f.promptIDs != "" {
		return errors.New("generate: use one of --prompt and --prompt-ids (both were given)")
	}
	if f.promptIDs != "" {
		if _, err := parseIDs("--prompt-ids", f.promptIDs); err != nil { // buildPrompt parses them again, after the model directory
			return fmt.Errorf("generate: %w", err)
		}
		for _, c := range []struct {
			set  bool
			flag string
		}{{f.system != "", "--system"}, {f.noChatTemplate, "--no-chat-template"}, {f.chatKwargs != "", "--chat-template-args"}} {
			if c.set {
				return fmt.Errorf("generate: %s applies to a text prompt; --prompt-ids are fed as given", c.flag)
			}
		}
	}
	if f.noChatTemplate && (f.system != "" || f.chatKwargs != "") {
		return errors.New("generate: --system and --chat-template-args fill the chat template, which --no-chat-template turns off")
	}
	if f.constraint.usesStdin() && (f.prompt == "-" || f.prompt == "" && f.promptIDs == "") {
		return errors.New("generate: the constraint reads stdin (-), so give the prompt with --prompt TEXT or --prompt-ids")
	}
	if f.maxTokens < -1 || f.maxTokens > maxPositions {
		return fmt.Errorf("generate: --max-tokens %d: want 0..%d, or -1 for until an end-of-sequence token or a full context", f.maxTokens, maxPositions)
	}
	if err := checkRange("generate: --max-kv-size", f.ctx, 0, maxPositions, fmt.Sprintf("0..%d tokens (0: sized from the prompt and --max-tokens)", maxPositions)); err != nil {
		return err
	}
	for _, s := range f.adapterScales {
		if err := checkFinite("generate: --adapter-scale", s); err != nil {
			return err
		}
	}
	return nil
}

// randomSeed draws a sampling seed below 2⁵³, so that a JSON reader holding numbers as doubles replays it exactly.
func randomSeed() uint64 {
	var b [8]byte
	crand.Read(b[:]) // never fails (crypto/rand)
	return binary.LittleEndian.Uint64(b[:]) >> 11
}

// samplingError renders sample's parameter errors as one line naming verb's flags.
func samplingError(verb string, err error) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var msgs []string
	for _, e := range errs {
		var pe *sample.ParamError
		if errors.As(e, &pe) {
			msgs = append(msgs, "--"+pe.Error())
		} else {
			msgs = append(msgs, e.Error())
		}
	}
	return errors.New(verb + ": " + strings.Join(msgs, "; "))
}

// nonFiniteHint adds to an error about NaN or Inf logits where to look next.
func nonFiniteHint(err error, checked bool) error {
	switch {
	case !errors.Is(err, model.ErrNonFinite):
		return err
	case checked:
		return fmt.Errorf("%w; every weight passed --check-tensors, so the forward pass itself overflowed", err)
	}
	return fmt.Errorf("%w; run again with --check-tensors to find a weight holding NaN or Inf", err)
}

func runGenerate(cmd *cobra.Command, f *generateFlags) error {
	// Given and empty (-p "$UNSET") is a mistake, not the stdin default: it would wait on a terminal, or run
	// --prompt-ids "" as a text prompt asking for a tokenizer.
	if cmd.Flags().Changed("prompt") && f.prompt == "" {
		return errors.New("generate: --prompt is empty (give the text, or - to read it from stdin)")
	}
	if cmd.Flags().Changed("prompt-ids") && strings.TrimSpace(f.promptIDs) == "" {
		return errors.New("generate: --prompt-ids is empty (give comma-separated token ids)")
	}
	for _, s := range f.stops {
		if s == "" {
			return errors.New(`generate: --stop "": an empty stop string matches nowhere (give the text that ends the output)`)
		}
	}
	if err := checkGenerateFlags(f); err != nil {
		return err
	}
	if !cmd.Flags().Changed("seed") {
		f.seed = randomSeed()
		log.Info().Uint64("seed", f.seed).Msg("sampling seed drawn at random (--seed replays it)")
	}
	if f.draft != "none" && f.draft != "ngram" {
		return fmt.Errorf("generate: --draft %q: want none or ngram", f.draft)
	}
	if f.draftMax < 1 {
		return fmt.Errorf("generate: --draft-max %d: want at least 1 draft token", f.draftMax)
	}
	if f.draft == "ngram" && f.draftModel != "" {
		return errors.New("generate: give --draft ngram or --draft-model, not both")
	}
	params := sample.Params{Temp: f.temp, TopP: f.topP, TopK: f.topK, MinP: f.minP, RepetitionPenalty: f.repPenalty,
		RepetitionContextSize: f.repContext, PresencePenalty: f.presence, FrequencyPenalty: f.frequency, Seed: f.seed}
	bias, err := parseLogitBias(f.logitBias)
	if err != nil {
		return err
	}
	params.LogitBias = bias
	sampler, err := sample.New(params)
	if err != nil {
		return samplingError("generate", err)
	}
	var gram *grammar.Grammar
	if f.constraint.set() {
		if gram, err = f.constraint.parse(cmd.InOrStdin()); err != nil {
			return err
		}
	}
	adapters, err := openAdapters(f.adapters, f.adapterScales)
	if err != nil {
		return err
	}
	d, err := openModelDir(f.modelDir)
	if err != nil {
		return err
	}
	cfg, err := d.Config()
	if err != nil {
		return err // before the tokenizer, so a directory without config.json says that
	}
	for id := range bias {
		if id >= cfg.VocabSize {
			return fmt.Errorf("generate: --logit-bias: id %d is outside the vocabulary of %d (ids 0..%d)", id, cfg.VocabSize, cfg.VocabSize-1)
		}
	}
	if gram != nil && !d.HasTokenizer() {
		return fmt.Errorf("%s: %s needs the model's tokenizer to map tokens to text, and there is no %s", d.Path(), f.constraint.name(), modeldir.TokenizerFile)
	}
	tok, err := loadTokenizer(d, f.promptIDs == "")
	if err != nil {
		return err
	}
	prompt, plain, err := buildPrompt(cmd.InOrStdin(), f, d, tok, cfg.VocabSize)
	if err != nil {
		return err
	}
	maxTokens, ctx := f.maxTokens, f.ctx
	if maxTokens == -1 {
		if ctx == 0 {
			ctx = untilEndContext
			if mp := cfg.MaxPositions; mp > 0 {
				ctx = min(ctx, mp)
			}
		}
		if len(prompt) >= ctx {
			return fmt.Errorf("generate: --max-tokens -1: the %d prompt tokens leave no room in a context of %d", len(prompt), ctx)
		}
		maxTokens = maxPositions // the context ends it (stop reason "context"), unless an end id comes first
	}
	b, m, err := openModel(f.device, d, f.checkTensors, adapters...)
	if err != nil {
		return err
	}
	defer b.Close()
	defer m.Close()
	if plain { // after the load, so a model that fails to load says one line
		log.Warn().Msg("the model has no chat template: the prompt goes in as plain text (--no-chat-template says so and drops this notice)")
	}
	tokEOS := -1
	if tok != nil {
		tokEOS = tok.Specials().EOS
	}
	out := cmd.OutOrStdout()
	stopper := sample.NewStopper(sample.EndIDs(m.Config.EOS, tokEOS, f.ignoreEOS), f.stops)
	var text strings.Builder
	emit := func(s string) {
		text.WriteString(s)
		if !f.jsonOut {
			io.WriteString(out, s)
		}
	}
	opt := model.GenOptions{
		MaxTokens: maxTokens, Context: ctx, Stop: stopper, OnText: emit,
		Picker: sampler, // a model.GreedyPicker: with plain greedy parameters Generate takes the device's picks
	}
	var constrained *grammar.Picker
	if gram != nil {
		tabs, err := compileConstraint(gram, f.constraint.name(), tok, cfg.VocabSize,
			sample.EndIDs(m.Config.EOS, tokEOS, f.ignoreEOS))
		if err != nil {
			return err
		}
		constrained = grammar.NewPicker(sampler, tabs)
		opt.Picker, opt.Halt = constrained, constrained.Halt
	}
	if f.draft == "ngram" {
		opt.Draft, opt.DraftMax = draft.NewNGram(f.draftMax, 1, 3), f.draftMax
	}
	if f.draftModel != "" {
		dm, pool, err := openDraftModel(f.draftModel, b, m, len(prompt)+f.maxTokens+1)
		if err != nil {
			return err
		}
		defer dm.Close()
		defer pool.Close()
		opt.Draft, opt.DraftMax = pool.Drafter(0, f.draftMax), f.draftMax
	}
	var stream *tokenizer.Stream
	if tok != nil {
		stream = tok.NewStream(true)
		opt.Text = stream.Add
	}
	res, err := m.Generate(prompt, opt)
	if err != nil {
		return nonFiniteHint(err, f.checkTensors)
	}
	if stream != nil {
		emit(stopper.Finish(stream.Flush()))
	}
	// The positions fed: the prompt's and every generated token's but the last, which ends the run unfed (a run
	// stopped by a context of max_position_embeddings fills the positions and does not pass them).
	if mp, used := cfg.MaxPositions, len(res.Prompt)+max(len(res.Generated)-1, 0); mp > 0 && used > mp {
		// As llama.cpp warns: the positions are computed, but past what the model was trained on.
		log.Warn().Msgf("--max-kv-size %d took the run to %d positions, past the model's %d (max_position_embeddings): the output past them may degrade", ctx, used, mp)
	}
	if res.StopReason == "context" && !f.jsonOut { // --json says so in stop_reason; the streamed text just ends
		size, whose := ctx, "-c/--ctx-size"
		if size == 0 { // prompt + --max-tokens, capped by the model: a context stop means the cap was reached
			size, whose = cfg.MaxPositions, "the model's max_position_embeddings"
		}
		log.Warn().Str("stop_reason", res.StopReason).Msgf("generation stopped at the context limit after %d tokens: the context of %d (%s) is full; raise -c/--ctx-size (--max-kv-size) for a longer output",
			len(res.Generated), size, whose)
	}
	if constrained != nil {
		if !constrained.Complete() {
			log.Warn().Str("stop_reason", res.StopReason).Msg("the output is incomplete: generation stopped before the grammar's end")
		}
		n, waited := constrained.Waited()
		log.Debug().Int("fills", n).Dur("waited", waited).Msg("token masks (time not hidden behind the forward pass)")
	}
	rec := genRecord{Text: text.String(), PromptIDs: res.Prompt, GeneratedIDs: res.Generated, StopReason: res.StopReason,
		Device: b.Name(), Seed: f.seed, PromptSec: res.PromptTime.Seconds(), GenSec: res.GenTime.Seconds(), PeakMemGB: peakMemoryGB(),
		Drafted: res.Drafted, Accepted: res.Accepted}
	if rec.GeneratedIDs == nil {
		rec.GeneratedIDs = []int{} // --max-tokens 0: an empty list, not null
	}
	rec.PromptTPS = rate(len(res.Prompt), res.PromptTime.Seconds())
	// The first new token comes from the prompt's step; the decode steps make the rest.
	if r := rate(len(res.Generated)-1, res.GenTime.Seconds()); r > 0 {
		rec.GenTPS = &r
	}
	if f.jsonOut {
		enc := json.NewEncoder(out)
		return enc.Encode(rec)
	}
	fmt.Fprintln(out)
	gen := "n/a tokens-per-sec (no decode step: the first token comes with the prompt)"
	if rec.GenTPS != nil {
		gen = fmt.Sprintf("%.3f tokens-per-sec", *rec.GenTPS)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "==========\nPrompt: %d tokens, %.3f tokens-per-sec\nGeneration: %d tokens, %s\nPeak memory: %.3f GB\n",
		len(res.Prompt), rec.PromptTPS, len(res.Generated), gen, rec.PeakMemGB)
	if res.Drafted > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "Drafts: %d of %d accepted (%.0f %%), %d decode steps for %d tokens\n",
			res.Accepted, res.Drafted, 100*float64(res.Accepted)/float64(res.Drafted), res.Steps, len(res.Generated))
	}
	return nil
}

// openDraftModel loads a draft model onto the target's backend with a cache of one sequence of ctx positions.
func openDraftModel(dir string, b backend.Backend, target *model.Model, ctx int) (*model.Model, *draft.ModelPool, error) {
	dm, err := model.Load(dir, b)
	if err != nil {
		return nil, nil, fmt.Errorf("--draft-model: %w", err)
	}
	if mp := dm.Config.MaxPositions; mp > 0 {
		ctx = min(ctx, mp)
	}
	pool, err := draft.NewModelPool(dm, 1, ctx, target.Config.VocabSize)
	if err != nil {
		dm.Close()
		return nil, nil, fmt.Errorf("--draft-model %s: %w", dir, err)
	}
	return dm, pool, nil
}

// openAdapters reads the --adapter directories, each with its --adapter-scale (all 1 when none is given).
func openAdapters(dirs []string, scales []float64) ([]*lora.Adapter, error) {
	if len(scales) > 0 && len(scales) != len(dirs) {
		return nil, fmt.Errorf("generate: %d --adapter-scale values for %d --adapter directories (give one per adapter, in order)", len(scales), len(dirs))
	}
	var out []*lora.Adapter
	for i, dir := range dirs {
		s := 1.0
		if len(scales) > 0 {
			s = scales[i]
		}
		a, err := lora.Open(dir, s)
		if err != nil {
			return nil, err
		}
		log.Info().Str("adapter", dir).Str("layout", string(a.Layout)).Int("modules", len(a.Targets)).Float64("scale", a.Targets[0].Scale).Msg("adapter")
		out = append(out, a)
	}
	return out, nil
}

// pickerFunc is a Picker from a function; it does not say it is greedy (model.GreedyPicker), so a generation
// with it reads every row's logits.
type pickerFunc func([]float32, []int) (int, error)

func (p pickerFunc) Pick(l []float32, h []int) (int, error) { return p(l, h) }

func rate(n int, sec float64) float64 {
	if n <= 0 || sec <= 0 {
		return 0
	}
	return float64(n) / sec
}

// loadTokenizer parses d's tokenizer.json; without one it is an error only when the prompt is text.
func loadTokenizer(d *modeldir.Dir, needed bool) (*tokenizer.Tokenizer, error) {
	if !d.HasTokenizer() {
		if needed {
			return nil, fmt.Errorf("%s: no %s (give --prompt-ids to run without a tokenizer)", d.Path(), modeldir.TokenizerFile)
		}
		return nil, nil
	}
	return d.Tokenizer()
}

// buildPrompt returns the prompt ids, and true when they are plain text for want of a chat template (the caller
// warns once the model has loaded): --prompt-ids as given (each checked against the vocabulary of the logits,
// vocab), else the text (flag or stdin) through the chat template (when the model has one and it is not disabled)
// and the tokenizer.
func buildPrompt(stdin io.Reader, f *generateFlags, d *modeldir.Dir, tok *tokenizer.Tokenizer, vocab int) ([]int, bool, error) {
	if f.promptIDs != "" {
		ids, err := parseIDs("--prompt-ids", f.promptIDs)
		if err != nil {
			return nil, false, err
		}
		for _, id := range ids {
			if id >= vocab {
				return nil, false, fmt.Errorf("--prompt-ids: id %d is outside the vocabulary of %d (ids 0..%d)", id, vocab, vocab-1)
			}
		}
		return ids, false, nil
	}
	text := f.prompt
	if text == "" || text == "-" {
		b, err := readArg("--prompt", "-", stdin, maxPromptBytes)
		if err != nil {
			return nil, false, err
		}
		text = string(b)
	}
	if text == "" {
		return nil, false, errors.New("generate: empty prompt (give --prompt, --prompt-ids or text on stdin)")
	}
	if f.noChatTemplate {
		return tok.Encode(text, true), false, nil
	}
	tmpl, err := d.ChatTemplate()
	if err != nil {
		if !errors.Is(err, modeldir.ErrNoChatTemplate) {
			return nil, false, err
		}
		if f.system != "" || f.chatKwargs != "" {
			return nil, false, fmt.Errorf("%s: --system and --chat-template-args fill a chat template, and the model has none", d.Path())
		}
		return tok.Encode(text, true), true, nil
	}
	var msgs []chat.Message
	if f.system != "" {
		msgs = append(msgs, chat.Message{Role: "system", Content: f.system})
	}
	msgs = append(msgs, chat.Message{Role: "user", Content: text})
	kwargs, err := parseTemplateArgs("generate", f.chatKwargs)
	if err != nil {
		return nil, false, err
	}
	rendered, err := tmpl.Render(msgs, true, kwargs)
	if err != nil {
		return nil, false, err
	}
	return tok.Encode(rendered, false), false, nil
}

// parseTemplateArgs reads --chat-template-args: a JSON object of template variables ("" for none). What is not an
// object is refused in words, not as encoding/json's "cannot unmarshal array into Go value of type map[string]...".
func parseTemplateArgs(verb, s string) (map[string]any, error) {
	if s == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: --chat-template-args %q: not JSON (%v at byte %d); want an object such as '{\"enable_thinking\":false}'", verb, s, err, se.Offset)
		}
		return nil, fmt.Errorf("%s: --chat-template-args %q: not JSON (%v); want an object such as '{\"enable_thinking\":false}'", verb, s, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: --chat-template-args %q: a JSON %s, want an object of template variables such as '{\"enable_thinking\":false}'", verb, s, jsonKind(v))
	}
	return obj, nil
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// parseIDs reads comma-separated token ids given to flag. Spaces around an id are allowed; an element that is
// empty or only spaces (1,,2 or a trailing 1,2,) is refused by its position, not dropped: it is most often a
// shell variable that came out empty.
func parseIDs(flag, s string) ([]int, error) {
	parts := strings.Split(s, ",")
	ids := make([]int, 0, len(parts))
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			where := ""
			switch {
			case len(parts) == 1:
				return nil, fmt.Errorf("%s: no ids given (want comma-separated token ids such as 1,2,3)", flag)
			case i == len(parts)-1:
				where = ", after a trailing comma"
			case i == 0:
				where = ", before a leading comma"
			}
			return nil, fmt.Errorf("%s %q: element %d of %d is empty%s (want comma-separated token ids such as 1,2,3)", flag, s, i+1, len(parts), where)
		}
		id, err := strconv.Atoi(part)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%s: element %d: %q is not a token id (a whole number from 0)", flag, i+1, part)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func parseLogitBias(s string) (map[int]float32, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int]float32{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		id, err1 := strconv.Atoi(k)
		bias, err2 := strconv.ParseFloat(v, 32)
		if !ok || err1 != nil || err2 != nil || id < 0 {
			return nil, fmt.Errorf("--logit-bias: %q is not id=bias", part)
		}
		if prev, dup := out[id]; dup { // one of the two would be dropped
			return nil, fmt.Errorf("--logit-bias: token %d is given twice (%v and %v)", id, prev, float32(bias))
		}
		out[id] = float32(bias)
	}
	return out, nil
}
