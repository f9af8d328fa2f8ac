// Golden tests: encode and decode against ids and text produced by the reference Hugging Face `tokenizers`
// library for three real tokenizers (Llama 2: metaspace + byte fallback; Llama 3 and Qwen 3: byte-level with
// lookahead regexes and hundreds of added tokens), plus a trained byte-level model's prompt.
package tokenizer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"golang.org/x/text/unicode/norm"
)

// goldenCase is one reference encoding.
type goldenCase struct {
	Text    string `json:"text"`
	IDs     []int  `json:"ids"`
	Decoded string `json:"decoded"`
}

type goldenFile struct {
	AddSpecial bool         `json:"add_special_tokens"`
	Cases      []goldenCase `json:"cases"`
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*Tokenizer{}
)

// loadFixture loads (once per test binary) the tokenizer in fixtures/tokenizers/name.
func loadFixture(t testing.TB, name string) (*Tokenizer, string) {
	t.Helper()
	dir := filepath.Dir(testutil.Fixture(t, "tokenizers/"+name+"/tokenizer.json"))
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if tok, ok := loaded[name]; ok {
		return tok, dir
	}
	tok, err := readDir(dir)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	loaded[name] = tok
	return tok, dir
}

// readDir builds the tokenizer of a fixture directory from its tokenizer.json and tokenizer_config.json. Package
// modeldir does this for the program; it imports this package, so these tests read the two files themselves.
func readDir(dir string) (*Tokenizer, error) {
	tj, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	cj, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return Parse(tj, cj)
}

func readGolden(t *testing.T, path string) goldenFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(g.Cases) == 0 {
		t.Fatalf("%s: no cases", path)
	}
	return g
}

// TestGoldenEncodeDecode checks every case: Encode gives the reference ids and Decode the reference text.
func TestGoldenEncodeDecode(t *testing.T) {
	// The goldens the fixtures hold (Llama 2's published tokenizer has no special-token cases).
	goldens := map[string][]string{
		"llama2": {"encode_golden.json"},
		"llama3": {"encode_golden.json", "encode_golden_special.json"},
		"qwen3":  {"encode_golden.json", "encode_golden_special.json"},
	}
	for _, name := range []string{"llama2", "llama3", "qwen3"} {
		for _, file := range goldens[name] {
			t.Run(name+"/"+file, func(t *testing.T) {
				tok, _ := loadFixture(t, name)
				g := readGolden(t, testutil.Fixture(t, filepath.Join("tokenizers", name, file)))
				bad := 0
				for _, c := range g.Cases {
					got := tok.Encode(c.Text, g.AddSpecial)
					if !slices.Equal(got, c.IDs) {
						bad++
						if bad <= 5 {
							t.Errorf("Encode(%q):\n got %v\nwant %v", c.Text, got, c.IDs)
						}
					}
					if dec := tok.Decode(c.IDs, false); dec != c.Decoded {
						bad++
						if bad <= 5 {
							t.Errorf("Decode(%v) = %q, want %q", c.IDs, dec, c.Decoded)
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d checks failed", bad, 2*len(g.Cases))
				}
			})
		}
	}
}

// TestGoldenStream checks that streaming decode, token by token, concatenates to exactly Decode's text.
func TestGoldenStream(t *testing.T) {
	for _, name := range []string{"llama2", "llama3", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			tok, dir := loadFixture(t, name)
			g := readGolden(t, filepath.Join(dir, "encode_golden.json"))
			for _, skip := range []bool{false, true} {
				for _, c := range g.Cases {
					s := tok.NewStream(skip)
					var b strings.Builder
					for _, id := range c.IDs {
						b.WriteString(s.Add(id))
					}
					b.WriteString(s.Flush())
					if want := tok.Decode(c.IDs, skip); b.String() != want {
						t.Errorf("stream(skip=%v) of %q = %q, want %q", skip, c.Text, b.String(), want)
					}
				}
			}
		})
	}
}

// TestGoldenTokenBytes checks that the per-token bytes of each reference encoding concatenate to the encoded
// text as the model saw it: NFC text for the byte-level tokenizers, and for Llama 2 the text with the space its
// normalizer prepends (cases holding added tokens are skipped there, since each plain piece gets its own space).
func TestGoldenTokenBytes(t *testing.T) {
	want := map[string]func(string) string{
		"llama3": func(s string) string { return s },
		"qwen3":  func(s string) string { return norm.NFC.String(s) },
		"llama2": func(s string) string {
			if s == "" {
				return ""
			}
			return " " + s
		},
	}
	for name, f := range want {
		t.Run(name, func(t *testing.T) {
			tok, dir := loadFixture(t, name)
			g := readGolden(t, filepath.Join(dir, "encode_golden.json"))
			checked := 0
			for _, c := range g.Cases {
				hasAdded := false
				for _, id := range c.IDs {
					if _, ok := tok.byID[id]; ok {
						hasAdded = true
					}
				}
				if hasAdded && name == "llama2" {
					continue
				}
				var b []byte
				for _, id := range c.IDs {
					b = append(b, tok.TokenBytes(id)...)
				}
				if string(b) != f(c.Text) {
					t.Errorf("TokenBytes of %q concatenate to %q, want %q", c.Text, b, f(c.Text))
				}
				checked++
			}
			if checked < len(g.Cases)/2 {
				t.Errorf("only %d of %d cases checked", checked, len(g.Cases))
			}
		})
	}
}
