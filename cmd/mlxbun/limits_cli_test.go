//go:build linux

// The hang and out-of-memory cases of issue 22 through the real binary, as a user hits them, and as many again
// of the same classes: a chat template, grammar, regex or schema construct that would run away, and a file of a
// model directory or a flag that is a device, a named pipe or of absurd size. Each run is bounded (10 s, 1 GiB
// resident under a 4 GiB address-space limit, fresh TMPDIR and working directory left empty) and must exit
// non-zero with one line naming the construct or file and no goroutine dump.
package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

func TestLimitsCLI(t *testing.T) {
	model := testutil.Fixture(t, "trained/pycoder-12m")
	qwen := testutil.Fixture(t, "models/tiny-qwen3")
	gen := func(dir string, args ...string) []string {
		return append([]string{"generate", "--device", "cpu", "--max-tokens", "2", "--model", dir}, args...)
	}
	constrained := func(args ...string) []string {
		return gen(model, append([]string{"--no-chat-template", "--prompt", "a"}, args...)...)
	}
	// put replaces dir/file by what how names: "zero" a link to /dev/zero, "pipe" a named pipe with no writer,
	// "sparse:N" a sparse file of N MiB (no disk used), anything else the file's content.
	put := func(dir, file, how string) string {
		p := filepath.Join(dir, file)
		os.Remove(p)
		var err error
		switch {
		case how == "zero":
			err = os.Symlink("/dev/zero", p)
		case how == "pipe":
			err = syscall.Mkfifo(p, 0o644)
		case strings.HasPrefix(how, "sparse:"):
			mib, _ := strconv.Atoi(strings.TrimPrefix(how, "sparse:"))
			var f *os.File
			if f, err = os.Create(p); err == nil {
				err = f.Truncate(int64(mib) << 20)
				f.Close()
			}
		default:
			err = os.WriteFile(p, []byte(how), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	broken := func(file, how string) string { return put(copyModel(t, "trained/pycoder-12m"), file, how) }
	template := func(src string) string { return broken("chat_template.jinja", src) }
	nested := func(n int) string {
		return strings.Repeat(`{"type":"array","items":`, n) + `{}` + strings.Repeat("}", n)
	}
	schema := func(n int) string { return put(t.TempDir(), "items.json", nested(n)) + "/items.json" }
	pipe := put(t.TempDir(), "fifo", "pipe") + "/fifo"
	adapter := put(t.TempDir(), "adapter_config.json", "zero")
	shard := copyModel(t, "models/tiny-qwen3")
	os.Remove(filepath.Join(shard, "model.safetensors"))
	put(shard, "model.safetensors.index.json", `{"weight_map":{"model.embed_tokens.weight":"model-00001-of-00001.safetensors"}}`)
	put(shard, "model-00001-of-00001.safetensors", "pipe")

	runErrCases(t, []errCase{
		// the cases
		{"chat template repetition", gen(template("{{ 'x' * 10000000000 }}"), "--prompt", "hi"), "", []string{"'x' * 10000000000", "32 MiB"}},
		{"schema of 30 nested items", constrained("--json-schema", schema(30)), "", []string{"JSON schema #/items", "automaton states"}},
		{"schema of 20 nested items", constrained("--json-schema", schema(20)), "", []string{"JSON schema #/items", "automaton states"}},
		{"nested bounded repetitions", constrained("--regex", "((a{1,50}){1,50}){1,50}"), "", []string{`regex construct "((a{1,50}){1,50}){1,50}"`}},
		{"config.json is /dev/zero", gen(broken("config.json", "zero"), "--prompt", "hi"), "", []string{"config.json: not a regular file (a device)"}},
		{"tokenizer.json is /dev/zero", gen(broken("tokenizer.json", "zero"), "--prompt", "hi"), "", []string{"tokenizer.json: not a regular file (a device)"}},
		{"model.safetensors is a pipe", gen(broken("model.safetensors", "pipe"), "--prompt-ids", "1,2"), "", []string{"model.safetensors: not a regular file (a named pipe)"}},
		// the no-chat-template warning waits for the load, so a model that fails to load still says one line
		{"model.safetensors is a pipe, text prompt", gen(broken("model.safetensors", "pipe"), "--prompt", "def"), "", []string{"model.safetensors: not a regular file (a named pipe)"}},
		// chat template constructs
		{"template range of 10¹⁰", gen(template("{% for i in range(10000000000) %}x{% endfor %}"), "--prompt", "hi"), "", []string{"range: 10000000000 items"}},
		{"template nested loops", gen(template("{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}"), "--prompt", "hi"), "", []string{"range(100000)", "more than 1048576 iterations"}},
		{"template endless recursion", gen(template("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"), "--prompt", "hi"), "", []string{"macro f", "nest deeper than 1000"}},
		{"template doubling a namespace string", gen(template("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}"), "--prompt", "hi"), "", []string{"set ns.s", "32 MiB"}},
		// grammar, regex and schema constructs
		{"regex repetition of 10⁶", constrained("--regex", "a{1000000}"), "", []string{"repetition {1000000}: bound above 10000"}},
		{"regex nested wide repetitions", constrained("--regex", "(.{1,1000}){1,1000}"), "", []string{`regex construct "(.{1,1000}){1,1000}"`, "automaton states"}},
		{"GBNF repetition of 10⁶", constrained("--grammar", `root ::= "a"{1000000}`), "", []string{"GBNF line 1", "repetition {1000000}"}},
		{"GBNF nested bounded repetitions", constrained("--grammar", `root ::= (("a"{1,50}){1,50}){1,50}`), "", []string{"GBNF line 1:10", "determinizing"}},
		{"GBNF left recursion", constrained("--grammar", `root ::= root "a" | "a"`), "", []string{"left recursion: root -> root"}},
		{"schema minItems 10⁸", constrained("--json-schema", `{"type":"array","minItems":100000000}`), "", []string{"JSON schema #/minItems", "0..10000"}},
		{"schema pattern blowup", constrained("--json-schema", `{"type":"string","pattern":"((a{1,50}){1,50}){1,50}"}`), "", []string{"JSON schema #/pattern"}},
		// files that are not files, or far too large
		{"--json-schema a pipe with no writer", constrained("--json-schema", pipe), "", []string{"--json-schema " + pipe, "named pipe with nothing to read"}},
		{"perplexity --file a pipe with no writer", []string{"perplexity", "--model", model, "--device", "cpu", "--file", pipe}, "", []string{"--file " + pipe, "named pipe"}},
		{"--grammar is /dev/zero", constrained("--grammar", "/dev/zero"), "", []string{"--grammar /dev/zero", "not a file"}},
		{"config.json of 300 MiB", gen(broken("config.json", "sparse:300"), "--prompt", "hi"), "", []string{"config.json: file too large", "256 MiB"}},
		{"chat_template.jinja of 5 MiB", gen(broken("chat_template.jinja", "sparse:5"), "--prompt", "hi"), "", []string{"chat_template.jinja: file too large", "4 MiB"}},
		{"generation_config.json is /dev/zero", gen(broken("generation_config.json", "zero"), "--prompt", "hi"), "", []string{"generation_config.json: not a regular file (a device)"}},
		{"tokenizer_config.json is a pipe", gen(broken("tokenizer_config.json", "pipe"), "--prompt", "hi"), "", []string{"tokenizer_config.json: not a regular file (a named pipe)"}},
		{"adapter_config.json is /dev/zero", gen(qwen, "--prompt-ids", "1,2", "--adapter", adapter), "", []string{"adapter_config.json: not a regular file (a device)"}},
		{"a shard is a pipe", gen(shard, "--prompt-ids", "1,2"), "", []string{"model-00001-of-00001.safetensors: not a regular file (a named pipe)"}},
		{"quantize --calib a pipe", []string{"quantize", "--model", qwen, "--out", filepath.Join(t.TempDir(), "q"), "--bits", "2", "--calib", pipe}, "", []string{"--calib", "not a regular file (a named pipe)"}},
	})
}
