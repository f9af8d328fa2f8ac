//go:build unix

// The small files the hub reads from a user's directories (the token under HF_HOME or HF_TOKEN_PATH, a ref's
// commit hash in the cache) are read as regular files under a cap: /dev/zero, a named pipe or an absurd file in
// their place is one error naming the file, within the acceptance bound, instead of an endless read or a wait.
package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

// badFile puts at p what how names: "zero" a link to /dev/zero, "pipe" a named pipe, "big" a 1 MiB file.
func badFile(t *testing.T, p, how string) {
	t.Helper()
	os.Remove(p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	switch how {
	case "zero":
		err = os.Symlink("/dev/zero", p)
	case "pipe":
		err = syscall.Mkfifo(p, 0o644)
	case "big":
		err = os.WriteFile(p, []byte(strings.Repeat("hf_", 1<<20/3+1)), 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestTokenFileLimits(t *testing.T) {
	for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		t.Setenv(k, "")
	}
	for _, c := range []struct{ how, want string }{
		{"zero", "not a regular file (a device)"},
		{"pipe", "not a regular file (a named pipe)"},
		{"big", "more than a token file may hold (65536 bytes)"},
	} {
		t.Run(c.how, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "token")
			badFile(t, p, c.how)
			t.Setenv("HF_TOKEN_PATH", p)
			err := limit.Within(t, limit.Acceptance, func() error {
				_, err := New(FromEnv())
				return err
			})
			limit.OneLine(t, err, "HF token", p, c.want)
		})
	}
	// No token file is no token, as before.
	t.Setenv("HF_TOKEN_PATH", filepath.Join(t.TempDir(), "none"))
	if c, err := New(FromEnv()); err != nil || c.cfg.Token != "" {
		t.Errorf("a missing token file: %v, token %q", err, c.cfg.Token)
	}
}

func TestRefFileLimits(t *testing.T) {
	for _, c := range []struct{ how, want string }{
		{"zero", "not a regular file (a device)"},
		{"pipe", "not a regular file (a named pipe)"},
		{"big", "more than a ref file may hold (4096 bytes)"},
	} {
		t.Run(c.how, func(t *testing.T) {
			dir, _, _ := hfCache(t)
			ref := filepath.Join(dir, "models--org--name", "refs", "main")
			badFile(t, ref, c.how)
			cl, err := New(Config{CacheDir: dir, Endpoint: deadEndpoint(t), Offline: true, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			err = limit.Within(t, limit.Acceptance, func() error {
				_, err := cl.Snapshot(context.Background(), Ref{Repo: "org/name"}, nil)
				return err
			})
			limit.OneLine(t, err, ref, c.want)
		})
	}
}
