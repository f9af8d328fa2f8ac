package eval

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// TestEXL3Perplexity scores every EXL3 fixture (exllamav3's converter output) as `mlxbun perplexity --ctx 512`
// does on the first 65,536 bytes of pycoder's held-out text, and holds its bits per byte within 0.003 of the
// figure exllamav3's own forward measured over the same windows (exl3_golden.json, the fixture README's table).
func TestEXL3Perplexity(t *testing.T) {
	if testing.Short() {
		t.Skip("four perplexity runs of 127 windows of 512 tokens (about a minute each on 2 cores)")
	}
	text, err := os.ReadFile(testutil.Fixture(t, "trained/pycoder-12m/heldout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b := cpu.New()
	b.ExpandQuantizedBelow = cpu.DefaultExpandQuantizedBelow // as the registered CPU device runs it
	defer b.Close()
	for _, name := range testutil.EXL3Fixtures(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := testutil.Fixture(t, name)
			g, _ := testutil.ReadEXL3Golden(t, dir)
			d, err := modeldir.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := d.Tokenizer()
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(dir, b)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			res, err := Perplexity(m, tok.Encode(string(text[:65536]), false), 512, func(id int) int { return len(tok.TokenBytes(id)) }, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := g.Heldout.BitsPerByte
			t.Logf("%.5f bits/byte over %d windows (exllamav3 %.5f)", res.BitsPerByte, res.Windows, want)
			if res.Windows != g.Heldout.Windows || res.BytesScored != g.Heldout.BytesScored {
				t.Errorf("%d windows, %d bytes scored; exllamav3 scored %d, %d", res.Windows, res.BytesScored, g.Heldout.Windows, g.Heldout.BytesScored)
			}
			if math.Abs(res.BitsPerByte-want) > 0.003 {
				t.Errorf("%.5f bits/byte, exllamav3 %.5f: more than 0.003 apart", res.BitsPerByte, want)
			}
		})
	}
}
