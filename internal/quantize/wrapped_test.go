// quantize on a wrapped multimodal checkpoint: the output keeps the input's layout (config nesting, the stored
// prefixes in tensor names and in the quantization block, the towers' tensors byte for byte, shards through the
// index) and its language model is exactly the text-only model's quantized.
package quantize_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

func TestQuantizeWrapped(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	ids := make([]int, 48)
	for i := range ids {
		ids[i] = (i*37 + 11) % 1000
	}
	for _, c := range []struct {
		typ    string
		style  variant.Style
		shards int
		o      quantize.Options // the Gemma 3 case calibrates layer by layer with rotations: its Hessians too are the text model's
	}{{"qwen3_5_text", variant.NewPrefixes, 2, quantize.Options{Bits: 3, L: 8, GroupSize: 64}},
		{"gemma3_text", variant.OldPrefixes, 1, quantize.Options{Bits: 2, L: 6, GroupSize: 64, RHT: true, CalibIDs: ids, CalibCtx: 16, Sequential: true}}} {
		t.Run(c.typ+"/"+string(c.style), func(t *testing.T) {
			src := variant.For(t, c.typ)
			g, _ := testutil.ReadGolden(t, src.Fixture)
			plain := filepath.Join(t.TempDir(), "plain")
			if _, err := quantize.Run(src.Dir, plain, c.o, nil); err != nil {
				t.Fatal(err)
			}
			in := variant.Wrap(t, src.Dir, c.style, c.shards)
			out := filepath.Join(t.TempDir(), "wrapped")
			o := c.o
			o.ShardBytes = 1 << 20
			rep, err := quantize.Run(in, out, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := run(t, b, plain, g.PromptIDs)
			if got, _ := run(t, b, out, g.PromptIDs); !slices.Equal(got, want) {
				t.Errorf("the wrapped artifact's logits differ from the text-only artifact's")
			}

			// config.json: the input's keys as they were, the block added at the top, keyed by stored names.
			var inCfg, outCfg map[string]any
			readJSON(t, filepath.Join(in, "config.json"), &inCfg)
			readJSON(t, filepath.Join(out, "config.json"), &outCfg)
			block, _ := outCfg["quantization"].(map[string]any)
			delete(outCfg, "quantization")
			if !reflect.DeepEqual(outCfg, inCfg) {
				t.Errorf("config.json changed beyond the quantization block:\n got %v\nwant %v", outCfg, inCfg)
			}
			prefix := variant.TextPrefix("model.", c.style)
			for k := range block {
				if !strings.HasPrefix(k, prefix) && !strings.HasPrefix(k, variant.TextPrefix("lm_head", c.style)) &&
					!slices.Contains([]string{"mode", "bits", "group_size", "trellis", "rotation", "quantizer"}, k) {
					t.Errorf("quantization block key %q is not a stored module path", k)
				}
			}

			// Tensors: the towers' as read, the text model's under their stored names.
			a, err := safetensors.OpenDir(in)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			q, err := safetensors.OpenDir(out)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			if len(rep.Copied) == 0 {
				t.Error("no tensor copied through")
			}
			for _, n := range a.Names() {
				x, _ := a.Tensor(n)
				if slices.Contains(rep.Copied, n) {
					y, err := q.Tensor(n)
					if err != nil || y.DType != x.DType || !slices.Equal(y.Shape, x.Shape) || string(y.Data) != string(x.Data) {
						t.Errorf("%s: not copied as read (%v)", n, err)
					}
					continue
				}
				if !q.Has(n) && !q.Has(strings.TrimSuffix(n, ".weight")+".scales") {
					t.Errorf("%s: neither kept nor coded under its stored name", n)
				}
			}
			for _, n := range q.Names() {
				if strings.HasPrefix(n, "model.layers.") {
					t.Errorf("%s: written under the text model's name", n)
				}
			}
			if c.shards > 1 {
				if _, err := os.Stat(filepath.Join(out, "model.safetensors.index.json")); err != nil {
					t.Errorf("a sharded output without its index: %v", err)
				}
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}
