package testutil

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Golden is a fixture model's golden.json: the reference (HF transformers, float32) prompt, its logits file and
// the greedy continuation.
type Golden struct {
	PromptIDs    []int  `json:"prompt_ids"`
	LogitsFile   string `json:"logits_file"`
	LogitsShape  []int  `json:"logits_shape"`
	GreedyNewIDs []int  `json:"greedy_new_ids"`
}

// ReadGolden reads dir/golden.json and its logits ([LogitsShape[0], LogitsShape[1]] float32, little-endian).
func ReadGolden(tb testing.TB, dir string) (Golden, []float32) {
	tb.Helper()
	var g Golden
	b, err := os.ReadFile(filepath.Join(dir, "golden.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		tb.Fatalf("%s/golden.json: %v", dir, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, g.LogitsFile))
	if err != nil {
		tb.Fatal(err)
	}
	ref := make([]float32, len(raw)/4)
	for i := range ref {
		ref[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	if len(g.LogitsShape) != 2 || len(ref) != g.LogitsShape[0]*g.LogitsShape[1] {
		tb.Fatalf("%s: %d logits for shape %v", dir, len(ref), g.LogitsShape)
	}
	return g, ref
}
