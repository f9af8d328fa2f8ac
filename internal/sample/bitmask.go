// The packed token bitmask of constrained decoding (XGrammar's layout, as the seed's token-bitmask.ts consumes it):
// word w of the []int32 mask holds tokens 32w..32w+31, token t allowed iff bit t%32 of word t/32 is set. Words past
// the end of the mask reject their tokens; bits past the vocabulary are ignored.
package sample

import (
	"math"
	"math/bits"
)

// Allowed reports whether mask allows token t (t ≥ 0). A token past the mask's last word is rejected.
func Allowed(mask []int32, t int) bool {
	w := t >> 5
	return w < len(mask) && uint32(mask[w])>>(t&31)&1 != 0
}

// ApplyBitmask sets every logit the mask rejects to -Inf and leaves allowed logits untouched. It returns nothing;
// CountAllowed tells whether anything survived.
//
// The seed adds 0 or -Inf instead (so a rejected NaN stays NaN, a rejected +Inf becomes NaN and an allowed -0
// becomes +0). Assigning -Inf makes a rejected token unselectable whatever its logit was, which is the property the
// sampler relies on; allowed logits keep their exact bits.
func ApplyBitmask(logits []float32, mask []int32) {
	ninf := float32(math.Inf(-1))
	words := (len(logits) + 31) / 32
	for w := range words {
		lo := w * 32
		hi := min(lo+32, len(logits))
		if w >= len(mask) {
			// Missing words reject: nothing after this point is allowed.
			for i := lo; i < len(logits); i++ {
				logits[i] = ninf
			}
			return
		}
		bits := uint32(mask[w])
		if bits == math.MaxUint32 {
			continue // the common case of a wide-open grammar state
		}
		for i := lo; i < hi; i++ {
			if bits>>(i-lo)&1 == 0 {
				logits[i] = ninf
			}
		}
	}
}

// CountAllowed counts the tokens of a vocab-sized vocabulary that mask allows.
func CountAllowed(mask []int32, vocab int) int {
	n := 0
	words := (vocab + 31) / 32
	for w := 0; w < words && w < len(mask); w++ {
		word := uint32(mask[w])
		if rem := vocab - w*32; rem < 32 {
			word &= 1<<rem - 1 // bits past the vocabulary do not name tokens
		}
		n += bits.OnesCount32(word)
	}
	return n
}
