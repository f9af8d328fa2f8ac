package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// TestBenchDryRun: bench --synthetic NAME --dry-run prints the published configs' parameter totals (within 1 %)
// for the Gemma 4, Qwen3.5 and MoE presets, the MoE ones' activated parameters (Qwen3-30B-A3B's published 3.3B
// within 2 %; Qwen3-Next's "3B" leaves the embeddings out: 3.87 G with them, counted by hand in
// internal/model's TestSyntheticPresetSizes), fewer bytes at 3 bits, the Qwen3 presets' bytes at 3 bits with the
// affine and the bf16 head exactly as worked out by hand, and bad requests fail on one line.
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
	// The roofline's numerator, by hand. Qwen3-14B: 40 layers of q, o 5120×5120, k, v 1024×5120, gate, up 17408×5120
	// and down 5120×17408 = 330,301,440 weights, ×40 = 13,212,057,600 at 3/8 byte = 4,954,521,600 bytes of words;
	// fp16 scales per coded row (q 5120, k, v 1024, o 5120, gate, up 17408, down along axis 0 17408) 64,512 × 2 B ×
	// 40 = 5,160,960; norms (2×5120 + 2×128 per layer, 5120 final) 839,680 + 10,240; one bf16 embedding row 10,240.
	// That is 4,960,542,720 without the head. The head 151,936×5120: bf16 1,555,824,640 bytes; affine 8-bit one
	// byte a weight, 777,912,320, plus bf16 scales and biases per group of 64, 151,936 × 80 × 4 = 48,619,520, so
	// 826,531,840 (0.53 of bf16). Qwen3-0.6B (tied: the one table is the head, read whole, and stored once): 28
	// layers of 15,728,640 weights → 165,150,720 bytes of words, scales (2048 + 3·1024 + 3·3072 rows) 14,336 × 2 ×
	// 28 = 802,816, norms 129,024 + 2,048; the affine table 151,936×1024 + 151,936 × 16 × 4 = 165,306,368, bf16
	// 311,164,928.
	// The untied 14B stores its whole embedding table and reads one row of it; the tied 0.6B reads all it stores.
	const (
		body14, table14, affine14 = 4960542720, 1555824640, 826531840
		body06, table06, affine06 = 165150720 + 802816 + 129024 + 2048, 311164928, 165306368
	)
	for _, c := range []struct {
		name, head     string
		stored, decode int64
	}{
		{"qwen3-14b", "affine8", body14 - 10240 + table14 + affine14, body14 + affine14},
		{"qwen3-14b", "bf16", body14 - 10240 + 2*table14, body14 + table14},
		{"qwen3-0.6b", "affine8", body06 + affine06, body06 + affine06},
		{"qwen3-0.6b", "bf16", body06 + table06, body06 + table06},
	} {
		r := mlxbun(t, "", "bench", "--synthetic", c.name, "--bits", "3", "--head", c.head, "--dry-run", "-o", "json")
		var got sizeReport
		if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
			t.Fatalf("%s --head %s: exit %d, %v: %s", c.name, c.head, r.code, err, r.stderr)
		}
		if got.StoredBytes != c.stored || got.DecodeBytes != c.decode {
			t.Errorf("%s --head %s: %d bytes stored, %d read per token; want %d and %d", c.name, c.head,
				got.StoredBytes, got.DecodeBytes, c.stored, c.decode)
		}
	}
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "qwen3-14b", "--head", "int4", "--bits", "3", "--dry-run"), "--head", "int4")
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "qwen3-14b", "--head", "bf16", "--dry-run"), "--head", "--bits")
	oneErrorLine(t, mlxbun(t, "", "bench", "--model", t.TempDir(), "--dry-run"), "--dry-run", "--synthetic")
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "gemma4-31b", "--bits", "9", "--dry-run"), "9")
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "gemma-9000", "--dry-run"), "gemma-9000", "qwen3.5-27b")
}

