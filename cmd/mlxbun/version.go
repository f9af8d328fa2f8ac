// The version verb and the root's --version flag: one line naming the build, the Go runtime and the devices.
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
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// versionLine is what `mlxbun version` and `mlxbun --version` print.
func versionLine() string {
	return fmt.Sprintf("mlxbun %s (%s, %s/%s) devices: %v", version, runtime.Version(), runtime.GOOS, runtime.GOARCH, backend.Devices())
}
