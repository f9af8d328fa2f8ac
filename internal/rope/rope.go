// Package rope builds rotary position embedding tables the way mlx-lm's initialize_rope does.
//
// New reads a model's rope_scaling (or rope_parameters) dict and returns a Table: the per-pair inverse
// frequencies plus the pre-rotation input scale some variants apply. Apply is the reference arithmetic every
// backend matches; CosSin serves backends that precompute cos/sin.
//
// NoPE (layers without rotary embedding, e.g. SmolLM3) is not a Table: callers pass a nil *Table for such layers.
// A nil Table's Apply leaves the head untouched and its CosSin writes the identity rotation.
package rope

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Table is one rope instance: the rotation applied to the first Dims dimensions of every head.
// Angle of pair i at position p is p·InvFreq[i] (computed in float32).
type Table struct {
	Dims        int       // rotated dims per head (≤ head dim; partial rotary leaves the rest)
	Traditional bool      // rotate interleaved pairs (x0,x1),(x2,x3)… instead of halves (x_i, x_{i+Dims/2})
	InvFreq     []float32 // [Dims/2]
	PreScale    float32   // multiply x[:Dims] by this before rotating (yarn mscale, su scale); 1 = none

	// Type is the resolved rope_type the table was built for ("default" when scaling is nil); for diagnostics only.
	Type string
}

// No "apply PreScale even when it is 1" flag: mlx's SuScaledRoPE multiplies by its scale unconditionally while
// YarnRoPE skips an mscale of exactly 1, but multiplying by 1.0 is exact in every float format, so both read the
// same and PreScale == 1 simply means "skip".

// builder makes the Table for one rope_type from the validated common arguments.
type builder func(s spec) (*Table, error)

// spec is what every builder sees: initialize_rope's arguments with the scaling dict wrapped for typed reads.
type spec struct {
	ropeType     string
	dims         int
	base         float64
	traditional  bool
	p            params
	maxPositions int
}

// builders maps the rope_type strings initialize_rope understands (data in the config, not model families) to
// their constructors. A new scaling scheme is one entry here.
var builders = map[string]builder{
	"default":        buildDefault,
	"linear":         buildLinear,
	"llama3":         buildLlama3,
	"yarn":           buildYarn,
	"deepseek_yarn":  buildYarn,
	"telechat3-yarn": buildYarn,
	"longrope":       buildLongrope,
	"su":             buildLongrope, // HF's legacy name for longrope (Phi-3 configs); mlx-lm's phi3.py accepts both
	"proportional":   buildProportional,
	"mrope":          buildMrope,
}

