// This file is the 1MAD computed code (QTIP): the integer code y of a state, its f32 values under each decode
// arithmetic, and the per-L tables of them the decoder and encoder index. The bf16/fp16 roundings the format uses
// are package dtype's RoundBF16 (decoded weights) and RoundF16 (stored scales).
package trellis

import "sync"

// 1MAD constants: x = s·Mul + Add (mod 2^32); y = (sum of x's four bytes) − Bias; value = y / Divisor.
// The divisor is the standard deviation of a sum of four uniform bytes (√(4·(256²−1)/12) ≈ 147.8), so the code's
// values have unit variance; it is exact in f32.
const (
	Mul1MAD     uint32  = 34038481
	Add1MAD     uint32  = 76625530
	Bias1MAD            = 510
	Divisor1MAD float32 = 147.800537109375
	// Rcp1MAD is the f32 reciprocal of the divisor, the one the packed kernels multiply by (TRELLIS_RCP).
	Rcp1MAD float32 = 1 / Divisor1MAD
)

// Code1MAD is the integer code y ∈ [−510, 510] of state s (the low L bits of s; any higher bits take part in the
// multiply as the reference does, so callers mask first).
func Code1MAD(s uint32) int32 {
	x := s*Mul1MAD + Add1MAD
	return int32(x&0xFF+x>>8&0xFF+x>>16&0xFF+x>>24) - Bias1MAD
}

// Value1MAD is y/147.800537109375 correctly rounded to f32 (the host LUT and the precise-divide kernels).
// Go's f32 division is IEEE correctly rounded.
func Value1MAD(s uint32) float32 { return float32(Code1MAD(s)) / Divisor1MAD }

// Rcp1MADValue is f32(y)·Rcp1MAD, one f32 multiply: within one ulp of Value1MAD (the packed kernels' decode).
func Rcp1MADValue(s uint32) float32 { return float32(Code1MAD(s)) * Rcp1MAD }

// tables holds one L's per-state values under each arithmetic, built once and shared read-only.
type tables struct {
	value []float32 // Value1MAD
	rcp   []float32 // Rcp1MADValue
	code  []float32 // float32(Code1MAD), exact
}

var (
	tablesMu sync.Mutex
	tablesBy [MaxL + 1]*tables
)

// tablesFor returns the 2^L-entry tables for L (1 ≤ L ≤ MaxL; callers validated the spec).
func tablesFor(L int) *tables {
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if t := tablesBy[L]; t != nil {
		return t
	}
	n := 1 << L
	t := &tables{value: make([]float32, n), rcp: make([]float32, n), code: make([]float32, n)}
	for s := range n {
		y := float32(Code1MAD(uint32(s)))
		t.code[s] = y
		t.value[s] = y / Divisor1MAD
		t.rcp[s] = y * Rcp1MAD
	}
	tablesBy[L] = t
	return t
}

// Codebook returns the 2^L values Value1MAD(s), s = 0..2^L−1 (a fresh copy). L must be 1..16.
func Codebook(L int) []float32 {
	if L < 1 || L > MaxL {
		return nil
	}
	return append([]float32(nil), tablesFor(L).value...)
}
