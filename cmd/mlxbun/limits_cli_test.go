//go:build linux

// The hang and out-of-memory cases of issue 22 through the real binary, as a user hits them: each run is held to
// 2 GiB of address space (ulimit -v: the process dies if a budget fails), must exit non-zero within 10 s with one
// line on stderr naming the construct or file and no goroutine dump, and must leave nothing behind.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mlxbunBounded runs the binary under a 2 GiB address-space limit and a 10 s timeout.
func mlxbunBounded(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	cmd := exec.Command("sh", "-c", "ulimit -v 2097152 && exec "+binPath+" "+strings.Join(quoted, " "))
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running after 10 s: %s", stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr.String()))
	return stderr.String(), code
}

func TestLimitsCLI(t *testing.T) {
	model := copyModel(t, "trained/pycoder-12m")
	gen := []string{"generate", "--device", "cpu", "--max-tokens", "2"}
	withModel := func(dir string, args ...string) []string {
		return append(append(append([]string{}, gen...), "--model", dir), args...)
	}
	// A model whose file is replaced by something that is not a file.
	broken := func(file, how string) string {
		dir := copyModel(t, "trained/pycoder-12m")
		p := filepath.Join(dir, file)
		os.Remove(p)
		var err error
		switch how {
		case "zero":
			err = os.Symlink("/dev/zero", p)
		case "pipe":
			err = syscall.Mkfifo(p, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	template := copyModel(t, "trained/pycoder-12m")
	if err := os.WriteFile(filepath.Join(template, "chat_template.jinja"), []byte("{{ 'x' * 10000000000 }}"), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(t.TempDir(), "items.json")
	os.WriteFile(schema, []byte(strings.Repeat(`{"type":"array","items":`, 30)+`{}`+strings.Repeat("}", 30)), 0o644)
	schema20 := filepath.Join(t.TempDir(), "items20.json")
	os.WriteFile(schema20, []byte(strings.Repeat(`{"type":"array","items":`, 20)+`{}`+strings.Repeat("}", 20)), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"chat template repetition", withModel(template, "--prompt", "hi"), "'x' * 10000000000"},
		{"schema of 30 nested items", withModel(model, "--no-chat-template", "--prompt", "[", "--json-schema", schema), "JSON schema #/items"},
		{"schema of 20 nested items", withModel(model, "--no-chat-template", "--prompt", "[", "--json-schema", schema20), "JSON schema #/items"},
		{"nested bounded repetitions", withModel(model, "--no-chat-template", "--prompt", "a", "--regex", "((a{1,50}){1,50}){1,50}"), `regex construct "((a{1,50}){1,50}){1,50}"`},
		{"config.json is /dev/zero", withModel(broken("config.json", "zero"), "--prompt", "hi"), "config.json: not a regular file (a device)"},
		{"tokenizer.json is /dev/zero", withModel(broken("tokenizer.json", "zero"), "--prompt", "hi"), "tokenizer.json: not a regular file (a device)"},
		{"model.safetensors is a pipe", withModel(broken("model.safetensors", "pipe"), "--prompt-ids", "1,2"), "model.safetensors: not a regular file (a named pipe)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			stderr, code := mlxbunBounded(t, work, c.args...)
			if code == 0 {
				t.Fatalf("exit 0, want an error; stderr %q", stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "fatal error") || !strings.Contains(stderr, c.want) {
				t.Fatalf("stderr %q: want one line containing %q", stderr, c.want)
			}
			if left, _ := os.ReadDir(work); len(left) != 0 {
				t.Errorf("left behind in the working directory: %s", left[0].Name())
			}
		})
	}
}
