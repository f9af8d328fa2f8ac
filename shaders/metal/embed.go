// Package metalshaders embeds the Metal Shading Language sources of the Metal backend. The runtime compiles them
// as one library (Source: common.metal first, then the others in name order) with fast math off; the emulator
// (internal/metal/emu) compiles the same files as C++ to check every kernel against the CPU reference on Linux.
package metalshaders

import (
	"embed"
	"sort"
	"strings"

	"github.com/mlxbun/mlxbun/shaders/srcmap"
)

//go:embed *.metal
var files embed.FS

// Prelude is the file every other one depends on (helpers, constants, parameter structs).
const Prelude = "common.metal"

// Sources maps a file name ("common.metal", "trellis.metal") to its text.
var Sources = srcmap.Read(files, ".metal")

// Source is the whole library as one translation unit for newLibraryWithSource: the prelude, then every other
// file in name order.
func Source() string {
	names := make([]string, 0, len(Sources))
	for n := range Sources {
		if n != Prelude {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(Sources[Prelude])
	for _, n := range names {
		b.WriteString("\n// ---- " + n + " ----\n")
		b.WriteString(Sources[n])
	}
	return b.String()
}
