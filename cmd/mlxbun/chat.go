// The chat verb: an interactive terminal chat as mlx_lm.chat, reading one user message per line of stdin and
// streaming the reply through the model's chat template. The conversation is kept and re-rendered each turn; the
// scheduler's slot still holds the previous turn, so only the new tokens are prefilled. /reset forgets the
// conversation, /exit (or the end of stdin) quits.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/chat"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/scheduler"
)

type chatFlags struct {
	engineFlags
	system, kwargs   string
	maxTokens, topK  int
	temp, topP, minP float32
	seed             uint64
}

func newChat() *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Chat with a model in the terminal (one message per line; /reset, /exit)",
		Long: `chat reads user messages from stdin, one per line, and streams each reply to stdout, keeping the
conversation in the model's chat template (or --chat-template FILE). /reset starts a new conversation; /exit or
the end of stdin quits. Each turn's token counts (and how many came from the cache) go to stderr.`,
		Example: `  mlxbun chat --model ./Qwen3-0.6B
  mlxbun chat --model ./Qwen3-0.6B --system "Answer in one sentence." --temp 0.7 --seed 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runChat(cmd, &f) },
	}
	fl := cmd.Flags()
	f.engineFlags.register(fl, 1)
	fl.StringVar(&f.system, "system", "", "system message")
	fl.StringVar(&f.kwargs, "chat-template-args", "", `extra template variables as JSON, e.g. '{"enable_thinking":false}'`)
	fl.IntVarP(&f.maxTokens, "max-tokens", "n", 512, "most tokens a reply takes")
	fl.Float32Var(&f.temp, "temp", 0, "sampling temperature (0: greedy)")
	fl.Float32Var(&f.topP, "top-p", 1, "nucleus sampling mass (1: off)")
	fl.IntVar(&f.topK, "top-k", 0, "keep the k most likely tokens (0: off)")
	fl.Float32Var(&f.minP, "min-p", 0, "keep tokens with p >= min-p * p_max (0: off)")
	fl.Uint64Var(&f.seed, "seed", 0, "sampling seed")
	aliases(cmd, map[string]string{"system-prompt": "system", "temperature": "temp", "n-predict": "max-tokens"}) // as generate takes them
	return cmd
}

func runChat(cmd *cobra.Command, f *chatFlags) error {
	cacheBytes, err := f.check("chat")
	if err != nil {
		return err
	}
	if f.maxTokens < 1 {
		return fmt.Errorf("chat: --max-tokens %d: want at least 1", f.maxTokens)
	}
	kwargs, err := parseTemplateArgs("chat", f.kwargs)
	if err != nil {
		return err
	}
	params := sample.Params{Temp: f.temp, TopP: f.topP, TopK: f.topK, MinP: f.minP, Seed: f.seed}
	if err := params.Validate(); err != nil {
		return samplingError("chat", err)
	}
	e, err := f.load(cacheBytes, nil)
	if err != nil {
		return err
	}
	defer e.close(context.Background())
	if e.tmpl == nil {
		return errors.New("chat: the model has no chat template (give --chat-template FILE)")
	}
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	var history []chat.Message
	reset := func() {
		history = history[:0]
		if f.system != "" {
			history = append(history, chat.Message{Role: "system", Content: f.system})
		}
	}
	reset()
	in := bufio.NewScanner(cmd.InOrStdin())
	in.Buffer(make([]byte, 1<<16), 16<<20)
	fmt.Fprint(errOut, "> ")
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		switch line {
		case "":
			fmt.Fprint(errOut, "> ")
			continue
		case "/exit", "/quit":
			return nil
		case "/reset":
			reset()
			fmt.Fprint(errOut, "(new conversation)\n> ")
			continue
		case "/help", "/?":
			fmt.Fprint(errOut, chatHelp+"\n> ")
			continue
		}
		if chatCommand(line) { // a mistyped /rest would go to the model as the user's message
			fmt.Fprintf(errOut, "unknown command %s; %s\n> ", line, chatHelp)
			continue
		}
		history = append(history, chat.Message{Role: "user", Content: line})
		reply, err := chatTurn(e, history, kwargs, params, f.maxTokens, out, errOut)
		if err != nil {
			return err
		}
		history = append(history, chat.Message{Role: "assistant", Content: reply})
		fmt.Fprint(errOut, "> ")
	}
	if err := in.Err(); err != nil {
		return fmt.Errorf("chat: reading stdin: %w", err)
	}
	return nil
}

// chatHelp lists chat's commands.
const chatHelp = "/reset starts a new conversation, /exit quits (a message that starts with / and has a space goes to the model)"

// chatCommand reports whether line reads as a command, not a message: a slash and one word of letters.
func chatCommand(line string) bool {
	word, ok := strings.CutPrefix(line, "/")
	return ok && word != "" && strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// chatTurn renders the conversation, streams the reply to out and returns its text.
func chatTurn(e *engine, history []chat.Message, kwargs map[string]any, params sample.Params, maxTokens int, out, errOut io.Writer) (string, error) {
	rendered, err := e.tmpl.Render(history, true, kwargs)
	if err != nil {
		return "", err
	}
	prompt := e.tok.Encode(rendered, false)
	ctx := e.sched.Config().CtxSize
	if len(prompt) >= ctx {
		return "", fmt.Errorf("chat: the conversation is %d tokens, the context %d: /reset or a larger --ctx-size", len(prompt), ctx)
	}
	sampler, err := sample.New(params)
	if err != nil {
		return "", err
	}
	stream := e.tok.NewStream(true)
	st, err := e.sched.Submit(&scheduler.Request{Prompt: prompt, MaxTokens: min(maxTokens, ctx-len(prompt)),
		Picker: sampler, // plain greedy parameters take the device's picks
		Stop:   sample.NewStopper(e.eos, nil), Text: stream.Add, Flush: stream.Flush, TopLogprobs: -1})
	if err != nil {
		return "", err
	}
	var reply strings.Builder
	for {
		ev, _ := st.Next(context.Background())
		reply.WriteString(ev.Text)
		io.WriteString(out, ev.Text)
		if r := ev.Done; r != nil {
			fmt.Fprintln(out)
			if r.Err != nil {
				return "", r.Err
			}
			fmt.Fprintf(errOut, "[%d prompt tokens, %d cached; %d generated, %.1f tokens/s]\n", r.PromptTokens, r.CachedTokens,
				len(r.Generated), rate(len(r.Generated)-1, r.GenTime.Seconds()))
			return reply.String(), nil
		}
	}
}
