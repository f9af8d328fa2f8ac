// The serve verb: an OpenAI-compatible HTTP server (package server) over continuous batching (package scheduler)
// on one model. It listens on 127.0.0.1 by default before the model is loaded (/health answers 503 until then),
// loads the model, named LoRA adapters and the chat template, and on SIGINT or SIGTERM stops taking requests and
// lets those running finish within --shutdown-timeout before cancelling them.
package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/scheduler"
	"github.com/mlxbun/mlxbun/internal/server"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// engineFlags are what serve and chat share: the model, its device, adapters, template and the batching setup.
type engineFlags struct {
	modelDir, device, chatTemplate, draft string
	draftModel                            string
	adapters                              []string // NAME=DIR
	checkTensors                          bool
	parallel, ctx, prefillChunk, draftMax int
	queue                                 int // serve's --queue; chat has one user
	cacheBytes                            string
}

func (f *engineFlags) register(fl *pflag.FlagSet, parallel int) {
	fl.StringVarP(&f.modelDir, "model", "m", "", "model directory (required)") // -m and -c as llama-server spells them
	fl.StringVar(&f.device, "device", "auto", deviceHelp("device"))
	fl.StringVar(&f.chatTemplate, "chat-template", "", "Jinja chat template file to use instead of the model's")
	fl.StringArrayVar(&f.adapters, "adapter", nil, "LoRA adapter as NAME=DIR, chosen per request by model name (repeatable)")
	fl.BoolVar(&f.checkTensors, "check-tensors", false, "scan every floating weight for NaN and Inf at load")
	fl.IntVar(&f.parallel, "parallel", parallel, "sequences decoding together (slots)")
	fl.IntVarP(&f.ctx, "ctx-size", "c", 0, "context positions per slot (0: the model's max_position_embeddings, at most 4096)")
	fl.IntVar(&f.prefillChunk, "prefill-chunk", 256, "prompt tokens a batch step carries beside the decoding rows")
	fl.StringVar(&f.cacheBytes, "cache-bytes", "1G", "prompt cache bound (bytes; K, M, G suffixes; 0: off)")
	fl.StringVar(&f.draft, "draft", "none", "speculative drafts: none or ngram (prompt lookup)")
	fl.IntVar(&f.draftMax, "draft-max", 8, "draft tokens a step at most")
	fl.StringVar(&f.draftModel, "draft-model", "", "a small model of the same vocabulary that drafts (instead of --draft ngram)")
}

// engine is a loaded model with what serving it needs.
type engine struct {
	b        backend.Backend
	m        *model.Model
	dm       *model.Model // the draft model; nil without
	tok      *tokenizer.Tokenizer
	tmpl     *chat.Template
	eos      []int
	adapters []string
	sched    *scheduler.Scheduler
}

func (e *engine) close(ctx context.Context) {
	if e.sched != nil {
		if err := e.sched.Close(ctx); err != nil {
			log.Warn().Err(err).Msg("in-flight requests cancelled at shutdown")
		}
	}
	if e.dm != nil {
		e.dm.Close()
	}
	e.m.Close()
	e.b.Close()
}

// parseBytes reads a size with an optional K, M or G suffix (powers of 1024).
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	t := strings.ToUpper(strings.TrimSpace(s))
	for suf, m := range map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30} {
		if strings.HasSuffix(t, suf) || strings.HasSuffix(t, suf+"B") || strings.HasSuffix(t, suf+"IB") {
			mult = m
			t = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B"), suf)
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size in bytes (e.g. 512M, 2G)", s)
	}
	if n > math.MaxInt64/mult { // 17179869184G would wrap to 0 (a cache turned off)
		return 0, fmt.Errorf("%q is more bytes than a size holds", s)
	}
	return n * mult, nil
}

// checkFlags validates what can be checked before loading.
func (f *engineFlags) check(verb string) (int64, error) {
	if f.modelDir == "" {
		return 0, fmt.Errorf("%s: --model is required", verb)
	}
	if f.parallel < 1 {
		return 0, fmt.Errorf("%s: --parallel %d: want at least 1", verb, f.parallel)
	}
	for _, c := range []struct {
		flag  string
		v, lo int
		takes string
	}{
		{"--ctx-size", f.ctx, 0, "≥ 0 positions (0: the model's)"},
		{"--prefill-chunk", f.prefillChunk, 1, "at least 1 token"},
		{"--draft-max", f.draftMax, 1, "at least 1 draft token"},
	} {
		if err := checkRange(verb+": "+c.flag, c.v, c.lo, math.MaxInt32, c.takes); err != nil {
			return 0, err
		}
	}
	if f.draft != "none" && f.draft != "ngram" {
		return 0, fmt.Errorf("%s: --draft %q: want none or ngram", verb, f.draft)
	}
	if f.draft == "ngram" && f.draftModel != "" {
		return 0, fmt.Errorf("%s: give --draft ngram or --draft-model, not both", verb)
	}
	n, err := parseBytes(f.cacheBytes)
	if err != nil {
		return 0, fmt.Errorf("%s: --cache-bytes: %w", verb, err)
	}
	return n, nil
}

