// Typed reads of the rope_scaling dict. Configs decoded by encoding/json hold float64 (or json.Number), hand-built
// maps may hold ints; every reader accepts those and reports a wrong type or a missing required key as an error
// naming the key, never a panic. A JSON null reads as absent, the way HF's `.get(key) or default` treats it.
package rope

import (
	"encoding/json"
	"fmt"
	"math"
)

// params wraps a rope_scaling dict (nil for default rope).
type params struct{ m map[string]any }

// value returns the key's value, treating null as absent.
func (p params) value(key string) (any, bool) {
	v, ok := p.m[key]
	if !ok || v == nil {
		return nil, false
	}
	return v, true
}

// has reports whether key is present and not null.
func (p params) has(key string) bool {
	_, ok := p.value(key)
	return ok
}

// num reads an optional number, def when absent.
func (p params) num(key string, def float64) (float64, error) {
	v, ok := p.value(key)
	if !ok {
		return def, nil
	}
	f, ok := toFloat(v)
	if !ok {
		return 0, fmt.Errorf("rope_scaling.%s is %v (%T), want a finite number", key, v, v)
	}
	return f, nil
}

// reqNum reads a number the variant cannot do without.
func (p params) reqNum(key string) (float64, error) {
	v, ok := p.value(key)
	if !ok {
		return 0, fmt.Errorf("rope_scaling.%s missing or not a number", key)
	}
	f, ok := toFloat(v)
	if !ok {
		return 0, fmt.Errorf("rope_scaling.%s missing or not a number (got %v, %T)", key, v, v)
	}
	return f, nil
}

// positive reads a number that must be > 0 (it divides, or is a length); def < 0 marks it required.
func (p params) positive(key string, def float64) (float64, error) {
	var f float64
	var err error
	if def < 0 {
		f, err = p.reqNum(key)
	} else {
		f, err = p.num(key, def)
	}
	if err != nil {
		return 0, err
	}
	if !(f > 0) {
		return 0, fmt.Errorf("rope_scaling.%s is %v, want a positive number", key, f)
	}
	return f, nil
}

// boolean reads an optional flag, def when absent.
func (p params) boolean(key string, def bool) (bool, error) {
	v, ok := p.value(key)
	if !ok {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("rope_scaling.%s is %v (%T), want true or false", key, v, v)
	}
	return b, nil
}

// factors reads a required per-pair factor list of length n; a single number means the same factor for every
// pair (mlx-lm's mx.array(factor) broadcasts a scalar).
func (p params) factors(key string, n int) ([]float64, error) {
	v, ok := p.value(key)
	if !ok {
		return nil, fmt.Errorf("rope_scaling.%s missing (want a number or a list of %d numbers)", key, n)
	}
	if f, isNum := toFloat(v); isNum {
		out := make([]float64, n)
		for i := range out {
			out[i] = f
		}
		return out, nil
	}
	var items []any
	switch l := v.(type) {
	case []any:
		items = l
	case []float64:
		for _, f := range l {
			items = append(items, f)
		}
	case []float32:
		for _, f := range l {
			items = append(items, f)
		}
	default:
		return nil, fmt.Errorf("rope_scaling.%s is %T, want a number or a list of %d numbers", key, v, n)
	}
	if len(items) != n {
		return nil, fmt.Errorf("rope_scaling.%s has %d entries, want %d (rotated dims / 2)", key, len(items), n)
	}
	out := make([]float64, n)
	for i, it := range items {
		f, ok := toFloat(it)
		if !ok {
			return nil, fmt.Errorf("rope_scaling.%s[%d] is %v (%T), want a finite number", key, i, it, it)
		}
		out[i] = f
	}
	return out, nil
}

// toFloat converts the numeric types a decoded or hand-built config may hold; NaN and ±Inf are rejected because
// no real config spells them and they would only poison the table.
func toFloat(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint:
		f = float64(n)
	case uint32:
		f = float64(n)
	case uint64:
		f = float64(n)
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
