// Rope settings in both spellings transformers has used: top-level rope_theta plus a rope_scaling dict (whose
// type key was once "type"), and the newer rope_parameters dict that carries rope_theta inside it.
package config

// defaultRopeTheta is transformers' default base for every family this engine reads.
const defaultRopeTheta = 10000

// consumesPartialRotary lists the scaling types whose own frequency builder reads partial_rotary_factor from the
// scaling dict; for them the factor must not also shrink the rotated dims (it would be applied twice).
var consumesPartialRotary = map[string]bool{"proportional": true}

// rope fills RopeTheta, RopeScaling and PartialRotaryFactor. rope_parameters (newer) is read when present,
// else rope_scaling; top-level rope_theta and partial_rotary_factor win over copies inside the dict.
func (r *reader) rope(m *Model) {
	key := "rope_parameters"
	if r.m[key] == nil {
		key = "rope_scaling"
	}
	src := r.object(key)
	scaling := make(map[string]any, len(src)) // a copy: Raw keeps the file's own spelling
	for k, x := range src {
		scaling[k] = x
	}
	sc := r.sub(key, scaling)

	m.RopeTheta = r.positiveFloat("rope_theta", sc.positiveFloat("rope_theta", defaultRopeTheta))
	delete(scaling, "rope_theta")

	// Old configs say "type"; transformers reads rope_type first, then type.
	if t, ok := scaling["type"]; ok {
		if _, has := scaling["rope_type"]; !has {
			scaling["rope_type"] = t
		}
		delete(scaling, "type")
	}
	ropeType := sc.str("rope_type")
	if len(scaling) == 0 || (ropeType == "default" && len(scaling) == 1) {
		scaling = nil
	}
	m.RopeScaling = scaling

	inner := 1.0
	if !consumesPartialRotary[ropeType] {
		inner = sc.positiveFloat("partial_rotary_factor", 1)
	}
	m.PartialRotaryFactor = r.positiveFloat("partial_rotary_factor", inner)
	if m.PartialRotaryFactor > 1 {
		r.fail("partial_rotary_factor %g is above 1", m.PartialRotaryFactor)
	}
}
