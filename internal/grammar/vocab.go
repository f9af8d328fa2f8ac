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
			path = append(path, int32(len(v.nodes)))
			v.nodes = append(v.nodes, trieNode{tokFrom: int32(len(v.ids)), depth: uint16(d + 1), label: t[d]})
		}
		v.ids = append(v.ids, id)
		prev = t
	}
	closeTo(0)
	v.nodes = append(v.nodes, trieNode{tokFrom: int32(len(v.ids))}) // sentinel
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
