// Benchmarks: loading, encoding a 200 KB Python file, and decoding, for the three fixture tokenizers.
package tokenizer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

func heldout(b *testing.B) string {
	data, err := os.ReadFile(testutil.Fixture(b, "trained/pycoder-12m/heldout.txt"))
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"llama2", "llama3", "qwen3"} {
		b.Run(name, func(b *testing.B) {
			dir := filepath.Dir(testutil.Fixture(b, "tokenizers/"+name+"/tokenizer.json"))
			for b.Loop() {
				if _, err := readDir(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncode encodes with a cold word cache each time (a fresh copy of the model's cache), so the figure
// is the first-encode cost of new text.
func BenchmarkEncode(b *testing.B) {
	text := heldout(b)
	for _, name := range []string{"llama2", "llama3", "qwen3"} {
		b.Run(name, func(b *testing.B) {
			tok, _ := loadFixture(b, name)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.model.mu.Lock()
				tok.model.cache = make(map[string][]int)
				tok.model.mu.Unlock()
				tok.Encode(text, false)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	text := heldout(b)
	for _, name := range []string{"llama2", "llama3", "qwen3"} {
		b.Run(name, func(b *testing.B) {
			tok, _ := loadFixture(b, name)
			ids := tok.Encode(text, false)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.Decode(ids, false)
			}
		})
	}
}

// BenchmarkStream feeds 512 tokens one at a time, as generation does.
func BenchmarkStream(b *testing.B) {
	text := heldout(b)
	tok, _ := loadFixture(b, "qwen3")
	ids := tok.Encode(text, false)[:512]
	for b.Loop() {
		s := tok.NewStream(false)
		for _, id := range ids {
			s.Add(id)
		}
	}
}
