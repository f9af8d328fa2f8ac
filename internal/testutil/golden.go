package testutil

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	return g, readLogits(tb, dir, g.LogitsFile, g.LogitsShape)
}

// readLogits reads dir/file, float32 little-endian logits of shape [positions, vocab].
func readLogits(tb testing.TB, dir, file string, shape []int) []float32 {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		tb.Fatal(err)
	}
	ref := make([]float32, len(raw)/4)
	for i := range ref {
		ref[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	if len(shape) != 2 || len(ref) != shape[0]*shape[1] {
		tb.Fatalf("%s: %d logits for shape %v", dir, len(ref), shape)
	}
	return ref
}

// EXL3Golden is an EXL3 fixture's exl3_golden.json (shared/fixtures/exl3/README.md): exllamav3's own prompt
// logits, greedy continuation and bits per byte on the first 64 KiB of the held-out text.
type EXL3Golden struct {
	Bits         float64 `json:"bits"`
	Codebook     string  `json:"codebook"`
	HeadBits     int     `json:"head_bits"`
	PromptIDs    []int   `json:"prompt_ids"`
	LogitsFile   string  `json:"prompt_logits_file"`
	LogitsShape  []int   `json:"logits_shape"`
	GreedyNewIDs []int   `json:"greedy_new_ids"`
	Heldout      struct {
		Windows     int     `json:"windows"`
		BytesScored int     `json:"bytes_scored"`
		BitsPerByte float64 `json:"bits_per_byte"`
	} `json:"heldout_64k"`
}

// EXL3Fixtures lists the EXL3 fixture directories (exllamav3's converter output) as Fixture names: the four the
// shared fixtures hold (Fixture fails under CI when one is missing), then every other directory of fixtures/exl3
// with an exl3_golden.json (scripts/device/exl3_goldens.sh makes them for further settings).
func EXL3Fixtures(tb testing.TB) []string {
	tb.Helper()
	names := []string{"exl3/pycoder-12m-exl3-2.0-mul1", "exl3/pycoder-12m-exl3-3.0-mul1", "exl3/pycoder-12m-exl3-4.0-mul1",
		"exl3/pycoder-12m-exl3-3.0-mcg"}
	if dir, ok := OptionalFixture(tb, "exl3"); ok {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			name := "exl3/" + e.Name()
			if e.IsDir() && !slices.Contains(names, name) && exists(filepath.Join(dir, e.Name(), "exl3_golden.json")) {
				names = append(names, name)
			}
		}
	}
	return names
}

// ReadEXL3Golden reads dir/exl3_golden.json and its prompt logits.
func ReadEXL3Golden(tb testing.TB, dir string) (EXL3Golden, []float32) {
	tb.Helper()
	var g EXL3Golden
	b, err := os.ReadFile(filepath.Join(dir, "exl3_golden.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		tb.Fatalf("%s/exl3_golden.json: %v", dir, err)
	}
	return g, readLogits(tb, dir, g.LogitsFile, g.LogitsShape)
}
