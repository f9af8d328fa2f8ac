//go:build linux || darwin

// Tests for the work-folder sweep: a quantize process killed with SIGKILL leaves its work folder, and the next run
// for the same output removes it (saying so) and writes a valid model; folders that are not provably a dead run's
// (a live owner, another host, no record, a name that is not a work folder's, a user's model) are left alone; a
// commit killed halfway is settled, the replaced output put back or removed. Bad calibration and Hessian-cache
// files (a named pipe, /dev/zero) are refused at once.
package quantize

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

// TestHelperMakeWorkFolder is not a test: run as a subprocess by TestKilledRunIsSwept, it makes a work folder for
// MLXBUN_TEST_OUT the way Run does and waits to be killed.
func TestHelperMakeWorkFolder(t *testing.T) {
	out := os.Getenv("MLXBUN_TEST_OUT")
	if out == "" {
		t.Skip("helper process only")
	}
	d := destination{path: out}
	tmp, err := d.makeTemp()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmp, ".shard-00001.safetensors"), []byte("partial"), 0o644)
	os.Stdout.WriteString(tmp + "\n")
	time.Sleep(time.Minute)
}

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	return cmd.Process.Pid
}

// workFolder makes a work folder for out with the given owner record (none when o is nil).
func workFolder(t *testing.T, out, suffix string, o *owner) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".tmp-"+suffix)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if o != nil {
		b, _ := json.Marshal(o)
		if err := os.WriteFile(filepath.Join(p, ownerFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestKilledRunIsSwept(t *testing.T) {
	in := small(backend.BF16).write(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMakeWorkFolder$")
	cmd.Env = append(os.Environ(), "MLXBUN_TEST_OUT="+out)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := stdout.Read(buf)
	tmp := strings.TrimSpace(string(buf[:n]))
	if st, err := os.Stat(tmp); err != nil || !st.IsDir() || !strings.HasPrefix(filepath.Base(tmp), ".out.tmp-") {
		cmd.Process.Kill()
		t.Fatalf("helper made %q: %v", tmp, err)
	}
	// While the helper runs, its folder is left alone.
	d := destination{path: out}
	var notes []string
	d.sweep(func(s string) { notes = append(notes, s) })
	if _, err := os.Stat(tmp); err != nil || len(notes) != 0 {
		t.Fatalf("a live run's folder: %v, notes %q", err, notes)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the killed run's folder is gone before the next run: %v", err)
	}

	notes = nil
	rep, err := Run(in, out, cheap(2), func(e Event) {
		if e.Stage == StageNote {
			notes = append(notes, e.Note)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the killed run's folder is still there: %v", err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "removed "+tmp) || !strings.Contains(notes[0], "no longer running") {
		t.Errorf("notes %q, want one saying %s was removed", notes, tmp)
	}
	left, _ := os.ReadDir(filepath.Dir(out))
	if len(left) != 1 || left[0].Name() != "out" {
		t.Errorf("beside the output: %v", left)
	}
	if _, err := os.Stat(filepath.Join(out, ownerFile)); !os.IsNotExist(err) {
		t.Errorf("the output keeps the owner record: %v", err)
	}
	if _, err := loadConfig(out); err != nil || len(rep.Tensors) == 0 {
		t.Errorf("output: %v, %d tensors", err, len(rep.Tensors))
	}
}

func TestSweepLeavesWhatIsNotADeadRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m")
	me := self()
	gone := deadPID(t)
	reused := me
	reused.Start = "another process's start"
	elsewhere := me
	elsewhere.Host = me.Host + "-elsewhere"
	keep := map[string]string{
		"live":        workFolder(t, out, "101", &me),
		"other host":  workFolder(t, out, "102", &elsewhere),
		"no record":   workFolder(t, out, "103", nil),
		"not digits":  workFolder(t, out, "10x", &owner{Host: me.Host, PID: gone}),
		"other model": filepath.Join(filepath.Dir(out), ".n.tmp-104"),
	}
	os.MkdirAll(keep["other model"], 0o755)
	os.WriteFile(filepath.Join(keep["no record"], "config.json"), []byte(`{}`), 0o644) // a user's model, say
	drop := map[string]string{
		"dead":       workFolder(t, out, "201", &owner{Host: me.Host, PID: gone, Start: "x"}),
		"pid reused": workFolder(t, out, "202", &reused),
	}
	var notes []string
	destination{path: out}.sweep(func(s string) { notes = append(notes, s) })
	for what, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %s was removed", what, p)
		}
	}
	for what, p := range drop {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: %s is still there", what, p)
		}
	}
	if len(notes) != 3 || !strings.Contains(strings.Join(notes, "|"), "left "+keep["no record"]+" alone") {
		t.Errorf("notes %q: want two removals and the record-less folder", notes)
	}
}

func TestSweepSettlesAHalfDoneCommit(t *testing.T) {
	gone := self()
	gone.PID = deadPID(t)
	// Killed between moving the old output aside and renaming the new one in: the old one is put back.
	out := filepath.Join(t.TempDir(), "m")
	tmp := workFolder(t, out, "301", &gone)
	old := tmp + ".old"
	os.MkdirAll(old, 0o755)
	os.WriteFile(filepath.Join(old, "config.json"), []byte(`{"old": true}`), 0o644)
	var notes []string
	destination{path: out}.sweep(func(s string) { notes = append(notes, s) })
	if b, err := os.ReadFile(filepath.Join(out, "config.json")); err != nil || string(b) != `{"old": true}` {
		t.Errorf("the old output was not put back: %q, %v (notes %q)", b, err, notes)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the work folder is still there")
	}
	// Killed after the new output is in place: the old one is removed, the record in the output too.
	out = filepath.Join(t.TempDir(), "m")
	tmp = workFolder(t, out, "302", nil)
	os.Remove(tmp)
	os.MkdirAll(out, 0o755)
	b, _ := json.Marshal(gone)
	os.WriteFile(filepath.Join(out, ownerFile), b, 0o644)
	os.MkdirAll(tmp+".old", 0o755)
	destination{path: out}.sweep(func(string) {})
	if _, err := os.Stat(tmp + ".old"); !os.IsNotExist(err) {
		t.Errorf("the replaced output is still there")
	}
	if _, err := os.Stat(filepath.Join(out, ownerFile)); !os.IsNotExist(err) {
		t.Errorf("the dead run's record is still in the output")
	}
}

func TestBadCalibrationFiles(t *testing.T) {
	in := small(backend.BF16).write(t)
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "calib.txt")
	os.WriteFile(text, []byte("some calibration text"), 0o644)
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	auxPipe := small(backend.BF16).write(t)
	syscall.Mkfifo(filepath.Join(auxPipe, "tokenizer.model"), 0o644)
	for _, c := range []struct {
		name, in string
		o        Options
		want     string
	}{
		{"calibration text a pipe", in, Options{Bits: 2, L: 6, GroupSize: 64, Calib: pipe}, pipe},
		{"calibration text /dev/zero", in, Options{Bits: 2, L: 6, GroupSize: 64, Calib: zero}, zero},
		{"Hessian cache a pipe", in, Options{Bits: 2, L: 6, GroupSize: 64, Calib: text, Hessians: pipe}, pipe},
		{"tokenizer.model a pipe", auxPipe, cheap(2), filepath.Join(auxPipe, "tokenizer.model")},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			err := limit.Within(t, limit.Acceptance, func() error {
				_, err := Run(c.in, filepath.Join(parent, "out"), c.o, nil)
				return err
			})
			limit.OneLine(t, err, c.want, "not a regular file")
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("left behind: %v", left[0].Name())
			}
		})
	}
}