// load opens the model, its tokenizer, template and adapters, and starts the scheduler.
func (f *engineFlags) load(cacheBytes int64, onStep func(int, time.Duration)) (*engine, error) {
	type named struct {
		name string
		a    *lora.Adapter
	}
	var ads []named
	for _, spec := range f.adapters {
		name, dir, ok := strings.Cut(spec, "=")
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("--adapter %q: want NAME=DIR", spec)
		}
		a, err := lora.Open(dir, 1)
		if err != nil {
			return nil, err
		}
		ads = append(ads, named{name, a})
	}
	d, err := modeldir.Open(f.modelDir)
	if err != nil {
		return nil, err
	}
	if !d.HasTokenizer() {
		return nil, fmt.Errorf("%s: no %s: serving text needs the model's tokenizer", d.Path(), modeldir.TokenizerFile)
	}
	tok, err := d.Tokenizer()
	if err != nil {
		return nil, err
	}
	var tmpl *chat.Template
	sp := tok.Specials()
	if f.chatTemplate != "" {
		src, err := userfile.Read(f.chatTemplate, userfile.Template)
		if err != nil {
			return nil, fmt.Errorf("--chat-template: %w", err)
		}
		if tmpl, err = chat.ParseFrom(f.chatTemplate, string(src), sp.BOSText, sp.EOSText); err != nil {
			return nil, err
		}
	} else if tmpl, err = d.ChatTemplate(); err != nil {
		if !errors.Is(err, modeldir.ErrNoChatTemplate) {
			return nil, err
		}
		tmpl = nil
		log.Info().Msg("the model has no chat template: chat requests are refused (give --chat-template FILE)")
	}
	b, m, err := openModel(f.device, d, f.checkTensors)
	if err != nil {
		return nil, err
	}
	e := &engine{b: b, m: m, tok: tok, tmpl: tmpl, eos: sample.EndIDs(m.Config.EOS, sp.EOS, false)}
	for _, a := range ads {
		if err := m.AttachAdapterSet(a.name, []*lora.Adapter{a.a}); err != nil {
			e.close(context.Background())
			return nil, err
		}
		e.adapters = append(e.adapters, a.name)
	}
	if f.draftModel != "" {
		if e.dm, err = model.Load(f.draftModel, b); err != nil {
			e.close(context.Background())
			return nil, fmt.Errorf("--draft-model: %w", err)
		}
	}
	e.sched, err = scheduler.New(m, scheduler.Config{DraftModel: e.dm, Parallel: f.parallel, CtxSize: f.ctx, PrefillChunk: f.prefillChunk,
		CacheBytes: cacheBytes, Draft: f.draft == "ngram", DraftMax: f.draftMax, QueueLimit: f.queue, Log: log, OnStep: onStep})
	if err != nil {
		e.close(context.Background())
		return nil, err
	}
	return e, nil
}

type serveFlags struct {
	engineFlags
	host, apiKey, alias, maxBody string
	port, maxTokens              int
	shutdown                     time.Duration
}

