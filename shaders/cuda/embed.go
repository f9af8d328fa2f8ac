// Package cudashaders embeds the CUDA C++ kernel sources that internal/cuda compiles with NVRTC at run time, so
// the mlxbun binary carries its kernels and needs no toolkit on the build machine.
package cudashaders

import (
	"embed"

	"github.com/mlxbun/mlxbun/shaders/srcmap"
)

//go:embed *.cu *.cuh
var files embed.FS

// Sources maps a file name ("elementwise.cu", "common.cuh") to its source text.
var Sources = srcmap.Read(files, ".cu", ".cuh")
