// The compile-ane verb: the Neural Engine install step. It lists the programs a model's prompt path loads
// (computed from config.json alone: no weights needed), reports which the compile cache holds, or compiles the
// missing ones. Only macOS on Apple silicon has the compiler; elsewhere the verb lists the programs and fails
// with one line saying so, never reporting a compile it did not do.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/ane"
)

func newCompileANE() *cobra.Command {
	var dir, milDir string
	var list, status bool
	cmd := &cobra.Command{
		Use:   "compile-ane",
		Short: "Compile a model's Neural Engine programs into this Mac's compile cache (macOS, Apple silicon)",
		Long: fmt.Sprintf(`compile-ane computes the Neural Engine programs a model's prompt path loads from DIR/config.json alone
(one per distinct projection shape, gated MLPs fused, %d prompt rows per call, weights passed as fp16 inputs so
no weight is needed), deduplicated by content key, and compiles those this Mac's compile cache does not hold
through the private AppleNeuralEngine.framework. The cache belongs to the executable, so run the binary that
will serve.

  --list    print the programs (key, kind, shapes, the layers that use each) and exit; works on any machine
  --status  print whether the compile cache holds each program; compiles nothing
  --mil D   also write each program's MIL text to D/<key>.mil

Without a Neural Engine (any system but macOS on Apple silicon) the verb lists the programs and exits 1 with
one line saying no Neural Engine is present.`, ane.PromptRows),
		Example: `  mlxbun compile-ane --model ./Qwen3-14B-3bit --list
  mlxbun compile-ane --model ./Qwen3-14B-3bit --status
  mlxbun compile-ane --model ./Qwen3-14B-3bit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("compile-ane: --model is required")
			}
			if list && status {
				return errors.New("compile-ane: --list and --status exclude each other")
			}
			d, err := openModelDir(dir)
			if err != nil {
				return err
			}
			c, err := d.Config()
			if err != nil {
				return err
			}
			progs, err := ane.Programs(c)
			if err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			if milDir != "" {
				if err := writeMIL(milDir, progs); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%d Neural Engine programs for %s (%s, %d layers; %d prompt rows per call)\n",
				len(progs), dir, c.ModelType, c.NumLayers, ane.PromptRows)
			if list {
				return ane.WriteTable(out, progs, nil)
			}
			comp, err := ane.Open()
			if err != nil {
				if werr := ane.WriteTable(out, progs, nil); werr != nil {
					return werr
				}
				return fmt.Errorf("compile-ane: %w; listed %d programs, compiled none", err, len(progs))
			}
			defer comp.Close()
			if status {
				res := ane.Status(comp, progs)
				if err := ane.WriteTable(out, progs, res); err != nil {
					return err
				}
				return firstFailure(res)
			}
			res := ane.Install(comp, progs, func(i int, r ane.Result) {
				p := progs[i]
				log.Info().Str("key", p.Key).Str("program", p.Name()).Str("state", r.State.String()).
					Dur("elapsed", r.Elapsed).Msgf("%d/%d", i+1, len(progs))
			})
			if err := ane.WriteTable(out, progs, res); err != nil {
				return err
			}
			n := map[ane.State]int{}
			for _, r := range res {
				n[r.State]++
			}
			fmt.Fprintf(out, "%s: compiled %d, already cached %d, failed %d\n", comp.Describe(),
				n[ane.StateCompiled], n[ane.StateCached], n[ane.StateFailed])
			return firstFailure(res)
		},
	}
	cmd.Flags().StringVarP(&dir, "model", "m", "", "model directory or hub name org/name[@revision] (only config.json is read)")
	cmd.Flags().BoolVar(&list, "list", false, "list the programs and exit (any machine)")
	cmd.Flags().BoolVar(&status, "status", false, "report which programs the compile cache holds; compile nothing")
	cmd.Flags().StringVar(&milDir, "mil", "", "also write each program's MIL text to this directory as <key>.mil")
	return cmd
}

// firstFailure is the first failed result's error, counting the others.
func firstFailure(res []ane.Result) error {
	var first error
	failed := 0
	for _, r := range res {
		if r.State == ane.StateFailed {
			if first == nil {
				first = r.Err
			}
			failed++
		}
	}
	if first == nil {
		return nil
	}
	return fmt.Errorf("compile-ane: %d of %d programs failed; the first: %w", failed, len(res), first)
}

// writeMIL writes each program's MIL to dir/<key>.mil through a temporary file and a rename.
func writeMIL(dir string, progs []ane.Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compile-ane --mil: %w", err)
	}
	for _, p := range progs {
		dst := filepath.Join(dir, p.Key+".mil")
		tmp := dst + ".tmp"
		if err := os.WriteFile(tmp, []byte(p.MIL()), 0o644); err != nil {
			return fmt.Errorf("compile-ane --mil: %w", err)
		}
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("compile-ane --mil: %w", err)
		}
	}
	return nil
}
