// The prompt cache: the cached context of earlier requests (keys and values, a hybrid's recurrent state), each
// in a one-sequence cache of its own, found by the longest shared prefix through a token trie as mlx-lm's
// server does, and bounded in bytes with least-recently-used eviction. Eviction releases an entry's cache; it is
// never copied again. For a model whose sequences cannot rewind (hybrids, sliding-window rings) an entry is usable
// only whole: its tokens must all be a prefix of the new prompt.
package scheduler

import (
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// entry is one cached context: what tokens[:len] left in cache (one sequence, at position len(tokens)), computed
// under one adapter set (the keys and values differ with it, so entries of different sets never mix).
type entry struct {
	adapter string
	tokens  []int
	cache   backend.KVCache
	bytes   int64
	used    uint64 // LRU clock at the last use
}

// node is a trie node: the entries whose tokens end here, and how many end at or below it.
type node struct {
	kids  map[int]*node
	ends  []*entry
	count int
}

type promptCache struct {
	roots map[string]*node // a trie per adapter set

	entries []*entry
	bytes   int64
	limit   int64
	clock   uint64
	exact   bool                     // entries usable only whole (see the file comment)
	release func(backend.KVCache)    // frees an evicted entry's cache
	evicted func(n int, bytes int64) // counts evictions (metrics)
}

func newPromptCache(limit int64, exact bool, release func(backend.KVCache), evicted func(int, int64)) *promptCache {
	return &promptCache{roots: map[string]*node{}, limit: limit, exact: exact, release: release, evicted: evicted}
}

// root is adapter's trie.
func (c *promptCache) root(adapter string) *node {
	n := c.roots[adapter]
	if n == nil {
		n = &node{}
		c.roots[adapter] = n
	}
	return n
}

// lookup finds the entry of adapter sharing the longest prefix with prompt, at most maxK tokens of it: the entry
// and how many of its tokens to reuse (0 and nil when none).
func (c *promptCache) lookup(adapter string, prompt []int, maxK int) (*entry, int) {
	n, depth := c.root(adapter), 0
	var best *entry
	bestK := 0
	for depth < maxK {
		kid := n.kids[prompt[depth]]
		if kid == nil {
			break
		}
		n, depth = kid, depth+1
		if len(n.ends) > 0 {
			best, bestK = n.ends[0], depth
		}
	}
	if !c.exact && depth > bestK {
		// Any entry below n shares depth tokens: follow kids down to one.
		for len(n.ends) == 0 {
			for _, kid := range n.kids {
				if kid.count > 0 {
					n = kid
					break
				}
			}
		}
		best, bestK = n.ends[0], depth
	}
	if best != nil {
		c.clock++
		best.used = c.clock
	}
	return best, bestK
}

// covers reports whether an entry of adapter already serves all of tokens.
func (c *promptCache) covers(adapter string, tokens []int) bool {
	_, k := c.lookup(adapter, tokens, len(tokens))
	return k == len(tokens)
}

// insert adds e, evicting the least recently used entries until it fits; false (and nothing changed) when e alone
// is over the limit. Entries e makes redundant (their tokens a prefix of e's, where a prefix serves) go first.
func (c *promptCache) insert(e *entry) bool {
	if e.bytes > c.limit {
		return false
	}
	if !c.exact {
		for _, old := range append([]*entry(nil), c.entries...) {
			if old.adapter == e.adapter && len(old.tokens) <= len(e.tokens) && slices.Equal(old.tokens, e.tokens[:len(old.tokens)]) {
				c.remove(old)
			}
		}
	}
	for c.bytes+e.bytes > c.limit && len(c.entries) > 0 {
		lru := c.entries[0]
		for _, x := range c.entries {
			if x.used < lru.used {
				lru = x
			}
		}
		c.remove(lru)
		if c.evicted != nil {
			c.evicted(1, lru.bytes)
		}
	}
	c.clock++
	e.used = c.clock
	c.entries = append(c.entries, e)
	c.bytes += e.bytes
	n := c.root(e.adapter)
	n.count++
	for _, t := range e.tokens {
		if n.kids == nil {
			n.kids = map[int]*node{}
		}
		kid := n.kids[t]
		if kid == nil {
			kid = &node{}
			n.kids[t] = kid
		}
		n = kid
		n.count++
	}
	n.ends = append(n.ends, e)
	return true
}

// remove drops e from the trie and releases its cache.
func (c *promptCache) remove(e *entry) {
	for i, x := range c.entries {
		if x == e {
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			break
		}
	}
	c.bytes -= e.bytes
	n := c.root(e.adapter)
	n.count--
	for _, t := range e.tokens {
		kid := n.kids[t]
		kid.count--
		if kid.count == 0 {
			delete(n.kids, t)
			break // the rest of the path goes with it
		}
		n = kid
	}
	for i, x := range n.ends {
		if x == e {
			n.ends = append(n.ends[:i], n.ends[i+1:]...)
			break
		}
	}
	c.release(e.cache)
}

// clear releases every entry.
func (c *promptCache) clear() {
	for len(c.entries) > 0 {
		c.remove(c.entries[0])
	}
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
