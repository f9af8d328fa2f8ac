// Package dtypetest holds reference roundings for tests: the value of every binary16 pattern by the format's
// definition, and rounding into f16 or bf16 by searching each format's table of finite values for the nearest
// (ties to the even pattern). Built another way than package dtype's bit arithmetic, so each checks the other.
package dtypetest

import (
	"math"
	"sort"
)

// F16Value is the value of binary16 bits by the format's definition (NaN for every NaN pattern).
func F16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1F), float64(h&0x3FF)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 31:
		if m == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+m/1024, e-15)
}

// Value is one finite non-negative value of a format with its bit pattern (for ties to even).
type Value struct {
	V    float64
	Bits uint32
}

// F16Table and BF16Table list every finite non-negative value of the format, ascending.
var (
	F16Table = func() (t []Value) {
		for h := uint32(0); h < 0x7c00; h++ {
			t = append(t, Value{F16Value(uint16(h)), h})
		}
		return t
	}()
	BF16Table = func() (t []Value) {
		for h := uint32(0); h < 0x7f80; h++ {
			t = append(t, Value{float64(math.Float32frombits(h << 16)), h})
		}
		return t
	}()
)

// nearest rounds x into a format by searching its table for x's neighbours: the nearer wins, a tie goes to the
// even bit pattern, and a magnitude at or past overflow (the largest value plus half its ulp) becomes ±Inf.
func nearest(table []Value, overflow, x float64) float64 {
	if x != x || math.IsInf(x, 0) {
		return x
	}
	a := math.Abs(x)
	if a >= overflow {
		return math.Copysign(math.Inf(1), x)
	}
	i := sort.Search(len(table), func(i int) bool { return table[i].V >= a })
	var r float64
	switch {
	case i < len(table) && table[i].V == a:
		r = a
	case i == len(table):
		r = table[i-1].V
	default:
		lo, hi := table[i-1], table[i]
		switch {
		case a-lo.V < hi.V-a:
			r = lo.V
		case a-lo.V > hi.V-a:
			r = hi.V
		case lo.Bits&1 == 0:
			r = lo.V
		default:
			r = hi.V
		}
	}
	return math.Copysign(r, x)
}

// NearestF16 rounds x to the nearest binary16 value (ties to even; ±Inf at or past 65520).
func NearestF16(x float64) float64 { return nearest(F16Table, 65520, x) }

// NearestBF16 rounds x to the nearest bfloat16 value (ties to even; ±Inf at or past overflow).
func NearestBF16(x float64) float64 {
	return nearest(BF16Table, float64(math.Float32frombits(0x7f7f8000)), x) // (2 − 2^-8)·2^127
}
