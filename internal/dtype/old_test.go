// Temporary: the three implementations this package replaces (backend/dtype.go, trellis/code.go and
// sample/greedy.go's round32/roundBinary, copied here as unexported), compared with it bit for bit before they
// are deleted. MLXBUN_EXHAUSTIVE=1 runs every float32.
package dtype_test

import (
	"math"
	"os"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

func oldRound32BF16(f float32) float32 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return f
	}
	u += 0x7fff + (u>>16)&1
	return math.Float32frombits(u &^ 0xffff)
}

func oldRound32F16(f float32) float32 {
	u := math.Float32bits(f)
	sign, a := u&0x80000000, u&0x7fffffff
	switch {
	case a >= 0x7f800000:
		return f
	case a >= 0x477ff000:
		return math.Float32frombits(sign | 0x7f800000)
	case a < 0x38800000:
		const q = 1.0 / (1 << 24)
		return float32(math.RoundToEven(float64(f)/q) * q)
	}
	a += 0xfff + (a>>13)&1
	return math.Float32frombits(sign | a&^0x1fff)
}

func oldRoundBinary(x float64, frac, emin, emax int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	_, e := math.Frexp(x)
	e = max(e-1, emin)
	q := math.Ldexp(1, e-frac)
	y := math.RoundToEven(x/q) * q
	maxFinite := math.Ldexp(2-math.Ldexp(1, -frac), emax)
	if math.Abs(y) > maxFinite {
		return math.Copysign(math.Inf(1), x)
	}
	return y
}

func bits(f float32) uint32 { return math.Float32bits(f) }

func TestSameAsOldImplementations(t *testing.T) {
	for h := range 1 << 16 {
		n := dtype.F16ToF32(uint16(h))
		if bits(n) != bits(backend.F16ToF32(uint16(h))) || bits(n) != bits(trellis.F16ToF32(uint16(h))) {
			t.Fatalf("F16ToF32(%#04x) differs", h)
		}
		if bits(dtype.BF16ToF32(uint16(h))) != bits(backend.BF16ToF32(uint16(h))) {
			t.Fatalf("BF16ToF32(%#04x) differs", h)
		}
	}
	check := func(u uint32) {
		f := math.Float32frombits(u)
		h := dtype.F32ToF16(f)
		if h != backend.F32ToF16(f) || h != trellis.F32ToF16(f) {
			t.Fatalf("F32ToF16(%#08x) = %#04x; backend %#04x, trellis %#04x", u, h, backend.F32ToF16(f), trellis.F32ToF16(f))
		}
		if b := dtype.F32ToBF16(f); b != backend.F32ToBF16(f) {
			t.Fatalf("F32ToBF16(%#08x) = %#04x; backend %#04x", u, b, backend.F32ToBF16(f))
		}
		if r := dtype.RoundBF16(f); bits(r) != bits(oldRound32BF16(f)) {
			t.Fatalf("RoundBF16(%#08x) = %#08x; sample's %#08x", u, bits(r), bits(oldRound32BF16(f)))
		}
		if r := dtype.RoundF16(f); bits(r) != bits(oldRound32F16(f)) {
			t.Fatalf("RoundF16(%#08x) = %#08x; sample's %#08x", u, bits(r), bits(oldRound32F16(f)))
		}
		if f == f { // trellis.RoundBF16 does not keep NaN (it can make -0 of one); RoundF16 canonicalizes it
			if r := dtype.RoundBF16(f); bits(r) != bits(trellis.RoundBF16(f)) {
				t.Fatalf("RoundBF16(%#08x) = %#08x; trellis %#08x", u, bits(r), bits(trellis.RoundBF16(f)))
			}
			if r := dtype.RoundF16(f); bits(r) != bits(trellis.RoundF16(f)) {
				t.Fatalf("RoundF16(%#08x) = %#08x; trellis %#08x", u, bits(r), bits(trellis.RoundF16(f)))
			}
		}
		// RoundF16F64 against sample's roundBinary on values float32 cannot hold, around this one.
		x := float64(f)
		if f == f && !math.IsInf(x, 0) {
			for _, y := range []float64{math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)), x} {
				if a, b := dtype.RoundF16F64(y), float32(oldRoundBinary(y, 10, -14, 15)); bits(a) != bits(b) && !(y == 0 && a == b) {
					t.Fatalf("RoundF16F64(%v) = %v; sample's %v", y, a, b)
				}
			}
		}
	}
	if os.Getenv("MLXBUN_EXHAUSTIVE") == "1" {
		for u := uint64(0); u < 1<<32; u++ {
			check(uint32(u))
		}
		return
	}
	lows := []uint32{0, 1, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x7fff, 0x8000, 0x8001, 0xffff, 0x5a5a, 0x1800}
	for hi := range uint32(1 << 16) {
		for _, lo := range lows {
			check(hi<<16 | lo)
		}
	}
}
