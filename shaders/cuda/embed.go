// Package cudashaders embeds the CUDA C++ kernel sources that internal/cuda compiles with NVRTC at run time, so
// the mlxbun binary carries its kernels and needs no toolkit on the build machine.
package cudashaders

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.cu *.cuh
var files embed.FS

// Sources maps a file name ("elementwise.cu", "common.cuh") to its source text.
var Sources = func() map[string]string {
	m := map[string]string{}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // embedded at build time: cannot fail at run time
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".cu") || strings.HasSuffix(e.Name(), ".cuh") {
			b, _ := files.ReadFile(e.Name())
			m[e.Name()] = string(b)
		}
	}
	return m
}()
