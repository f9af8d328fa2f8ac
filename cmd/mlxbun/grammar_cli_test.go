// generate's constraint flags as a user runs them: --json-schema (file and stdin), --grammar, --regex produce
// output that parses and ends with stop reason "grammar" or "eos"; bad grammars, two constraints at once and a
// model without a tokenizer are one error line naming the problem.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

type genRec struct {
	Text       string `json:"text"`
	StopReason string `json:"stop_reason"`
}

func runConstrained(t *testing.T, stdin string, args ...string) genRec {
	t.Helper()
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	base := []string{"generate", "--model", dir, "--no-chat-template", "--device", "cpu", "--json", "--temp", "1", "--max-tokens", "200"}
	r := mlxbun(t, stdin, append(base, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rec genRec
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
		t.Fatalf("stdout is not one JSON record: %v\n%s", err, r.stdout)
	}
	if rec.StopReason != "grammar" && rec.StopReason != "eos" {
		t.Fatalf("stop reason %q, want grammar or eos (text %q)", rec.StopReason, rec.Text)
	}
	return rec
}

func TestGenerateConstrained(t *testing.T) {
	schema := `{"type":"object","properties":{"name":{"type":"string","maxLength":8},"n":{"type":"integer"},"ok":{"type":"boolean"}},"required":["name","n","ok"],"additionalProperties":false}`
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	checkJSON := func(rec genRec) {
		var v struct {
			Name *string `json:"name"`
			N    *int64  `json:"n"`
			OK   *bool   `json:"ok"`
		}
		dec := json.NewDecoder(strings.NewReader(rec.Text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil || dec.More() || v.Name == nil || v.N == nil || v.OK == nil || len([]rune(*v.Name)) > 8 {
			t.Fatalf("output %q does not satisfy the schema (%v)", rec.Text, err)
		}
	}
	for seed := range 3 {
		checkJSON(runConstrained(t, "", "--prompt", "cfg = ", "--seed", itoa(seed), "--json-schema", file))
	}
	checkJSON(runConstrained(t, schema, "--prompt", "cfg = ", "--json-schema", "-"))

	gbnf := filepath.Join(t.TempDir(), "g.gbnf")
	os.WriteFile(gbnf, []byte("root ::= \"def \" name \"(\" name? \"):\"\nname ::= [a-z_]{1,8}\n"), 0o644)
	rec := runConstrained(t, "", "--prompt", "x = 1\n", "--grammar", gbnf, "--seed", "2")
	if !regexp.MustCompile(`^def [a-z_]{1,8}\((?:[a-z_]{1,8})?\):$`).MatchString(rec.Text) {
		t.Fatalf("--grammar output %q is not in the language", rec.Text)
	}
	rec = runConstrained(t, "", "--prompt", "ip = ", "--regex", `(\d{1,3}\.){3}\d{1,3}`, "--seed", "5")
	if !regexp.MustCompile(`^(\d{1,3}\.){3}\d{1,3}$`).MatchString(rec.Text) {
		t.Fatalf("--regex output %q does not match", rec.Text)
	}
}

func TestGenerateConstraintErrors(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	base := []string{"generate", "--model", dir, "--prompt", "x", "--no-chat-template", "--device", "cpu"}
	bad := filepath.Join(t.TempDir(), "bad.gbnf")
	os.WriteFile(bad, []byte("root ::= \"a\" missing\n"), 0o644)
	oneErrorLine(t, mlxbun(t, "", append(base, "--grammar", bad)...), "--grammar", "bad.gbnf", `"missing"`, "never defined")
	oneErrorLine(t, mlxbun(t, "", append(base, "--regex", "(?=x)")...), "--regex", "lookaround")
	schema := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(schema, []byte(`{"type":"string","format":"hostname"}`), 0o644)
	oneErrorLine(t, mlxbun(t, "", append(base, "--json-schema", schema)...), "--json-schema", "format", "hostname")
	oneErrorLine(t, mlxbun(t, "", append(base, "--json-schema", filepath.Join(t.TempDir(), "none.json"))...), "none.json")
	oneErrorLine(t, mlxbun(t, "", append(base, "--regex", "a", "--grammar", bad)...), "only one of")
	noTok := testutil.Fixture(t, "models/tiny-qwen3")
	oneErrorLine(t, mlxbun(t, "", "generate", "--model", noTok, "--prompt-ids", "1,2", "--regex", "a+", "--device", "cpu"), "tokenizer")
}

// TestBenchJSONSchema: bench --json-schema over a tokenizer-only directory reports the compiled automaton and
// fill percentiles as one JSON record.
func TestBenchJSONSchema(t *testing.T) {
	src := testutil.Fixture(t, "trained/pycoder-12m")
	dir := t.TempDir()
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	schema := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(schema, []byte(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`), 0o644)
	r := mlxbun(t, "", "bench", "--model", dir, "--json-schema", schema, "-n", "40", "-r", "2", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var row struct {
		Vocab, States, Fills int
		FillMedian           float64 `json:"fill_median_us"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &row); err != nil {
		t.Fatalf("not one JSON record: %v\n%s", err, r.stdout)
	}
	if row.Vocab != 257 || row.States < 10 || row.Fills != 80 || row.FillMedian <= 0 {
		t.Fatalf("unexpected record %+v", row)
	}
}
