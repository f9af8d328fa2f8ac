// The perplexity verb: score a text file with a model over non-overlapping windows (as mlx-lm's and
// llama.cpp's perplexity tools do), reporting perplexity and bits per token and per byte.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/eval"
)

func newPerplexity() *cobra.Command {
	var dir, file, device string
	var ctx, limit int
	var jsonOut, quiet bool
	cmd := &cobra.Command{
		Use:   "perplexity",
		Short: "Score a text file: perplexity, bits per token and bits per byte",
		Long: `perplexity tokenizes --file (no special tokens), cuts it into non-overlapping windows of --ctx tokens from
the start, runs each window from an empty cache and scores every token after the window's first.`,
		Example: `  mlxbun perplexity --model ./pycoder-12m --file heldout.txt --ctx 512
  mlxbun perplexity --model ./Qwen3-0.6B-3bit --file wiki.test.raw --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" || file == "" {
				return errors.New("perplexity: --model and --file are required")
			}
			text, err := os.ReadFile(file)
			if err != nil {
				return fmt.Errorf("perplexity: %w", err)
			}
			if limit > 0 && limit < len(text) {
				text = text[:limit]
			}
			d, err := openModelDir(dir)
			if err != nil {
				return err
			}
			tok, err := d.Tokenizer()
			if err != nil {
				return err
			}
			b, m, err := openModel(device, d, false)
			if err != nil {
				return err
			}
			defer b.Close()
			defer m.Close()
			ids := tok.Encode(string(text), false)
			var bar *progressbar.ProgressBar
			progress := func(done, total int) {
				if quiet {
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
				return err
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
	fl.StringVar(&dir, "model", "", "model directory or hub name org/name[@revision] (required)")
	fl.StringVar(&file, "file", "", "text file to score (required)")
	fl.IntVar(&ctx, "ctx", 512, "window length in tokens")
	fl.IntVar(&limit, "max-bytes", 0, "score only the first N bytes of the file (0: all)")
	fl.StringVar(&device, "device", "auto", deviceHelp("device"))
	fl.BoolVar(&jsonOut, "json", false, "print one JSON record")
	fl.BoolVar(&quiet, "quiet", false, "no progress bar")
	return cmd
}