// KnownTypes lists the rope_type values New accepts, sorted.
func KnownTypes() []string {
	names := make([]string, 0, len(builders))
	for name := range builders {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// New mirrors initialize_rope(dims, base, traditional, scaling_config, max_position_embeddings).
// scaling may be nil (default rope). Keys as HF/MLX configs spell them: rope_type (or type), factor,
// low_freq_factor, high_freq_factor, original_max_position_embeddings, beta_fast, beta_slow, mscale,
// mscale_all_dim, attention_factor, truncate, short_factor, long_factor, partial_rotary_factor, mrope_section.
//
// dims is the number of rotated dims (head_dim × the model's partial_rotary_factor, computed by the caller as
// mlx-lm's model files do); only the "proportional" type reads partial_rotary_factor from the dict itself.
// maxPositions is the model's max_position_embeddings; only "longrope" needs it (0 = unknown).
// Extra keys (rope_theta, …) are ignored, so a whole rope_parameters dict may be passed.
func New(dims int, base float64, traditional bool, scaling map[string]any, maxPositions int) (*Table, error) {
	if dims <= 0 || dims%2 != 0 {
		return nil, fmt.Errorf("rotated dims %d (head_dim × partial_rotary_factor) must be positive and even", dims)
	}
	if !(base > 0) || math.IsInf(base, 0) || math.IsInf(float64(float32(base)), 0) {
		return nil, fmt.Errorf("rope_theta %v must be a positive float32-representable number", base)
	}
	ropeType, err := resolveType(scaling)
	if err != nil {
		return nil, err
	}
	build, ok := builders[ropeType]
	if !ok {
		return nil, fmt.Errorf("rope_scaling.rope_type %q is not supported (known: %s)", ropeType, strings.Join(KnownTypes(), ", "))
	}
	t, err := build(spec{ropeType: ropeType, dims: dims, base: base, traditional: traditional, p: params{scaling}, maxPositions: maxPositions})
	if err != nil {
		return nil, fmt.Errorf("%w (rope_type %s)", err, ropeType)
	}
	t.Type = ropeType
	// A degenerate config (zero factors, a base of 1 where logs divide, …) surfaces here rather than as NaN angles.
	for i, f := range t.InvFreq {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("rope_scaling (rope_type %s) gives pair %d an inverse frequency of %v; check its factors and rope_theta", ropeType, i, f)
		}
	}
	if ps := float64(t.PreScale); math.IsNaN(ps) || math.IsInf(ps, 0) {
		return nil, fmt.Errorf("rope_scaling (rope_type %s) gives an attention scale of %v; check its mscale and attention_factor", ropeType, t.PreScale)
	}
	return t, nil
}

// resolveType follows initialize_rope: `scaling.get("type") or scaling.get("rope_type", "default")`.
// A null or empty "type" falls through to rope_type, as Python's `or` does.
func resolveType(scaling map[string]any) (string, error) {
	if scaling == nil {
		return "default", nil
	}
	if v, ok := scaling["type"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr {
			return "", fmt.Errorf("rope_scaling.type is %T, want a string", v)
		}
		if s != "" {
			return s, nil
		}
	}
	v, ok := scaling["rope_type"]
	if !ok || v == nil {
		return "default", nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", fmt.Errorf("rope_scaling.rope_type is %T, want a string", v)
	}
	return s, nil
}

// Apply rotates one head (len ≥ Dims) in place for position pos: the reference arithmetic every backend matches.
//
// x[:Dims] is first multiplied by PreScale in float32 (skipped when it is 1, which is exact anyway); a backend
// holding activations in bf16/f16 rounds that product to its dtype, as mlx does. Each pair (x1, x2) then becomes
// (x1·c − x2·s, x1·s + x2·c) with c, s from CosSin, every product and sum rounded to float32 separately (no fused
// multiply-add), so the result is the same on every platform. Dims beyond Dims are left alone.
// A nil Table (NoPE) leaves head untouched. Apply allocates nothing and is safe for concurrent use.
func (t *Table) Apply(head []float32, pos int) {
	if t == nil {
		return
	}
	if len(head) < t.Dims {
		panic(fmt.Sprintf("rope: Apply on a head of %d values, table rotates %d", len(head), t.Dims))
	}
	if t.PreScale != 1 {
		for j := range head[:t.Dims] {
			head[j] = t.PreScale * head[j]
		}
	}
	half := t.Dims / 2
	p := float32(pos)
	for i, inv := range t.InvFreq[:half] {
		c, s := cosSin(p * inv)
		a, b := i, i+half
		if t.Traditional {
			a, b = 2*i, 2*i+1
		}
		x1, x2 := head[a], head[b]
		head[a] = float32(x1*c) - float32(x2*s)
		head[b] = float32(x1*s) + float32(x2*c)
	}
}

// CosSin writes the cos and sin of every pair's angle at pos into cos[:Dims/2] and sin[:Dims/2], for backends
// that precompute: angles in float32 (float32(pos)·InvFreq[i]), cos/sin evaluated in float64 then rounded.
// A nil Table (NoPE) writes the identity rotation (cos 1, sin 0) over the whole of both slices.
func (t *Table) CosSin(pos int, cos, sin []float32) {
	if t == nil {
		for i := range cos {
			cos[i] = 1
		}
		for i := range sin {
			sin[i] = 0
		}
		return
	}
	half := t.Dims / 2
	if len(cos) < half || len(sin) < half {
		panic(fmt.Sprintf("rope: CosSin needs %d slots, got cos %d, sin %d", half, len(cos), len(sin)))
	}
	p := float32(pos)
	for i, inv := range t.InvFreq[:half] {
		cos[i], sin[i] = cosSin(p * inv)
	}
}

// cosSin is the one place angles become cos/sin, so Apply and CosSin agree bit for bit.
func cosSin(theta float32) (float32, float32) {
	return float32(math.Cos(float64(theta))), float32(math.Sin(float64(theta)))
}
