//go:build linux || darwin

// Acceptance tests for the files a model directory holds: each of them replaced by a named pipe, a link to
// /dev/zero, a directory or a file past its size cap is one error line naming the file, returned at once (a pipe
// is never waited on, /dev/zero never read) and within the acceptance bound, and nothing is left behind.
package modeldir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil/limit"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// plant puts a bad file of the given sort at path.
func plant(t *testing.T, path, sort string, most int64) {
	t.Helper()
	var err error
	switch sort {
	case "pipe":
		err = syscall.Mkfifo(path, 0o644)
	case "zero":
		err = os.Symlink("/dev/zero", path)
	case "dir":
		err = os.Mkdir(path, 0o755)
	case "huge": // sparse: the cap is refused from the size alone
		err = os.WriteFile(path, nil, 0o644)
		if err == nil {
			err = os.Truncate(path, most+1)
		}
	default:
		t.Fatalf("unknown sort %q", sort)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestBadFilesAreRefused(t *testing.T) {
	good := map[string]string{
		"config.json":            tinyConfig,
		"generation_config.json": `{"eos_token_id": 2}`,
		"tokenizer_config.json":  `{"chat_template": "{{ messages[0].content }}"}`,
		"tokenizer.json":         `{}`,
		"chat_template.jinja":    "{{ messages[0].content }}",
	}
	caps := map[string]int64{"chat_template.jinja": userfile.Template.Max}
	for name := range good {
		for _, sort := range []string{"pipe", "zero", "dir", "huge"} {
			t.Run(name+"/"+sort, func(t *testing.T) {
				files := map[string]string{}
				for n, s := range good {
					if n != name {
						files[n] = s
					}
				}
				dir := dirWith(t, files)
				bad := filepath.Join(dir, name)
				most := userfile.JSON.Max
				if c, ok := caps[name]; ok {
					most = c
				}
				plant(t, bad, sort, most)
				err := limit.Within(t, limit.Acceptance, func() error {
					_, err := Open(dir)
					return err
				})
				limit.OneLine(t, err, bad)
			})
		}
	}
}

func TestBadWeightFilesAreRefused(t *testing.T) {
	for _, c := range []struct{ name, file, sort string }{
		{"model.safetensors a pipe", "model.safetensors", "pipe"},
		{"model.safetensors /dev/zero", "model.safetensors", "zero"},
		{"model.safetensors a directory", "model.safetensors", "dir"},
		{"index a pipe", "model.safetensors.index.json", "pipe"},
		{"index /dev/zero", "model.safetensors.index.json", "zero"},
		{"index too large", "model.safetensors.index.json", "huge"},
		{"loose shard a pipe", "weights-1.safetensors", "pipe"},
		{"loose shard /dev/zero", "weights-1.safetensors", "zero"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := dirWith(t, map[string]string{"config.json": tinyConfig})
			bad := filepath.Join(dir, c.file)
			plant(t, bad, c.sort, userfile.JSON.Max)
			d, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			err = limit.Within(t, limit.Acceptance, func() error {
				a, err := d.Weights()
				if err == nil {
					a.Close()
				}
				return err
			})
			limit.OneLine(t, err, bad)
		})
	}
	// A shard the index names is checked the same way.
	t.Run("indexed shard a pipe", func(t *testing.T) {
		dir := dirWith(t, map[string]string{"config.json": tinyConfig,
			"model.safetensors.index.json": `{"weight_map": {"a": "model-00001-of-00001.safetensors"}}`})
		bad := filepath.Join(dir, "model-00001-of-00001.safetensors")
		plant(t, bad, "pipe", 0)
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		err = limit.Within(t, limit.Acceptance, func() error { _, err := d.Weights(); return err })
		limit.OneLine(t, err, bad, "not a regular file (a named pipe)")
	})
}
