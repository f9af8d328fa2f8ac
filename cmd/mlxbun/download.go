// The download verb: a model's files from the Hugging Face hub into the hub cache, laid out as huggingface_hub
// lays it out (package hub), and fetchModel, which it shares with every --model org/name: the hub client from the
// environment, a progress bar per file on a terminal, a warning per retry and a line saying where the model is.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/hub"
)

func newDownload() *cobra.Command {
	var includes []string
	var revision string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "download org/name[@revision]",
		Short: "Fetch a model from the Hugging Face hub into the hub cache",
		Long: `download fetches a model repository's files into the Hugging Face cache ($HF_HUB_CACHE, else $HF_HOME/hub,
else ~/.cache/huggingface/hub) as huggingface_hub does, so transformers, mlx-lm and exllamav3 find them too, and
prints the snapshot directory. Without --include it fetches the files a model needs (mlx-lm's patterns, less
*.py): ` + fmt.Sprint(hub.ModelPatterns) + `. Files already in the snapshot are not fetched again; an
interrupted download resumes from its blobs/<etag>.incomplete.

The revision is a branch, a tag or a full or short commit hash (default main). The hub is $HF_ENDPOINT (default
https://huggingface.co); a gated or private model needs a token in $HF_TOKEN or $HF_HOME/token. With
HF_HUB_OFFLINE=1 nothing is fetched: the cached snapshot's directory is printed, or an error says it is missing.
Every --model flag takes org/name[@revision] too: a local directory of that name wins, else the cache, fetching
what it lacks unless offline.`,
		Example: `  mlxbun download Qwen/Qwen3-0.6B
  mlxbun download mlx-community/Qwen3-4B-4bit@main --include '*.json' --include 'model*.safetensors'
  HF_HUB_OFFLINE=1 mlxbun generate --model Qwen/Qwen3-0.6B --prompt "Why is the sky blue?"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := hub.ParseRef(args[0])
			if err != nil {
				return fmt.Errorf("download: %w", err)
			}
			if revision != "" {
				if ref.Revision != "" && ref.Revision != revision {
					return fmt.Errorf("download: %s names revision %q and --revision says %q", args[0], ref.Revision, revision)
				}
				ref.Revision = revision
			}
			// Ctrl-C ends the transfer; the blob's .incomplete stays for the next run to resume.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			snap, err := fetchModel(ctx, ref, includes, cmd.ErrOrStderr(), quiet)
			if err != nil {
				return fmt.Errorf("download: %w", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), snap.Dir)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&includes, "include", nil, "fetch only files matching this glob (repeatable; '*' crosses '/'; default: the files a model needs)")
	cmd.Flags().StringVar(&revision, "revision", "", "branch, tag or commit (the same as org/name@revision)")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress bar")
	return cmd
}

// fetchModel resolves ref in the hub cache, fetching the files matching patterns (nil: a model's) that it lacks,
// with a bar per file on stderr when stderr is a terminal, and logs where the model was found.
func fetchModel(ctx context.Context, ref hub.Ref, patterns []string, stderr io.Writer, quiet bool) (*hub.Snapshot, error) {
	cfg := hub.FromEnv()
	cfg.UserAgent = "mlxbun/" + version
	bars := &fileBars{w: stderr, show: !quiet && isTerminal(stderr)}
	cfg.Progress = bars.update
	cfg.Retry = func(file string, attempt int, wait time.Duration, err error) {
		log.Warn().Str("model", ref.String()).Str("file", file).Int("attempt", attempt).Dur("wait", wait).Err(err).Msg("hub: retrying")
	}
	c, err := hub.New(cfg)
	if err != nil {
		return nil, err
	}
	snap, err := c.Snapshot(ctx, ref, patterns)
	bars.finish()
	if err != nil {
		return nil, err
	}
	switch {
	case snap.Unreachable != nil:
		log.Warn().Str("model", ref.String()).Str("dir", snap.Dir).Err(snap.Unreachable).Msg("hub not reached: using the cached snapshot")
	case snap.FromCache:
		log.Info().Str("model", ref.String()).Str("dir", snap.Dir).Msg("model found in the hub cache (offline)")
	default:
		log.Info().Str("model", ref.String()).Str("commit", snap.Commit).Str("dir", snap.Dir).Int("files", snap.Files).
			Int("downloaded", len(snap.Downloaded)).Str("endpoint", cfg.Endpoint).Msg("model found in the hub cache")
	}
	return snap, nil
}

// fileBars shows one byte-counting bar per file as the hub client reports it.
type fileBars struct {
	w    io.Writer
	show bool
	file string
	bar  *progressbar.ProgressBar
}

func (b *fileBars) update(file string, done, total int64) {
	if !b.show || total <= 0 {
		return
	}
	if file != b.file || b.bar == nil {
		b.finish()
		b.file = file
		b.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(b.w), progressbar.OptionSetWidth(30),
			progressbar.OptionShowBytes(true), progressbar.OptionSetPredictTime(true), progressbar.OptionSetDescription(file),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	b.bar.Set64(done)
}

func (b *fileBars) finish() {
	if b.bar != nil {
		b.bar.Finish()
		b.bar = nil
	}
}
