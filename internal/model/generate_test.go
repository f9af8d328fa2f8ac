// Tests of the generation loop's stopping: the Stopper's reasons (end id, stop string, length) with the text it
// lets through, and NaN logits stopping generation with the step named.
package model_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// poisoned is a model.Source that hands out one tensor with NaN at one element.
type poisoned struct {
	model.Source
	name    string
	element int
}

func (p poisoned) Tensor(name string) (backend.Host, error) {
	h, err := p.Source.Tensor(name)
	if err != nil || name != p.name {
		return h, err
	}
	h.Data = slices.Clone(h.Data)
	nan := dtype.F32ToBF16(float32(math.NaN()))
	h.Data[2*p.element], h.Data[2*p.element+1] = byte(nan), byte(nan>>8)
	return h, nil
}

// loadLlama3 loads the tiny-llama3 fixture on the CPU, its embedding row poisonRow poisoned when ≥ 0.
func loadLlama3(t *testing.T, poisonRow int) (*model.Model, testutil.Golden) {
	t.Helper()
	dir := testutil.Fixture(t, "models/tiny-llama3")
	g, _ := readGolden(t, dir)
	d, err := modeldir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	arch, err := d.Weights()
	if err != nil {
		t.Fatal(err)
	}
	var src model.Source = arch
	if poisonRow >= 0 {
		src = poisoned{arch, "model.embed_tokens.weight", poisonRow * cfg.HiddenSize}
	}
	b := cpu.New()
	t.Cleanup(func() { b.Close() })
	m, err := model.LoadFrom(cfg, src, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, g
}

func TestGenerateStopReasons(t *testing.T) {
	m, g := loadLlama3(t, -1)
	want := g.GreedyNewIDs
	text := func(id int) string { return fmt.Sprintf("<%d>", id) }
	for _, c := range []struct {
		name     string
		stop     *sample.Stopper
		eos      []int
		max      int
		gen      []int
		reason   string
		wantText string
	}{
		{"end id through EOS", nil, []int{want[2]}, 8, want[:3], "eos", ""},
		{"end id through a Stopper", sample.NewStopper(sample.EndIDs(nil, want[2], false), nil), nil, 8, want[:3], "eos",
			text(want[0]) + text(want[1])},
		{"ignored end id", sample.NewStopper(sample.EndIDs([]int{want[2]}, -1, true), nil), nil, 4, want[:4], "length",
			text(want[0]) + text(want[1]) + text(want[2]) + text(want[3])},
		{"stop string", sample.NewStopper(nil, []string{fmt.Sprintf("%d>", want[1])}), nil, 8, want[:2], "stop",
			text(want[0]) + "<"},
		{"length", nil, nil, 5, want[:5], "length", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			opt := model.GenOptions{MaxTokens: c.max, Picker: argmax{}, Stop: c.stop, EOS: c.eos,
				OnText: func(s string) { out.WriteString(s) }}
			if c.stop != nil {
				opt.Text = text
			}
			res, err := m.Generate(g.PromptIDs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Generated, c.gen) || res.StopReason != c.reason || out.String() != c.wantText {
				t.Errorf("generated %v (%s), text %q; want %v (%s), text %q", res.Generated, res.StopReason, out.String(),
					c.gen, c.reason, c.wantText)
			}
		})
	}
}

// TestGenerateNaNLogits: the continuation's second token has a NaN embedding row (tiny-llama3 is untied, so its
// logit is untouched), so the logits go NaN when it is fed: step 3, the first two tokens already chosen.
func TestGenerateNaNLogits(t *testing.T) {
	g, _ := readGolden(t, testutil.Fixture(t, "models/tiny-llama3"))
	m, _ := loadLlama3(t, g.GreedyNewIDs[1])
	var got []int
	res, err := m.Generate(g.PromptIDs, model.GenOptions{MaxTokens: 8, Picker: pickerFunc(func(l []float32) int {
		id, _ := argmax{}.Pick(l, nil)
		got = append(got, id)
		return id
	})})
	var nf *model.NonFiniteError
	if res != nil || !errors.Is(err, model.ErrNonFinite) || !errors.As(err, &nf) {
		t.Fatalf("res %v, err %v; want a NonFiniteError", res, err)
	}
	if nf.Step != 3 || nf.ID != 0 || !math.IsNaN(float64(nf.Value)) || err.Error() != "generate: step 3: logits hold NaN (first at id 0)" {
		t.Errorf("err %q (%+v), want step 3 at id 0", err, *nf)
	}
	if !slices.Equal(got, g.GreedyNewIDs[:2]) {
		t.Errorf("picked %v before the NaN step, want %v", got, g.GreedyNewIDs[:2])
	}
}

type pickerFunc func([]float32) int

func (p pickerFunc) Pick(l []float32, _ []int) (int, error) { return p(l), nil }

func TestNonFiniteErrorText(t *testing.T) {
	for v, want := range map[float32]string{
		float32(math.Inf(1)):  "step 2: logits hold +Inf (first at id 5)",
		float32(math.Inf(-1)): "step 2: logits hold -Inf (first at id 5)",
	} {
		if got := (&model.NonFiniteError{Step: 2, ID: 5, Value: v}).Error(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
