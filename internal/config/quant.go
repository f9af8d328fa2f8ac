// The MLX "quantization" block: a default spec plus per-module overrides, where a module's entry is a spec
// object or false (left unquantized). Trellis specs (this engine's format) ride in the same block with
// mode "trellis" and a "trellis" object; affine specs are MLX's own.
package config

import "fmt"

// QuantSpec is how one linear layer's weight is stored.
type QuantSpec struct {
	Mode      string // "affine" (MLX's default when mode is absent) or "trellis"
	Bits      int
	GroupSize int            // affine: elements per scale/bias group; trellis: positions per coded block (T)
	Trellis   *TrellisParams // set exactly when Mode == "trellis"
}

// TrellisParams are the trellis code's parameters: state bits L, the code name, and the coded axis
// (1: along the input dim; 0: along the output dim, stored transposed).
type TrellisParams struct {
	L    int
	Code string
	Axis int
}

// Quantization is a parsed quantization block.
type Quantization struct {
	Default QuantSpec
	PerPath map[string]QuantSpec // module path → its own spec
	Skip    map[string]bool      // module paths the block marks false
	// Rotation, when set, says coded tensors may carry random Hadamard sign vectors (<path>.rht_in, <path>.rht_out;
	// docs/trellis-format.md section 11): {"method": "hadamard", "version": 1}.
	Rotation *Rotation
}

// Rotation is the quantization block's "rotation" object.
type Rotation struct {
	Method  string
	Version int
}

// RotationVersions are the rotation format versions this engine loads, per method.
var RotationVersions = map[string]int{"hadamard": 1}

// For returns the spec of the module at path (e.g. "model.layers.0.mlp.down_proj") and whether it is quantized:
// a per-path entry wins, false means unquantized, anything else gets the default. As in mlx-lm, only modules
// that can be quantized (linear, embedding) should ask, and legacy files are checked for "<path>.scales".
func (q *Quantization) For(path string) (QuantSpec, bool) {
	if q == nil || q.Skip[path] {
		return QuantSpec{}, false
	}
	if s, ok := q.PerPath[path]; ok {
		return s, true
	}
	return q.Default, true
}

// modeDefaults are the bits and group size a mode uses when a per-path entry leaves them out, as MLX's
// to_quantized fills them; nil values mean the mode has no defaults and the entry must give them.
var modeDefaults = map[string]*struct{ bits, groupSize int }{
	"affine":  {bits: 4, groupSize: 64},
	"trellis": nil,
}

// trellisCodes are the trellis code names the engine decodes.
var trellisCodes = map[string]bool{"1mad": true}

// specKeys are the keys of the block (or of an entry) that describe a spec rather than name a module; "quantizer"
// is the record of the settings mlxbun quantize ran with, which loading does not need.
var specKeys = map[string]bool{"mode": true, "bits": true, "group_size": true, "trellis": true, "rotation": true, "quantizer": true}

// quantization reads "quantization", or "quantization_config" when that is the same MLX-shaped block (mlx-lm
// writes both); an HF quantization_config of another method (gptq, awq, fp8...) is refused, not ignored,
// because its weights would otherwise be read as if unquantized.
func (r *reader) quantization() *Quantization {
	key := "quantization"
	if r.m[key] == nil {
		key = "quantization_config"
	}
	block := r.object(key)
	if block == nil {
		return nil
	}
	qr := r.sub(key, block)
	if method, ok := block["quant_method"]; ok {
		qr.fail("%s has quant_method %s, which this engine does not load (only MLX affine, trellis and exl3 blocks)", r.name(key), show(method))
		return nil
	}
	for _, k := range []string{"bits", "group_size"} {
		if block[k] == nil {
			qr.fail("missing %s", qr.name(k))
			return nil
		}
	}
	q := &Quantization{Default: qr.spec(r.name(key), block), PerPath: map[string]QuantSpec{}, Skip: map[string]bool{}}
	if rb := qr.object("rotation"); rb != nil {
		rr := qr.sub("rotation", rb)
		for _, k := range sortedKeys(rb) {
			if k != "method" && k != "version" {
				rr.fail("%s: unknown key in the rotation object (known: method, version)", rr.name(k))
			}
		}
		q.Rotation = &Rotation{Method: rr.str("method"), Version: rr.positiveInt("version", true)}
		if v, ok := RotationVersions[q.Rotation.Method]; !ok || q.Rotation.Version != v {
			rr.fail("%s: rotation method %q version %d is not one this engine loads (hadamard version 1)",
				r.name(key), q.Rotation.Method, q.Rotation.Version)
		}
	}
	for _, path := range sortedKeys(block) {
		switch v := block[path].(type) {
		case map[string]any:
			if !specKeys[path] {
				for _, k := range sortedKeys(v) {
					if !entryKeys[k] {
						qr.fail("%s.%s: unknown key in a module's quantization spec (known: %s)", qr.name(path), k, joinKeys(entryKeys))
						return nil
					}
				}
				q.PerPath[path] = qr.spec(qr.name(path), v)
			}
		case bool:
			if !v {
				q.Skip[path] = true
			}
		case nil:
		default:
			// A module's entry is a spec object or false: a number or a string here (a typo of a spec key, or
			// "path": 8 for bits) would be dropped and the module read with the default spec.
			if !specKeys[path] {
				qr.fail("%s is %s: a module's entry is a spec object or false, and the block's own keys are %s",
					qr.name(path), show(v), joinKeys(specKeys))
				return nil
			}
		}
	}
	return q
}

