// Tests of how the quantizer stores the output head and the embedding tables (--head, --embeddings): which table
// is affine 8-bit for each choice on tied and untied checkpoints, what the config block says for each, that the
// loader binds what was written, and that artifacts written before the head default changed (bf16 head) still
// load and are what --head bf16 writes today.
package quantize

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil/artifact"
)

// TestHeadStorage quantizes a small tied and untied checkpoint (2 bits, L 6) under each --head/--embeddings
// choice and checks the tables stored affine, the config block's entry per table (the affine spec or false), and
// that the CPU loads each artifact with the output projection bound to the written head (the query names it
// and gives its format). The logits of every variant stay near the all-bf16-tables one's, whose trellis codes are
// the same (the encoder is deterministic). An affine 8-bit table of these Gaussian rows holds ~42 dB SNR, a
// relative weight error of 10^(−42/20) ≈ 0.008, which the logits, linear in the head, carry about 1:1: measured
// 0.0067–0.0090 with one table affine, 0.0101 with both; the bound leaves 50 %.
func TestHeadStorage(t *testing.T) {
	const emb, head = "model.embed_tokens", "lm_head"
	cases := []struct {
		name             string
		untied, withHead bool // tie_word_embeddings false; the checkpoint holds lm_head.weight
		o                Options
		affine           []string // the tables stored affine, sorted
		bound            string   // the module the loader binds as the output projection
	}{
		{"tied head bf16", false, false, Options{Head: HeadBF16}, nil, emb}, // first: the reference logits
		{"tied default", false, false, Options{}, []string{emb}, emb},       // the one table is the head: affine
		{"tied head bf16 embeddings affine8", false, false, Options{Head: HeadBF16, Embeddings: EmbeddingsAffine8}, []string{emb}, emb},
		{"untied head bf16", true, true, Options{Head: HeadBF16}, nil, head},
		{"untied default", true, true, Options{}, []string{head}, head},
		{"untied embeddings affine8", true, true, Options{Embeddings: EmbeddingsAffine8}, []string{head, emb}, head},
		{"untied head bf16 embeddings affine8", true, true, Options{Head: HeadBF16, Embeddings: EmbeddingsAffine8}, []string{emb}, head},
		// A tied config whose checkpoint holds lm_head anyway: lm_head is the head, written and bound as such.
		{"tied config with lm_head", false, true, Options{}, []string{head}, head},
	}
	b := cpu.New()
	defer b.Close()
	ref := map[bool][]float32{} // the logits with every table bf16, by untied
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s synth
			if c.withHead {
				s = small(backend.BF16, synthTensor{"lm_head.weight", backend.BF16, []int{128, 64}})
			} else {
				s = small(backend.BF16)
			}
			s.config["tie_word_embeddings"] = !c.untied
			in := s.write(t)
			o := cheap(2)
			o.Head, o.Embeddings = c.o.Head, c.o.Embeddings
			out := filepath.Join(t.TempDir(), "q")
			rep, err := Run(in, out, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, in, out, rep)
			var got []string
			for _, tr := range rep.Tensors {
				if tr.Spec.Mode == "affine" {
					got = append(got, tr.Name)
					if tr.Spec != affine8 || tr.SNRdB < 40 { // measured 41.8–42.5 dB (TestRulesAffineAndConversion)
						t.Errorf("%s: %+v at %.2f dB", tr.Name, tr.Spec, tr.SNRdB)
					}
				}
			}
			if !slices.Equal(got, c.affine) {
				t.Errorf("affine tables %v, want %v", got, c.affine)
			}
			block := quantEntries(t, out)
			for _, p := range []string{emb, head} {
				if !c.withHead && p == head {
					if _, ok := block[p]; ok {
						t.Errorf("the block has an entry for %s, which the checkpoint does not hold", p)
					}
					continue
				}
				want := "false"
				if slices.Contains(c.affine, p) {
					want = `{"mode":"affine","bits":8,"group_size":64}`
				}
				if block[p] != want {
					t.Errorf("the block gives %s %s, want %s", p, block[p], want)
				}
			}

			qs, err := model.Queries(out)
			if err != nil {
				t.Fatal(err)
			}
			h := lastMatMul(qs)
			wantFormat := backend.FormatDense
			if slices.Contains(c.affine, c.bound) {
				wantFormat = backend.FormatAffine
			}
			if h.Name != c.bound || h.Weight.Format != wantFormat {
				t.Errorf("the head query %s, want %s as %v", h, c.bound, wantFormat)
			}
			logits := forward(t, b, out)
			if c.o.Head == HeadBF16 && c.o.Embeddings == "" && c.withHead == c.untied {
				ref[c.untied] = logits
			}
			if r := ref[c.untied]; r != nil && c.withHead == c.untied {
				e := relRMS(r, logits)
				t.Logf("relative RMS against the bf16 tables: %.4f", e)
				if e > 0.015 {
					t.Errorf("the logits moved by %.4f (relative RMS) against the bf16 tables'", e)
				}
			}
		})
	}
}

