// Published layouts on the CPU: the multimodal text fixtures rewritten as their transformers wrappers (nested
// text_config, both prefix styles, tower tensors, one file or shards) compute exactly what the text-only fixtures
// compute and ask the device the same; the MoE variants of dense fixtures keep their source's golden where they
// compute its function.
package model_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

// TestWrappedLayouts: every wrapped variant's prompt logits and greedy continuation equal the text-only model's
// bit for bit, its queries are the same, and its archive leaves out exactly the towers' tensors.
func TestWrappedLayouts(t *testing.T) {
	for _, typ := range []string{"gemma3_text", "gemma4_text", "qwen3_5_text", "qwen3_5_moe_text"} {
		src := variant.For(t, typ)
		g, _ := readGolden(t, src.Fixture)
		want := promptLogits(t, src.Dir, g.PromptIDs)
		wantGen := greedy(t, src.Dir, g.PromptIDs, 6)
		wantQs, err := model.Queries(src.Dir)
		if err != nil {
			t.Fatal(err)
		}
		wantNames := names(t, src.Dir)
		for _, c := range []struct {
			style  variant.Style
			shards int
		}{{variant.NewPrefixes, 1}, {variant.OldPrefixes, 1}, {variant.NewPrefixes, 3}} {
			t.Run(fmt.Sprintf("%s/%s/%d", typ, c.style, c.shards), func(t *testing.T) {
				dir := variant.Wrap(t, src.Dir, c.style, c.shards)
				if got := promptLogits(t, dir, g.PromptIDs); !slices.Equal(got, want) {
					t.Errorf("prompt logits differ from the text-only model's by up to %.3g", maxDiff(got, want))
				}
				if got := greedy(t, dir, g.PromptIDs, 6); !slices.Equal(got, wantGen) {
					t.Errorf("greedy %v, the text-only model's %v", got, wantGen)
				}
				qs, err := model.Queries(dir)
				if err != nil || !slices.Equal(qs, wantQs) {
					t.Errorf("queries differ (%v)", err)
				}
				d, err := modeldir.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				a, err := d.Weights()
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				wantLeft := 4 // the towers' tensors (variant.Wrap); Qwen3.5's: two and an MTP head
				if typ == "qwen3_5_text" || typ == "qwen3_5_moe_text" {
					wantLeft = 3
				}
				if left := a.LeftOut(); len(left) != wantLeft || len(a.Names())+len(left) != len(wantNames)+wantLeft {
					t.Errorf("left out %v, holds %d tensors of the text model's %d", left, len(a.Names()), len(wantNames))
				}
			})
		}
	}
}

// TestMoEVariantGolden: tiny-qwen3 with layer 0's MLP a 4-expert block of its own weights (experts stored one
// module each) computes tiny-qwen3's function: HF's golden logits within 1e-4 of max|ref| and its greedy
// continuation.
func TestMoEVariantGolden(t *testing.T) {
	v := variant.For(t, "qwen3_moe")
	g, ref := readGolden(t, v.Fixture)
	got := promptLogits(t, v.Dir, g.PromptIDs)
	var maxRef float64
	for _, r := range ref {
		maxRef = max(maxRef, math.Abs(float64(r)))
	}
	if d := maxDiff(got, ref); d > 1e-4*maxRef {
		t.Errorf("qwen3_moe of tiny-qwen3's weights: max|err| %.3g against tiny-qwen3's golden (max|ref| %.3g)", d, maxRef)
	}
	if gen := greedy(t, v.Dir, g.PromptIDs, len(g.GreedyNewIDs)); !slices.Equal(gen, g.GreedyNewIDs) {
		t.Errorf("greedy %v, golden %v", gen, g.GreedyNewIDs)
	}
}

// names lists the tensors of the model directory dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	d, err := modeldir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Weights()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	return a.Names()
}

// greedy is n greedy tokens after prompt on the CPU.
func greedy(t *testing.T, dir string, prompt []int, n int) []int {
	t.Helper()
	b := cpu.New()
	defer b.Close()
	m, err := model.Load(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := m.Generate(prompt, model.GenOptions{MaxTokens: n, Picker: argmax{}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Generated
}

// TestExpertLayouts: tiny-qwen3-next-moe with its expert stacks split into one module per expert, as the
// published Qwen3-Next checkpoints store them, computes exactly what the stacked fixture computes.
func TestExpertLayouts(t *testing.T) {
	v := variant.For(t, "qwen3_next")
	g, _ := readGolden(t, v.Fixture)
	split := variant.Rewrite(t, v.Dir, func(map[string]any) {}, func(ts []backend.Host) []backend.Host {
		var out []backend.Host
		for _, h := range ts {
			base, gateUp := strings.CutSuffix(h.Name, "mlp.experts.gate_up_proj")
			if !gateUp {
				base, _ = strings.CutSuffix(h.Name, "mlp.experts.down_proj")
			}
			if base == h.Name {
				out = append(out, h)
				continue
			}
			experts, rows := h.Shape[0], h.Shape[1]
			per := len(h.Data) / experts
			for e := range experts {
				block := h.Data[e*per : (e+1)*per]
				name := func(m string) string { return fmt.Sprintf("%smlp.experts.%d.%s.weight", base, e, m) }
				if !gateUp {
					out = append(out, backend.Host{Name: name("down_proj"), DType: h.DType, Shape: []int{rows, h.Shape[2]}, Data: block})
					continue
				}
				out = append(out, backend.Host{Name: name("gate_proj"), DType: h.DType, Shape: []int{rows / 2, h.Shape[2]}, Data: block[:per/2]},
					backend.Host{Name: name("up_proj"), DType: h.DType, Shape: []int{rows / 2, h.Shape[2]}, Data: block[per/2:]})
			}
		}
		return out
	})
	if n := len(names(t, split)); n <= len(names(t, v.Dir)) {
		t.Fatalf("the split checkpoint holds %d tensors", n)
	}
	if got, want := promptLogits(t, split, g.PromptIDs), promptLogits(t, v.Dir, g.PromptIDs); !slices.Equal(got, want) {
		t.Errorf("experts one module each: logits differ from the stacked checkpoint's by up to %.3g", maxDiff(got, want))
	}
}
