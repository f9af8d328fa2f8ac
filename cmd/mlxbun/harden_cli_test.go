// The hardening cases of the CLI, one table per class of what a user can run into: silent wrong answers (a value
// the engine would cut, ignore or run as something else), misleading results (a run that "succeeds" measuring
// nothing), the first run's rough edges, and the flag spellings people bring from mlx-lm and llama.cpp. Every
// run is bounded (bounded): 10 s, 1 GiB of resident memory, a fresh TMPDIR and working directory that must stay
// empty; every error case is one line on stderr with a failing exit and no goroutine dump. The hangs and
// out-of-memory crashes have their table in limits_cli_test.go.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/loratest"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
	"github.com/mlxbun/mlxbun/internal/verify"
)

// bounded runs mlxbun as a user would, within 10 s and 1 GiB of peak resident memory (a 4 GiB address-space limit
// stops a runaway before it takes the machine: a Go binary reserves more than 1 GiB of address space up front),
// with TMPDIR and the working directory fresh folders that must be empty afterwards.
func bounded(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	tmp, work := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sh := append([]string{"-c", `ulimit -v 4194304 && exec "$0" "$@"`, binPath}, args...)
	cmd := exec.CommandContext(ctx, "/bin/sh", sh...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Dir = work
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mlxbun %v ran past 10 s", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && runtime.GOOS == "linux" && ru.Maxrss > 1<<20 { // KiB
		t.Errorf("mlxbun %v: peak resident memory %d MiB, over 1 GiB", args, ru.Maxrss>>10)
	}
	for where, dir := range map[string]string{"TMPDIR": tmp, "the working directory": work} {
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("mlxbun %v left %d entries in %s (first %s)", args, len(left), where, left[0].Name())
		}
	}
	return result{out.String(), errb.String(), code}
}

// errCase is a command line that must fail with one stderr line holding every want.
type errCase struct {
	name  string
	args  []string
	stdin string
	want  []string
}

func runErrCases(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oneErrorLine(t, bounded(t, c.stdin, c.args...), c.want...)
		})
	}
}

// edited is a copy of a fixture model with its config.json edited.
func edited(t *testing.T, fixture string, edit func(map[string]any)) string {
	t.Helper()
	dir := copyModel(t, fixture)
	editConfig(t, dir, edit)
	return dir
}

// editedDir is a copy of the (flat) model directory src with its config.json edited.
func editedDir(t *testing.T, src string, edit func(map[string]any)) string {
	t.Helper()
	dst := copyDir(t, src)
	editConfig(t, dst, edit)
	return dst
}

// trellisCoded quantizes tiny-qwen3 through the CLI (2 bits, L 4, groups of 64: well under a second) and returns
// the artifact, whose shards carry the geometry records.
func trellisCoded(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "q2")
	r := bounded(t, "", "quantize", "--model", testutil.Fixture(t, "models/tiny-qwen3"), "--out", out, "--bits", "2", "--L", "4", "--group-size", "64", "--fast")
	if r.code != 0 {
		t.Fatalf("quantize: exit %d: %s", r.code, r.stderr)
	}
	return out
}

// genJSON runs generate with --json and decodes the record.
func genJSON(t *testing.T, stdin string, args ...string) (genRecordOut, result) {
	t.Helper()
	r := bounded(t, stdin, append([]string{"generate", "--json", "--device", "cpu"}, args...)...)
	if r.code != 0 {
		t.Fatalf("generate %v: exit %d: %s", args, r.code, r.stderr)
	}
	var rec genRecordOut
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
		t.Fatalf("generate %v: stdout is not one JSON record: %v\n%s", args, err, r.stdout)
	}
	return rec, r
}

// genRecordOut reads generate --json with generated_ids and generation_tps kept raw, to tell [] from null.
type genRecordOut struct {
	Text       string          `json:"text"`
	PromptIDs  []int           `json:"prompt_ids"`
	Generated  json.RawMessage `json:"generated_ids"`
	StopReason string          `json:"stop_reason"`
	Seed       *uint64         `json:"seed"`
	GenTPS     json.RawMessage `json:"generation_tps"`
}

func (g genRecordOut) ids(t *testing.T) []int {
	t.Helper()
	var ids []int
	if err := json.Unmarshal(g.Generated, &ids); err != nil {
		t.Fatalf("generated_ids %s: %v", g.Generated, err)
	}
	return ids
}