// TestPreHeadArtifacts: the artifacts in testdata were written by the quantizer before its head default changed
// (2026-12-01, lm_head and a tied table bf16, the block saying false for them) from the small tied and untied
// checkpoints at 2 bits, L 6, T 64. They load on the CPU with a bf16 head, and --head bf16 today writes the very
// same files.
func TestPreHeadArtifacts(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	for _, untied := range []bool{false, true} {
		name := map[bool]string{false: "prehead-tied", true: "prehead-untied"}[untied]
		t.Run(name, func(t *testing.T) {
			old := filepath.Join("testdata", name)
			qs, err := model.Queries(old)
			if err != nil {
				t.Fatal(err)
			}
			h := lastMatMul(qs)
			bound := map[bool]string{false: "model.embed_tokens", true: "lm_head"}[untied]
			if h.Name != bound || h.Weight.Format != backend.FormatDense {
				t.Errorf("the head query %s, want %s dense", h, bound)
			}
			logits := forward(t, b, old)

			s := small(backend.BF16)
			if untied {
				s = small(backend.BF16, synthTensor{"lm_head.weight", backend.BF16, []int{128, 64}})
				s.config["tie_word_embeddings"] = false
			}
			out := filepath.Join(t.TempDir(), "q")
			o := cheap(2)
			o.Head = HeadBF16
			if _, err := Run(s.write(t), out, o, nil); err != nil {
				t.Fatal(err)
			}
			// The same config and tensors; the files' __metadata__ now also holds the geometry records.
			a, err := os.ReadFile(filepath.Join(old, "config.json"))
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(out, "config.json")); string(a) != string(b) {
				t.Errorf("config.json: --head bf16 writes another config than the artifact written before the change")
			}
			if artifact.TensorsSHA(t, old) != artifact.TensorsSHA(t, out) {
				t.Errorf("model.safetensors: --head bf16 writes other tensors than the artifact written before the change")
			}
			if again := forward(t, b, out); !slices.Equal(again, logits) {
				t.Errorf("the old artifact and today's --head bf16 give other logits")
			}
		})
	}
}

// quantEntries reads the quantization block of dir's config.json, each value as compact JSON.
func quantEntries(t *testing.T, dir string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Quant map[string]json.RawMessage `json:"quantization"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range c.Quant {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			t.Fatal(err)
		}
		out[k] = b.String()
	}
	return out
}

// lastMatMul is the last matmul query: the output head's.
func lastMatMul(qs []backend.Query) backend.Query {
	var h backend.Query
	for _, q := range qs {
		if q.Op == backend.OpMatMul {
			h = q
		}
	}
	return h
}

// forward loads dir on b and returns the logits of a 6-token prompt, each checked finite.
func forward(t *testing.T, b backend.Backend, dir string) []float32 {
	t.Helper()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const n = 6
	cache, err := m.NewCache(1, n)
	if err != nil {
		t.Fatal(err)
	}
	defer m.ReleaseCache(cache)
	var s model.Step
	for p := range n {
		s.IDs, s.Seq, s.Pos = append(s.IDs, int32((p*37+5)%m.Config.VocabSize)), append(s.Seq, 0), append(s.Pos, int32(p))
	}
	logits, err := m.Forward(s, cache, n)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range logits {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("logit %d is %v", i, v)
		}
	}
	return logits
}

// relRMS is the relative RMS difference of got against ref.
func relRMS(ref, got []float32) float64 {
	var sig, noise float64
	for i, r := range ref {
		d := float64(got[i]) - float64(r)
		sig += float64(r) * float64(r)
		noise += d * d
	}
	return math.Sqrt(noise / sig)
}
