// Rope settings in both spellings transformers has used: top-level rope_theta plus a rope_scaling dict (whose
// type key was once "type"), and the newer rope_parameters dict that carries rope_theta inside it.
package config

import "reflect"

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
	} else if old := r.m["rope_scaling"]; old != nil && !sameScaling(r.m[key], old) {
		// Only one of them is read: a config whose two dicts disagree would run the other silently.
		r.fail("rope_parameters %s and rope_scaling %s are both set and differ; keep one", show(r.m[key]), show(old))
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

// sameScaling reports whether two rope dicts say the same scaling: equal once rope_theta is dropped, "type" is read
// as "rope_type" and a lone rope_type "default" as no scaling.
func sameScaling(a, b any) bool {
	norm := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = x
		}
		delete(out, "rope_theta")
		if t, ok := out["type"]; ok {
			if _, has := out["rope_type"]; !has {
				out["rope_type"] = t
			}
			delete(out, "type")
		}
		if len(out) == 1 && out["rope_type"] == "default" {
			delete(out, "rope_type")
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
