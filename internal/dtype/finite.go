// Scanning raw tensor bytes for NaN and ±Inf without converting them: a weight check at load.
package dtype

import (
	"encoding/binary"
	"math"
)

// FirstNonFinite returns the index of the first NaN or ±Inf among data's little-endian elements of the floating
// type d, and that element widened to float64. ok is false when every element is finite or d is not floating; a
// trailing partial element is ignored.
func FirstNonFinite(d DType, data []byte) (index int, value float64, ok bool) {
	switch d {
	case BF16:
		for i := 0; 2*i+2 <= len(data); i++ {
			if u := binary.LittleEndian.Uint16(data[2*i:]); u&0x7f80 == 0x7f80 {
				return i, float64(BF16ToF32(u)), true
			}
		}
	case F16:
		for i := 0; 2*i+2 <= len(data); i++ {
			if u := binary.LittleEndian.Uint16(data[2*i:]); u&0x7c00 == 0x7c00 {
				return i, float64(F16ToF32(u)), true
			}
		}
	case F32:
		for i := 0; 4*i+4 <= len(data); i++ {
			if u := binary.LittleEndian.Uint32(data[4*i:]); u&0x7f800000 == 0x7f800000 {
				return i, float64(math.Float32frombits(u)), true
			}
		}
	case F64:
		for i := 0; 8*i+8 <= len(data); i++ {
			if u := binary.LittleEndian.Uint64(data[8*i:]); u&0x7ff0000000000000 == 0x7ff0000000000000 {
				return i, math.Float64frombits(u), true
			}
		}
	}
	return 0, 0, false
}
