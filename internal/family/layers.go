// What a family may vary beyond the shared layout: per-layer attention geometry (heads, head dims, sliding
// windows, softcaps, layers that share another's keys and values, rope per layer), sandwich norms and
// per-layer inputs. The Llama-like families leave it all zero; Gemma (gemma.go) fills it from its config.
package family

import (
	"math"

	"github.com/mlxbun/mlxbun/internal/config"
)

// Variations are a family's hooks and flags beyond the Projections layout.
type Variations struct {
	// ScaleEmbed: the embeddings are multiplied by √hidden, rounded to the activation dtype (Gemma).
	ScaleEmbed bool
	// GeGLU: the MLP is gelu_tanh(gate)·up instead of SwiGLU's silu(gate)·up.
	GeGLU bool
	// LayerAttn gives layer i's attention geometry; nil: the config's for every layer (defaultAttn).
	LayerAttn func(c *config.Model, layer int) Attn
	// Extend adds the family's further tensors and numbers once the shared map is built.
	Extend func(c *config.Model, m *Map)
}

// Attn is one layer's attention geometry.
type Attn struct {
	Heads, KVHeads, HeadDim int
	Scale                   float64 // the softmax scale: 1/√HeadDim unless the family says otherwise
	Softcap                 float64 // > 0: scores capped as tanh(s/Softcap)·Softcap before the softmax
	Window                  int     // > 0: a sliding window of this many positions, the row's own included
	// KVFrom is the layer whose keys and values this one attends over: itself, or an earlier layer of the same
	// window whose (Gemma 4's KV sharing; this layer then stores no k_proj, v_proj or k_norm).
	KVFrom int
	// VFromK: the values are the key projection's output (no v_proj; Gemma 4's attention_k_eq_v).
	VFromK bool
	// Rope, when set, is this layer's own rope (Gemma's local and global bases); nil: the config's.
	Rope *RopeSpec
}

// RopeSpec is a rope table's arguments (rope.New's).
type RopeSpec struct {
	Dims    int            // rotated dims per head
	Theta   float64        // rope_theta
	Scaling map[string]any // the scaling dict (rope_type, factor, partial_rotary_factor, ...); nil: default rope
}

// defaultAttn is layer i's geometry from the config alone.
func defaultAttn(c *config.Model, i int) Attn {
	return Attn{Heads: c.NumHeads, KVHeads: c.NumKVHeads, HeadDim: c.HeadDim,
		Scale: 1 / math.Sqrt(float64(c.HeadDim)), KVFrom: i}
}

// stores reports whether layer i of geometry a stores slot s's projection.
func (a Attn) stores(s Slot, i int) bool {
	switch s {
	case K:
		return a.KVFrom == i
	case V:
		return a.KVFrom == i && !a.VFromK
	}
	return true
}

// Sandwich holds a layer's tensors beyond the pre-norm layout (Gemma).
type Sandwich struct {
	// AttnOutNorm and MLPOutNorm [hidden] normalize the attention and MLP outputs before each residual add.
	AttnOutNorm, MLPOutNorm *Vector
	VNorm                   bool        // value heads RMS-normalized without a weight (Gemma 4)
	Scalar                  *Vector     // layer_scalar [1]: the residual stream is multiplied by it after the layer
	Input                   *LayerInput // the per-layer input block after the MLP (Gemma 4)
}

// norms lists the sandwich's kept vectors.
func (s Sandwich) norms() []Vector {
	var out []Vector
	for _, v := range []*Vector{s.AttnOutNorm, s.MLPOutNorm, s.Scalar} {
		if v != nil {
			out = append(out, *v)
		}
	}
	if s.Input != nil {
		out = append(out, s.Input.Norm)
	}
	return out
}

// Inputs are Gemma 4's per-layer input embeddings: for each token and layer a vector of Dim values, the sum of
// a table lookup (×√Dim) and a projection of the scaled embedding (×hidden^−½, RMS-normed), times 2^−½.
type Inputs struct {
	Dim   int
	Table Vector // model.embed_tokens_per_layer [vocab, layers·Dim], looked up by row (KindTable)
	Proj  Linear // model.per_layer_model_projection [layers·Dim, hidden], one part per layer (slots unused)
	Norm  Vector // model.per_layer_projection_norm [Dim]
}

// LayerInput is one layer's use of its per-layer input: x += norm(proj(gelu_tanh(gate(x))·input)).
type LayerInput struct {
	Gate Linear // per_layer_input_gate [Dim, hidden]
	Proj Linear // per_layer_projection [hidden, Dim]
	Norm Vector // post_per_layer_input_norm [hidden]
}
