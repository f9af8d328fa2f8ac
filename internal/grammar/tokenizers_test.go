// The vocabulary mapping on the three tokenizer fixtures (byte-level Qwen3 and Llama 3, metaspace with byte
// fallback Llama 2): a document satisfying the event schema can be spelled token by token from the masks alone
// (each step takes the longest allowed token that the rest of the document starts with), and the end id is
// allowed exactly at the end.
package grammar

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

func TestSpellDocumentFromMasks(t *testing.T) {
	a, _ := compileSchema(t, benchSchemas[0].file)
	for _, name := range []string{"qwen3", "llama3", "llama2"} {
		dir := testutil.Fixture(t, "tokenizers/"+name)
		tj, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			t.Fatal(err)
		}
		cj, _ := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
		tok, err := tokenizer.Parse(tj, cj)
		if err != nil {
			t.Fatal(err)
		}
		eos := tok.Specials().EOS
		v := VocabFromTokenizer(tok, tok.VocabSize(), []int{eos})
		m := NewMatcher(NewTables(a, v))
		mask := make([]int32, v.MaskWords())
		rest := []byte(benchSchemas[0].docs[1])
		steps := 0
		for len(rest) > 0 {
			m.FillMask(mask)
			if mask[eos>>5]>>(eos&31)&1 != 0 {
				t.Fatalf("%s: end id allowed with %q left", name, rest)
			}
			best := -1
			for id := range v.Size() {
				b := v.Bytes(id)
				if mask[id>>5]>>(id&31)&1 != 0 && len(b) > 0 && bytes.HasPrefix(rest, b) && (best < 0 || len(b) > len(v.Bytes(best))) {
					best = id
				}
			}
			if best < 0 {
				t.Fatalf("%s: no allowed token spells the next bytes of %q", name, rest)
			}
			if err := m.AcceptToken(best); err != nil {
				t.Fatal(err)
			}
			rest = rest[len(v.Bytes(best)):]
			steps++
		}
		m.FillMask(mask)
		if mask[eos>>5]>>(eos&31)&1 == 0 || !m.MustEnd() {
			t.Fatalf("%s: at the end the end id is not allowed (or more may follow)", name)
		}
		t.Logf("%s: %d tokens", name, steps)
	}
}
