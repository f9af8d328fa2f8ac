// Tests of the parameter count bench prints (model_n_params, the unquantized model's): (*Model).Size gives the same
// number for one config whatever the checkpoint's format (bf16, mlxbun's trellis, exllamav3's EXL3, experts
// stacked or one module each), the number transformers counts, worked out here from config.json alone; and
// SyntheticStats (bench --synthetic) counts a preset as Size counts the same shape stored.
package model_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// configInts reads the integer fields of dir's config.json, and whether its embeddings are tied.
func configInts(t *testing.T, dir string) (map[string]int64, bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for k, v := range c {
		if f, ok := v.(float64); ok {
			out[k] = int64(f)
		}
	}
	tied, _ := c["tie_word_embeddings"].(bool)
	return out, tied
}

// hfQwen3Params is transformers' Qwen3ForCausalLM.num_parameters() for dir's config.json, from its fields alone:
// each layer's q_proj hidden × heads·head_dim, k_proj and v_proj hidden × kv_heads·head_dim, o_proj heads·head_dim
// × hidden, gate_proj, up_proj and down_proj hidden × intermediate, input and post-attention RMSNorms of hidden,
// q_norm and k_norm of head_dim (no biases: attention_bias false); the embedding table vocab × hidden, counted once
// when tied (lm_head is the same parameter), twice when not; the final norm of hidden.
func hfQwen3Params(t *testing.T, dir string) int64 {
	t.Helper()
	c, tied := configInts(t, dir)
	h, inter, v, hd := c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["head_dim"]
	q, kv := c["num_attention_heads"]*hd, c["num_key_value_heads"]*hd
	layer := h*q + 2*h*kv + q*h + 3*h*inter + 2*h + 2*hd
	n := c["num_hidden_layers"]*layer + v*h + h
	if !tied {
		n += v * h
	}
	return n
}

// checkpoint is what dir's safetensors files hold, read from their headers here (not through internal/
// safetensors): the elements of every tensor, the bytes of their data, and their names.
type checkpoint struct {
	elements, bytes int64
	names           []string
}

