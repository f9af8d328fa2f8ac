// The tensors an EXL3 module stores beside its name (docs/exl3-format.md section 2), and reading their bytes:
// exllamav3's loader takes a module as EXL3 when it has <path>.trellis, a sign-and-scale vector per side (the
// fp16 .suh/.svh, or the older packed-sign .su/.sv) and optionally a codebook marker and a bias.
package exl3

import (
	"encoding/binary"
	"fmt"
)

// Tensor suffixes of an EXL3 module.
const (
	SuffixTrellis = ".trellis" // I16 [in/16, out/16, 16·K]
	SuffixSUH     = ".suh"     // F16 [in]: input signs times scales
	SuffixSVH     = ".svh"     // F16 [out]: output signs times scales
	SuffixSU      = ".su"      // I16 [in/16]: input signs only, packed (older converters)
	SuffixSV      = ".sv"      // I16 [out/16]: output signs only, packed
	SuffixMCG     = ".mcg"     // I32 scalar holding MCGMult: the mcg codebook
	SuffixMul1    = ".mul1"    // I32 scalar holding Mul1Mult: the mul1 codebook
)

// CodebookOf is the codebook a module's markers name: mcg or mul1 by the marker present (its value, the
// codebook's multiplier, checked: exllamav3's kernels have it built in, so another value cannot be decoded),
// 3inst when there is none. A nil pointer is an absent marker.
func CodebookOf(mcg, mul1 *uint32) (Codebook, error) {
	switch {
	case mcg != nil && mul1 != nil:
		return 0, fmt.Errorf("%w: both an mcg and a mul1 codebook marker", ErrFormat)
	case mcg != nil:
		if *mcg != MCGMult {
			return 0, fmt.Errorf("%w: mcg marker holds multiplier %#x, the codebook's is %#x", ErrFormat, *mcg, MCGMult)
		}
		return MCG, nil
	case mul1 != nil:
		if *mul1 != Mul1Mult {
			return 0, fmt.Errorf("%w: mul1 marker holds multiplier %#x, the codebook's is %#x", ErrFormat, *mul1, Mul1Mult)
		}
		return Mul1, nil
	}
	return ThreeInst, nil
}

// Uint16s reads little-endian 16-bit elements (copied: the source may be a read-only mapping of any alignment).
func Uint16s(b []byte) []uint16 {
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

// UnpackSigns expands packed signs (.su/.sv: bit i of element j is the sign of feature 16·j + i, set meaning −1)
// to ±1 values, as exllamav3's unpack_bf does.
func UnpackSigns(packed []uint16) []float32 {
	s := make([]float32, 16*len(packed))
	for j, w := range packed {
		for i := range 16 {
			s[16*j+i] = 1
			if w>>i&1 != 0 {
				s[16*j+i] = -1
			}
		}
	}
	return s
}
