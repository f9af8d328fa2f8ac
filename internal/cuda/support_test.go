// What the CUDA backend answers before loading, without a GPU (Supports reads only the query and the kernel
// tables): the attention shapes a model asks about (backend.OpAttention), from the synthetic presets' configs.
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
// before building the model: a shape no kernel form serves is refused naming the op, the layer and the shape, so
// "auto" passes over the GPU and a forced --device cuda fails in one line before anything is uploaded.
func TestAttentionSupportsBeforeLoading(t *testing.T) {
	qs, err := model.SyntheticQueries("gemma4-31b")
	if err != nil {
		t.Fatal(err)
	}
	err = backend.SupportsAll(&Backend{}, qs)
	var ue *backend.UnsupportedError
	if !errors.As(err, &ue) || !errors.Is(err, backend.ErrUnsupported) {
		t.Fatalf("gemma4-31b: %v, want an UnsupportedError", err)
	}
	for _, want := range []string{"cuda cannot serve attention model.layers.5.self_attn (32/4 heads of 512)", "head dim 512"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%q is more than one line", err)
	}
	for _, q := range attnQueries(t, "qwen3.5-27b") {
		if err := (&Backend{}).Supports(q); err != nil {
			t.Errorf("qwen3.5-27b: %v", err)
		}
	}
}
