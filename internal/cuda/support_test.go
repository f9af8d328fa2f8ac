// What the CUDA backend answers before loading, without a GPU (Supports reads only the query and the kernel
// tables): the attention shapes a model asks about (backend.OpAttention), from the synthetic presets' configs,
// and the hybrid models' and the fused ops.
package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
)

// attnQueries are the OpAttention queries of a synthetic preset.
func attnQueries(t *testing.T, preset string) []backend.Query {
	t.Helper()
	qs, err := model.SyntheticQueries(preset)
	if err != nil {
		t.Fatal(err)
	}
	var out []backend.Query
	for _, q := range qs {
		if q.Op == backend.OpAttention {
			out = append(out, q)
		}
	}
	return out
}

// TestAttentionShapesAsked: Gemma 4 31B asks for its two attention shapes (five sliding layers of 16 kv heads of
// 256 to one global layer of 4 kv heads of 512), Qwen3.5 27B for its full-attention layers of 256 only.
func TestAttentionShapesAsked(t *testing.T) {
	for preset, want := range map[string][]string{
		"gemma4-31b": {"attention model.layers.0.self_attn (32/16 heads of 256, windowed)",
			"attention model.layers.5.self_attn (32/4 heads of 512)"},
		"qwen3.5-27b": {"attention model.layers.3.self_attn (24/4 heads of 256)"},
	} {
		var got []string
		for _, q := range attnQueries(t, preset) {
			got = append(got, q.String())
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s asks\n %q\nwant\n %q", preset, got, want)
		}
	}
}

// TestAttentionSupportsBeforeLoading: the whole query list of a synthetic preset, as `bench --synthetic` asks it
// before building the model: Gemma 4 31B (head dims 256 and 512) and Qwen3.5 27B (256) are served; a shape no
// kernel form serves (head dim 1024) is refused naming the op, the layer, the shape and whether decode or prompt
// lacks it, so "auto" passes over the GPU and a forced --device cuda fails in one line before any upload.
func TestAttentionSupportsBeforeLoading(t *testing.T) {
	for _, preset := range []string{"gemma4-31b", "qwen3.5-27b"} {
		qs, err := model.SyntheticQueries(preset)
		if err != nil {
			t.Fatal(err)
		}
		if err := backend.SupportsAll(&Backend{}, qs); err != nil {
			t.Errorf("%s: %v", preset, err)
		}
	}
	for _, c := range []struct {
		shape backend.AttnShape
		rows  int
		want  string
	}{
		{backend.AttnShape{Heads: 32, KVHeads: 4, HeadDim: 1024}, 0, "decode attention with head dim 1024"},
		{backend.AttnShape{Heads: 32, KVHeads: 4, HeadDim: 1024}, 64, "prompt attention with head dim 1024"},
		{backend.AttnShape{Heads: 32, KVHeads: 16, HeadDim: 1024, Window: true}, 0, "decode windowed attention with head dim 1024"},
		{backend.AttnShape{Heads: 30, KVHeads: 4, HeadDim: 128}, 0, "a positive multiple of kv heads"},
	} {
		q := backend.Query{Op: backend.OpAttention, Name: "model.layers.5.self_attn", Attn: c.shape, Rows: c.rows}
		err := (&Backend{}).Supports(q)
		var ue *backend.UnsupportedError
		if !errors.As(err, &ue) || !errors.Is(err, backend.ErrUnsupported) || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), "cuda cannot serve attention model.layers.5.self_attn ("+c.shape.String()+")") ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("%s at %d rows: %v, want one line naming the shape and %q", c.shape, c.rows, err, c.want)
		}
	}
	for _, hd := range []int{32, 64, 80, 128, 256, 300, 512} { // every head dim up to the widest form
		for _, win := range []bool{false, true} {
			s := backend.AttnShape{Heads: 8, KVHeads: 2, HeadDim: hd, Window: win}
			if why := attnSupport(s, 0); why != "" {
				t.Errorf("%s: %s", s, why)
			}
		}
	}
}

// TestServesHybridOps: the CUDA backend serves the hybrid models' ops (deltanet.go, moe.go; no GPU needed: Supports reads
// only the query), so "auto" runs those models on the GPU, and still refuses an op it does not know.
func TestServesHybridOps(t *testing.T) {
	for _, op := range []backend.Op{backend.OpGatedDeltaNet, backend.OpSigmoidGate, backend.OpMoE} {
		if err := (&Backend{}).Supports(backend.Query{Op: op, Name: "model.layers.0.x"}); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
	err := (&Backend{}).Supports(backend.Query{Op: "no_such_op", Name: "model.layers.0.x"})
	if !errors.Is(err, backend.ErrUnsupported) || !strings.Contains(err.Error(), "no_such_op") {
		t.Errorf("an unknown op: %v", err)
	}
}

// TestServesHybridFixtures: every query the hybrid fixtures ask (their matmuls and ops) is one the CUDA backend
// serves, so "--device auto" picks it for them.
func TestServesHybridFixtures(t *testing.T) {
	for _, name := range []string{"models/tiny-qwen3_5", "models/tiny-qwen3-next-moe"} {
		qs, err := model.Queries(fixture(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := backend.SupportsAll(&Backend{}, qs); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestServesFusedOps: Supports answers yes for every fused op of the contract (fused.go implements them all).
func TestServesFusedOps(t *testing.T) {
	for _, op := range backend.FusedOps {
		if err := (&Backend{}).Supports(backend.Query{Op: op}); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
}