// TestSilentWrongAnswers: values the engine used to cut, ignore or run as something else are refused by name.
func TestSilentWrongAnswers(t *testing.T) {
	qwen := testutil.Fixture(t, "models/tiny-qwen3") // vocab 2048
	py := testutil.Fixture(t, "trained/pycoder-12m")
	gen := func(dir string, more ...string) []string {
		return append([]string{"generate", "--model", dir, "--device", "cpu"}, more...)
	}
	ids := "--prompt-ids=1,2,3"
	cfg := func(fixture string, edit func(map[string]any)) string { return edited(t, fixture, edit) }
	coded := trellisCoded(t)
	trellisEdit := func(edit func(q map[string]any)) string {
		return editedDir(t, coded, func(c map[string]any) { edit(c["quantization"].(map[string]any)) })
	}
	fullTypes := func(n int) []any {
		lt := make([]any, n)
		for i := range lt {
			lt[i] = "full_attention"
		}
		return lt
	}
	runErrCases(t, []errCase{
		// ids in full width: 2³²+100 used to run as id 100
		{"id past 32 bits", gen(qwen, "--prompt-ids", "4294967396"), "", []string{"--prompt-ids: id 4294967396 is outside the vocabulary of 2048 (ids 0..2047)"}},
		{"id = vocab", gen(qwen, "--prompt-ids", "1,2048"), "", []string{"id 2048 is outside the vocabulary of 2048"}},
		{"id past 64 bits", gen(qwen, "--prompt-ids", "99999999999999999999"), "", []string{"--prompt-ids", `"99999999999999999999" is not a token id`}},
		{"negative id", gen(qwen, "--prompt-ids", "3,-1"), "", []string{"--prompt-ids", `"-1" is not a token id`}},
		{"not a number", gen(qwen, "--prompt-ids", "1,x"), "", []string{"--prompt-ids", `"x"`}},
		{"logit bias past the vocabulary", gen(qwen, ids, "--logit-bias", "5000=1"), "", []string{"--logit-bias: id 5000 is outside the vocabulary of 2048"}},
		{"logit bias past 32 bits", gen(qwen, ids, "--logit-bias", "4294967297=-100"), "", []string{"--logit-bias: id 4294967297"}},
		// activations the MLP does not compute (silu used to run)
		{"gelu on qwen3", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["hidden_act"] = "gelu" }), ids), "", []string{"config.json", `hidden_act "gelu" is not supported`, "silu"}},
		{"relu on qwen3", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["hidden_act"] = "relu" }), ids), "", []string{`hidden_act "relu"`}},
		{"banana on qwen3", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["hidden_act"] = "banana" }), ids), "", []string{`hidden_act "banana"`}},
		{"relu as hidden_activation on llama", gen(cfg("models/tiny-llama3", func(c map[string]any) { c["hidden_activation"] = "relu" }), ids), "", []string{`hidden_activation "relu"`}},
		{"erf gelu on gemma2", gen(cfg("models/tiny-gemma2", func(c map[string]any) { c["hidden_activation"] = "gelu" }), ids), "", []string{`hidden_activation "gelu"`, "gelu_pytorch_tanh"}},
		{"activation not a string", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["hidden_act"] = 1.0 }), ids), "", []string{"hidden_act 1"}},
		// layer types
		{"unknown layer type", gen(cfg("models/tiny-qwen3", func(c map[string]any) {
			lt := fullTypes(2)
			lt[1] = "chunked_attention"
			c["layer_types"] = lt
		}), ids), "", []string{`layer_types[1] is "chunked_attention"`}},
		{"sliding layer on qwen3", gen(cfg("models/tiny-qwen3", func(c map[string]any) {
			c["layer_types"] = []any{"full_attention", "sliding_attention"}
		}), ids), "", []string{`layer_types[1] is "sliding_attention"`, "not implemented"}},
		{"layer_types too short", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["layer_types"] = fullTypes(1) }), ids), "", []string{"layer_types must list one type for each of the 2 layers"}},
		{"layer_types too long", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["layer_types"] = fullTypes(3) }), ids), "", []string{"layer_types", "2 layers"}},
		{"unknown layer type on gemma2", gen(cfg("models/tiny-gemma2", func(c map[string]any) {
			c["layer_types"] = []any{"sliding_attention", "full_attention", "global", "full_attention"}
		}), ids), "", []string{`layer_types[2] is "global"`}},
		{"layer_types too short on qwen3.5", gen(cfg("models/tiny-qwen3_5", func(c map[string]any) { c["layer_types"] = fullTypes(2) }), ids), "", []string{"layer_types has 2 entries for 4 layers"}},
		{"sliding window on qwen3", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["use_sliding_window"] = true }), ids), "", []string{"use_sliding_window true is not supported"}},
		// fewer layers than the weights
		{"fewer layers than the weights", gen(cfg("models/tiny-qwen3", func(c map[string]any) {
			c["num_hidden_layers"] = 1.0
			delete(c, "layer_types")
		}), ids), "", []string{"num_hidden_layers is 1, but the weights hold layers up to 1", "model.layers.1."}},
		{"fewer layers, layer_types kept", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["num_hidden_layers"] = 1.0 }), ids), "", []string{"layer_types must list one type for each of the 1 layers"}},
		{"fewer layers on gemma3", gen(cfg("models/tiny-gemma3", func(c map[string]any) {
			c["num_hidden_layers"] = 4.0
			delete(c, "layer_types")
		}), ids), "", []string{"num_hidden_layers is 4, but the weights hold layers up to 5"}},
		{"another family's layout", gen(cfg("models/tiny-qwen3", func(c map[string]any) { c["model_type"] = "qwen2" }), ids), "", []string{"never reads", "self_attn.k_norm.weight", "qwen2 model"}},
		// flags that would be dropped
		{"prompt and prompt-ids", gen(qwen, "--prompt-ids", "1,2", "--prompt", "hi"), "", []string{"use one of --prompt and --prompt-ids"}},
		{"prompt - and prompt-ids", gen(qwen, "--prompt-ids", "1,2", "--prompt", "-"), "hi", []string{"use one of --prompt and --prompt-ids"}},
		{"system with prompt-ids", gen(qwen, ids, "--system", "be brief"), "", []string{"--system applies to a text prompt"}},
		{"no-chat-template with prompt-ids", gen(qwen, ids, "--no-chat-template"), "", []string{"--no-chat-template applies to a text prompt"}},
		{"chat-template-args with prompt-ids", gen(qwen, ids, "--chat-template-args", "{}"), "", []string{"--chat-template-args applies to a text prompt"}},
		{"system without a template", gen(py, "--prompt", "def", "--system", "be brief"), "", []string{"--system", "the model has none"}},
		{"system with no-chat-template", gen(py, "--prompt", "def", "--system", "x", "--no-chat-template"), "", []string{"--no-chat-template turns off"}},
		{"bench negative bits", []string{"bench", "--synthetic", "qwen3-14b", "--bits", "-1", "--dry-run"}, "", []string{"--bits -1"}},
		// a trellis artifact's config edited after quantizing: the geometry records refuse it (it decoded garbage)
		{"trellis L edited", gen(trellisEdit(func(q map[string]any) { q["trellis"].(map[string]any)["L"] = 5.0 }), ids), "", []string{
			`tensor "model.layers.0.self_attn.q_proj.weight"`, "gives trellis.L 5, but the codes were written with 4", "edited after quantizing"}},
		{"trellis group_size edited", gen(trellisEdit(func(q map[string]any) { q["group_size"] = 128.0 }), ids), "", []string{"gives group_size 128, but the codes were written with 64"}},
		{"per-path L edited", gen(trellisEdit(func(q map[string]any) {
			q["model.layers.1.mlp.down_proj"].(map[string]any)["trellis"].(map[string]any)["L"] = 6.0
		}), ids), "", []string{`tensor "model.layers.1.mlp.down_proj.weight"`, "trellis.L 6"}},
		{"per-path group_size edited", gen(trellisEdit(func(q map[string]any) { q["model.layers.0.mlp.down_proj"].(map[string]any)["group_size"] = 32.0 }), ids), "",
			[]string{`tensor "model.layers.0.mlp.down_proj.weight"`, "group_size 32"}},
		{"trellis bits edited", gen(trellisEdit(func(q map[string]any) { q["bits"] = 4.0 }), ids), "", []string{`tensor "model.layers.0.self_attn.q_proj.weight"`, "trellis codes of a"}},
	})
	// The unedited artifact runs.
	if r := bounded(t, "", gen(coded, ids, "--max-tokens", "1")...); r.code != 0 {
		t.Errorf("the quantized model: %s", r.stderr)
	}
	// The published configs still run: the refusals are about the values, not the keys.
	for _, fx := range []string{"models/tiny-qwen3", "models/tiny-gemma2", "models/tiny-qwen3_5"} {
		if r := bounded(t, "", "generate", "--model", testutil.Fixture(t, fx), ids, "--max-tokens", "1", "--device", "cpu"); r.code != 0 {
			t.Errorf("%s: %s", fx, r.stderr)
		}
	}
	swish := edited(t, "models/tiny-qwen3", func(c map[string]any) { c["hidden_act"] = "swish" })
	a, _ := genJSON(t, "", "--model", swish, ids, "--max-tokens", "4", "--ignore-eos")
	b, _ := genJSON(t, "", "--model", qwen, ids, "--max-tokens", "4", "--ignore-eos")
	if !slices.Equal(a.ids(t), b.ids(t)) {
		t.Errorf("hidden_act swish (SiLU) continues %v, silu %v", a.ids(t), b.ids(t))
	}
}

