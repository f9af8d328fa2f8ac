// Test that generate says so when a full context ends the output: --json reports stop_reason "context", and the
// plain (streaming) output gets one warning line on stderr naming the flag to raise; the exit code stays 0.
package main

import (
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// warnLines are the lines of stderr that are zerolog warnings.
func warnLines(stderr string) []string {
	var ws []string
	for line := range strings.Lines(stderr) {
		if strings.Contains(line, "WRN") {
			ws = append(ws, strings.TrimSpace(line))
		}
	}
	return ws
}

func TestGenerateContextFullWarns(t *testing.T) {
	qwen := testutil.Fixture(t, "models/tiny-qwen3") // max_position_embeddings above every context here
	gen := func(t *testing.T, model string, args ...string) result {
		t.Helper()
		r := bounded(t, "", append([]string{"generate", "--model", model, "--prompt-ids", "1,2,3", "--device", "cpu", "--ignore-eos"}, args...)...)
		if r.code != 0 {
			t.Fatalf("generate %v: exit %d, want 0: %s", args, r.code, r.stderr)
		}
		return r
	}
	wantOne := func(t *testing.T, r result, wants ...string) {
		t.Helper()
		ws := warnLines(r.stderr)
		if len(ws) != 1 {
			t.Fatalf("%d warning lines, want one:\n%s", len(ws), r.stderr)
		}
		for _, w := range append([]string{"generation stopped at the context limit", "raise -c/--ctx-size"}, wants...) {
			if !strings.Contains(ws[0], w) {
				t.Errorf("warning %q does not say %q", ws[0], w)
			}
		}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"-n 10 -c 5", []string{"-n", "10", "-c", "5"}, "after 3 tokens: the context of 5 (-c/--ctx-size) is full"},
		{"--ctx-size spelling", []string{"-n", "10", "--ctx-size", "5"}, "the context of 5 (-c/--ctx-size)"},
		{"-n -1 -c 12", []string{"-n", "-1", "-c", "12"}, "after 10 tokens: the context of 12 (-c/--ctx-size) is full"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := gen(t, qwen, c.args...)
			wantOne(t, r, c.want)
			if r.stdout == "" {
				t.Error("no text on stdout")
			}
		})
	}
	t.Run("the model's positions capping the default context", func(t *testing.T) {
		short := edited(t, "models/tiny-qwen3", func(c map[string]any) { c["max_position_embeddings"] = 8.0 })
		wantOne(t, gen(t, short, "-n", "10"), "the context of 8 (the model's max_position_embeddings) is full")
	})
	t.Run("no warning when --max-tokens ends it", func(t *testing.T) {
		if ws := warnLines(gen(t, qwen, "-n", "2", "-c", "16").stderr); len(ws) != 0 {
			t.Errorf("a run ended by --max-tokens warns: %q", ws)
		}
	})
	t.Run("--json: stop_reason, no warning", func(t *testing.T) {
		rec, r := genJSON(t, "", "--model", qwen, "--prompt-ids", "1,2,3", "-n", "10", "-c", "5", "--ignore-eos")
		if rec.StopReason != "context" || r.stderr != "" {
			t.Errorf("stop_reason %q, stderr %q; want context and nothing", rec.StopReason, r.stderr)
		}
	})
}
