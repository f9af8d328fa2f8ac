// Tests of the conversions against references built another way: every f16 bit pattern decoded by the format's
// definition, and rounding by nearest-value search over each format's table of finite values.
package dtype

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype/dtypetest"
)

func same(a, b float64) bool { return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b }

// TestEveryF16PatternRoundTrips: all 65,536 half patterns widen to the value the format defines, and every
// non-NaN one narrows back to itself, through F32ToF16 and through RoundF16 alike.
func TestEveryF16PatternRoundTrips(t *testing.T) {
	for h := range 1 << 16 {
		want := dtypetest.F16Value(uint16(h))
		got := F16ToF32(uint16(h))
		if !same(float64(got), want) {
			t.Fatalf("F16ToF32(%#04x) = %v, want %v", h, got, want)
		}
		if math.IsNaN(want) {
			if back := F32ToF16(got); back&0x7fff != 0x7e00 || back&0x8000 != uint16(h)&0x8000 {
				t.Fatalf("F32ToF16(NaN from %#04x) = %#04x, want the quiet NaN with the same sign", h, back)
			}
			continue
		}
		if back := F32ToF16(got); back != uint16(h) {
			t.Fatalf("F32ToF16(%v) = %#04x, want %#04x", got, back, h)
		}
		if r := RoundF16(got); math.Float32bits(r) != math.Float32bits(got) {
			t.Fatalf("RoundF16(%v) = %v, want it unchanged", got, r)
		}
		if r := RoundF16F64(want); math.Float32bits(r) != math.Float32bits(got) {
			t.Fatalf("RoundF16F64(%v) = %v, want it unchanged", want, r)
		}
	}
}

// TestBF16RoundingEdges names bf16's round-to-nearest-even cases one by one.
func TestBF16RoundingEdges(t *testing.T) {
	for _, c := range []struct {
		in   uint32
		want uint16
		why  string
	}{
		{0x3f800000, 0x3f80, "1 is exact"},
		{0x3f808000, 0x3f80, "tie, kept part even: down"},
		{0x3f818000, 0x3f82, "tie, kept part odd: up"},
		{0x3f808001, 0x3f81, "just over the tie: up"},
		{0x3f807fff, 0x3f80, "just under the tie: down"},
		{0xbf818000, 0xbf82, "negative tie, odd: away from zero"},
		{0x3fff8000, 0x4000, "carry into the exponent"},
		{0x7f7f7fff, 0x7f7f, "largest finite stays"},
		{0x7f7f8000, 0x7f80, "tie above the largest finite (odd): Inf"},
		{0xff7f8000, 0xff80, "negative overflow: -Inf"},
		{0x7f800000, 0x7f80, "+Inf"},
		{0xff800000, 0xff80, "-Inf"},
		{0x00000000, 0x0000, "+0"},
		{0x80000000, 0x8000, "-0"},
		{0x00008000, 0x0000, "subnormal tie, even: to zero"},
		{0x00018000, 0x0002, "subnormal tie, odd: up"},
		{0x00000001, 0x0000, "smallest f32 subnormal"},
		{0x007fffff, 0x0080, "largest f32 subnormal rounds to the smallest normal"},
		{0x7f800001, 0x7fc0, "signalling NaN: quieted"},
		{0x7fc00000, 0x7fc0, "quiet NaN"},
		{0xffffffff, 0xffff, "NaN with a full payload keeps its top bits"},
		{0x7f80ffff, 0x7fc0, "NaN whose payload sits in the dropped bits stays a NaN"},
	} {
		f := math.Float32frombits(c.in)
		if got := F32ToBF16(f); got != c.want {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x (%s)", c.in, got, c.want, c.why)
		}
		r := RoundBF16(f)
		if f != f {
			if math.Float32bits(r) != c.in {
				t.Errorf("RoundBF16(NaN %#08x) = %#08x, want it unchanged", c.in, math.Float32bits(r))
			}
			continue
		}
		if math.Float32bits(r) != uint32(c.want)<<16 {
			t.Errorf("RoundBF16(%#08x) = %#08x, want %#08x (%s)", c.in, math.Float32bits(r), uint32(c.want)<<16, c.why)
		}
	}
}

