// Conversions between float32 and the 16-bit float formats, written once for the whole tree: exact widening,
// narrowing with IEEE round-to-nearest-even (overflow to ±Inf, f16 subnormals, NaN kept a NaN), and the
// round-and-widen shorthands that emulate a value stored in the narrow format.
package dtype

import "math"

// BF16ToF32 widens a bfloat16 bit pattern exactly.
func BF16ToF32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// F32ToBF16 rounds to the nearest bfloat16, ties to even; a carry out of the fraction bumps the exponent (to Inf
// past the largest finite value). A NaN stays a NaN: its top bits with the quiet bit set.
func F32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1 // just under half an ulp, plus one when the kept part is odd: then truncate
	return uint16(u >> 16)
}

// F16ToF32 widens an IEEE half bit pattern exactly (subnormals, Inf and NaN included).
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// subnormal: value = man · 2^-24, exact in f32
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// F32ToF16 rounds to the nearest IEEE half, ties to even; overflow gives ±Inf and a NaN gives the quiet NaN
// 0x7e00 with the input's sign.
func F32ToF16(f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	exp := int32(u>>23&0xff) - 127 + 15
	man := u & 0x7fffff
	if u&0x7fffffff > 0x7f800000 {
		return sign | 0x7e00
	}
	if exp >= 0x1f {
		return sign | 0x7c00
	}
	if exp <= 0 { // subnormal or zero in f16
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - exp)
		half := man >> shift
		rem := man & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++ // may carry into the smallest normal: correct
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, and from the largest finite value into Inf: both correct
	}
	return sign | uint16(half)
}

// RoundBF16 is BF16ToF32(F32ToBF16(f)) for every f but NaN, which it returns unchanged (payload and all):
// f as a bfloat16 would hold it.
func RoundBF16(f float32) float32 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return f
	}
	u += 0x7fff + (u>>16)&1
	return math.Float32frombits(u &^ 0xffff)
}

// RoundF16 is F16ToF32(F32ToF16(f)) for every f but NaN, which it returns unchanged: f as an IEEE half would
// hold it. It works on the f32 bits directly (no trip through the 16-bit pattern), as greedy sampling calls it
// per logit.
func RoundF16(f float32) float32 {
	u := math.Float32bits(f)
	sign, a := u&0x80000000, u&0x7fffffff
	switch {
	case a >= 0x7f800000:
		return f
	case a >= 0x477ff000: // ≥ 65520, half-way from 65504 to 2^16: rounds (to even) past the largest half
		return math.Float32frombits(sign | 0x7f800000)
	case a < 0x38800000: // below 2^-14, half's subnormals: a fixed quantum of 2^-24
		const q = 1.0 / (1 << 24)
		return float32(math.RoundToEven(float64(f)/q) * q)
	}
	a += 0xfff + (a>>13)&1 // 13 fraction bits dropped, ties to even, as F32ToBF16 drops 16
	return math.Float32frombits(sign | a&^0x1fff)
}

// RoundF16F64 rounds a float64 to the nearest IEEE half once (ties to even, ±Inf past the largest half) and
// returns it widened to float32, exactly: what native half arithmetic gives for an exact result x that float32
// may not hold. NaN and ±Inf pass through.
func RoundF16F64(x float64) float32 {
	if float64(float32(x)) == x {
		return RoundF16(float32(x)) // one rounding either way
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return float32(x)
	}
	// The quantum at x's exponent (at least half's subnormal quantum 2^-24) is a power of two, so x/q is exact
	// and RoundToEven does the only rounding.
	_, e := math.Frexp(x) // |x| = f·2^e with f in [0.5, 1): the unbiased exponent is e−1
	q := math.Ldexp(1, max(e-1, -14)-10)
	y := math.RoundToEven(x/q) * q
	if math.Abs(y) > 65504 {
		return float32(math.Copysign(math.Inf(1), x))
	}
	return float32(y)
}
