// Tests of the self-calibration's sampler on tiny-qwen3: the same seed gives the same tokens and another seed
// others; every sequence is one window of in-vocabulary tokens; and the batched sampler (one decode row per
// sequence, sharing a cache) draws what an independent one-sequence sampler draws from full-prefix forward
// passes, so each sequence really is sampled from the model's own distribution at its own position.
package quantize

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

func TestSampleCalibration(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	o := Options{Bits: 3, CalibAuto: true, CalibTokens: 4 * 24, CalibCtx: 24, CalibSeed: 11}
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	draw := func(seed uint64) []int {
		o := o
		o.CalibSeed = seed
		ids, err := sampleCalibration(in, o, func(Event) {})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	a, b, c := draw(11), draw(11), draw(12)
	if len(a) != o.CalibTokens || !slices.Equal(a, b) {
		t.Fatalf("seed 11 twice: %d and %d tokens, equal %v", len(a), len(b), slices.Equal(a, b))
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 11 and 12 drew the same tokens")
	}

	b0 := cpu.New()
	defer b0.Close()
	m, err := loadCalibModel(b0, in, nil, o.CalibCtx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	vocab := m.Config.VocabSize
	for _, id := range a {
		if id < 0 || id >= vocab {
			t.Fatalf("token %d outside the vocabulary of %d", id, vocab)
		}
	}
	// The reference: each sequence re-drawn alone, every position's logits from a fresh full-prefix pass.
	for k := range 2 {
		seq := a[k*o.CalibCtx : (k+1)*o.CalibCtx]
		s, err := sample.New(sample.Params{Temp: autoTemp, TopP: autoTopP, Seed: signSeed(o.CalibSeed, fmt.Sprint("sequence ", k))})
		if err != nil {
			t.Fatal(err)
		}
		for pos := 1; pos < len(seq); pos++ {
			step := model.Step{IDs: make([]int32, pos), Seq: make([]int32, pos), Pos: make([]int32, pos)}
			for i := range pos {
				step.IDs[i], step.Pos[i] = int32(seq[i]), int32(i)
			}
			cache, err := m.NewCache(1, o.CalibCtx)
			if err != nil {
				t.Fatal(err)
			}
			logits, err := m.Forward(step, cache, 1)
			m.ReleaseCache(cache)
			if err != nil {
				t.Fatal(err)
			}
			id, err := s.Sample(logits, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if id != seq[pos] {
				t.Fatalf("sequence %d position %d: the batched sampler drew %d, the one-sequence reference %d", k, pos, seq[pos], id)
			}
		}
	}
}

// TestCalibAutoRun: the recommended settings quantize tiny-qwen3 with self-calibration (calibrated, every coded
// projection by LDLQ, rotated) and record the settings in the config's quantization block (another
// --calib-seed draws other tokens: TestSampleCalibration).
func TestCalibAutoRun(t *testing.T) {
	in := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/config.json"))
	o := resumeOptions()
	dir := t.TempDir()
	rep, err := Run(in, filepath.Join(dir, "a"), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Calibrated {
		t.Error("not calibrated")
	}
	for _, r := range rep.Tensors {
		if r.Spec.Mode == "trellis" && (!r.LDLQ || !r.RotatedIn) {
			t.Errorf("%s: ldlq %v, rotated in %v", r.Name, r.LDLQ, r.RotatedIn)
		}
	}
	cfg, err := loadConfig(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := cfg.Raw["quantization"].(map[string]any)["quantizer"].(map[string]any)
	want := map[string]any{"rht": true, "axis0": true, "calibration": "auto", "calib_seed": float64(DefaultCalibSeed),
		"calib_tokens": float64(256), "calib_ctx": float64(64), "damp": DefaultDamp, "ldlq_rows": float64(BestLDLQRows), "refit_scales": true}
	for k, v := range want {
		if q[k] != v {
			t.Errorf("quantizer.%s = %v, want %v (block %v)", k, q[k], v, q)
		}
	}
}

// sameFiles fails unless dir got holds the same files with the same sha256 as dir ref (a resumed run against an
// uninterrupted one).
func sameFiles(t *testing.T, got, ref string) {
	t.Helper()
	g, w := filesSHA(t, got), filesSHA(t, ref)
	if len(g) != len(w) {
		t.Errorf("resumed output files %v, uninterrupted %v", g, w)
	}
	for f, sum := range w {
		if g[f] != sum {
			t.Errorf("%s: sha256 %s resumed, %s uninterrupted", f, g[f], sum)
		}
	}
}

// filesSHA maps every file under dir (relative path) to its sha256.
func filesSHA(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s := sha256.Sum256(b)
		m[rel] = hex.EncodeToString(s[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
