package exl3

import (
	"math"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype/dtypetest"
)

// TestCodebookValues: states decoded by hand (a Python transcription of codebook.cuh's integer steps with the
// struct module's binary16 rounding), against Decode.
func TestCodebookValues(t *testing.T) {
	for _, c := range []struct {
		cb   Codebook
		s    uint16
		want float32
	}{
		{Mul1, 0, -3.453125}, // Σ bytes 0: fma(1024, kInv, kBias) = 6.9296875 − 10.3828125
		{Mul1, 1, 0.64111328125},
		{Mul1, 2, -0.448486328125},
		{Mul1, 0xffff, -0.6513671875},
		{Mul1, 12345, -1.4091796875},
		{MCG, 0, 1.84375}, // the bias alone: 0x3b60 + 0x3b60 = 0.921875 + 0.921875
		{MCG, 1, 0.134521484375},
		{MCG, 2, -0.75927734375},
		{MCG, 0xffff, 0.85009765625},
		{MCG, 12345, -0.40673828125},
		{ThreeInst, 0, 0.76806640625},
		{ThreeInst, 1, -0.91943359375},
		{ThreeInst, 2, 0.931640625},
		{ThreeInst, 0xffff, -0.158203125},
		{ThreeInst, 12345, 1.0869140625},
	} {
		if got := c.cb.Decode(c.s); got != c.want {
			t.Errorf("%v(%d) = %v, want %v", c.cb, c.s, got, c.want)
		}
	}
}

// TestCodebookArithmetic checks every state of every codebook against the same steps done another way: the
// halves' values by binary16's definition and the rounding by search of the binary16 table (dtypetest).
func TestCodebookArithmetic(t *testing.T) {
	inv, bias := dtypetest.F16Value(0x1eee), dtypetest.F16Value(0xc931)
	halves := func(x uint32) float64 {
		x = x&0x8fff8fff ^ 0x3b603b60
		return dtypetest.NearestF16(dtypetest.F16Value(uint16(x)) + dtypetest.F16Value(uint16(x>>16)))
	}
	for s := range 1 << 16 {
		x := uint32(s)
		want := map[Codebook]float64{
			ThreeInst: halves(x*89226354 + 64248484),
			MCG:       halves(x * 0xCBAC1FED),
		}
		p := x * 0x83DCD12D
		sum := 0
		for i := range 4 {
			sum += int(p >> (8 * i) & 0xff)
		}
		want[Mul1] = dtypetest.NearestF16(float64(1024+sum)*inv + bias)
		for cb, w := range want {
			if got := cb.Decode(uint16(s)); float64(got) != w {
				t.Fatalf("%v(%d) = %v, want %v", cb, s, got, w)
			}
		}
	}
}

// TestCodebookDistribution: each codebook is a zero-mean table, every value a finite fp16 of magnitude below 4;
// 3inst and mcg have the RMS of the quantizer's codebook_scale 1.24371088 (regularize() scales each input
// channel to it), mul1 unit RMS (its byte sum is scaled by ≈ 1/147.8, as 1MAD's; the quantizer's global scale
// search absorbs the difference).
func TestCodebookDistribution(t *testing.T) {
	for cb, want := range map[Codebook]float64{ThreeInst: 1.24371088, MCG: 1.24371088, Mul1: 1} {
		var sum, sq float64
		for _, v := range cb.Table() {
			if math.IsNaN(float64(v)) || math.Abs(float64(v)) >= 4 {
				t.Fatalf("%v: value %v", cb, v)
			}
			sum += float64(v)
			sq += float64(v) * float64(v)
		}
		n := float64(1 << 16)
		mean, rms := sum/n, math.Sqrt(sq/n)
		t.Logf("%v: mean %.4f rms %.4f", cb, mean, rms)
		if math.Abs(mean) > 0.01 || math.Abs(rms-want) > 0.01*want {
			t.Errorf("%v: mean %.4f, rms %.4f (want ≈ 0 and ≈ %.4f)", cb, mean, rms, want)
		}
	}
}

func TestParseCodebook(t *testing.T) {
	for _, cb := range []Codebook{ThreeInst, MCG, Mul1} {
		if got, err := ParseCodebook(cb.String()); err != nil || got != cb {
			t.Errorf("ParseCodebook(%q) = %v, %v", cb.String(), got, err)
		}
	}
	if _, err := ParseCodebook("1mad"); err == nil {
		t.Error("1mad parsed as an EXL3 codebook")
	}
}
