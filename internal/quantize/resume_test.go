//go:build linux || darwin

// Tests of --resume: a quantize process (the recommended settings: rotation, self-calibration, LDLQ, refit, on
// tiny-qwen3 at a cheap L) killed with SIGKILL when its progress says a random layer has finished leaves a work
// folder with checkpoints; a resume with other settings is refused naming the setting; a resume with the same
// ones takes every finished layer from its checkpoint and writes files whose sha256 equal an uninterrupted run's.
package quantize

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// planFor is the plan Run makes for the model in dir.
func planFor(t *testing.T, dir string, o Options) []item {
	t.Helper()
	d, err := modeldir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	fam, err := family.For(cfg)
	if err != nil {
		t.Fatal(err)
	}
	arch, err := safetensors.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	var headers []backend.Host
	for _, n := range arch.Names() {
		h, err := arch.Tensor(n)
		if err != nil {
			t.Fatal(err)
		}
		headers = append(headers, h)
	}
	items, err := plan(headers, fam, cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// resumeOptions are the recommended settings, made cheap: L 6, blocks of 64, 4 sampled windows of 64 tokens.
func resumeOptions() Options {
	o := Best(3)
	o.L, o.GroupSize, o.CalibTokens, o.CalibCtx = 6, 64, 256, 64
	return o
}

// TestHelperQuantizeRun is not a test: run as a subprocess by TestResumeAfterKill (and TestResumeAutoL, with
// MLXBUN_TEST_L), it quantizes MLXBUN_TEST_IN into MLXBUN_TEST_OUT and prints "layer N" when layer N is
// checkpointed.
func TestHelperQuantizeRun(t *testing.T) {
	in, out := os.Getenv("MLXBUN_TEST_IN"), os.Getenv("MLXBUN_TEST_OUT")
	if in == "" || out == "" {
		t.Skip("helper process only")
	}
	o := resumeOptions()
	if v := os.Getenv("MLXBUN_TEST_L"); v != "" { // TestResumeAutoL: the plain coder at L v (0: auto)
		L, _ := strconv.Atoi(v)
		o = Options{Bits: 2, L: L, GroupSize: 64}
	}
	_, err := Run(in, out, o, func(e Event) {
		if e.Stage == StageLayer {
			fmt.Fprintf(os.Stdout, "layer %d\n", e.Index)
			time.Sleep(50 * time.Millisecond) // room for the kill to land before the next layer is done
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestResumeAfterKill(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	us := func() units {
		o := resumeOptions()
		if err := o.normalize(); err != nil {
			t.Fatal(err)
		}
		return unitsOf(planFor(t, in, o))
	}()
	seed := uint64(time.Now().UnixNano())
	kill := rand.New(rand.NewPCG(seed, 1)).IntN(len(us.names) - 1) // a layer with at least one after it
	t.Logf("killing after layer %d (%s) of %d (seed %d)", kill, us.names[kill], len(us.names), seed)

	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	work := []string{killAfterLayer(t, in, out, kill)}

	// Other settings: refused, naming the setting, and the folder is kept.
	other := resumeOptions()
	other.Bits, other.Resume = 2, true
	_, err := Run(in, out, other, nil)
	if err == nil || !strings.Contains(err.Error(), "--bits: 3 then, 2 now") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("resume with --bits 2: %v", err)
	}
	if _, err := os.Stat(work[0]); err != nil {
		t.Fatalf("the refused resume removed the work folder: %v", err)
	}

	o := resumeOptions()
	o.Resume = true
	resumed, encoded := map[string]bool{}, map[string]bool{}
	var notes []string
	if _, err := Run(in, out, o, func(e Event) {
		switch {
		case e.Stage == StageNote:
			notes = append(notes, e.Note)
		case e.Stage == StageEncode && e.Done && e.Result != nil && e.Resumed:
			resumed[us.names[e.Layer]] = true
		case e.Stage == StageEncode && e.Done && e.Result != nil:
			encoded[us.names[e.Layer]] = true
		}
	}); err != nil {
		t.Fatal(err)
	}
	for u := 0; u <= kill; u++ {
		if !resumed[us.names[u]] || encoded[us.names[u]] {
			t.Errorf("layer %s, finished before the kill: resumed %v, encoded again %v", us.names[u], resumed[us.names[u]], encoded[us.names[u]])
		}
	}
	if !encoded[us.names[len(us.names)-1]] {
		t.Errorf("the last layer was not encoded by the resumed run (resumed: %v)", resumed)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "resuming "+work[0]) {
		t.Errorf("notes %q", notes)
	}
	if left, _ := os.ReadDir(parent); len(left) != 1 {
		t.Errorf("beside the output: %v", left)
	}

	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := Run(in, ref, resumeOptions(), nil); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, out, ref)
}

// killAfterLayer runs TestHelperQuantizeRun on in into out with env beside, kills it with SIGKILL once it reports
// that layer kill is checkpointed, and returns the work folder it left (checked: one folder, no output, at least
// kill+1 checkpoints).
func killAfterLayer(t *testing.T, in, out string, kill int, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperQuantizeRun$")
	cmd.Env = append(append(os.Environ(), "MLXBUN_TEST_IN="+in, "MLXBUN_TEST_OUT="+out), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	killed := false
	for sc.Scan() {
		if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "layer ")); err == nil && n == kill {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
			break
		}
	}
	cmd.Wait()
	if !killed {
		t.Fatalf("the helper never reported layer %d", kill)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("the killed run left an output: %v", err)
	}
	work, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*"))
	if len(work) != 1 {
		t.Fatalf("work folders after the kill: %v", work)
	}
	ckpts, _ := os.ReadDir(filepath.Join(work[0], ckptDir))
	if len(ckpts) < kill+1 {
		t.Fatalf("%d checkpoints after layer %d finished", len(ckpts), kill)
	}
	return work[0]
}

// TestResumeAutoL: the work folder records the L that --L auto resolved to, not "auto". A run killed with L auto
// on the CPU (L 12) resumes with --L 12 given, is refused with --L 16 naming the setting, and is refused on a
// device search (where auto is 16) with a sentence saying what auto chose there; a run killed with --L 12 given
// resumes with L auto. Both resumed artifacts are byte for byte the uninterrupted L-auto run's.
func TestResumeAutoL(t *testing.T) {
	in := small(backend.BF16).write(t)
	plain := func(L int) Options { return Options{Bits: 2, L: L, GroupSize: 64, Resume: true} }
	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := Run(in, ref, plain(0), nil); err != nil {
		t.Fatal(err)
	}
	want := filesSHA(t, ref)
	for _, c := range []struct{ made, resumed int }{{0, 12}, {12, 0}} {
		out := filepath.Join(t.TempDir(), "out")
		work := killAfterLayer(t, in, out, 0, fmt.Sprintf("MLXBUN_TEST_L=%d", c.made))
		if c.made == 0 {
			_, err := Run(in, out, plain(16), nil)
			if err == nil || !strings.Contains(err.Error(), "--L: 12 then, 16 now") || strings.Contains(err.Error(), "auto chose") {
				t.Fatalf("resume of an L-auto CPU run with --L 16: %v", err)
			}
			o := plain(0)
			o.Searcher = &fakeGPU{maxT: 256}
			_, err = Run(in, out, o, nil)
			if err == nil || !strings.Contains(err.Error(), "--L: 12 then, 16 now; --L auto chose 16 here (the trellis search runs on fakegpu); give the --L it was made with") {
				t.Fatalf("resume of an L-auto CPU run with L auto on a device: %v", err)
			}
			if _, err := os.Stat(work); err != nil {
				t.Fatalf("the refused resumes removed the work folder: %v", err)
			}
		}
		var notes []string
		if _, err := Run(in, out, plain(c.resumed), func(e Event) {
			if e.Stage == StageNote {
				notes = append(notes, e.Note)
			}
		}); err != nil {
			t.Fatalf("made with L %d, resumed with L %d: %v", c.made, c.resumed, err)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "resuming "+work) {
			t.Errorf("made with L %d, resumed with L %d: notes %q", c.made, c.resumed, notes)
		}
		got := filesSHA(t, out)
		for f, w := range want {
			if got[f] != w {
				t.Errorf("made with L %d, resumed with L %d: %s sha256 %s, uninterrupted L auto %s", c.made, c.resumed, f, got[f], w)
			}
		}
	}
}

// TestResumeWithoutAWorkFolder: --resume with nothing to resume says so and runs from the start; --resume with
// --sequential is refused by name.
func TestResumeWithoutAWorkFolder(t *testing.T) {
	in := small(backend.BF16).write(t)
	o := cheap(2)
	o.Resume = true
	var notes []string
	if _, err := Run(in, filepath.Join(t.TempDir(), "out"), o, func(e Event) {
		if e.Stage == StageNote {
			notes = append(notes, e.Note)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "no interrupted run") {
		t.Errorf("notes %q", notes)
	}
	o = resumeOptions()
	o.Resume, o.Sequential = true, true
	_, err := Run(in, filepath.Join(t.TempDir(), "out"), o, nil)
	if err == nil || !strings.Contains(err.Error(), "--resume does not resume --sequential") {
		t.Errorf("--resume --sequential: %v", err)
	}
}
