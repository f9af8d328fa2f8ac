// Character classes over code points, spelled as alternatives of UTF-8 byte-range sequences so that the
// automaton runs on bytes: [a-zé] becomes [a-z] | \xC3\xA9. Surrogates (U+D800..U+DFFF) have no UTF-8 encoding
// and are never part of a class.
package grammar

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// runeRange is the code points lo..hi inclusive.
type runeRange struct{ lo, hi rune }

// runeClass is a set of code points: sorted, non-overlapping, non-adjacent ranges once normalized.
type runeClass []runeRange

// normalize sorts and merges the ranges.
func (c runeClass) normalize() runeClass {
	out := slices.Clone(c)
	slices.SortFunc(out, func(a, b runeRange) int { return int(a.lo - b.lo) })
	var m runeClass
	for _, r := range out {
		if r.lo > r.hi {
			continue
		}
		if n := len(m); n > 0 && r.lo <= m[n-1].hi+1 {
			m[n-1].hi = max(m[n-1].hi, r.hi)
			continue
		}
		m = append(m, r)
	}
	return m
}

// negate is every valid code point not in c (c normalized).
func (c runeClass) negate() runeClass {
	var out runeClass
	next := rune(0)
	for _, r := range c {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, runeRange{next, utf8.MaxRune})
	}
	return out
}

// minus removes the code points of d from c (both normalized).
func (c runeClass) minus(d runeClass) runeClass {
	return append(c.negate(), d...).normalize().negate()
}

// has reports whether r is in c (c normalized).
func (c runeClass) has(r rune) bool {
	for _, x := range c {
		if r >= x.lo && r <= x.hi {
			return true
		}
	}
	return false
}

// anyRune is every code point.
var anyRune = runeClass{{0, utf8.MaxRune}}

// toExpr spells c as bytes: one alternative per run of code points whose UTF-8 encodings share a length and
// vary position by position over full ranges (the split RE2 uses); alternatives that differ only in their first
// byte are merged (E1-EC and EE-EF lead bytes share their continuation), which keeps automata small.
func (c runeClass) toExpr() *expr {
	var seqs [][]byteSet
	var ascii byteSet
	for _, r := range c.normalize() {
		lo, hi := r.lo, min(r.hi, utf8.MaxRune)
		// Cut out the surrogates.
		if lo <= 0xDFFF && hi >= 0xD800 {
			if lo < 0xD800 {
				seqs = utf8Split(lo, 0xD7FF, seqs, &ascii)
			}
			if hi > 0xDFFF {
				seqs = utf8Split(0xE000, hi, seqs, &ascii)
			}
			continue
		}
		seqs = utf8Split(lo, hi, seqs, &ascii)
	}
	// Merge sequences with equal tails by uniting their first bytes.
	var merged [][]byteSet
	index := map[string]int{}
	for _, sq := range seqs {
		var key []byte
		for _, set := range sq[1:] {
			for _, w := range set {
				key = binary.LittleEndian.AppendUint64(key, w)
			}
		}
		k := string(rune(len(sq))) + string(key)
		if i, ok := index[k]; ok {
			for w := range merged[i][0] {
				merged[i][0][w] |= sq[0][w]
			}
			continue
		}
		index[k] = len(merged)
		merged = append(merged, slices.Clone(sq))
	}
	var alts []*expr
	if !ascii.empty() {
		alts = append(alts, bytesOf(ascii))
	}
	for _, sq := range merged {
		subs := make([]*expr, len(sq))
		for i, set := range sq {
			subs[i] = bytesOf(set)
		}
		alts = append(alts, seq(subs...))
	}
	return alt(alts...)
}

// utf8Split appends the byte-set sequences of lo..hi to seqs; one-byte code points are gathered into ascii.
func utf8Split(lo, hi rune, seqs [][]byteSet, ascii *byteSet) [][]byteSet {
	if lo > hi {
		return seqs
	}
	// Ranges that cross an encoded-length boundary split there.
	for _, b := range []rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= b && hi > b {
			seqs = utf8Split(lo, b, seqs, ascii)
			return utf8Split(b+1, hi, seqs, ascii)
		}
	}
	if hi <= 0x7F {
		ascii.add(byte(lo), byte(hi))
		return seqs
	}
	// Split until every continuation position below the first differing one spans its full range 80..BF.
	for i := 1; i < utf8.UTFMax; i++ {
		m := rune(1)<<(6*i) - 1
		if lo&^m != hi&^m {
			if lo&m != 0 {
				seqs = utf8Split(lo, lo|m, seqs, ascii)
				return utf8Split((lo|m)+1, hi, seqs, ascii)
			}
			if hi&m != m {
				seqs = utf8Split(lo, (hi&^m)-1, seqs, ascii)
				return utf8Split(hi&^m, hi, seqs, ascii)
			}
		}
	}
	var a, b [utf8.UTFMax]byte
	n := utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(b[:], hi)
	sq := make([]byteSet, n)
	for i := range n {
		sq[i].add(a[i], b[i])
	}
	return append(seqs, sq)
}