func readCheckpoint(t *testing.T, dir string) checkpoint {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no safetensors (%v)", dir, err)
	}
	var c checkpoint
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		var n uint64
		err = binary.Read(r, binary.LittleEndian, &n)
		head := make([]byte, n)
		if err == nil {
			_, err = io.ReadFull(r, head)
		}
		r.Close()
		var h map[string]json.RawMessage
		if err == nil {
			err = json.Unmarshal(head, &h)
		}
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, raw := range h {
			if name == "__metadata__" {
				continue
			}
			var e struct {
				Shape   []int64  `json:"shape"`
				Offsets [2]int64 `json:"data_offsets"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatalf("%s %s: %v", f, name, err)
			}
			p := int64(1)
			for _, d := range e.Shape {
				p *= d
			}
			c.elements += p
			c.bytes += e.Offsets[1] - e.Offsets[0]
			c.names = append(c.names, name)
		}
	}
	return c
}

// loadedSize loads dir on b and counts it.
func loadedSize(t *testing.T, dir string, b backend.Backend) model.SyntheticSize {
	t.Helper()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.Size()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSizeParamsAcrossFormats: pycoder-12m (Qwen3, tied embeddings) has 12,260,352 parameters — transformers'
// count from its config (hfQwen3Params: 4 layers × 3,015,808 + the 384×512 table once + the final norm 512), which
// its bf16 checkpoint holds exactly — and Size counts that for the bf16 directory, for each of exllamav3's EXL3
// conversions of it (projections as <key>.trellis, .suh, .svh and a .mul1 or .mcg marker; the tied head stored
// again as lm_head at head_bits, still the one table) and for mlxbun's own trellis files of it (2 bits with the
// affine head; 3 bits RHT-rotated with the bf16 head, its sign vectors stored beside the codes). StoredBytes is
// every file's tensor data.
func TestSizeParamsAcrossFormats(t *testing.T) {
	bf16 := testutil.Fixture(t, "trained/pycoder-12m")
	const want = 12_260_352
	if got := hfQwen3Params(t, bf16); got != want {
		t.Fatalf("pycoder-12m config: %d parameters by transformers' formula, want %d", got, want)
	}
	if held := readCheckpoint(t, bf16); held.elements != want {
		t.Fatalf("pycoder-12m's bf16 checkpoint holds %d parameters, transformers counts %d", held.elements, want)
	}
	dirs := []string{bf16}
	for _, name := range testutil.EXL3Fixtures(t) {
		dirs = append(dirs, testutil.Fixture(t, name))
	}
	for i, o := range []quantize.Options{
		{Bits: 2, L: 4},
		{Bits: 3, L: 4, Head: quantize.HeadBF16, RHT: true},
	} {
		q := filepath.Join(t.TempDir(), fmt.Sprintf("trellis%d", i))
		if _, err := quantize.Run(bf16, q, o, nil); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, q)
	}
	b := cpu.New()
	defer b.Close()
	for _, dir := range dirs {
		s := loadedSize(t, dir, b)
		held := readCheckpoint(t, dir)
		t.Logf("%s: %d params, %d bytes stored in %d tensors", filepath.Base(dir), s.Params, s.StoredBytes, len(held.names))
		if s.Params != want || s.ActiveParams != want {
			t.Errorf("%s: Size counts %d parameters (%d active), want %d: the unquantized model's, whatever the format",
				filepath.Base(dir), s.Params, s.ActiveParams, want)
		}
		if s.StoredBytes != held.bytes {
			t.Errorf("%s: Size counts %d bytes stored, the files hold %d", filepath.Base(dir), s.StoredBytes, held.bytes)
		}
	}
}

// TestSizeParamsTinyFixtures: each tiny model's bf16 checkpoint holds its parameters exactly (biases, DeltaNet
// tensors, Gemma's sandwich norms and per-layer inputs; the tied head not again), Size counts them, and counts the
// same for the model quantize codes at 3 bits. The MoE fixture's active parameters are its total but, in each of
// its 4 sparse layers, 2 of its 4 experts of 3·256·128 weights.
func TestSizeParamsTinyFixtures(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	for _, name := range []string{"tiny-llama3", "tiny-qwen2-yarn", "tiny-qwen3", "tiny-gemma2", "tiny-gemma3", "tiny-gemma4",
		"tiny-qwen3_5", "tiny-qwen3-next-moe"} {
		t.Run(name, func(t *testing.T) {
			dir := testutil.Fixture(t, "models/"+name)
			want := readCheckpoint(t, dir).elements
			wantActive := want
			if c, _ := configInts(t, dir); c["num_experts"] > 0 {
				wantActive -= c["num_hidden_layers"] * (c["num_experts"] - c["num_experts_per_tok"]) * 3 * c["hidden_size"] * c["moe_intermediate_size"]
			}
			q := filepath.Join(t.TempDir(), "q3")
			if _, err := quantize.Run(dir, q, quantize.Options{Bits: 3, L: 3, GroupSize: 128}, nil); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{dir, q} {
				if s := loadedSize(t, d, b); s.Params != want || s.ActiveParams != wantActive {
					t.Errorf("%s: %d parameters (%d active), want %d (%d)", d, s.Params, s.ActiveParams, want, wantActive)
				}
			}
		})
	}
}

// headerSource is a checkpoint of headers only (no data): Size reads names and headers, never weights.
type headerSource map[string]backend.Host

func (h headerSource) Has(name string) bool { _, ok := h[name]; return ok }
func (h headerSource) Header(name string) (backend.Host, error) {
	if x, ok := h[name]; ok {
		return x, nil
	}
	return backend.Host{}, fmt.Errorf("no tensor %q", name)
}
func (h headerSource) Tensor(name string) (backend.Host, error) { return h.Header(name) }
func (h headerSource) Close() error                             { return nil }
func (h headerSource) Names() []string {
	out := make([]string, 0, len(h))
	for n := range h {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// asEXL3 is the bf16 checkpoint src of cfg as exllamav3's converter lays it out at 4 bits: every projection the
// family map codes (and the output head, tied or not) as <key>.trellis int16 [in/16, out/16, 64] with fp16 .suh
// [in] and .svh [out] and a 0-dim int32 .mcg marker; an expert stack as one such module per expert
// (mlp.experts.E.gate_proj, .up_proj, .down_proj, as the published MoE checkpoints store them); the rest as is.
func asEXL3(t *testing.T, cfg *config.Model, src model.NamedSource) headerSource {
	t.Helper()
	fam, err := family.For(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tm := fam.Tensors(cfg)
	out := headerSource{}
	code := func(path string, rows, cols int) {
		out[path+".trellis"] = backend.Host{Name: path + ".trellis", DType: backend.I16, Shape: []int{cols / 16, rows / 16, 64}}
		out[path+".suh"] = backend.Host{Name: path + ".suh", DType: backend.F16, Shape: []int{cols}}
		out[path+".svh"] = backend.Host{Name: path + ".svh", DType: backend.F16, Shape: []int{rows}}
		out[path+".mcg"] = backend.Host{Name: path + ".mcg", DType: backend.I32, Shape: []int{}}
	}
	for _, n := range src.Names() {
		h, err := src.Header(n)
		if err != nil {
			t.Fatal(err)
		}
		tt, ok := tm.Lookup(n)
		switch {
		case ok && tt.Kind == family.KindWeight && len(h.Shape) == 3: // [experts, out, in]
			base := tt.Path[:strings.LastIndexByte(tt.Path, '.')+1]
			for e := range h.Shape[0] {
				if strings.HasSuffix(tt.Path, "gate_up_proj") {
					code(fmt.Sprintf("%s%d.gate_proj", base, e), h.Shape[1]/2, h.Shape[2])
					code(fmt.Sprintf("%s%d.up_proj", base, e), h.Shape[1]/2, h.Shape[2])
				} else {
					code(fmt.Sprintf("%s%d.down_proj", base, e), h.Shape[1], h.Shape[2])
				}
			}
		case ok && (tt.Kind == family.KindWeight || n == tm.Head.WeightName()):
			code(tt.Path, h.Shape[0], h.Shape[1])
		default:
			out[n] = h
		}
	}
	if !out.Has("lm_head.trellis") {
		code("lm_head", cfg.VocabSize, cfg.HiddenSize)
	}
	return out
}

// TestSizeMatchesSyntheticStats: bench --model counts a checkpoint as bench --synthetic counts a preset of its
// shape. For every preset at bf16 and 3 bits, Size's count of the preset's checkpoint (its headers) is
// SyntheticStats' to the byte, and the same preset converted to EXL3's layout (asEXL3: Qwen3-14B's projections
// as .trellis words, which once counted as the 778 M of its embedding table alone; Qwen3-30B-A3B's experts one
// module each) has the same parameters and active parameters.
func TestSizeMatchesSyntheticStats(t *testing.T) {
	for _, name := range model.Presets() {
		var dense model.SyntheticSize
		for _, bits := range []int{0, 3} {
			q := model.SyntheticQuant{Bits: bits}
			want, err := model.SyntheticStats(name, q)
			if err != nil {
				t.Fatal(err)
			}
			cfg, src, err := model.PresetSource(name, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := model.SourceSize(cfg, src)
			if err != nil {
				t.Fatal(err)
			}
			want.DecodeBytes = 0
			if got != want {
				t.Errorf("%s %d bits: Size counts %+v, SyntheticStats %+v", name, bits, got, want)
			}
			if bits == 0 {
				dense = want
				ex, err := model.SourceSize(cfg, asEXL3(t, cfg, src))
				if err != nil {
					t.Fatal(err)
				}
				if ex.Params != want.Params || ex.ActiveParams != want.ActiveParams || ex.StoredBytes >= want.StoredBytes {
					t.Errorf("%s as EXL3: %+v, want the bf16 preset's %d parameters (%d active) in fewer than its %d bytes",
						name, ex, want.Params, want.ActiveParams, want.StoredBytes)
				}
			} else if want.Params != dense.Params || want.ActiveParams != dense.ActiveParams {
				t.Errorf("%s %d bits: %+v, bf16 %+v", name, bits, want, dense)
			}
		}
	}
}
