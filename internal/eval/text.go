// Whether the bytes to score are text at all: perplexity over a binary file or random bytes is a number that
// measures nothing, so the caller warns before spending the time.
package eval

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// maxInvalidShare is the share of bytes in invalid UTF-8 sequences above which input is not taken for text: a
// UTF-8 file has none, and a Latin-1 one a few accented letters in a hundred.
const maxInvalidShare = 0.05

// NotText says why b does not look like text (NUL bytes, or more than 5 % of its bytes outside valid UTF-8), or
// returns "" when it does.
func NotText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	nul := bytes.Count(b, []byte{0})
	invalid := 0
	for rest := b; len(rest) > 0; {
		r, n := utf8.DecodeRune(rest)
		if r == utf8.RuneError && n == 1 {
			invalid++
		}
		rest = rest[n:]
	}
	share := float64(invalid) / float64(len(b))
	switch {
	case nul > 0 && invalid > 0:
		return fmt.Sprintf("%d of its %d bytes are NUL and %.1f %% are not valid UTF-8", nul, len(b), 100*share)
	case nul > 0:
		return fmt.Sprintf("%d of its %d bytes are NUL", nul, len(b))
	case share > maxInvalidShare:
		return fmt.Sprintf("%.1f %% of its %d bytes are not valid UTF-8", 100*share, len(b))
	}
	return ""
}