// poisonedAdapter is a PEFT adapter for tiny-qwen3 whose first A matrix holds NaN at element 5.
func poisonedAdapter(t *testing.T) string {
	t.Helper()
	clean := loratest.Random(t, testutil.Fixture(t, "models/tiny-qwen3"), lora.PEFT, []string{"self_attn.q_proj"}, 4, 1, 9)
	a, err := lora.Open(clean, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := &a.Targets[0].A
	h.Data = slices.Clone(h.Data)
	if h.DType != backend.BF16 {
		t.Fatalf("adapter A is %s, want BF16", h.DType)
	}
	binary.LittleEndian.PutUint16(h.Data[2*5:], dtype.F32ToBF16(float32(math.NaN())))
	dir := filepath.Join(t.TempDir(), "poisoned")
	if err := lora.Write(dir, lora.PEFT, a.Targets); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMisleadingResults: runs that used to succeed measuring nothing, or fail without saying where to look.
func TestMisleadingResults(t *testing.T) {
	qwen := testutil.Fixture(t, "models/tiny-qwen3")
	py := testutil.Fixture(t, "trained/pycoder-12m")
	held := filepath.Join(py, "heldout.txt")
	poisoned := copyModel(t, "models/tiny-qwen3")
	poison(t, poisoned, "model.layers.1.mlp.down_proj.weight", 17)
	ids := "--prompt-ids=1,2,3"
	gen := func(dir string, more ...string) []string {
		return append([]string{"generate", "--model", dir, "--device", "cpu"}, more...)
	}
	ppl := func(more ...string) []string {
		return append([]string{"perplexity", "--model", py, "--device", "cpu"}, more...)
	}
	bench := func(more ...string) []string {
		return append([]string{"bench", "--model", qwen, "--device", "cpu"}, more...)
	}
	quant := func(more ...string) []string {
		return append([]string{"quantize", "--model", qwen, "--out", filepath.Join(t.TempDir(), "q")}, more...)
	}
	runErrCases(t, []errCase{
		{"verify --only matching nothing", []string{"verify-kernels", "--device", "cpu", "--quick", "--only", "NoSuchOp"}, "", []string{`--only "NoSuchOp" matches no case`, "MatMul/dense"}},
		{"verify bad output", []string{"verify-kernels", "--device", "cpu", "-o", "yaml"}, "", []string{`-o "yaml"`}},
		{"perplexity negative max-bytes", ppl("--file", held, "--max-bytes", "-10"), "", []string{"--max-bytes -10"}},
		{"perplexity absurd max-bytes", ppl("--file", held, "--max-bytes", "99999999999"), "", []string{"--max-bytes 99999999999"}},
		{"perplexity ctx 1", ppl("--file", held, "--ctx", "1"), "", []string{"--ctx 1", "2.."}},
		{"perplexity negative ctx", ppl("--file", held, "--ctx", "-5"), "", []string{"--ctx -5"}},
		{"perplexity ctx past the model", ppl("--file", held, "--ctx", "100000", "--max-bytes", "1000"), "", []string{"--ctx 100000"}},
		{"perplexity on a device", ppl("--file", "/dev/zero"), "", []string{"--file /dev/zero", "not a file"}},
		{"perplexity on a directory", ppl("--file", t.TempDir()), "", []string{"a directory, not a file"}},
		{"perplexity on a missing file", ppl("--file", "/no/such/text.txt"), "", []string{"/no/such/text.txt", "no such file"}},
		{"NaN logits point to --check-tensors", gen(poisoned, ids), "", []string{"step 1: logits hold NaN", "run again with --check-tensors"}},
		{"check-tensors names the weight", gen(poisoned, ids, "--check-tensors"), "", []string{"model.layers.1.mlp.down_proj.weight", "element 17"}},
		{"check-tensors scans adapters", gen(qwen, ids, "--check-tensors", "--adapter", poisonedAdapter(t)), "", []string{
			"--check-tensors: adapter", "adapter_model.safetensors: tensor base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight holds NaN at element 5"}},
		{"perplexity without a tokenizer", []string{"perplexity", "--model", poisoned, "--file", held, "--device", "cpu", "--ctx", "8", "--max-bytes", "100"}, "",
			[]string{"tokenizer.json"}},
		{"max-tokens -5", gen(qwen, ids, "--max-tokens", "-5"), "", []string{"--max-tokens -5", "-1 for until"}},
		{"max-tokens past int32", gen(qwen, ids, "--max-tokens", "3000000000"), "", []string{"--max-tokens 3000000000"}},
		{"max-kv-size negative", gen(qwen, ids, "--max-kv-size", "-1"), "", []string{"--max-kv-size -1"}},
		{"max-kv-size past int32", gen(qwen, ids, "--max-kv-size", "3000000000"), "", []string{"--max-kv-size 3000000000"}},
		{"top-p above 1", gen(qwen, ids, "--top-p", "1.5"), "", []string{"generate: --top-p 1.5 must lie in [0, 1] (0 and 1 mean off)"}},
		{"two bad sampling flags, one line", gen(qwen, ids, "--temp", "-1", "--top-k", "-3"), "", []string{"--temp -1", "--top-k -3"}},
		{"min-p above 1", gen(qwen, ids, "--min-p", "2"), "", []string{"--min-p 2"}},
		{"negative repetition penalty", gen(qwen, ids, "--repetition-penalty", "-1"), "", []string{"--repetition-penalty -1"}},
		{"negative repetition context", gen(qwen, ids, "--repetition-context-size", "-4"), "", []string{"--repetition-context-size -4"}},
		{"NaN presence penalty", gen(qwen, ids, "--presence-penalty", "NaN"), "", []string{"--presence-penalty NaN"}},
		{"NaN adapter scale", gen(qwen, ids, "--adapter", "x", "--adapter-scale", "NaN"), "", []string{"--adapter-scale NaN: want a finite number"}},
		{"negative seed", gen(qwen, ids, "--seed", "-1"), "", []string{`--seed "-1"`, "whole number from 0"}},
		{"json-schema on a device", gen(qwen, ids, "--json-schema", "/dev/zero"), "", []string{"--json-schema /dev/zero", "not a file"}},
		{"bench zero runs", bench("-r", "0", "-p", "4", "-n", "0"), "", []string{"-r 0"}},
		{"bench runs past the bound", bench("-r", "99999999999", "-p", "4", "-n", "0"), "", []string{"-r 99999999999: want 1..1048576 runs per test"}},
		{"bench negative prompt", bench("-p", "-5"), "", []string{"-p -5"}},
		{"bench nothing to measure", bench("-p", "0", "-n", "0"), "", []string{"nothing to measure"}},
		{"bench bits above 8", []string{"bench", "--synthetic", "qwen3-14b", "--bits", "9", "--device", "cpu"}, "", []string{"--bits 9"}},
		{"bench bits on a model directory", bench("--bits", "3"), "", []string{"--bits and --dtype describe a --synthetic model"}},
		{"bench zero batch", bench("--batch", "0", "-p", "0", "-n", "2"), "", []string{"--batch 0"}},
		{"bench bad list", bench("-p", "16,x"), "", []string{"-p/--n-prompt", "comma-separated whole numbers"}},
		{"quantize bits 0", quant("--bits", "0"), "", []string{"--bits 0"}},
		{"quantize bits 9", quant("--bits", "9"), "", []string{"--bits 9"}},
		{"quantize L 0", quant("--bits", "3", "--L", "0"), "", []string{"--L 0"}},
		{"quantize negative group size", quant("--bits", "3", "--group-size", "-1"), "", []string{"--group-size -1"}},
		{"quantize negative workers", quant("--bits", "3", "--workers", "-2"), "", []string{"--workers -2"}},
		{"quantize negative damp", quant("--bits", "3", "--damp", "-1", "--calib", held), "", []string{"--damp -1"}},
		{"quantize infinite damp", quant("--bits", "3", "--damp", "+Inf", "--calib", held), "", []string{"--damp +Inf: want a finite number"}},
		{"quantize damp without calib", quant("--bits", "3", "--calib", "none", "--damp", "0.1"), "", []string{"--damp damps LDLQ's Hessian: it needs calibration (--calib none turns it off)"}},
		{"quantize damp with fast", quant("--bits", "3", "--fast", "--damp", "0.1"), "", []string{"--damp damps LDLQ's Hessian: it needs calibration (--fast turns it off)"}},
		{"quantize seed without rht", quant("--bits", "3", "--rht=false", "--seed", "5"), "", []string{"--seed draws the Hadamard signs: it needs --rht"}},
		{"quantize seed with fast", quant("--bits", "3", "--fast", "--seed", "5"), "", []string{"--seed draws the Hadamard signs: it needs --rht"}},
		{"quantize calib-tokens without calib", quant("--bits", "3", "--fast", "--calib-tokens", "64"), "", []string{"--calib-tokens", "needs calibration"}},
		{"quantize calib-seed with a file", quant("--bits", "3", "--calib", held, "--calib-seed", "3"), "", []string{"--calib-seed", "needs --calib auto"}},
		{"quantize refit without calib", quant("--bits", "3", "--calib", "none", "--refit-scales"), "", []string{"--refit-scales", "needs calibration"}},
		{"quantize resume sequential", quant("--bits", "3", "--resume", "--sequential"), "", []string{"--resume does not resume --sequential"}},
		{"tokenize id past the vocabulary", []string{"tokenize", "--model", py, "--decode", "--text", "[99999]"}, "", []string{"id 99999 outside the vocabulary"}},
	})
	// The NaN path of perplexity, on a poisoned copy that keeps pycoder's tokenizer.
	pyPoisoned := copyModel(t, "trained/pycoder-12m")
	poison(t, pyPoisoned, "model.layers.0.mlp.down_proj.weight", 3)
	oneErrorLine(t, bounded(t, "", "perplexity", "--model", pyPoisoned, "--file", held, "--device", "cpu", "--ctx", "8", "--max-bytes", "100"),
		"perplexity: window 0", "not finite", "run again with --check-tensors")

	// Scoring what is not text warns on stderr (the run itself succeeds); text does not.
	rng := rand.New(rand.NewPCG(3, 4))
	noise := make([]byte, 100)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	nul := append([]byte("def f(x):\n"), make([]byte, 60)...)
	for _, c := range []struct {
		name string
		data []byte
		want string // "" for no warning
	}{
		{"random bytes", noise, "not valid UTF-8"},
		{"NUL bytes", append(nul, []byte("    return x\n")...), "are NUL"},
		{"text", []byte(strings.Repeat("def f(x):\n    return x + 1\n", 4)), ""},
	} {
		t.Run("perplexity on "+c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.bin")
			if err := os.WriteFile(file, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			r := bounded(t, "", "perplexity", "--model", py, "--file", file, "--ctx", "8", "--max-bytes", "100", "--device", "cpu")
			if r.code != 0 || !strings.Contains(r.stdout, "perplexity ") {
				t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
			}
			warned := strings.Contains(r.stderr, "this is not text")
			if (c.want != "") != warned || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("stderr %q, want a warning naming %q", r.stderr, c.want)
			}
		})
	}
}

// withTemplate is pycoder-12m with a chat template of its own (the fixture has none).
func withTemplate(t *testing.T) string {
	t.Helper()
	dir := copyModel(t, "trained/pycoder-12m")
	tmpl := "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}"
	if err := os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFirstRun: what a new user meets on the first runs.
func TestFirstRun(t *testing.T) {
	py := testutil.Fixture(t, "trained/pycoder-12m")
	qwen := testutil.Fixture(t, "models/tiny-qwen3")
	sampled := []string{"--model", py, "--prompt", "def", "--no-chat-template", "--temp", "1", "--max-tokens", "12", "--ignore-eos"}
	t.Run("a seed drawn at random, reported and replayable", func(t *testing.T) {
		a, _ := genJSON(t, "", sampled...)
		b, _ := genJSON(t, "", sampled...)
		if a.Seed == nil || b.Seed == nil || *a.Seed == *b.Seed {
			t.Fatalf("seeds %v and %v: want two different seeds in the records", a.Seed, b.Seed)
		}
		if *a.Seed >= 1<<53 {
			t.Errorf("seed %d is not exact as a JSON double", *a.Seed)
		}
		replay, _ := genJSON(t, "", append(sampled, "--seed", itoa(int(*a.Seed)))...)
		if !slices.Equal(replay.ids(t), a.ids(t)) {
			t.Errorf("--seed %d continues %v, the run that drew it %v", *a.Seed, replay.ids(t), a.ids(t))
		}
		_, r := genJSON(t, "", append(sampled, "--verbose", "--log-format", "json")...)
		var logged bool
		for _, line := range strings.Split(r.stderr, "\n") {
			var rec struct {
				Level string
				Seed  uint64
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Seed > 0 && rec.Level == "info" {
				logged = true
			}
		}
		if !logged {
			t.Errorf("--verbose does not log the drawn seed:\n%s", r.stderr)
		}
		if _, r := genJSON(t, "", sampled...); r.stderr != "" {
			t.Errorf("the default level logs the seed:\n%s", r.stderr)
		}
	})
	t.Run("no chat template: a warning by default, none with --no-chat-template", func(t *testing.T) {
		_, r := genJSON(t, "", "--model", py, "--prompt", "def", "--max-tokens", "2")
		if !strings.Contains(r.stderr, "WRN") || !strings.Contains(r.stderr, "no chat template") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr %q, want one warning line about the missing chat template", r.stderr)
		}
		if strings.Contains(r.stderr, "\x1b[") {
			t.Errorf("a log line off a terminal carries ANSI colours: %q", r.stderr)
		}
		if _, r := genJSON(t, "", "--model", py, "--prompt", "def", "--max-tokens", "2", "--no-chat-template"); r.stderr != "" {
			t.Errorf("--no-chat-template still warns: %q", r.stderr)
		}
	})
	t.Run("--max-tokens 1 and 0", func(t *testing.T) {
		one, _ := genJSON(t, "", "--model", qwen, "--prompt-ids", "1,2", "--max-tokens", "1")
		if string(one.GenTPS) != "null" || len(one.ids(t)) != 1 {
			t.Errorf("--max-tokens 1: generation_tps %s, ids %s; want null and one id", one.GenTPS, one.Generated)
		}
		zero, _ := genJSON(t, "", "--model", qwen, "--prompt-ids", "1,2", "--max-tokens", "0")
		if string(zero.Generated) != "[]" || zero.StopReason != "length" {
			t.Errorf("--max-tokens 0: generated_ids %s (%s), want []", zero.Generated, zero.StopReason)
		}
		r := bounded(t, "", "generate", "--model", qwen, "--prompt-ids", "1,2", "--max-tokens", "1", "--device", "cpu")
		if r.code != 0 || !strings.Contains(r.stderr, "Generation: 1 tokens, n/a tokens-per-sec") || strings.Contains(r.stderr, "0.000 tokens-per-sec") {
			t.Errorf("--max-tokens 1 speed line:\n%s", r.stderr)
		}
		many, _ := genJSON(t, "", "--model", qwen, "--prompt-ids", "1,2", "--max-tokens", "3", "--ignore-eos")
		var tps float64
		if json.Unmarshal(many.GenTPS, &tps) != nil || !(tps > 0) {
			t.Errorf("--max-tokens 3: generation_tps %s, want a positive number", many.GenTPS)
		}
	})
	t.Run("messages read as sentences", func(t *testing.T) {
		yarn := edited(t, "models/tiny-qwen3", func(c map[string]any) {
			c["rope_parameters"] = map[string]any{"rope_type": "yarn", "rope_theta": 1e6}
		})
		both := edited(t, "models/tiny-qwen3", func(c map[string]any) { c["rope_scaling"] = map[string]any{"rope_type": "linear", "factor": 2.0} })
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"generate", "--model", qwen, "--prompt-ids", "1", "--top-p", "1.5"}, "generate: --top-p 1.5"},
			{[]string{"generate", "--model", yarn, "--prompt-ids", "1", "--device", "cpu"}, "config.json: rope_scaling.factor missing or not a number (rope_type yarn)"},
			{[]string{"generate", "--model", both, "--prompt-ids", "1", "--device", "cpu"}, "rope_parameters"},
			{[]string{"generate", "--temp", "hot"}, `generate: --temp "hot": want a number`},
			{[]string{"generate", "--model", qwen, "-n", "x"}, `generate: -n/--max-tokens "x": want a whole number`},
		} {
			r := bounded(t, "", c.args...)
			oneErrorLine(t, r, c.want)
			for _, leak := range []string{"sample.New", "sample:", "rope: rope", "strconv.", "invalid argument"} {
				if strings.Contains(r.stderr, leak) {
					t.Errorf("%v: %q leaks %q", c.args, r.stderr, leak)
				}
			}
		}
	})
	t.Run("help agrees with the code", func(t *testing.T) {
		for _, verb := range []string{"quantize", "bench"} {
			r := bounded(t, "", verb, "--help")
			if !strings.Contains(r.stdout, "bits per weight, 1..8 (2, 3 and 4 are the useful widths)") {
				t.Errorf("%s --help does not give --bits as the code takes it:\n%s", verb, r.stdout)
			}
		}
		oneErrorLine(t, bounded(t, "", "bench", "--synthetic", "qwen3-14b", "--bits", "9", "--dry-run"), "--bits 9: want 0 (dense) or 1..8")
		if r := bounded(t, "", "bench", "--synthetic", "qwen3-14b", "--bits", "5", "--dry-run"); r.code != 0 {
			t.Errorf("bench --bits 5, inside the documented 1..8: %s", r.stderr)
		}
		r := bounded(t, "", "generate", "--help")
		if !strings.Contains(r.stdout, "nucleus sampling mass in [0, 1] (0 and 1: off)") {
			t.Errorf("generate --help top-p line:\n%s", r.stdout)
		}
		// 0 is off, as the help says: it runs like the default 1.
		a, _ := genJSON(t, "", append(sampled, "--seed", "4", "--top-p", "0")...)
		b, _ := genJSON(t, "", append(sampled, "--seed", "4")...)
		if !slices.Equal(a.ids(t), b.ids(t)) {
			t.Errorf("--top-p 0 continues %v, --top-p 1 %v: both mean off", a.ids(t), b.ids(t))
		}
	})
	t.Run("quantize is quiet by default", func(t *testing.T) {
		src := variant.For(t, "qwen3").Dir
		q := func(extra ...string) result {
			out := filepath.Join(t.TempDir(), "q")
			return bounded(t, "", append([]string{"quantize", "--model", src, "--out", out, "--bits", "2", "--L", "4", "--group-size", "64", "--fast"}, extra...)...)
		}
		for _, c := range []struct {
			name  string
			extra []string
			lines bool // info lines on stderr
		}{{"default", nil, false}, {"--quiet", []string{"--quiet"}, false}, {"--verbose", []string{"--verbose"}, true}} {
			r := q(c.extra...)
			if r.code != 0 || !strings.Contains(r.stdout, "wrote ") {
				t.Fatalf("%s: exit %d: %s", c.name, r.code, r.stderr)
			}
			if got := strings.Contains(r.stderr, "layer quantized"); got != c.lines || (!c.lines && r.stderr != "") {
				t.Errorf("%s: stderr %q", c.name, r.stderr)
			}
		}
	})
	t.Run("perplexity draws no bar off a terminal", func(t *testing.T) {
		r := bounded(t, "", "perplexity", "--model", py, "--file", filepath.Join(py, "heldout.txt"), "--max-bytes", "100", "--ctx", "8", "--device", "cpu")
		if r.code != 0 || r.stderr != "" {
			t.Errorf("exit %d, stderr %q: want nothing on a pipe", r.code, r.stderr)
		}
	})
	t.Run("first mistakes are one line", func(t *testing.T) {
		runErrCases(t, []errCase{
			{"generate without a model", []string{"generate", "--prompt", "hi"}, "", []string{"generate: --model is required"}},
			{"tokenize without a model", []string{"tokenize", "--text", "hi"}, "", []string{"tokenize: --model is required"}},
			{"unknown verb", []string{"chatter"}, "", []string{`unknown command "chatter"`}},
			{"unknown flag", []string{"generate", "--model", qwen, "--prompt-id", "1"}, "", []string{"generate: unknown flag: --prompt-id"}},
			{"bad log level", []string{"--log-level", "loud", "version"}, "", []string{`--log-level "loud"`}},
			{"empty stdin prompt", []string{"generate", "--model", py, "--no-chat-template", "--device", "cpu"}, "", []string{"empty prompt"}},
		})
	})
	t.Run("--verbose: info lines without colours", func(t *testing.T) {
		r := bounded(t, "", "generate", "--model", qwen, "--prompt-ids", "1,2", "-n", "1", "--device", "cpu", "--verbose", "--json")
		if r.code != 0 || !strings.Contains(r.stderr, "INF") || !strings.Contains(r.stderr, "device cpu") || strings.Contains(r.stderr, "\x1b[") {
			t.Errorf("exit %d, stderr %q: want plain INF lines naming the device", r.code, r.stderr)
		}
	})
	t.Run("a run past the model's positions warns", func(t *testing.T) {
		long := edited(t, "models/tiny-qwen3", func(c map[string]any) { c["max_position_embeddings"] = 8.0 })
		_, r := genJSON(t, "", "--model", long, "--prompt-ids", "1,2", "-n", "10", "--max-kv-size", "16", "--ignore-eos")
		if !strings.Contains(r.stderr, "--max-kv-size 16 took the run to 11 positions, past the model's 8") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr %q", r.stderr)
		}
		if _, r := genJSON(t, "", "--model", long, "--prompt-ids", "1,2", "-n", "4", "--max-kv-size", "16", "--ignore-eos"); r.stderr != "" {
			t.Errorf("a run inside the positions warns: %q", r.stderr)
		}
	})
	t.Run("version", func(t *testing.T) {
		a, b := bounded(t, "", "--version"), bounded(t, "", "version")
		if a.code != 0 || a.stdout != b.stdout || !strings.HasPrefix(a.stdout, "mlxbun ") {
			t.Errorf("--version %q, version %q", a.stdout, b.stdout)
		}
	})
}

