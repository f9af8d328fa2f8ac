// Input that used to be taken as something else: --prompt-ids with an empty element (1,,2, a trailing comma, an
// element of spaces) dropped it and ran the rest, and perplexity on a text too short for one window said only
// "N tokens make no window of C", after loading the model. Each case runs the real binary, bounded.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

func TestPromptIDsElements(t *testing.T) {
	py := testutil.Fixture(t, "trained/pycoder-12m")
	gen := func(ids string) []string {
		return []string{"generate", "--model", py, "--device", "cpu", "-n", "1", "--prompt-ids", ids}
	}
	runErrCases(t, []errCase{
		{"an empty element", gen("1,,2"), "", []string{`generate: --prompt-ids "1,,2": element 2 of 3 is empty`}},
		{"a trailing comma", gen("1,2,"), "", []string{`--prompt-ids "1,2,": element 3 of 3 is empty, after a trailing comma`}},
		{"a leading comma", gen(",1"), "", []string{`--prompt-ids ",1": element 1 of 2 is empty, before a leading comma`}},
		{"an element of spaces", gen("1, ,2"), "", []string{`--prompt-ids "1, ,2": element 2 of 3 is empty`}},
		{"commas only", gen(",,"), "", []string{`--prompt-ids ",,": element 1 of 3 is empty`}},
		{"a bad element by position", gen("4,5,x"), "", []string{`generate: --prompt-ids: element 3: "x" is not a token id`}},
		// refused before the model directory is read: a missing model is not what the user hears first
		{"before the model", []string{"generate", "--model", filepath.Join(t.TempDir(), "none"), "--prompt-ids", "1,,2"}, "",
			[]string{`--prompt-ids "1,,2": element 2 of 3 is empty`}},
	})
	t.Run("spaces around ids are read", func(t *testing.T) {
		rec, _ := genJSON(t, "", "--model", py, "-n", "1", "--prompt-ids", " 7, 8 ,9")
		if !slices.Equal(rec.PromptIDs, []int{7, 8, 9}) {
			t.Errorf("prompt_ids %v, want [7 8 9]", rec.PromptIDs)
		}
	})
}

func TestPerplexityTooShort(t *testing.T) {
	py := testutil.Fixture(t, "trained/pycoder-12m")
	file := filepath.Join(t.TempDir(), "short.txt")
	if err := os.WriteFile(file, []byte("def f(x):\n    return x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := bounded(t, "", "tokenize", "--model", py, "--text", "def f(x):\n    return x\n", "--no-special")
	var ids []int
	if err := json.Unmarshal([]byte(r.stdout), &ids); err != nil || len(ids) < 4 {
		t.Fatalf("tokenize: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
	n := len(ids)
	ppl := func(more ...string) []string {
		return append([]string{"perplexity", "--model", py, "--device", "cpu", "--file", file}, more...)
	}
	c := strconv.Itoa
	runErrCases(t, []errCase{
		{"the default --ctx", ppl(), "", []string{"perplexity: --file " + file + " is " + c(n) + " tokens, too short to score",
			"a window of --ctx 512 needs 513", "--ctx " + c(n-1) + " or less"}},
		{"--ctx the text's length", ppl("--ctx", c(n)), "", []string{"is " + c(n) + " tokens", "--ctx " + c(n) + " needs " + c(n+1)}},
		{"one token", ppl("--max-bytes", "1", "--ctx", "2"), "", []string{"(read up to --max-bytes 1) is 1 token,",
			"--ctx 2 needs 3", "a larger --max-bytes"}},
		{"a missing model is still named first", []string{"perplexity", "--model", filepath.Join(t.TempDir(), "none"), "--file", file}, "",
			[]string{"none"}},
	})
	t.Run("the --ctx it names scores the text", func(t *testing.T) {
		r := bounded(t, "", append(ppl("--ctx", c(n-1)), "--json")...)
		var res struct {
			Windows      int     `json:"windows"`
			TokensScored int     `json:"tokens_scored"`
			Perplexity   float64 `json:"perplexity"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil {
			t.Fatalf("--ctx %d: exit %d %s%s", n-1, r.code, r.stdout, r.stderr)
		}
		if res.Windows != 1 || res.TokensScored != n-2 || !(res.Perplexity >= 1) {
			t.Errorf("--ctx %d on %d tokens: %+v, want one window scoring %d tokens and a perplexity ≥ 1", n-1, n, res, n-2)
		}
	})
}