// TestRoundingMatchesNearestSearch: F32ToF16, F32ToBF16 and the Round shorthands give the nearest value by
// table search on random values, both formats' midpoints and subnormals, and the overflow edges.
func TestRoundingMatchesNearestSearch(t *testing.T) {
	check := func(f float32) {
		t.Helper()
		x := float64(f)
		if want := dtypetest.NearestF16(x); !same(float64(RoundF16(f)), want) || !same(float64(F16ToF32(F32ToF16(f))), want) && f == f {
			t.Fatalf("f16 rounding of %g (%#08x): RoundF16 %g, via bits %g, want %g", f, math.Float32bits(f),
				RoundF16(f), F16ToF32(F32ToF16(f)), want)
		}
		if want := dtypetest.NearestBF16(x); !same(float64(RoundBF16(f)), want) || !same(float64(BF16ToF32(F32ToBF16(f))), want) && f == f {
			t.Fatalf("bf16 rounding of %g (%#08x): RoundBF16 %g, via bits %g, want %g", f, math.Float32bits(f),
				RoundBF16(f), BF16ToF32(F32ToBF16(f)), want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 18 {
		check(math.Float32frombits(rng.Uint32()))
		check(float32((rng.Float64()*2 - 1) * math.Pow(2, float64(rng.IntN(44)-28)))) // f16's range
	}
	for _, u := range []uint32{0x3f808000, 0x3f818000, 0x3f80c000, 0x00008000, 0x00018000, 0x7f7f7fff, 0x7f7f8000,
		0x7f7fffff, 0x80008000, 0xbf808000, 0x00000001, 0x7f800000, 0xff800000, 0x477fefff, 0x477ff000, 0x477ff001,
		0x33000000, 0x33000001, 0x33c00000, 0x387fc000, 0x387fe000, 0x38800000} {
		check(math.Float32frombits(u))
	}
	for i := 1; i < len(dtypetest.F16Table); i++ {
		check(float32((dtypetest.F16Table[i-1].V + dtypetest.F16Table[i].V) / 2)) // every f16 midpoint is an f32
	}
	for i := 1; i < len(dtypetest.BF16Table); i += 7 {
		check(float32((dtypetest.BF16Table[i-1].V + dtypetest.BF16Table[i].V) / 2))
	}
}

// TestRoundF16F64MatchesNearestSearch: one rounding of float64 values that float32 cannot hold, just off every
// half midpoint, and the overflow and underflow edges.
func TestRoundF16F64MatchesNearestSearch(t *testing.T) {
	for i := 1; i < len(dtypetest.F16Table); i++ {
		lo, hi := dtypetest.F16Table[i-1].V, dtypetest.F16Table[i].V
		mid := (lo + hi) / 2
		for _, x := range []float64{lo, mid, math.Nextafter(mid, 0), math.Nextafter(mid, 1e9), -mid, hi} {
			if got, want := RoundF16F64(x), dtypetest.NearestF16(x); !same(float64(got), want) {
				t.Fatalf("RoundF16F64(%g) = %g, want %g", x, got, want)
			}
		}
	}
	for _, x := range []float64{65504, 65519.99, 65520, 65536, -65520, 1e-9, 2.9802322387695312e-08,
		5.960464477539063e-08, math.Inf(-1), 0, math.Copysign(0, -1)} {
		if got, want := RoundF16F64(x), dtypetest.NearestF16(x); !same(float64(got), want) {
			t.Fatalf("RoundF16F64(%g) = %g, want %g", x, got, want)
		}
	}
	if !math.IsNaN(float64(RoundF16F64(math.NaN()))) {
		t.Fatal("RoundF16F64(NaN) is not NaN")
	}
}

// sweep calls f on every float32 whose low 16 bits are near a rounding boundary of either format (and a few
// random ones), for every high half: 2^16 × 24 values. MLXBUN_EXHAUSTIVE=1 calls it on all 2^32 instead.
func sweep(f func(uint32)) {
	if os.Getenv("MLXBUN_EXHAUSTIVE") == "1" {
		for u := uint64(0); u < 1<<32; u++ {
			f(uint32(u))
		}
		return
	}
	lows := []uint32{0, 1, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001, 0x9000,
		0xa000, 0xe000, 0xefff, 0xf000, 0xffff, 0x5a5a, 0x0800, 0x1800, 0x17ff, 0x1801, 0xc000, 0x4000}
	for hi := range uint32(1 << 16) {
		for _, lo := range lows {
			f(hi<<16 | lo)
		}
	}
}

// TestRoundAgreesWithConversions: the Round shorthands equal narrowing then widening, bit for bit, on every
// non-NaN float32 the sweep reaches; on NaN they return the input.
func TestRoundAgreesWithConversions(t *testing.T) {
	sweep(func(u uint32) {
		f := math.Float32frombits(u)
		if f != f {
			if math.Float32bits(RoundF16(f)) != u || math.Float32bits(RoundBF16(f)) != u {
				t.Fatalf("NaN %#08x not returned unchanged", u)
			}
			return
		}
		if a, b := RoundF16(f), F16ToF32(F32ToF16(f)); math.Float32bits(a) != math.Float32bits(b) {
			t.Fatalf("RoundF16(%#08x) = %#08x, F16ToF32(F32ToF16) = %#08x", u, math.Float32bits(a), math.Float32bits(b))
		}
		if a, b := RoundBF16(f), BF16ToF32(F32ToBF16(f)); math.Float32bits(a) != math.Float32bits(b) {
			t.Fatalf("RoundBF16(%#08x) = %#08x, BF16ToF32(F32ToBF16) = %#08x", u, math.Float32bits(a), math.Float32bits(b))
		}
	})
}

func TestParse(t *testing.T) {
	for d := F32; d <= F64; d++ {
		got, err := Parse(d.String())
		if err != nil || got != d {
			t.Errorf("Parse(%q) = %v, %v", d.String(), got, err)
		}
	}
	if _, err := Parse("invalid"); err == nil {
		t.Error(`Parse("invalid") succeeded`)
	}
	if F16.Size() != 2 || BF16.Size() != 2 || F32.Size() != 4 || I64.Size() != 8 || U8.Size() != 1 {
		t.Error("sizes")
	}
	if !BF16.Float() || I32.Float() || Invalid.Float() {
		t.Error("Float")
	}
}

func TestFirstNonFinite(t *testing.T) {
	for _, c := range []struct {
		d    DType
		bits uint64
	}{{BF16, 0x7fc0}, {BF16, 0xff80}, {F16, 0x7e00}, {F16, 0x7c00}, {F32, 0x7fc00000}, {F32, 0xff800000},
		{F64, 0x7ff8000000000000}, {F64, 0x7ff0000000000000}} {
		n := c.d.Size()
		data := make([]byte, 10*n)
		for i := range 10 {
			put(data[i*n:], n, 0x3c00) // a finite value in every format
		}
		if _, _, ok := FirstNonFinite(c.d, data); ok {
			t.Errorf("%v: found a non-finite value among finite ones", c.d)
		}
		put(data[7*n:], n, c.bits)
		put(data[9*n:], n, c.bits)
		i, v, ok := FirstNonFinite(c.d, data)
		if !ok || i != 7 || !math.IsNaN(v) && !math.IsInf(v, 0) {
			t.Errorf("%v %#x: got %d %v %v, want index 7", c.d, c.bits, i, v, ok)
		}
	}
	if _, _, ok := FirstNonFinite(U32, []byte{0xff, 0xff, 0xff, 0xff}); ok {
		t.Error("an integer type has no NaN")
	}
}

func put(b []byte, n int, v uint64) {
	for i := range n {
		b[i] = byte(v >> (8 * i))
	}
}