// entryKeys are the keys of a module's own spec object.
var entryKeys = map[string]bool{"mode": true, "bits": true, "group_size": true, "trellis": true}

// spec reads one spec object; where names it in errors (the block, or the block plus a module path).
func (r *reader) spec(where string, o map[string]any) QuantSpec {
	sr := &reader{file: r.file, path: where + ".", m: o, err: r.err}
	s := QuantSpec{Mode: sr.str("mode")}
	if s.Mode == "" {
		s.Mode = "affine"
	}
	def, known := modeDefaults[s.Mode]
	if !known {
		sr.fail("%s: unknown quantization mode %q (known: %s)", where, s.Mode, joinKeys(modeDefaults))
		return s
	}
	s.Bits = sr.positiveInt("bits", def == nil)
	s.GroupSize = sr.positiveInt("group_size", def == nil)
	if def != nil {
		if s.Bits == 0 {
			s.Bits = def.bits
		}
		if s.GroupSize == 0 {
			s.GroupSize = def.groupSize
		}
	}
	if s.Bits < 1 || s.Bits > 8 {
		sr.fail("%s: bits %d outside 1..8", where, s.Bits)
	}
	tp := sr.object("trellis")
	switch {
	case s.Mode != "trellis" && tp != nil:
		sr.fail("%s: a trellis object needs mode \"trellis\", not %q", where, s.Mode)
	case s.Mode == "trellis" && tp == nil:
		sr.fail("%s: mode \"trellis\" needs a trellis object {L, code, axis}", where)
	case s.Mode == "trellis":
		s.Trellis = sr.sub("trellis", tp).trellis(where, s)
	}
	return s
}

// trellisKeys are the keys of a trellis object.
var trellisKeys = map[string]bool{"L": true, "code": true, "axis": true}

// trellis reads {"L":12,"code":"1mad","axis":1} and checks it against the spec's bits and block length.
func (r *reader) trellis(where string, s QuantSpec) *TrellisParams {
	for _, k := range sortedKeys(r.m) {
		if !trellisKeys[k] {
			r.fail("%s: unknown key in a trellis object (known: %s)", r.name(k), joinKeys(trellisKeys))
			return nil
		}
	}
	t := &TrellisParams{L: r.positiveInt("L", true), Code: r.str("code"), Axis: r.nonNegInt("axis")}
	if r.m["axis"] == nil {
		r.fail("missing %s", r.name("axis"))
	}
	checks := []struct {
		bad bool
		msg string
	}{
		{!trellisCodes[t.Code], fmt.Sprintf("unknown trellis code %q (known: %s)", t.Code, joinKeys(trellisCodes))},
		{t.Axis > 1, fmt.Sprintf("trellis axis %d (want 0 or 1)", t.Axis)},
		{t.L < s.Bits || t.L > 32, fmt.Sprintf("trellis L=%d must be in bits..32 = %d..32", t.L, s.Bits)},
		// A coded block of T positions is T·k/32 whole uint32 words.
		{s.GroupSize*s.Bits%32 != 0, fmt.Sprintf("group_size·bits = %d·%d is not a multiple of 32", s.GroupSize, s.Bits)},
	}
	for _, c := range checks {
		if c.bad {
			r.fail("%s: %s", where, c.msg)
		}
	}
	return t
}
