// Verbs whose engine is not built yet: each says so in one line and exits 2, never pretending to work.
package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

var pending = []struct{ use, short, example string }{}

func notBuilt() []*cobra.Command {
	var cmds []*cobra.Command
	for _, p := range pending {
		cmds = append(cmds, &cobra.Command{
			Use:                p.use,
			Short:              p.short + " (not built yet)",
			Example:            p.example,
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return fmt.Errorf("%s: %w", cmd.Name(), errNotBuilt)
			},
		})
	}
	return cmds
}
