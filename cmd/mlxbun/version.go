// The version verb.
package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, Go runtime and the devices this build knows",
		Example: `  mlxbun version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "mlxbun %s (%s, %s/%s) devices: %v\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH, backend.Devices())
			return nil
		},
	}
}
