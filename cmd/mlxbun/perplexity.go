// The perplexity verb: score a text file with a model over non-overlapping windows (as mlx-lm's and
// llama.cpp's perplexity tools do), reporting perplexity and bits per token and per byte.
package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/eval"
)

func newPerplexity() *cobra.Command {
	var dir, file, device string
	var ctx, limit int
	var jsonOut, quiet, checkTensors bool
	cmd := &cobra.Command{
		Use:   "perplexity",
		Short: "Score a text file: perplexity, bits per token and bits per byte",
		Long: fmt.Sprintf(`perplexity tokenizes --file (no special tokens; "-" reads stdin, at most %d MiB), cuts it into
non-overlapping windows of --ctx tokens from the start, runs each window from an empty cache and scores every
token after the window's first. A file that is not text (NUL bytes, or mostly invalid UTF-8) is scored with a
warning: its perplexity measures nothing useful. The progress bar shows on a terminal only.`, maxTextBytes>>20),
		Example: `  mlxbun perplexity --model ./pycoder-12m --file heldout.txt --ctx 512
  mlxbun perplexity -m ./Qwen3-0.6B-3bit -f wiki.test.raw -c 1024 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" || file == "" {
				return errors.New("perplexity: --model and --file are required")
			}
			if err := checkRange("perplexity: --ctx", ctx, 2, maxPositions, fmt.Sprintf("2..%d tokens per window", maxPositions)); err != nil {
				return err
			}
			if err := checkRange("perplexity: --max-bytes", limit, 0, maxTextBytes, fmt.Sprintf("0..%d (0: the whole file)", maxTextBytes)); err != nil {
				return err
			}
			read := int64(maxTextBytes)
			if limit > 0 {
				read = int64(limit)
			}
			text, err := readArgPrefix("--file", file, cmd.InOrStdin(), read, limit > 0)
			if err != nil {
				return fmt.Errorf("perplexity: %w", err)
			}
			if len(text) == 0 {
				return fmt.Errorf("perplexity: --file %s is empty", file)
			}
			if why := eval.NotText(text); why != "" {
				log.Warn().Str("file", file).Msgf("this is not text: %s; its perplexity measures nothing useful", why)
			}
			d, err := openModelDir(dir)
			if err != nil {
				return err
			}
			tok, err := d.Tokenizer()
			if err != nil {
				return err
			}
			ids := tok.Encode(string(text), false)
			if err := checkScorable(file, limit, len(ids), ctx); err != nil { // before the load: a short text says so at once
				return err
			}
			b, m, err := openModel(device, d, checkTensors)
			if err != nil {
				return err
			}
			defer b.Close()
			defer m.Close()
			var bar *progressbar.ProgressBar
			showBar := !quiet && isTerminal(cmd.ErrOrStderr())
			progress := func(done, total int) {
				if !showBar {
					return
				}
				if bar == nil {
					bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(cmd.ErrOrStderr()),
						progressbar.OptionSetDescription("windows"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
				}
				bar.Set(done)
			}
			res, err := eval.Perplexity(m, ids, ctx, func(id int) int { return len(tok.TokenBytes(id)) }, progress)
			if err != nil {
				return nonFiniteHint(err, checkTensors)
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				return json.NewEncoder(out).Encode(res)
			}
			fmt.Fprintf(out, "windows %d × %d tokens, %d tokens (%d bytes) scored\nperplexity %.4f\nbits/token %.4f\nbits/byte %.4f\n",
				res.Windows, res.Ctx, res.TokensScored, res.BytesScored, res.Perplexity, res.BitsPerToken, res.BitsPerByte)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&dir, "model", "m", "", "model directory or hub name org/name[@revision] (required)")
	fl.StringVarP(&file, "file", "f", "", `text file to score (required; "-": stdin)`)
	fl.IntVarP(&ctx, "ctx", "c", 512, "window length in tokens (at least 2)")
	fl.IntVar(&limit, "max-bytes", 0, "score only the first N bytes of the file (0: all)")
	fl.StringVar(&device, "device", "auto", deviceHelp("device"))
	fl.BoolVar(&jsonOut, "json", false, "print one JSON record")
	fl.BoolVar(&quiet, "quiet", false, "no progress bar")
	fl.BoolVar(&checkTensors, "check-tensors", false, "scan every floating weight for NaN and Inf at load")
	aliases(cmd, map[string]string{"ctx-size": "ctx"}) // llama-perplexity's -c
	return cmd
}

// checkScorable refuses a text of n tokens too short for one window of ctx: in one line, how many tokens it has,
// how many are needed and the --ctx that would score it. A window takes ctx+1 tokens (must match the window count
// of eval.Perplexity, (n-1)/ctx).
func checkScorable(file string, limit, n, ctx int) error {
	need := ctx + 1
	if n >= need {
		return nil
	}
	what := "--file " + file
	if limit > 0 {
		what = fmt.Sprintf("--file %s (read up to --max-bytes %d)", file, limit)
	}
	fix := fmt.Sprintf("give a longer text, or --ctx %d or less", n-1)
	if n-1 < 2 {
		fix = "give a longer text: the smallest window, --ctx 2, needs 3"
		if limit > 0 {
			fix = "give a longer text or a larger --max-bytes: the smallest window, --ctx 2, needs 3"
		}
	}
	unit := "tokens"
	if n == 1 {
		unit = "token"
	}
	return fmt.Errorf("perplexity: %s is %d %s, too short to score: a window of --ctx %d needs %d (%s)", what, n, unit, ctx, need, fix)
}
