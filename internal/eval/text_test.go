package eval

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNotText: text in UTF-8 (and Latin-1 with a few accents) passes; NUL bytes, random bytes and a mostly
// invalid encoding are named.
func TestNotText(t *testing.T) {
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	latin1 := []byte(strings.Repeat("caf\xe9 au lait and a long sentence of plain words. ", 20))
	for _, c := range []struct {
		name string
		b    []byte
		want string // "" for text
	}{
		{"empty", nil, ""},
		{"ascii", []byte("def f(x):\n\treturn x + 1\n"), ""},
		{"utf-8", []byte("Grüße, 世界 — ok\n"), ""},
		{"latin-1 accents", latin1, ""},
		{"nul", []byte("abc\x00def"), "1 of its 7 bytes are NUL"},
		{"random", random, "NUL and"},
		{"invalid", []byte(strings.Repeat("\xff\xfe", 50) + "ok"), "98.0 % of its 102 bytes are not valid UTF-8"},
	} {
		got := NotText(c.b)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: NotText = %q, want %q", c.name, got, c.want)
		}
	}
}
