// Tests of the packed token bitmask against a per-token reference that reads the words as signed int32.
package sample

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refAllowed reads the mask the way the seed's kernel does: word id>>5 as int32, bit id&31, but through a signed
// AND so that bit 31 (the sign bit) is exercised differently from the code under test.
func refAllowed(mask []int32, id int) bool {
	if id/32 >= len(mask) {
		return false
	}
	return mask[id/32]&int32(uint32(1)<<(id%32)) != 0
}

func TestApplyBitmask(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ninf := float32(math.Inf(-1))
	for trial := range 500 {
		v := 1 + rng.IntN(300)
		words := (v + 31) / 32
		n := words + rng.IntN(3) - 1 // short masks (missing words reject), exact, and long (extra bits ignored)
		if n < 0 {
			n = 0
		}
		mask := make([]int32, n)
		for i := range mask {
			switch rng.IntN(4) {
			case 0:
				mask[i] = -1 // every bit, sign included
			case 1:
				mask[i] = 0
			default:
				mask[i] = int32(rng.Uint32())
			}
		}
		logits := make([]float32, v)
		for i := range logits {
			logits[i] = float32(rng.NormFloat64())
		}
		logits[0] = float32(math.Copysign(0, -1))
		if v > 1 {
			logits[1] = float32(math.NaN())
		}
		orig := append([]float32(nil), logits...)
		ApplyBitmask(logits, mask)
		allowed := 0
		for i := range logits {
			if refAllowed(mask, i) {
				allowed++
				if math.Float32bits(logits[i]) != math.Float32bits(orig[i]) {
					t.Fatalf("trial %d: allowed token %d changed from %g to %g", trial, i, orig[i], logits[i])
				}
			} else if logits[i] != ninf {
				t.Fatalf("trial %d: rejected token %d is %g, want -Inf", trial, i, logits[i])
			}
			if Allowed(mask, i) != refAllowed(mask, i) {
				t.Fatalf("trial %d: Allowed(%d) = %v", trial, i, Allowed(mask, i))
			}
		}
		if got := CountAllowed(mask, v); got != allowed {
			t.Fatalf("trial %d: CountAllowed = %d, want %d", trial, got, allowed)
		}
	}
}

func TestBitmaskHandCase(t *testing.T) {
	// Vocabulary 40: word 0 allows 0, 5 and 31 (the sign bit); word 1 allows 32 and 39, and bit 8 (token 40) lies
	// past the vocabulary.
	mask := []int32{1 | 1<<5 | math.MinInt32, 1 | 1<<7 | 1<<8}
	logits := make([]float32, 40)
	ApplyBitmask(logits, mask)
	for i, l := range logits {
		want := i == 0 || i == 5 || i == 31 || i == 32 || i == 39
		if (l == 0) != want {
			t.Errorf("token %d: logit %g, allowed should be %v", i, l, want)
		}
	}
	if n := CountAllowed(mask, 40); n != 5 {
		t.Errorf("CountAllowed = %d, want 5", n)
	}
	if n := CountAllowed(mask[:1], 40); n != 3 {
		t.Errorf("CountAllowed with word 1 missing = %d, want 3", n)
	}
}
