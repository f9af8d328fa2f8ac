package eval

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// TestPerplexityAgainstGoldenLogits scores the pycoder golden prompt as one window and compares with the NLL
// computed from the HF reference logits in prompt_logits.f32.
func TestPerplexityAgainstGoldenLogits(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	var g struct {
		PromptIDs []int `json:"prompt_ids"`
		Shape     []int `json:"logits_shape"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "golden.json"))
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "prompt_logits.f32"))
	vocab := g.Shape[1]
	var want float64
	for i := 1; i < len(g.PromptIDs); i++ {
		row := make([]float32, vocab)
		for j := range row {
			row[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*((i-1)*vocab+j):]))
		}
		want -= logSoftmaxAt(row, g.PromptIDs[i])
	}
	be := cpu.New()
	defer be.Close()
	m, err := model.Load(dir, be)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := len(g.PromptIDs)
	tokens := append(append([]int(nil), g.PromptIDs...), 10) // the extra token is never scored: one window
	res, err := Perplexity(m, tokens, ctx, func(int) int { return 1 }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Windows != 1 || res.TokensScored != ctx-1 || res.BytesScored != ctx-1 {
		t.Fatalf("windows %d, scored %d tokens %d bytes; want 1, %d, %d", res.Windows, res.TokensScored, res.BytesScored, ctx-1, ctx-1)
	}
	if math.Abs(res.NLL-want) > 1e-4*want {
		t.Errorf("NLL %.6f, reference logits give %.6f", res.NLL, want)
	}
	if bpt := want / math.Ln2 / float64(ctx-1); math.Abs(res.BitsPerByte-bpt) > 1e-4 {
		t.Errorf("bits/byte %.6f, want %.6f", res.BitsPerByte, bpt)
	}
	t.Logf("NLL %.4f (reference %.4f), bits/byte %.4f, perplexity %.4f", res.NLL, want, res.BitsPerByte, res.Perplexity)
}

// TestPerplexityWindows: a window needs two tokens; nothing is scored from a one-token window.
func TestPerplexityWindows(t *testing.T) {
	if _, err := Perplexity(nil, make([]int, 10), 1, nil, nil); err == nil {
		t.Error("ctx 1 accepted")
	}
}
