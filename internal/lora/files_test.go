//go:build linux || darwin

// Acceptance tests for an adapter directory's files: a named pipe, a link to /dev/zero, a directory or a file
// past its size cap in place of adapter_config.json or the weights is one error line naming the file, at once.
package lora

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil/limit"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

func TestBadAdapterFilesAreRefused(t *testing.T) {
	for _, c := range []struct{ name, file, kind string }{
		{"config a pipe", ConfigFile, "pipe"},
		{"config /dev/zero", ConfigFile, "zero"},
		{"config a directory", ConfigFile, "dir"},
		{"config too large", ConfigFile, "huge"},
		{"PEFT weights a pipe", PEFTWeights, "pipe"},
		{"PEFT weights /dev/zero", PEFTWeights, "zero"},
		{"mlx-lm weights a directory", MLXWeights, "dir"},
		{"mlx-lm weights too large", MLXWeights, "huge"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.file != ConfigFile {
				if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			bad := filepath.Join(dir, c.file)
			most := userfile.JSON.Max
			if c.file != ConfigFile {
				most = userfile.Adapter.Max
			}
			var err error
			switch c.kind {
			case "pipe":
				err = syscall.Mkfifo(bad, 0o644)
			case "zero":
				err = os.Symlink("/dev/zero", bad)
			case "dir":
				err = os.Mkdir(bad, 0o755)
			case "huge":
				if err = os.WriteFile(bad, nil, 0o644); err == nil {
					err = os.Truncate(bad, most+1)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			err = limit.Within(t, limit.Acceptance, func() error { _, err := Open(dir, 1); return err })
			limit.OneLine(t, err, bad)
			if !errors.Is(err, ErrAdapter) {
				t.Errorf("error %v does not wrap ErrAdapter", err)
			}
		})
	}
}
