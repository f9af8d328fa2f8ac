// Command mlxbun runs trellis-quantized (and plain bf16) language models on the CPU, CUDA and Metal from one
// static binary. Each verb lives in its own file; this one wires the root command, logging and exit codes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	_ "github.com/mlxbun/mlxbun/internal/cpu" // registers the cpu device
	_ "github.com/mlxbun/mlxbun/internal/cuda"
)

// version is set by the Makefile through -ldflags.
var version = "dev"

// exitError carries a specific exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

var log zerolog.Logger

func newRoot() *cobra.Command {
	var level, format string
	var verbose bool
	root := &cobra.Command{
		Use:   "mlxbun",
		Short: "Run trellis-quantized language models on CPU, CUDA and Metal",
		Long: `mlxbun runs decoder-only language models (Llama, Qwen2/3, Phi-3, SmolLM3, ...) from Hugging Face or MLX
model directories, with linear layers in bf16 or QTIP trellis codes (2-4 bits per weight).

Examples:
  mlxbun generate --model ./Qwen3-0.6B --prompt "Why is the sky blue?"
  mlxbun tokenize --model ./Qwen3-0.6B --text "Hello world"`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if verbose && !cmd.Flags().Changed("log-level") {
				level = "info"
			}
			return setupLogging(level, format)
		},
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(flagError)
	root.Flags().Bool("version", false, "print the version and exit (as the version verb does)") // no -v: --verbose is not short either
	root.PersistentFlags().StringVar(&level, "log-level", "warn", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&format, "log-format", "console", "log format: console or json")
	root.PersistentFlags().BoolVar(&verbose, "verbose", false, "log at info level: the device chosen, the seed drawn, the stages (as --log-level info)")
	root.AddCommand(newGenerate(), newTokenize(), newBench(), newVerify(), newPerplexity(), newQuantize(), newVersion(), newCompileANE(), newDownload())
	root.AddCommand(newServe(), newChat())
	return root
}

func setupLogging(level, format string) error {
	lv, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	switch format {
	case "json":
		log = zerolog.New(os.Stderr).With().Timestamp().Logger().Level(lv)
	case "console":
		// Colours only on a terminal: escape codes in a log file or a pipe are noise.
		w := zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: time.TimeOnly, NoColor: !isTerminal(os.Stderr)}
		log = zerolog.New(w).With().Timestamp().Logger().Level(lv)
	default:
		return fmt.Errorf("--log-format %q: want console or json", format)
	}
	return nil
}

// isTerminal reports whether w is a terminal (a bar, a colour or a carriage return on a pipe or file is noise).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line and maps errors to one line on stderr and an exit code.
func run(args []string) int {
	root := newRoot()
	cliArgs = args
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintf(os.Stderr, "mlxbun: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
