// The BPE model: turns one pre-tokenized word into token ids by starting from its characters and applying merges
// in rank order, exactly as Hugging Face's BPE does (including its tie-breaking: among equal ranks the leftmost
// pair merges first), with byte fallback, unknown-token fusing, continuing-subword prefix, end-of-word suffix and
// ignore_merges. Dropout is ignored: inference wants the deterministic segmentation.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// mergeRule is what merging one pair of ids yields.
type mergeRule struct {
	rank  int32
	newID int32
}

// bpeModel holds the vocabulary and merges; it is safe for concurrent use.
type bpeModel struct {
	vocab        map[string]int
	merges       map[uint64]mergeRule // key: left id << 32 | right id
	unkID        int                  // -1: unknown characters are dropped
	prefix       string               // continuing_subword_prefix
	suffix       string               // end_of_word_suffix
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	byteIDs      [256]int // id of "<0xXX>" per byte, -1 where absent

	mu    sync.RWMutex
	cache map[string][]int
}

// Hugging Face's cache bounds: at most this many words, each shorter than maxCachedWord bytes.
const (
	cacheCapacity = 10000
	maxCachedWord = 256
)

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// bpeJSON is the "model" object of tokenizer.json.
type bpeJSON struct {
	Type                    string          `json:"type"`
	Vocab                   map[string]int  `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
}

// parseBPE builds the model. Merges come either as ["a b", ...] (older files) or as [["a","b"], ...]; a merge
// naming a token missing from the vocabulary is an error, as in Hugging Face. A later duplicate of a pair
// replaces the earlier one.
func parseBPE(raw json.RawMessage) (*bpeModel, error) {
	var j bpeJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if j.Type != "" && j.Type != "BPE" {
		return nil, fmt.Errorf("model type %q (only BPE is implemented): %w", j.Type, ErrUnsupported)
	}
	if j.Vocab == nil {
		return nil, fmt.Errorf("model: no vocab")
	}
	pairs, err := parseMerges(j.Merges)
	if err != nil {
		return nil, err
	}
	m := &bpeModel{vocab: j.Vocab, unkID: -1, fuseUnk: j.FuseUnk, byteFallback: j.ByteFallback,
		ignoreMerges: j.IgnoreMerges, cache: make(map[string][]int)}
	if j.ContinuingSubwordPrefix != nil {
		m.prefix = *j.ContinuingSubwordPrefix
	}
	if j.EndOfWordSuffix != nil {
		m.suffix = *j.EndOfWordSuffix
	}
	if j.UnkToken != nil {
		// Hugging Face fails the encode when the unknown token is missing from the vocabulary; here the
		// character is dropped instead, which is what happens when no unknown token is configured at all.
		if id, ok := j.Vocab[*j.UnkToken]; ok {
			m.unkID = id
		}
	}
	for b := range m.byteIDs {
		m.byteIDs[b] = -1
		if id, ok := j.Vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			m.byteIDs[b] = id
		}
	}
	m.merges = make(map[uint64]mergeRule, len(pairs))
	for rank, p := range pairs {
		a, okA := j.Vocab[p[0]]
		b, okB := j.Vocab[p[1]]
		merged := p[0] + strings.TrimPrefix(p[1], m.prefix)
		n, okN := j.Vocab[merged]
		switch {
		case !okA:
			return nil, fmt.Errorf("merge %d (%q %q): %q is not in the vocabulary", rank, p[0], p[1], p[0])
		case !okB:
			return nil, fmt.Errorf("merge %d (%q %q): %q is not in the vocabulary", rank, p[0], p[1], p[1])
		case !okN:
			return nil, fmt.Errorf("merge %d (%q %q): result %q is not in the vocabulary", rank, p[0], p[1], merged)
		}
		m.merges[pairKey(a, b)] = mergeRule{rank: int32(rank), newID: int32(n)}
	}
	return m, nil
}

// parseMerges reads either merge encoding into pairs.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	inner := strings.TrimSpace(strings.TrimPrefix(s, "["))
	if strings.HasPrefix(inner, "[") {
		var pairs [][2]string
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return nil, fmt.Errorf("model merges: %w", err)
		}
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, fmt.Errorf("model merges: %w", err)
	}
	pairs := make([][2]string, 0, len(lines))
	for i, l := range lines {
		if strings.HasPrefix(l, "#version") {
			continue
		}
		a, b, ok := strings.Cut(l, " ")
		if !ok || strings.Contains(b, " ") {
			return nil, fmt.Errorf("model merges: entry %d %q is not two space-separated tokens", i, l)
		}
		pairs = append(pairs, [2]string{a, b})
	}
	return pairs, nil
}

// tokenize appends the ids of word to dst.
func (m *bpeModel) tokenize(word string, dst []int) []int {
	if word == "" {
		return dst
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[word]; ok {
			return append(dst, id)
		}
	}
	cacheable := len(word) < maxCachedWord
	if cacheable {
		m.mu.RLock()
		ids, ok := m.cache[word]
		m.mu.RUnlock()
		if ok {
			return append(dst, ids...)
		}
	}
	start := len(dst)
	dst = m.mergeWord(word, dst)
	if cacheable {
		m.mu.Lock()
		if len(m.cache) < cacheCapacity {
			m.cache[word] = append([]int(nil), dst[start:]...)
		}
		m.mu.Unlock()
	}
	return dst
}

// symbol is one current token of a word being merged, in a doubly linked list over the initial characters.
// size is its byte length; 0 marks a symbol absorbed into its left neighbour.
type symbol struct {
	id         int
	prev, next int
	size       int
}

// mergeCand is a queued merge of the symbol at pos with its right neighbour.
type mergeCand struct {
	rank, pos, newID int
}

// less orders candidates by rank, then position (leftmost first).
func (a mergeCand) less(b mergeCand) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.pos < b.pos)
}

// mergeWord splits word into initial symbols and merges them; it appends the resulting ids to dst.
func (m *bpeModel) mergeWord(word string, dst []int) []int {
	syms := make([]symbol, 0, len(word))
	add := func(id, size int) {
		prev := -1
		if n := len(syms); n > 0 {
			syms[n-1].next = n
			prev = n - 1
		}
		syms = append(syms, symbol{id: id, prev: prev, next: -1, size: size})
	}
	unkPending, unkSize := false, 0
	flushUnk := func() {
		if unkPending {
			add(m.unkID, unkSize)
			unkPending = false
		}
	}
	for i := 0; i < len(word); {
		_, size := utf8.DecodeRuneInString(word[i:])
		s := word[i : i+size]
		if i > 0 && m.prefix != "" {
			s = m.prefix + s
		}
		if i+size == len(word) && m.suffix != "" {
			s += m.suffix
		}
		i += size
		if id, ok := m.vocab[s]; ok {
			flushUnk()
			add(id, size)
			continue
		}
		if m.byteFallback && m.addBytes(s, add) {
			continue
		}
		if m.unkID < 0 {
			continue
		}
		if unkPending && m.fuseUnk {
			unkSize += size
			continue
		}
		flushUnk()
		unkPending, unkSize = true, size
	}
	flushUnk()
	m.mergeAll(syms)
	for _, s := range syms {
		if s.size > 0 {
			dst = append(dst, s.id)
		}
	}
	return dst
}

// addBytes adds s as byte-fallback tokens when the vocabulary has all of them.
func (m *bpeModel) addBytes(s string, add func(id, size int)) bool {
	for i := 0; i < len(s); i++ {
		if m.byteIDs[s[i]] < 0 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		add(m.byteIDs[s[i]], 1)
	}
	return true
}

// mergeAll applies merges with a min-heap of candidates; stale candidates (whose pair changed since they were
// queued) are recognised by their result id no longer matching, as in Hugging Face's Word::merge_all.
func (m *bpeModel) mergeAll(syms []symbol) {
	var heap []mergeCand
	push := func(c mergeCand) {
		heap = append(heap, c)
		for i := len(heap) - 1; i > 0; {
			parent := (i - 1) / 2
			if !heap[i].less(heap[parent]) {
				break
			}
			heap[i], heap[parent] = heap[parent], heap[i]
			i = parent
		}
	}
	pop := func() mergeCand {
		top := heap[0]
		last := len(heap) - 1
		heap[0] = heap[last]
		heap = heap[:last]
		for i := 0; ; {
			l, r, small := 2*i+1, 2*i+2, i
			if l < len(heap) && heap[l].less(heap[small]) {
				small = l
			}
			if r < len(heap) && heap[r].less(heap[small]) {
				small = r
			}
			if small == i {
				break
			}
			heap[i], heap[small] = heap[small], heap[i]
			i = small
		}
		return top
	}
	queuePair := func(pos int) {
		next := syms[pos].next
		if next < 0 {
			return
		}
		if rule, ok := m.merges[pairKey(syms[pos].id, syms[next].id)]; ok {
			push(mergeCand{rank: int(rule.rank), pos: pos, newID: int(rule.newID)})
		}
	}
	for i := 0; i+1 < len(syms); i++ {
		queuePair(i)
	}
	for len(heap) > 0 {
		top := pop()
		cur := &syms[top.pos]
		if cur.size == 0 || cur.next < 0 {
			continue
		}
		right := syms[cur.next]
		if rule, ok := m.merges[pairKey(cur.id, right.id)]; !ok || int(rule.newID) != top.newID {
			continue
		}
		syms[cur.next].size = 0
		cur.id = top.newID
		cur.size += right.size
		cur.next = right.next
		if right.next >= 0 {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			queuePair(cur.prev)
		}
		queuePair(top.pos)
	}
}