func newServe() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a model over an OpenAI-compatible HTTP API (continuous batching, prompt cache)",
		Long: `serve runs an HTTP server on --host:--port (127.0.0.1:8080) with /v1/chat/completions, /v1/completions
(streaming or not), /v1/models, /health, /tokenize, /detokenize and /metrics (Prometheus). Up to --parallel
requests decode together; the others wait in a queue of --queue (then 429). A request's prompt starts from the
longest prefix a slot or the prompt cache (--cache-bytes) still holds. --api-key (or MLXBUN_API_KEY) requires
"Authorization: Bearer KEY" on every endpoint but /health. A request field the server does not support is a 400
naming it.`,
		Example: `  mlxbun serve --model ./Qwen3-0.6B
  mlxbun serve --model ./Qwen3-0.6B --parallel 8 --ctx-size 8192 --port 8000 --api-key secret
  mlxbun serve --model ./base --adapter sql=./sql-lora --adapter chat=./chat-lora   # "model": "sql" picks one
  curl -s localhost:8080/v1/chat/completions -d '{"messages":[{"role":"user","content":"Hi"}]}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, &f) },
	}
	fl := cmd.Flags()
	f.engineFlags.register(fl, 4)
	fl.StringVar(&f.host, "host", "127.0.0.1", "address to listen on")
	fl.IntVar(&f.port, "port", 8080, "port to listen on (0: any free port)")
	fl.StringVar(&f.apiKey, "api-key", "", "require this Bearer token (default: $MLXBUN_API_KEY)")
	fl.StringVar(&f.alias, "alias", "", "model id the API reports (default: the model directory's name)")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "most tokens one request may generate (0: the context size)")
	fl.IntVar(&f.queue, "queue", 0, "requests waiting for a slot at most (0: 64 per slot)")
	fl.StringVar(&f.maxBody, "max-body", "4M", "largest request body")
	fl.DurationVar(&f.shutdown, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long running requests may take to finish")
	return cmd
}

func runServe(cmd *cobra.Command, f *serveFlags) error {
	cacheBytes, err := f.check("serve")
	if err != nil {
		return err
	}
	maxBody, err := parseBytes(f.maxBody)
	if err != nil || maxBody <= 0 {
		return fmt.Errorf("serve: --max-body %q: want a positive size", f.maxBody)
	}
	if err := checkRange("serve: --max-tokens", f.maxTokens, 0, math.MaxInt32, "≥ 0 tokens (0: the context size)"); err != nil {
		return err
	}
	if err := checkRange("serve: --queue", f.queue, 0, math.MaxInt32, "≥ 0 requests (0: 64 per slot)"); err != nil {
		return err
	}
	if err := checkRange("serve: --port", f.port, 0, 65535, "0..65535 (0: any free port)"); err != nil {
		return err
	}
	if f.shutdown < 0 {
		return fmt.Errorf("serve: --shutdown-timeout %v: want ≥ 0 (0: cancel running requests at once)", f.shutdown)
	}
	key := f.apiKey
	if key == "" {
		key = os.Getenv("MLXBUN_API_KEY")
	}
	name := f.alias
	if name == "" {
		name = filepath.Base(filepath.Clean(f.modelDir))
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(f.host, strconv.Itoa(f.port)))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := server.New(server.Options{ModelName: name, APIKey: key, MaxBodyBytes: maxBody, MaxTokens: f.maxTokens, Log: log})
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(cmd.ErrOrStderr(), "mlxbun serve: listening on http://%s (model %s loading)\n", ln.Addr(), name)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	type loaded struct {
		e   *engine
		err error
	}
	ready := make(chan loaded, 1)
	go func() {
		e, err := f.load(cacheBytes, srv.ObserveStep)
		ready <- loaded{e, err}
	}()
	var e *engine
	select {
	case l := <-ready:
		if l.err != nil {
			srv.Fail(l.err)
			hs.Close()
			return l.err
		}
		e = l.e
	case s := <-sig:
		hs.Close()
		return fmt.Errorf("serve: %v while loading", s)
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	}
	srv.Ready(&server.Engine{Sched: e.sched, Tok: e.tok, Template: e.tmpl, EOS: e.eos, VocabSize: e.m.Config.VocabSize, Adapters: e.adapters})
	cfg := e.sched.Config()
	log.Info().Str("device", e.b.Name()).Int("parallel", cfg.Parallel).Int("ctx", cfg.CtxSize).Int64("cache_bytes", cfg.CacheBytes).
		Bool("draft", cfg.Draft).Msg("ready")
	fmt.Fprintf(cmd.ErrOrStderr(), "mlxbun serve: ready on %s (%d slots × %d positions)\n", e.b.Name(), cfg.Parallel, cfg.CtxSize)
	select {
	case s := <-sig:
		fmt.Fprintf(cmd.ErrOrStderr(), "mlxbun serve: %v: finishing running requests (at most %v)\n", s, f.shutdown)
	case err := <-served:
		e.close(context.Background())
		return fmt.Errorf("serve: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.shutdown)
	defer cancel()
	done := make(chan struct{})
	go func() { // the scheduler drains (or cancels at the deadline), which lets the handlers return
		if err := e.sched.Close(ctx); err != nil {
			log.Warn().Err(err).Msg("requests cancelled at the shutdown deadline")
		}
		close(done)
	}()
	// The handlers get a moment past the deadline to write their requests' last events.
	hctx, hcancel := context.WithTimeout(context.Background(), f.shutdown+2*time.Second)
	defer hcancel()
	if err := hs.Shutdown(hctx); err != nil {
		hs.Close()
	}
	<-done
	e.sched = nil
	e.close(ctx)
	return nil
}
