// The first-run polish cases: flags people bring from llama.cpp that this CLI has not (and a shorthand with its
// value attached, -ngl, that used to read as a bad -n), flag values that were accepted and then ignored or read as
// something else, and messages that leaked encoding/json's Go types. Each case runs the real binary, bounded.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

func TestFirstRunPolish(t *testing.T) {
	py := testutil.Fixture(t, "trained/pycoder-12m")
	qwen := testutil.Fixture(t, "models/tiny-qwen3")
	tmpl := withTemplate(t)
	gen := func(more ...string) []string {
		return append([]string{"generate", "--model", py, "--device", "cpu", "-n", "2", "--no-chat-template"}, more...)
	}
	bench := func(more ...string) []string {
		return append([]string{"bench", "--model", qwen, "--device", "cpu", "-p", "4", "-n", "0", "-r", "1"}, more...)
	}
	prompt := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(prompt, []byte("def f(x):\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runErrCases(t, []errCase{
		// llama.cpp's flags: -ngl read as -n "gl" ("-n/--max-tokens "gl": want a whole number")
		{"-ngl", gen("-p", "def", "-ngl", "99"), "", []string{"generate: -ngl is not a flag of mlxbun", "--n-gpu-layers", "--device cuda"}},
		{"-ngl on bench", bench("-ngl", "99"), "", []string{"bench: -ngl is not a flag of mlxbun"}},
		{"--n-gpu-layers", gen("-p", "def", "--n-gpu-layers", "99"), "", []string{"unknown flag: --n-gpu-layers", "--device cuda"}},
		{"-ngl on serve (no -n)", []string{"serve", "-m", qwen, "-ngl", "99"}, "", []string{"unknown shorthand flag: 'n' in -ngl", "--n-gpu-layers"}},
		{"-t", bench("-t", "4"), "", []string{"unknown shorthand flag: 't' in -t", "GOMAXPROCS"}},
		{"--threads=4", gen("-p", "def", "--threads=4"), "", []string{"unknown flag: --threads", "GOMAXPROCS"}},
		{"-fa", gen("-p", "def", "-fa"), "", []string{"'f' in -fa", "--flash-attn"}},
		{"a shorthand's attached value", gen("-p", "def", "-cnv"), "", []string{`generate: -cnv reads as -c/--max-kv-size "nv" (short flags are one letter): want a whole number`}},
		// given and empty: -p "" read stdin (waiting on a terminal), --prompt-ids "" asked for a tokenizer
		{"--prompt empty", gen("-p", ""), "text on stdin", []string{"generate: --prompt is empty"}},
		{"--prompt-ids empty", []string{"generate", "--model", qwen, "--device", "cpu", "--prompt-ids", ""}, "", []string{"generate: --prompt-ids is empty"}},
		// accepted and dropped
		{"--stop empty", gen("-p", "def", "--stop", ""), "", []string{`generate: --stop "": an empty stop string`}},
		{"--logit-bias twice", gen("-p", "def", "--logit-bias", "1=2,1=3"), "", []string{"--logit-bias: token 1 is given twice (2 and 3)"}},
		{"bench --streams negative", bench("--streams", "-1"), "", []string{"bench: --streams -1"}},
		{"bench --draft-prompt without --draft", bench("--draft-prompt", prompt), "", []string{"--draft-prompt", "give --draft ngram"}},
		{"bench --profile on the cpu", bench("--profile"), "", []string{"bench: --profile: the cpu backend has no kernel profiler"}},
		{"bench --profile with --draft", bench("--profile", "--draft", "ngram", "-n", "4"), "", []string{"--profile", "not --draft"}},
		// each flag named alone
		{"--draft unknown", gen("-p", "def", "--draft", "foo"), "", []string{`generate: --draft "foo": want none or ngram`}},
		{"--draft-max 0", gen("-p", "def", "--draft", "ngram", "--draft-max", "0"), "", []string{"generate: --draft-max 0: want at least 1"}},
		{"chat --temp NaN", []string{"chat", "-m", tmpl, "--device", "cpu", "--temp", "NaN"}, "", []string{"chat: --temp NaN"}},
		// --chat-template-args in words (it printed "cannot unmarshal array into Go value of type map[string]interface {}")
		{"template args an array", []string{"generate", "-m", tmpl, "--device", "cpu", "-p", "hi", "--chat-template-args", "[1]"}, "",
			[]string{`generate: --chat-template-args "[1]": a JSON array, want an object`}},
		{"template args not JSON", []string{"generate", "-m", tmpl, "--device", "cpu", "-p", "hi", "--chat-template-args", "{"}, "",
			[]string{`--chat-template-args "{": not JSON`}},
		{"quantize --calib-tokens 0", []string{"quantize", "--model", qwen, "--out", filepath.Join(t.TempDir(), "q"), "--bits", "2", "--calib-tokens", "0"}, "",
			[]string{"quantize: --calib-tokens 0: want a positive number", "default 131072"}}, // it ran as 32768
		{"chat template args a string", []string{"chat", "-m", tmpl, "--device", "cpu", "--chat-template-args", `"x"`}, "",
			[]string{`chat: --chat-template-args "\"x\"": a JSON string, want an object`}},
	})
	t.Run("bench --dry-run -o csv", func(t *testing.T) { // it printed the markdown table
		r := bounded(t, "", "bench", "--synthetic", "qwen3-8b", "--dry-run", "-o", "csv")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != 0 || len(lines) != 2 || lines[0] != "model,params,active_params,stored_bytes,decode_bytes_per_token" ||
			!strings.HasPrefix(lines[1], "qwen3-8b bf16,8190735360,8190735360,") {
			t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("chat: an unknown /command is not a message", func(t *testing.T) {
		r := bounded(t, "/rest\n/help\nhi\n", "chat", "-m", tmpl, "--device", "cpu", "-n", "2", "--temperature", "0")
		if r.code != 0 || !strings.Contains(r.stderr, "unknown command /rest; /reset starts a new conversation") ||
			strings.Count(r.stderr, "prompt tokens") != 1 {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
}

// TestQuantizeSignal: a quantize stopped by SIGTERM says so in one line and exits 130 (it said "quantize: context
// canceled" and exited 1), leaving no output.
func TestQuantizeSignal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "q")
	// --fast at L 12 encodes tiny-qwen3 for about 15 s on the CPU: the signal comes inside a trellis search.
	cmd := exec.Command(binPath, "quantize", "--model", testutil.Fixture(t, "models/tiny-qwen3"), "--out", out, "--bits", "2", "--L", "12", "--fast", "--device", "cpu")
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("quantize ran on 10 s after SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 || strings.Count(errb.String(), "\n") != 1 ||
		!strings.Contains(errb.String(), "quantize: stopped by a signal before it finished") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a stopped run left %s (%v)", out, err)
	}
}
