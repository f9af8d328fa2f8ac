// Gemma 4 variants no fixture holds, rewritten from tiny-gemma4: KV sharing (with and without the double-wide
// MLP) and attention_k_eq_v. They have no golden; the model tests hold them to their own prefill/decode and
// ring/full-cache agreement, and the double-wide one to the narrow one.
package variant

import (
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// Gemma4Shared rewrites tiny-gemma4 into a KV-sharing model: layer types s s f s s f with every head 64 wide
// (layer 5's wider heads cut to their first 64 dims), the last two layers attending over the keys and values
// of layers 3 (sliding) and 2 (global) with no k_proj, v_proj or k_norm of their own, as HF stores them. With
// wide, the sharing layers' MLPs are double-wide (use_double_wide_mlp) and hold each gate and up row twice and
// each down column halved twice: the same function as the narrow MLP.
func Gemma4Shared(tb testing.TB, wide bool) string {
	tb.Helper()
	src := testutil.Fixture(tb, "models/tiny-gemma4")
	return Rewrite(tb, src, func(c map[string]any) {
		delete(c, "per_layer_config")
		c["layer_types"] = []string{"sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "full_attention"}
		c["num_kv_shared_layers"] = 2
		c["use_double_wide_mlp"] = wide
	}, func(ts []backend.Host) []backend.Host {
		var out []backend.Host
		for _, h := range ts {
			shared := strings.HasPrefix(h.Name, "model.layers.4.") || strings.HasPrefix(h.Name, "model.layers.5.")
			switch {
			case shared && (strings.Contains(h.Name, "k_proj") || strings.Contains(h.Name, "v_proj") || strings.Contains(h.Name, "k_norm")):
				continue
			case strings.HasPrefix(h.Name, "model.layers.5.self_attn.q_proj"):
				h = rowsOf(h, 0, 4*64)
			case strings.HasPrefix(h.Name, "model.layers.5.self_attn.q_norm"):
				h = backend.Host{Name: h.Name, DType: h.DType, Shape: []int{64}, Data: h.Data[:64*2]}
			case strings.HasPrefix(h.Name, "model.layers.5.self_attn.o_proj"):
				h = colsOf(h, 0, 4*64)
			}
			if wide && shared {
				switch {
				case strings.Contains(h.Name, "gate_proj"), strings.Contains(h.Name, "up_proj"):
					h = backend.Host{Name: h.Name, DType: h.DType, Shape: []int{2 * h.Shape[0], h.Shape[1]}, Data: append(slices.Clone(h.Data), h.Data...)}
				case strings.Contains(h.Name, "down_proj"):
					f, _ := h.Float32s()
					in := h.Shape[1]
					w := make([]float32, 0, 2*len(f))
					for r := range h.Shape[0] {
						row := f[r*in : (r+1)*in]
						for range 2 {
							for _, x := range row {
								w = append(w, x/2)
							}
						}
					}
					h = backend.HostF32(h.Name, w, h.Shape[0], 2*in)
				}
			}
			out = append(out, h)
		}
		return out
	})
}

// Gemma4KEqV rewrites tiny-gemma4 with attention_k_eq_v: the global layer's values are its key projection
// (before k_norm, then the weightless v norm), its v_proj dropped.
func Gemma4KEqV(tb testing.TB) string {
	tb.Helper()
	src := testutil.Fixture(tb, "models/tiny-gemma4")
	return Rewrite(tb, src, func(c map[string]any) { c["attention_k_eq_v"] = true }, func(ts []backend.Host) []backend.Host {
		return slices.DeleteFunc(ts, func(h backend.Host) bool { return h.Name == "model.layers.5.self_attn.v_proj.weight" })
	})
}

func rowsOf(h backend.Host, start, n int) backend.Host {
	rb := len(h.Data) / h.Shape[0]
	return backend.Host{Name: h.Name, DType: h.DType, Shape: []int{n, h.Shape[1]}, Data: h.Data[start*rb : (start+n)*rb]}
}

func colsOf(h backend.Host, start, n int) backend.Host {
	size, cols := h.DType.Size(), h.Shape[1]
	out := backend.Host{Name: h.Name, DType: h.DType, Shape: []int{h.Shape[0], n}}
	for r := range h.Shape[0] {
		out.Data = append(out.Data, h.Data[(r*cols+start)*size:(r*cols+start+n)*size]...)
	}
	return out
}
