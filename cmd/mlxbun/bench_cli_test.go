package main

import (
	"encoding/json"
	"math"
	"testing"
)

// TestBenchDryRun: bench --synthetic NAME --dry-run prints the published configs' parameter totals (within 1 %)
// for the Gemma 4, Qwen3.5 and MoE presets, the MoE ones' activated parameters (Qwen3-30B-A3B's published 3.3B
// within 2 %; Qwen3-Next's "3B" leaves the embeddings out: 3.87 G with them, counted by hand in
// internal/model's TestSyntheticPresetSizes), fewer bytes at 3 bits, and bad requests fail on one line.
func TestBenchDryRun(t *testing.T) {
	published := map[string]float64{"gemma4-31b": 30.7e9, "qwen3.5-27b": 27e9, "qwen3-30b-a3b": 30.5e9, "qwen3-next-80b-a3b": 80e9}
	active := map[string]float64{"qwen3-30b-a3b": 3.3e9, "qwen3-next-80b-a3b": 3.87e9}
	for name, want := range published {
		var bf16 sizeReport
		for _, bits := range []string{"0", "3"} {
			r := mlxbun(t, "", "bench", "--synthetic", name, "--bits", bits, "--dry-run", "-o", "json")
			if r.code != 0 {
				t.Fatalf("%s --bits %s: exit %d: %s", name, bits, r.code, r.stderr)
			}
			var got sizeReport
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("%s --bits %s: %v in %q", name, bits, err, r.stdout)
			}
			if rel := math.Abs(float64(got.Params)-want) / want; rel > 0.01 {
				t.Errorf("%s --bits %s: %d parameters, %.2f %% from the published %.1f G", name, bits, got.Params, 100*rel, want/1e9)
			}
			wantActive, moe := active[name]
			if !moe {
				wantActive = float64(got.Params)
			}
			if rel := math.Abs(float64(got.ActiveParams)-wantActive) / wantActive; rel > 0.02 {
				t.Errorf("%s --bits %s: %d active parameters, want %.2f G", name, bits, got.ActiveParams, wantActive/1e9)
			}
			if bits == "0" {
				bf16 = got
			} else if got.Params != bf16.Params || got.DecodeBytes >= bf16.DecodeBytes/3 {
				t.Errorf("%s: 3 bits %+v against bf16 %+v", name, got, bf16)
			}
		}
	}
	oneErrorLine(t, mlxbun(t, "", "bench", "--model", t.TempDir(), "--dry-run"), "--dry-run", "--synthetic")
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "gemma4-31b", "--bits", "9", "--dry-run"), "9")
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "gemma-9000", "--dry-run"), "gemma-9000", "qwen3.5-27b")
}
