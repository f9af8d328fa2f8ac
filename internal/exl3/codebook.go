// Package exl3 is exllamav3's EXL3 weight format (a QTIP variant): the procedural codebooks that turn a 16-bit
// trellis state into a weight, the tile layout of a stored .trellis tensor, and the reference reconstruction of a
// linear layer's weights and its CPU forward. docs/exl3-format.md is the prose version, with where each fact was
// read in exllamav3's source; this package holds no code of exllamav3's, only the arithmetic it documents.
//
// This file is the codebooks: each maps a state s (16 bits) to an fp16 value with a few integer operations and one
// or two fp16 roundings, exactly as exllamav3's kernels do (codebook.cuh), so every value here is bit-exact.
package exl3

import (
	"fmt"
	"sync"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// Codebook names one of exllamav3's three procedural codebooks.
type Codebook uint8

const (
	ThreeInst Codebook = iota // "3inst" (cb 0): an LCG step, then two fp16 halves summed; no marker tensor
	MCG                       // "mcg" (cb 1): a multiplicative hash, then two fp16 halves summed; marker <path>.mcg
	Mul1                      // "mul1" (cb 2, the converter's default): a multiply, then the byte sum scaled; marker <path>.mul1
)

// The constants of the codebooks (codebook.cuh; quantize.py's codebook_mcg_mult and codebook_mul1_mult, which a
// checkpoint's marker tensor holds as an int32).
const (
	MCGMult  uint32 = 0xCBAC1FED
	Mul1Mult uint32 = 0x83DCD12D

	threeInstMul uint32 = 89226354
	threeInstAdd uint32 = 64248484

	// lop3(x, 0x8fff8fff, 0x3b603b60, 0x6a) is (x & mask) ^ bias: each 16-bit half keeps its sign and its low
	// 12 bits, and gets the exponent field 0b011xx, so it reads as an fp16 of magnitude in [1/8, 2).
	halvesMask uint32 = 0x8fff8fff
	halvesBias uint32 = 0x3b603b60

	// mul1 scales the byte sum as fp16: value = fma(1024 + Σ bytes, kInv, kBias), one fp16 rounding.
	mul1Inv  uint16 = 0x1eee // 0.0067672729… ≈ 1/147.77
	mul1Bias uint16 = 0xc931 // −10.3828125 ≈ −(1024 + 510)·kInv
)

var codebookNames = [...]string{ThreeInst: "3inst", MCG: "mcg", Mul1: "mul1"}

func (c Codebook) String() string {
	if int(c) < len(codebookNames) {
		return codebookNames[c]
	}
	return fmt.Sprintf("codebook(%d)", uint8(c))
}

// ParseCodebook maps a codebook name ("mul1", "mcg", "3inst") to its Codebook.
func ParseCodebook(s string) (Codebook, error) {
	for i, n := range codebookNames {
		if n == s {
			return Codebook(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown codebook %q (known: 3inst, mcg, mul1)", ErrFormat, s)
}

// Decode is the codebook's value of state s: an fp16 value, widened exactly to f32.
func (c Codebook) Decode(s uint16) float32 {
	x := uint32(s)
	switch c {
	case ThreeInst:
		return sumHalves(x*threeInstMul + threeInstAdd)
	case MCG:
		return sumHalves(x * MCGMult)
	case Mul1:
		x *= Mul1Mult
		h := 1024 + float64(x&0xff+x>>8&0xff+x>>16&0xff+x>>24) // 0x6400 + Σ bytes read as fp16: exact
		return dtype.RoundF16F64(h*float64(dtype.F16ToF32(mul1Inv)) + float64(dtype.F16ToF32(mul1Bias)))
	}
	panic(fmt.Sprintf("exl3: Decode with %v", c))
}

// sumHalves is the fp16 sum of the two halves of (x & mask) ^ bias (__hadd of its low and high half): the exact
// sum (in [−4, 4), at most 15 significant bits) rounded once to fp16.
func sumHalves(x uint32) float32 {
	x = x&halvesMask ^ halvesBias
	lo, hi := dtype.F16ToF32(uint16(x)), dtype.F16ToF32(uint16(x>>16))
	return dtype.RoundF16F64(float64(lo) + float64(hi))
}

// Table is the codebook's 2^16 values, indexed by state.
func (c Codebook) Table() []float32 {
	t := make([]float32, 1<<16)
	for s := range t {
		t[s] = c.Decode(uint16(s))
	}
	return t
}

var (
	tables     [len(codebookNames)][]float32
	tablesOnce [len(codebookNames)]sync.Once
)

// table returns the cached table of c (built once per codebook; 256 KiB each).
func (c Codebook) table() []float32 {
	tablesOnce[c].Do(func() { tables[c] = c.Table() })
	return tables[c]
}
