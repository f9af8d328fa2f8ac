// The --device flag's help, built from the device registry so it lists only what this build can open.
package main

import (
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// deviceHelp is the help text of a --device flag: "auto" and the registered devices, best first. The registry is
// filled by the init functions of the imported backends, so call it when a command is constructed, not in a
// package-level variable initializer.
func deviceHelp(what string) string {
	return what + ": auto (the best that opens) or " + strings.Join(backend.Devices(), ", ")
}
