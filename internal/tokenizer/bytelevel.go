// The GPT-2 byte-level alphabet: every byte maps to one printable rune so that byte strings can live in a
// vocabulary of Unicode strings. Printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves; the
// other 68 bytes map, in byte order, to U+0100 upward (so ' ' becomes 'Ġ' and '\n' becomes 'Ċ').
package tokenizer

// byteToRune and runeToByte are the two directions of the alphabet.
var (
	byteToRune [256]rune
	runeToByte = make(map[rune]byte, 256)
)

func init() {
	printable := func(b int) bool {
		return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	}
	next := rune(256)
	for b := 0; b < 256; b++ {
		if printable(b) {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = next
			next++
		}
		runeToByte[byteToRune[b]] = byte(b)
	}
}

// byteLevelEncode maps each byte of s to its alphabet rune: len(s) bytes in, len(s) runes out.
func byteLevelEncode(s string) string {
	out := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = byteToRune[s[i]]
	}
	return string(out)
}

// byteLevelDecode maps a token's runes back to bytes. A token holding any rune outside the alphabet (an added
// token such as "<|im_start|>" is inside it, one with a raw space is not) passes through as its own UTF-8 bytes,
// as Hugging Face's ByteLevel decoder does.
func byteLevelDecode(tok string, dst []byte) []byte {
	start := len(dst)
	for _, r := range tok {
		b, ok := runeToByte[r]
		if !ok {
			return append(dst[:start], tok...)
		}
		dst = append(dst, b)
	}
	return dst
}
