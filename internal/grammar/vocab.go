// The vocabulary a grammar runs over: every token's bytes (what it adds to the decoded text) and a byte trie over
// them, stored as arrays in depth-first preorder so that a walk is a linear scan that skips a rejected prefix's
// whole subtree in one jump. Built once per tokenizer and shared by every grammar.
package grammar

import (
	"bytes"
	"slices"

	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

// Vocab is a tokenizer's vocabulary as bytes. Tokens without bytes (special tokens, gaps) are never allowed by a
// grammar; the end ids are allowed exactly when the grammar's input is complete.
type Vocab struct {
	size   int      // ids 0..size-1
	tokens [][]byte // by id; nil: never allowed
	eos    []int

	// The trie in depth-first preorder, one struct per node so that a walk reads one cache line per step. A
	// sentinel node closes the array (its tokFrom is len(ids)).
	nodes  []trieNode
	ids    []int32
	maxLen int
	// sum[i] summarizes node i's subtree (its own byte included) for whole-subtree acceptance (tables.go).
	sum []subtreeSum
	// tokChars[p] is the number of characters (bytes that are not UTF-8 continuation bytes) of token ids[p].
	tokChars []uint16
	// all has the bit of every id in the trie (every id with bytes).
	all []uint32
}

// subtreeSum is what a table walk needs to accept a trie subtree without stepping through it: its ASCII bytes,
// the most characters on one of its paths (bytes that are not UTF-8 continuation bytes), whether it holds bytes
// ≥ 0x80, and whether every path is a valid UTF-8 prefix when started on a character boundary.
type subtreeSum struct {
	ascii [2]uint64
	chars uint16
	high  bool
	utf8  bool
}

// UTF-8 decoder states: 0 at a character boundary; 1..3 expecting that many continuation bytes; 4..7 after the
// lead bytes E0, ED, F0, F4, whose second byte has a narrower range.
const utf8States = 8

// utf8Next is the decoder's transition, -1 for a byte that cannot come next.
func utf8Next(u int, b byte) int {
	switch u {
	case 0:
		switch {
		case b < 0x80:
			return 0
		case b >= 0xC2 && b <= 0xDF:
			return 1
		case b == 0xE0:
			return 4
		case b == 0xED:
			return 5
		case b >= 0xE1 && b <= 0xEF:
			return 2
		case b == 0xF0:
			return 6
		case b == 0xF4:
			return 7
		case b >= 0xF1 && b <= 0xF3:
			return 3
		}
		return -1
	case 1, 2, 3:
		if b >= 0x80 && b <= 0xBF {
			return u - 1
		}
	case 4:
		if b >= 0xA0 && b <= 0xBF {
			return 1
		}
	case 5:
		if b >= 0x80 && b <= 0x9F {
			return 1
		}
	case 6:
		if b >= 0x90 && b <= 0xBF {
			return 2
		}
	case 7:
		if b >= 0x80 && b <= 0x8F {
			return 2
		}
	}
	return -1
}

// trieNode adds byte label at depth (1-based); its subtree is nodes i..end-1; the tokens spelled exactly by its
// path are ids[tokFrom:next node's tokFrom].
type trieNode struct {
	end     int32
	tokFrom int32
	depth   uint16
	label   byte
}

// NewVocab builds a Vocab from each id's bytes (nil or empty: never allowed) and the end-of-sequence ids.
func NewVocab(tokens [][]byte, eos []int) *Vocab {
	tokens = slices.Clone(tokens)
	v := &Vocab{size: len(tokens), tokens: tokens}
	for _, e := range eos {
		if e >= 0 && e < len(tokens) && !slices.Contains(v.eos, e) {
			v.eos = append(v.eos, e)
			v.tokens[e] = nil // an end id adds no text
		}
	}
	var order []int32
	for id, t := range tokens {
		if len(t) > 0 {
			order = append(order, int32(id))
			v.maxLen = max(v.maxLen, len(t))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return bytes.Compare(tokens[a], tokens[b]) })
	var path []int32 // path[d] is the open node at depth d+1
	var parent []int32
	var prev []byte
	closeTo := func(d int) {
		for len(path) > d {
			v.nodes[path[len(path)-1]].end = int32(len(v.nodes))
			path = path[:len(path)-1]
		}
	}
	for _, id := range order {
		t := tokens[id]
		l := lcp(prev, t)
		closeTo(l)
		for d := l; d < len(t); d++ {
			p := int32(-1)
			if d > 0 {
				p = path[d-1]
			}
			parent = append(parent, p)
			path = append(path, int32(len(v.nodes)))
			v.nodes = append(v.nodes, trieNode{tokFrom: int32(len(v.ids)), depth: uint16(d + 1), label: t[d]})
		}
		v.ids = append(v.ids, id)
		prev = t
	}
	closeTo(0)
	v.sum = make([]subtreeSum, len(v.nodes))
	// okAfter[i]: the decoder states after node i's byte that every child accepts (bit u: state u is fine);
	// children come after their parent in preorder, so a reverse pass sees them first.
	okAfter := make([]uint8, len(v.nodes))
	for i := range okAfter {
		okAfter[i] = 1<<utf8States - 1
	}
	for i := len(v.nodes) - 1; i >= 0; i-- {
		b := v.nodes[i].label
		sm := &v.sum[i]
		if b < 0x80 {
			sm.ascii[b>>6] |= 1 << (b & 63)
		} else {
			sm.high = true
		}
		if b < 0x80 || b > 0xBF {
			sm.chars++ // children added their counts already
		}
		ok := uint8(0)
		for u := range utf8States {
			if n := utf8Next(u, b); n >= 0 && okAfter[i]>>n&1 != 0 {
				ok |= 1 << u
			}
		}
		sm.utf8 = ok&1 != 0
		if p := parent[i]; p >= 0 {
			ps := &v.sum[p]
			ps.ascii[0] |= sm.ascii[0]
			ps.ascii[1] |= sm.ascii[1]
			ps.high = ps.high || sm.high
			ps.chars = max(ps.chars, sm.chars)
			okAfter[p] &= ok
		}
	}
	v.nodes = append(v.nodes, trieNode{tokFrom: int32(len(v.ids))}) // sentinel
	v.all = make([]uint32, v.MaskWords())
	v.tokChars = make([]uint16, len(v.ids))
	for p, id := range v.ids {
		v.all[id>>5] |= 1 << (id & 31)
		for _, b := range v.tokens[id] {
			if b < 0x80 || b > 0xBF {
				v.tokChars[p]++
			}
		}
	}
	return v
}

func lcp(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// VocabFromTokenizer reads every id's bytes from tok (tokenizer.TokenBytes; special added tokens get none) for a
// logits row of size ids (≥ the tokenizer's vocabulary: ids past it are never allowed) with end ids eos.
func VocabFromTokenizer(tok *tokenizer.Tokenizer, size int, eos []int) *Vocab {
	size = max(size, tok.VocabSize())
	tokens := make([][]byte, size)
	for id := range tok.VocabSize() {
		if tok.IsSpecial(id) {
			continue
		}
		tokens[id] = tok.TokenBytes(id)
	}
	return NewVocab(tokens, eos)
}

// Size is the number of ids (the width of a logits row the masks cover).
func (v *Vocab) Size() int { return v.size }

// MaskWords is the length of a packed bitmask over the vocabulary.
func (v *Vocab) MaskWords() int { return (v.size + 31) / 32 }

// Bytes returns the bytes of token id (nil for an id that no grammar allows or an end id).
func (v *Vocab) Bytes(id int) []byte {
	if id < 0 || id >= v.size {
		return nil
	}
	return v.tokens[id]
}

// IsEnd reports whether id is an end-of-sequence id.
func (v *Vocab) IsEnd(id int) bool { return slices.Contains(v.eos, id) }

// TrieNodes is the number of trie nodes (for reports).
func (v *Vocab) TrieNodes() int { return len(v.nodes) - 1 }
