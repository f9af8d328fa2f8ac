// The tokenize verb: text to ids as a JSON array (or back with --decode), like llama.cpp's tokenize.
package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

func newTokenize() *cobra.Command {
	var dir, text string
	var decode, noSpecial bool
	cmd := &cobra.Command{
		Use:   "tokenize",
		Short: "Print the token ids of a text as a JSON array (or decode ids with --decode)",
		Long:  "tokenize loads DIR/tokenizer.json (the directory may hold only the tokenizer files).",
		Example: `  mlxbun tokenize --model ./Qwen3-0.6B --text "Hello world"
  echo "Hello world" | mlxbun tokenize -m ./Qwen3-0.6B --text -
  mlxbun tokenize --model ./Qwen3-0.6B --decode --text "[9707,1879]"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("tokenize: --model is required")
			}
			d, err := openModelDir(dir)
			if err != nil {
				return err
			}
			tok, err := d.Tokenizer()
			if err != nil {
				return err
			}
			if text == "-" {
				b, err := readArg("--text", "-", cmd.InOrStdin(), maxPromptBytes)
				if err != nil {
					return err
				}
				text = string(b)
			}
			out := cmd.OutOrStdout()
			if decode {
				var ids []int
				if err := json.Unmarshal([]byte(text), &ids); err != nil {
					ids, err = parseIDs("--text", text)
					if err != nil {
						return fmt.Errorf("tokenize --decode: --text must be a JSON array or comma-separated ids: %w", err)
					}
				}
				for _, id := range ids {
					if id < 0 || id >= tok.VocabSize() {
						return fmt.Errorf("tokenize --decode: id %d outside the vocabulary of %d", id, tok.VocabSize())
					}
				}
				fmt.Fprintln(out, tok.Decode(ids, false))
				return nil
			}
			ids := tok.Encode(text, !noSpecial)
			if ids == nil {
				ids = []int{}
			}
			b, _ := json.Marshal(ids)
			fmt.Fprintln(out, string(b))
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "model", "m", "", "directory holding tokenizer.json, or hub name org/name[@revision] (required)")
	cmd.Flags().StringVarP(&text, "text", "p", "", `text to tokenize, or ids to decode ("-": read stdin)`)
	cmd.Flags().BoolVar(&decode, "decode", false, "decode ids back to text")
	cmd.Flags().BoolVar(&noSpecial, "no-special", false, "do not add BOS/EOS special tokens")
	return cmd
}
