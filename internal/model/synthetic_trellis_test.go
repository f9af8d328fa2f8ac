package model

import (
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// The synthetic trellis source must describe its coded tensors as a checkpoint would (U32 words in the stored
// shape, F16 scales), or binding reads the dense bf16 header's shape as words (a 2026-11-30 regression).
func TestSyntheticTrellisQueries(t *testing.T) {
	for _, bits := range []int{2, 3, 4} {
		qs, err := SyntheticTrellisQueries("qwen3-0.6b", SyntheticQuant{Bits: bits})
		if err != nil {
			t.Fatalf("%d bits: %v", bits, err)
		}
		coded, interleaved := 0, 0
		for _, q := range qs {
			if q.Weight.Format != backend.FormatTrellis {
				continue
			}
			coded++
			if q.Weight.Bits != bits {
				t.Errorf("%s: %d bits, want %d", q.Name, q.Weight.Bits, bits)
			}
			if q.Weight.Interleaved {
				interleaved++
			}
		}
		cfg, _ := SyntheticTrellisConfig("qwen3-0.6b", SyntheticQuant{Bits: bits})
		if want := 7 * cfg.NumLayers; coded != want {
			t.Errorf("%d bits: %d trellis queries, want %d (seven projections per layer)", bits, coded, want)
		}
		if want := map[bool]int{true: cfg.NumLayers, false: 0}[bits == 3]; interleaved != want {
			t.Errorf("%d bits: %d interleaved down projections, want %d", bits, interleaved, want)
		}
	}
}
