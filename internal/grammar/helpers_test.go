// Shared test helpers: the Qwen3 vocabulary (151,669 ids) from the tokenizer fixture.
package grammar

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

var qwen struct {
	once sync.Once
	tok  *tokenizer.Tokenizer
	v    *Vocab
	err  error
}

// qwenVocab loads the Qwen3 tokenizer fixture once per test binary.
func qwenVocab(tb testing.TB) (*tokenizer.Tokenizer, *Vocab) {
	tb.Helper()
	dir := testutil.Fixture(tb, "tokenizers/qwen3")
	qwen.once.Do(func() {
		tj, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			qwen.err = err
			return
		}
		cj, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
		if err != nil {
			qwen.err = err
			return
		}
		if qwen.tok, qwen.err = tokenizer.Parse(tj, cj); qwen.err != nil {
			return
		}
		qwen.v = VocabFromTokenizer(qwen.tok, qwen.tok.VocabSize(), []int{qwen.tok.Specials().EOS})
	})
	if qwen.err != nil {
		tb.Fatal(qwen.err)
	}
	return qwen.tok, qwen.v
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