// TestBenchDepth: --depth (llama-bench's -d) names the tg row by its depth, counts it in the positions the model
// must hold, and refuses what it cannot mean.
func TestBenchDepth(t *testing.T) {
	dir := testutil.Fixture(t, "models/tiny-qwen3")
	r := mlxbun(t, "", "bench", "--model", dir, "--device", "cpu", "-p", "0", "-n", "4", "-r", "1", "-d", "8", "--batch", "2", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Results []benchRow `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Results) != 1 {
		t.Fatalf("%v in %q", err, r.stdout)
	}
	if got := rep.Results[0]; got.Test != "tg4 ×2 seqs @ d8" || got.NGen != 8 || got.NPrompt != 0 {
		t.Errorf("row %+v, want tg4 ×2 seqs @ d8 of 8 generated tokens", got)
	}
	oneErrorLine(t, mlxbun(t, "", "bench", "--model", dir, "--device", "cpu", "-p", "0", "-n", "4", "-d", "-1"), "--depth", "-1")
	oneErrorLine(t, mlxbun(t, "", "bench", "--model", dir, "--device", "cpu", "-p", "0", "-n", "4", "-d", "100000000"), "-d 100000000", "positions")
	oneErrorLine(t, mlxbun(t, "", "bench", "--model", dir, "--device", "cpu", "-d", "8", "--streams", "2"), "--depth", "--streams")
}

// TestBenchRooflineMoE: a MoE preset's roofline line divides the copy bandwidth by the bytes its active
// parameters take (the routed experts only: internal/model's TestSyntheticMoEDecodeBytes counts them by hand)
// and says so; a dense preset's line names no active share.
func TestBenchRooflineMoE(t *testing.T) {
	const bw = 4.0e12 // bytes/s, an H200's order of magnitude
	for _, c := range []struct {
		name   string
		bits   int
		active string // "" for a dense preset
	}{{"qwen3-30b-a3b", 3, "3.35 G of 30.53 G"}, {"qwen3-next-80b-a3b", 3, "3.87 G of 79.67 G"}, {"qwen3-30b-a3b", 0, "3.35 G of 30.53 G"}, {"qwen3-14b", 3, ""}} {
		size, err := model.SyntheticStats(c.name, model.SyntheticQuant{Bits: c.bits})
		if err != nil {
			t.Fatal(err)
		}
		rep := benchReport{DecodeBytes: size.DecodeBytes, Params: size.Params, ActiveParams: size.ActiveParams,
			CopyBandwidth: bw, RooflineTS: bw / float64(size.DecodeBytes),
			Rows: []benchRow{{Test: "tg64", NGen: 64, AvgTS: bw / float64(size.DecodeBytes) / 2}}}
		var out strings.Builder
		writeRoofline(&out, rep)
		want := fmt.Sprintf("roofline: %.2f GB of weights read per decode step", float64(size.DecodeBytes)/1e9)
		if c.active != "" {
			want += " (the active parameters: " + c.active + ", the routed experts only)"
		}
		want += fmt.Sprintf(" / 4000 GB/s copy bandwidth = %.1f tok/s\ntg64: 50.0 %% of the roofline\n", bw/float64(size.DecodeBytes))
		if got := strings.TrimPrefix(out.String(), "\n"); got != want {
			t.Errorf("%s %d-bit:\n got %q\nwant %q", c.name, c.bits, got, want)
		}
	}
	// The 3-bit Qwen3-30B-A3B roofline is the active count's, not the 12.23 GB stored: 1.38 GB a token.
	if s, _ := model.SyntheticStats("qwen3-30b-a3b", model.SyntheticQuant{Bits: 3}); s.DecodeBytes > 1.4e9 {
		t.Errorf("qwen3-30b-a3b 3-bit: %d bytes a decode token: experts counted whole", s.DecodeBytes)
	}
}

// TestBenchPicks: the tg row of bench --batch takes the device's picks by default and reads every row's logits
// with --read-logits, both giving a tg row of the batch's tokens; bench --draft agrees with itself either way
// (the outputs with and without drafts are identical, each through picks or through logits alike).
func TestBenchPicks(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	for _, extra := range [][]string{nil, {"--read-logits"}} {
		args := append([]string{"bench", "--model", dir, "--device", "cpu", "-p", "8", "-n", "4", "-r", "1", "--batch", "2", "-o", "json"}, extra...)
		r := mlxbun(t, "", args...)
		var rep benchReport
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || len(rep.Rows) != 2 || rep.Rows[1].NGen != 8 || rep.Rows[1].AvgTS <= 0 {
			t.Errorf("%v: exit %d, %+v\n%s", extra, r.code, rep.Rows, r.stderr)
		}
		args = append([]string{"bench", "--model", dir, "--device", "cpu", "--draft", "ngram", "-p", "48", "-n", "12", "-r", "1", "-o", "json"}, extra...)
		r = mlxbun(t, "", args...)
		var d draftReport
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil || !d.Identical {
			t.Errorf("%v --draft: exit %d, %+v\n%s", extra, r.code, d, r.stderr)
		}
	}
}

// TestBenchSaveErrors: --save writes only a dense synthetic model, into a directory that does not exist yet (the
// writing itself is internal/model's TestWriteSynthetic).
func TestBenchSaveErrors(t *testing.T) {
	dir := t.TempDir()
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "qwen3-0.6b", "--bits", "3", "--save", dir+"/x"), "--save", "without --bits")
	oneErrorLine(t, mlxbun(t, "", "bench", "--synthetic", "qwen3-0.6b", "--save", dir), "--save", "exists")
}

// TestBenchModelParams: bench --model's params column is the unquantized model's parameter count whatever the
// checkpoint's format: pycoder-12m's 12,260,352 (transformers' count, its tied table once; internal/model's
// TestSizeParamsAcrossFormats works it out from the config) for the bf16 directory and for exllamav3's EXL3
// conversion of it, whose projections are stored as .trellis words and its tied head again as lm_head.
func TestBenchModelParams(t *testing.T) {
	const want = 12_260_352
	for _, rel := range []string{"trained/pycoder-12m", "exl3/pycoder-12m-exl3-2.0-mul1"} {
		dir := testutil.Fixture(t, rel)
		r := mlxbun(t, "", "bench", "--model", dir, "--device", "cpu", "-p", "4", "-n", "1", "-r", "1", "-o", "json")
		var rep benchReport
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || len(rep.Rows) != 2 {
			t.Fatalf("%s: exit %d, %q\n%s", rel, r.code, r.stdout, r.stderr)
		}
		for _, row := range rep.Rows {
			if row.Params != want {
				t.Errorf("%s %s: model_n_params %d, want %d", rel, row.Test, row.Params, want)
			}
		}
		r = mlxbun(t, "", "bench", "--model", dir, "--device", "cpu", "-p", "0", "-n", "1", "-r", "1")
		if r.code != 0 || !strings.Contains(r.stdout, "| 12.26 M |") {
			t.Errorf("%s: exit %d, the table names no 12.26 M params:\n%s%s", rel, r.code, r.stdout, r.stderr)
		}
	}
}
