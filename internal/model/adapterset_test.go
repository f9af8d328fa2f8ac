// Tests of named adapter sets: a set's deltas apply exactly while it is selected (its logits are those of the same
// adapter attached always), the base model's otherwise, and one cache serves both in turn.
package model_test

import (
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil/loratest"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

func TestAdapterSets(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	v := variant.For(t, "qwen3")
	g, _ := readGolden(t, v.Fixture)
	a := openAdapter(t, loratest.Random(t, v.Dir, lora.PEFT, allMods, 8, 2, 7), 1)
	c := openAdapter(t, loratest.Random(t, v.Dir, lora.MLXLM, []string{"self_attn.q_proj", "mlp.down_proj"}, 4, 3, 9), 1)
	always, _ := adaptedRun(t, v.Dir, b, g.PromptIDs, 0, a)
	base, _ := adaptedRun(t, v.Dir, b, g.PromptIDs, 0)
	m, err := model.Load(v.Dir, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.AttachAdapterSet("a", []*lora.Adapter{a}); err != nil {
		t.Fatal(err)
	}
	if err := m.AttachAdapterSet("c", []*lora.Adapter{c}); err != nil {
		t.Fatal(err)
	}
	if err := m.AttachAdapterSet("a", []*lora.Adapter{c}); err == nil {
		t.Error("a second set named a was accepted")
	}
	if err := m.UseAdapterSet("nope"); err == nil {
		t.Error("an unknown set was selected")
	}
	run := func(set string) []float32 {
		if err := m.UseAdapterSet(set); err != nil {
			t.Fatal(err)
		}
		cache, err := m.NewCache(1, len(g.PromptIDs))
		if err != nil {
			t.Fatal(err)
		}
		defer m.ReleaseCache(cache)
		var s model.Step
		for p, id := range g.PromptIDs {
			s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
		}
		l, err := m.Forward(s, cache, len(s.IDs))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, tc := range []struct {
		set  string
		want []float32
	}{{"a", always}, {"", base}, {"a", always}} {
		if d := maxDiff(run(tc.set), tc.want); d > 1e-5 {
			t.Errorf("set %q: logits differ by %.3g from the reference", tc.set, d)
		}
	}
	if d := maxDiff(run("c"), base); d < 1e-3 {
		t.Errorf("set c changed the logits by only %.3g", d)
	}
}