// TestVerifyProgress: verify-kernels prints a progress line per interval and a last one, to stderr, and none with
// --quiet; here the interval is zero, so every case prints one.
func TestVerifyProgress(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 0
	var w strings.Builder
	p := newCaseProgress(&w, 3, false)
	p.done(verifyResult("MatMul/dense", true))
	p.done(verifyResult("Rope", false))
	p.done(verifyResult("Attention", true))
	p.finish()
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "verify-kernels: 2 of 3 cases, 1 failed") ||
		!strings.Contains(lines[1], "(last: Rope)") || !strings.HasPrefix(lines[3], "verify-kernels: 3 of 3 cases, 1 failed") {
		t.Errorf("progress:\n%s", w.String())
	}
	// One long case still prints: the ticker names it while it runs (the 14B embedding table on the CPU used to
	// keep --quick silent for minutes).
	progressEvery = 20 * time.Millisecond
	var long syncBuilder
	l := newCaseProgress(&long, 2, false)
	l.begin(verify.Case{Op: "Embed", Shape: "qwen3-14b vocab 151936 × 5120, 9 ids"})
	time.Sleep(200 * time.Millisecond)
	l.done(verifyResult("Embed", true))
	l.finish()
	if got := long.String(); !strings.Contains(got, "verify-kernels: 0 of 2 cases, 0 failed") ||
		!strings.Contains(got, "(running: Embed qwen3-14b vocab 151936 × 5120, 9 ids)") {
		t.Errorf("a long case printed:\n%s", got)
	}
	var quiet strings.Builder
	q := newCaseProgress(&quiet, 1, true)
	q.done(verifyResult("Rope", true))
	q.finish()
	if quiet.Len() != 0 {
		t.Errorf("--quiet printed %q", quiet.String())
	}
}

