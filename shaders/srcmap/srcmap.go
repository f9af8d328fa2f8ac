// Package srcmap reads an embedded shader folder into a name → text map, the form the CUDA and Metal shader
// packages hand to their compilers and to the tests that read kernel lines.
package srcmap

import (
	"io/fs"
	"strings"
)

// Read returns every top-level file of fsys whose name ends in one of suffixes, by name. The folders are embedded
// at build time, so a read error is a build defect and panics.
func Read(fsys fs.FS, suffixes ...string) map[string]string {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		panic(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		for _, suf := range suffixes {
			if strings.HasSuffix(e.Name(), suf) {
				b, err := fs.ReadFile(fsys, e.Name())
				if err != nil {
					panic(err)
				}
				m[e.Name()] = string(b)
				break
			}
		}
	}
	return m
}
