//go:build linux || darwin

// Tests of quantize's --out refusals (each one line naming --out, the path and what to do) and of a run stopped
// by SIGINT: it exits 130 with one line naming --out, what it kept and --resume, and the same command with
// --resume finishes it into the plain coder's recorded bytes.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestQuantizeOutErrors(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	if err := os.Rename(copyModel(t, "models/tiny-qwen3"), model); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("keep me"), 0o644)
	done := filepath.Join(dir, "done") // an earlier output: a model directory
	os.MkdirAll(done, 0o755)
	os.WriteFile(filepath.Join(done, "config.json"), []byte(`{}`), 0o644)
	user := filepath.Join(dir, "user") // a directory of the user's, not a model
	os.MkdirAll(user, 0o755)
	os.WriteFile(filepath.Join(user, "a.txt"), nil, 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(model, link)
	cases := []struct {
		name  string
		out   string
		extra []string
		wants []string
	}{
		{"the model", model, nil, []string{"quantize: --out " + model + " is the input model", "give another directory"}},
		{"the model through a link", link, nil, []string{"--out " + link + " is the input model"}},
		{"inside the model", filepath.Join(model, "q"), nil, []string{"--out " + filepath.Join(model, "q") + " is inside the input model", "outside it"}},
		{"inside the model through a link", filepath.Join(link, "q"), nil, []string{"--out " + filepath.Join(link, "q") + " is inside the input model"}},
		{"holding the model", dir, []string{"--force"}, []string{"--out " + dir + " holds the input model", "outside it"}},
		{"a file", file, nil, []string{"--out " + file + " exists and is a file", "remove it or give another --out"}},
		{"a file with --force", file, []string{"--force"}, []string{"--out " + file + " exists and is a file", "--force replaces only model directories"}},
		{"a file as parent", filepath.Join(file, "q"), nil, []string{"--out " + filepath.Join(file, "q") + ": " + file + " is a file, not a directory", "whose parent is a directory"}},
		{"an earlier output", done, nil, []string{"--out " + done + " already exists", "--force replaces it"}},
		{"a user's directory", user, []string{"--force"}, []string{"--out " + user + " is a non-empty directory without config.json", "give another --out"}},
	}
	if os.Geteuid() != 0 { // root writes anywhere (checked by hand: setpriv --reuid=nobody gives this line)
		ro := filepath.Join(dir, "ro")
		os.MkdirAll(ro, 0o555)
		cases = append(cases, struct {
			name  string
			out   string
			extra []string
			wants []string
		}{"an unwritable parent", filepath.Join(ro, "q"), nil, []string{"--out " + filepath.Join(ro, "q") + ": cannot write in " + ro, "a directory you can write to"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"quantize", "--model", model, "--out", c.out, "--bits", "2", "--fast", "--quiet", "--device", "cpu"}, c.extra...)
			oneErrorLine(t, mlxbun(t, "", args...), c.wants...)
		})
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep me" {
		t.Errorf("%s: %q, %v", file, b, err)
	}
	if entries, _ := os.ReadDir(model); len(entries) != 4 {
		t.Errorf("the model directory holds %d entries after the refusals, want its 4 files", len(entries))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 {
		t.Errorf("%d entries beside the model after the refusals, want 5 (model, notes.txt, done, user, link)", len(entries))
	}
}

// TestQuantizeInterruptResume: `quantize --bits 3 --L 8 --fast` on tiny-qwen3 gets SIGINT once its first
// layer is checkpointed (its log line says so); it exits 130 with one line naming --out, what is kept and where,
// and --resume, and leaves no output but the work folder. The same command plus --resume takes the finished
// layers from it and writes the files TestQuantizeFastIsThePlainCoder recorded, sha256 for sha256.
func TestQuantizeInterruptResume(t *testing.T) {
	src := copyModel(t, "models/tiny-qwen3")
	dir := t.TempDir()
	out := filepath.Join(dir, "q")
	args := []string{"quantize", "--model", src, "--out", out, "--bits", "3", "--L", "8", "--fast", "--device", "cpu", "--quiet"}
	cmd := exec.Command(binPath, append(args, "--verbose", "--log-format", "json")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var plain []string // the lines that are not log records
	sc := bufio.NewScanner(stderr)
	signalled := false
	for sc.Scan() {
		var rec struct{ Message, Layer string }
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			plain = append(plain, sc.Text())
			continue
		}
		if !signalled && rec.Message == "layer quantized" && rec.Layer == "model.layers.0" {
			cmd.Process.Signal(syscall.SIGINT)
			signalled = true
		}
	}
	cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if !signalled {
		t.Fatalf("no line said model.layers.0 was quantized; exit %d, %q", code, plain)
	}
	if code == 0 {
		t.Skip("the run finished its last layer before SIGINT landed (a loaded machine): nothing to resume")
	}
	work, _ := filepath.Glob(filepath.Join(dir, ".q.tmp-*"))
	if code != 130 || len(plain) != 1 || len(work) != 1 {
		t.Fatalf("exit %d, lines %q, work folders %v: want 130, one line, one folder", code, plain, work)
	}
	for _, want := range []string{"quantize: stopped by a signal before it finished", "--out " + out + " was not written",
		"layers are kept in " + work[0], "rerun the same command with --resume"} {
		if !strings.Contains(plain[0], want) {
			t.Errorf("%q lacks %q", plain[0], want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a stopped run left %s (%v)", out, err)
	}

	r := mlxbun(t, "", append(args, "--resume")...)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming "+work[0]) {
		t.Fatalf("--resume: exit %d: %s", r.code, r.stderr)
	}
	recorded := map[string]string{ // TestQuantizeFastIsThePlainCoder's
		"config.json":       "ed9f6dc30af69509bfe09214bd21abdac2e6272c00b6b782c336b530340a8ea9",
		"model.safetensors": "b438567ec56ca0e013bd50db1e213533257285a84206d3ec1e60039c08c80727",
	}
	for name, want := range recorded {
		if got := fileSHA(t, filepath.Join(out, name)); got != want {
			t.Errorf("resumed %s: sha256 %s, an uninterrupted run's %s", name, got, want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("beside the output after the resume: %v", left)
	}
}