// TestFlagsPeopleType: mlx-lm's and llama.cpp's spellings run as this CLI's own flags do.
func TestFlagsPeopleType(t *testing.T) {
	py := testutil.Fixture(t, "trained/pycoder-12m")
	qwen := testutil.Fixture(t, "models/tiny-qwen3")
	tmpl := withTemplate(t)
	same := func(name string, a, b []string) {
		t.Helper()
		t.Run(name, func(t *testing.T) {
			x, _ := genJSON(t, "", a...)
			y, _ := genJSON(t, "", b...)
			if !slices.Equal(x.PromptIDs, y.PromptIDs) || !slices.Equal(x.ids(t), y.ids(t)) || x.Text != y.Text {
				t.Errorf("%v: prompt %v, ids %v\n%v: prompt %v, ids %v", a, x.PromptIDs, x.ids(t), b, y.PromptIDs, y.ids(t))
			}
		})
	}
	base := []string{"--max-tokens", "6", "--ignore-eos", "--seed", "3", "--temp", "0.8"}
	with := func(args ...string) []string { return append(append([]string(nil), args...), base...) }
	same("--system-prompt", with("--model", tmpl, "--prompt", "hi", "--system-prompt", "be brief"), with("--model", tmpl, "--prompt", "hi", "--system", "be brief"))
	same("--ignore-chat-template", with("--model", tmpl, "--prompt", "def", "--ignore-chat-template"), with("--model", tmpl, "--prompt", "def", "--no-chat-template"))
	same("-m -p -n -s", []string{"-m", py, "-p", "def", "-n", "5", "-s", "9", "--temp", "1", "--no-chat-template"},
		[]string{"--model", py, "--prompt", "def", "--max-tokens", "5", "--seed", "9", "--temp", "1", "--no-chat-template"})
	same("--n-predict --repeat-penalty --temp", []string{"--model", py, "--prompt", "def", "--no-chat-template", "--n-predict", "5", "--repeat-penalty", "1.3", "--temp", "0.7", "-s", "2"},
		[]string{"--model", py, "--prompt", "def", "--no-chat-template", "--max-tokens", "5", "--repetition-penalty", "1.3", "--temp", "0.7", "-s", "2"})
	same("--temperature", []string{"--model", py, "--prompt", "def", "--no-chat-template", "-n", "5", "--temperature", "0.9", "-s", "4"},
		[]string{"--model", py, "--prompt", "def", "--no-chat-template", "-n", "5", "--temp", "0.9", "-s", "4"})
	adapter := loratest.Random(t, qwen, lora.PEFT, []string{"self_attn.q_proj", "mlp.down_proj"}, 4, 2, 11)
	same("--adapter-path", []string{"--model", qwen, "--prompt-ids", "5,6,7", "-n", "4", "--adapter-path", adapter},
		[]string{"--model", qwen, "--prompt-ids", "5,6,7", "-n", "4", "--adapter", adapter})
	t.Run("the system prompt reaches the template", func(t *testing.T) {
		a, _ := genJSON(t, "", with("--model", tmpl, "--prompt", "hi", "--system-prompt", "be brief")...)
		b, _ := genJSON(t, "", with("--model", tmpl, "--prompt", "hi")...)
		if len(a.PromptIDs) <= len(b.PromptIDs) {
			t.Errorf("with --system-prompt %d prompt ids, without %d", len(a.PromptIDs), len(b.PromptIDs))
		}
	})
	t.Run("--prompt - reads stdin", func(t *testing.T) {
		a, _ := genJSON(t, "def fib(n):", "--model", py, "--prompt", "-", "--no-chat-template", "-n", "4")
		b, _ := genJSON(t, "", "--model", py, "--prompt", "def fib(n):", "--no-chat-template", "-n", "4")
		if !slices.Equal(a.PromptIDs, b.PromptIDs) || !slices.Equal(a.ids(t), b.ids(t)) {
			t.Errorf("stdin prompt %v → %v, flag %v → %v", a.PromptIDs, a.ids(t), b.PromptIDs, b.ids(t))
		}
	})
	t.Run("-n -1: until the context is full", func(t *testing.T) {
		rec, _ := genJSON(t, "", "--model", qwen, "--prompt-ids", "1,2,3", "-n", "-1", "-c", "12", "--ignore-eos")
		if len(rec.ids(t)) != 12-3+1 || rec.StopReason != "context" {
			t.Errorf("-n -1 -c 12 after 3 prompt ids: %d ids, stop %q; want 10 and context", len(rec.ids(t)), rec.StopReason)
		}
		oneErrorLine(t, bounded(t, "", "generate", "--model", qwen, "--prompt-ids", "1,2,3,4", "-n", "-1", "--ctx-size", "4", "--device", "cpu"),
			"--max-tokens -1", "no room in a context of 4")
		oneErrorLine(t, bounded(t, "", "generate", "--model", qwen, "--prompt-ids", "1,2,3,4,5", "-c", "4", "--device", "cpu"), "context 4")
	})
	t.Run("--json-schema and --grammar inline", func(t *testing.T) {
		base := []string{"--model", py, "--no-chat-template", "--temp", "1", "-n", "60", "--seed", "1"}
		rec, _ := genJSON(t, "", append(base, "--prompt", "x = ", "--json-schema", `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}`)...)
		var v struct{ A *int }
		dec := json.NewDecoder(strings.NewReader(rec.Text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil || v.A == nil {
			t.Errorf("inline schema: output %q (%v)", rec.Text, err)
		}
		rec, _ = genJSON(t, "", append(base, "--prompt", "def ", "--grammar", `root ::= "ab" [0-9]`)...)
		if len(rec.Text) != 3 || !strings.HasPrefix(rec.Text, "ab") {
			t.Errorf("inline grammar: output %q", rec.Text)
		}
		// A schema longer than a file name may be (it used to fail "file name too long") is inline text too.
		long := strings.Repeat(`{"anyOf":[`, 40) + `{"type":"integer"}` + strings.Repeat("]}", 40)
		rec, _ = genJSON(t, "", append(base, "--prompt", "x = ", "-n", "3", "--json-schema", long)...)
		if rec.Text == "" || strings.Trim(rec.Text, "-0123456789") != "" {
			t.Errorf("long inline schema (an integer): output %q", rec.Text)
		}
		oneErrorLine(t, bounded(t, "", append([]string{"generate", "--device", "cpu"}, append(base, "--prompt", "x", "--json-schema", "nope.json")...)...),
			"--json-schema nope.json: no such file")
		oneErrorLine(t, bounded(t, "", append([]string{"generate", "--device", "cpu"}, append(base, "--prompt", "x", "--json-schema", `{"type":"strin"}`)...)...),
			"--json-schema (inline)")
	})
	t.Run("tokenize --text - and -m", func(t *testing.T) {
		a := bounded(t, "def f(x):", "tokenize", "-m", py, "--text", "-")
		b := bounded(t, "", "tokenize", "--model", py, "--text", "def f(x):")
		if a.code != 0 || a.stdout != b.stdout || !strings.HasPrefix(a.stdout, "[") {
			t.Errorf("stdin %q (%s), flag %q", a.stdout, a.stderr, b.stdout)
		}
	})
	t.Run("perplexity -m -f -c", func(t *testing.T) {
		held := filepath.Join(py, "heldout.txt")
		a := bounded(t, "", "perplexity", "-m", py, "-f", held, "-c", "8", "--max-bytes", "100", "--device", "cpu", "--json")
		b := bounded(t, "", "perplexity", "--model", py, "--file", held, "--ctx-size", "8", "--max-bytes", "100", "--device", "cpu", "--json")
		if a.code != 0 || a.stdout != b.stdout || !strings.Contains(a.stdout, `"ctx":8`) {
			t.Errorf("short flags %q (%s), long %q", a.stdout, a.stderr, b.stdout)
		}
	})
	t.Run("bench lists, size and params, csv", func(t *testing.T) {
		r := bounded(t, "", "bench", "-m", qwen, "-p", "8,16", "-n", "2,3", "-r", "1", "-o", "csv", "--device", "cpu")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != 0 || len(lines) != 5 || lines[0] != "model,model_size,model_n_params,device,n_threads,test,n_prompt,n_gen,avg_ts,stddev_ts" {
			t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
		}
		// tiny-qwen3 is 2,098,688 bf16 parameters: 4,197,376 bytes.
		for i, test := range []string{"pp8", "pp16", "tg2", "tg3"} {
			f := strings.Split(lines[i+1], ",")
			if len(f) != 10 || f[1] != "4197376" || f[2] != "2098688" || f[5] != test {
				t.Errorf("row %d: %q, want %s of 4197376 bytes, 2098688 parameters", i, lines[i+1], test)
			}
		}
		md := bounded(t, "", "bench", "-m", qwen, "-p", "8", "-n", "0", "-r", "1", "--device", "cpu")
		if !strings.Contains(md.stdout, "| model | size | params | device | threads | test | t/s |") || !strings.Contains(md.stdout, "| 4.00 MiB | 2.10 M | cpu |") {
			t.Errorf("md table:\n%s", md.stdout)
		}
	})
}

// TestShortFlags: no verb has a shorthand twice among its own and inherited flags, every alias resolves to its
// flag, and the shorthands people type mean the same flag wherever a verb has it.
func TestShortFlags(t *testing.T) {
	root := newRoot()
	want := map[string]map[string]string{ // verb → shorthand → flag
		"generate":       {"m": "model", "p": "prompt", "n": "max-tokens", "s": "seed", "c": "max-kv-size"},
		"bench":          {"m": "model", "p": "n-prompt", "n": "n-gen", "r": "repetitions", "o": "output"},
		"perplexity":     {"m": "model", "f": "file", "c": "ctx"},
		"tokenize":       {"m": "model", "p": "text"},
		"quantize":       {"m": "model"},
		"verify-kernels": {"o": "output"},
		"compile-ane":    {"m": "model"},
		"serve":          {"m": "model", "c": "ctx-size"},
		"chat":           {"m": "model", "c": "ctx-size", "n": "max-tokens"},
	}
	for _, c := range root.Commands() {
		seen := map[string]string{}
		check := func(f *pflag.Flag) {
			if f.Shorthand == "" {
				return
			}
			if prev, dup := seen[f.Shorthand]; dup && prev != f.Name {
				t.Errorf("%s: -%s is both --%s and --%s", c.Name(), f.Shorthand, prev, f.Name)
			}
			seen[f.Shorthand] = f.Name
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
		for sh, name := range want[c.Name()] {
			if seen[sh] != name {
				t.Errorf("%s: -%s is --%s, want --%s", c.Name(), sh, seen[sh], name)
			}
		}
	}
	gen, _, err := root.Find([]string{"generate"})
	if err != nil {
		t.Fatal(err)
	}
	for alias, name := range map[string]string{"system-prompt": "system", "ignore-chat-template": "no-chat-template",
		"adapter-path": "adapter", "n-predict": "max-tokens", "ctx-size": "max-kv-size", "repeat-penalty": "repetition-penalty", "temperature": "temp"} {
		if f := gen.Flags().Lookup(alias); f == nil || f.Name != name {
			t.Errorf("generate --%s does not resolve to --%s", alias, name)
		}
	}
}

// syncBuilder is a strings.Builder safe for the progress ticker's goroutine and the test's.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func verifyResult(op string, pass bool) verify.Result {
	return verify.Result{Case: verify.Case{Op: op}, Pass: pass}
}
