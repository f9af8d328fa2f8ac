// The geometry record: what a coded tensor's bits mean (K, L, T, axis, code and whether the block interleave is
// used) written beside the codes, in the safetensors file's __metadata__ under RecordKey(tensor), so that a
// config.json edited after quantizing (another L or group size decodes the same words into garbage) is refused
// by name instead of decoding garbage silently. Artifacts written before the record existed have none and load
// as before (docs/trellis-format.md section 13).
package trellis

import (
	"encoding/json"
	"fmt"
)

// RecordKey is the __metadata__ key holding the record of the coded tensor named tensor ("<path>.weight").
func RecordKey(tensor string) string { return "mlxbun.trellis." + tensor }

// record is the JSON form of a geometry record. Every field is required.
type record struct {
	K          *int    `json:"K"`
	L          *int    `json:"L"`
	T          *int    `json:"T"`
	Axis       *int    `json:"axis"`
	Code       *string `json:"code"`
	Interleave *bool   `json:"interleave"`
}

// Record is g's geometry record as stored.
func (g Geometry) Record() string {
	b, _ := json.Marshal(record{&g.K, &g.L, &g.T, &g.Axis, &g.Code, &g.Interleaved})
	return string(b)
}

// CheckRecord compares the record rec of a tensor with the spec its config gives and the tensor's stored shape:
// a difference is an error wrapping ErrFormat that names the config field and both values.
func CheckRecord(rec string, spec Spec, storedShape []int) error {
	var r record
	if err := json.Unmarshal([]byte(rec), &r); err != nil {
		return fmt.Errorf("%w: geometry record %q is not valid JSON: %v", ErrFormat, rec, err)
	}
	if r.K == nil || r.L == nil || r.T == nil || r.Axis == nil || r.Code == nil || r.Interleave == nil {
		return fmt.Errorf("%w: geometry record %q lacks a field (want K, L, T, axis, code, interleave)", ErrFormat, rec)
	}
	for _, f := range []struct {
		field      string
		have, want any
	}{
		{"bits", spec.K, *r.K},
		{"trellis.L", spec.L, *r.L},
		{"group_size", spec.T, *r.T},
		{"trellis.axis", spec.Axis, *r.Axis},
		{"trellis.code", spec.Code, *r.Code},
	} {
		if f.have != f.want {
			return fmt.Errorf("%w: config.json's quantization gives %s %v, but the codes were written with %v "+
				"(their geometry record); was the config edited after quantizing?", ErrFormat, f.field, f.have, f.want)
		}
	}
	if inter := len(storedShape) == 3; inter != *r.Interleave {
		return fmt.Errorf("%w: stored shape %v is %sthe block interleave, but the codes were written %s it (their geometry record)",
			ErrFormat, storedShape, map[bool]string{false: "not ", true: ""}[inter], map[bool]string{false: "without", true: "with"}[*r.Interleave])
	}
	return nil
}
