// Package tokenizer reads a Hugging Face tokenizer.json (BPE models: byte-level like Llama 3 and Qwen, or
// metaspace with byte fallback like Llama 2) and encodes text to token ids and back, matching the reference
// `tokenizers` library id for id.
//
// The pipeline is the reference's: added tokens are cut out first (added.go), the rest is normalized
// (normalize.go), pre-tokenized into words (pretokenize.go, with the regex dialect in regex*.go), each word is
// BPE-merged (bpe.go), and the post-processor adds special tokens (postprocess.go). Decoding runs the decoder
// chain (decode.go); stream.go decodes incrementally for generation. Offsets, padding, truncation, pair inputs
// and the WordPiece/Unigram/WordLevel models are left out.
package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrUnsupported marks a tokenizer.json component this package does not implement; errors wrapping it name the
// component.
var ErrUnsupported = errors.New("not supported")

// Tokenizer encodes and decodes text. It is immutable after loading apart from an internal word cache, and safe
// for concurrent use.
type Tokenizer struct {
	model     *bpeModel
	norm      normalizer
	pre       preTokenizer
	post      postProcessor
	dec       decoder
	added     []AddedToken // sorted by id
	byID      map[int]*AddedToken
	byContent map[string]int
	rawSet    *addedMatcher // tokens matched in the raw input (normalized=false)
	normSet   *addedMatcher // tokens matched in normalized text
	// addedText is what an added token decodes to: its content, or its normalized form when normalized=true.
	addedText map[int]string
	idToTok   []string // model vocabulary by id ("" for gaps)
	vocabSize int
	specials  SpecialTokens
}

// SpecialTokens are the named special tokens from tokenizer_config.json (and the model's unk_token). An id is
// -1 and its text "" when the token is not defined; a name the vocabulary lacks has its text and id -1.
type SpecialTokens struct {
	BOS, EOS, PAD, UNK                 int
	BOSText, EOSText, PADText, UNKText string
}

// EncodeOptions adjusts Encode.
type EncodeOptions struct {
	// AddSpecial runs the post-processor, adding the special tokens the model expects (e.g. Llama 2's <s>).
	AddSpecial bool
	// SplitSpecial reads special added tokens in the input as plain text instead of as their ids (Hugging Face's
	// split_special_tokens), so untrusted text cannot inject chat markers. Non-special added tokens still match.
	SplitSpecial bool
}

// fileJSON is the top level of tokenizer.json.
type fileJSON struct {
	AddedTokens   []AddedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Model         json.RawMessage `json:"model"`
}

// Parse builds a tokenizer from the contents of tokenizer.json and tokenizer_config.json (config may be nil):
// ParseConfig then FromJSON.
func Parse(tokenizerJSON, configJSON []byte) (*Tokenizer, error) {
	cfg, err := ParseConfig(configJSON)
	if err != nil {
		return nil, err
	}
	return FromJSON(tokenizerJSON, cfg)
}

// FromJSON builds a tokenizer from the contents of tokenizer.json and the parsed tokenizer_config.json (nil when
// there is none). Package modeldir reads both files; tests and fuzzers call this or Parse directly.
func FromJSON(tokenizerJSON []byte, cfg *Config) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(tokenizerJSON, &f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if cfg == nil {
		cfg = &Config{}
	}
	t := &Tokenizer{byID: make(map[int]*AddedToken), byContent: make(map[string]int), addedText: make(map[int]string)}
	var err error
	if t.model, err = parseBPE(f.Model); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.norm, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.pre, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.post, err = parsePostProcessor(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.dec, err = parseDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if err := t.buildVocab(f.AddedTokens, cfg.AddedTokensDecoder); err != nil {
		return nil, err
	}
	// The post-processor adds the same ids around every sequence; an empty one shows them all.
	if t.post != nil {
		for _, id := range t.post.process(nil) {
			if id < 0 || id >= t.vocabSize {
				return nil, fmt.Errorf("tokenizer.json post_processor adds id %d, outside the vocabulary of %d", id, t.vocabSize)
			}
		}
	}
	t.specials = SpecialTokens{BOS: -1, EOS: -1, PAD: -1, UNK: t.model.unkID}
	if t.model.unkID >= 0 {
		t.specials.UNKText = t.idToTok[t.model.unkID]
	}
	for _, s := range []struct {
		text  string
		dst   *string
		dstID *int
	}{
		{cfg.BOS, &t.specials.BOSText, &t.specials.BOS},
		{cfg.EOS, &t.specials.EOSText, &t.specials.EOS},
		{cfg.PAD, &t.specials.PADText, &t.specials.PAD},
		{cfg.UNK, &t.specials.UNKText, &t.specials.UNK},
	} {
		if s.text == "" {
			continue
		}
		// A named token missing from the vocabulary keeps its text with id -1: templates can still print it, and
		// a model's stop ids come from generation_config.json anyway.
		*s.dst, *s.dstID = s.text, -1
		if id, ok := t.ID(s.text); ok {
			*s.dstID = id
		}
	}
	return t, nil
}

// maxTokenID bounds the ids a file may use: the id→token table is dense, so one stray huge id would allocate
// gigabytes (the largest shipped vocabularies, Gemma's, are ~262k), and merges store ids as int32.
const maxTokenID = 1<<24 - 1

// buildVocab indexes the model vocabulary and the added tokens. Added tokens listed only in
// tokenizer_config.json's added_tokens_decoder are added too, as transformers does.
func (t *Tokenizer) buildVocab(added []AddedToken, fromConfig map[string]AddedToken) error {
	seen := make(map[int]bool, len(added))
	for _, a := range added {
		seen[a.ID] = true
	}
	keys := make([]string, 0, len(fromConfig))
	for k := range fromConfig {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a := fromConfig[k]
		id, err := strconv.Atoi(k)
		if err != nil || strconv.Itoa(id) != k { // "12abc" or "07" would be read as another key's id
			return fmt.Errorf("tokenizer_config.json added_tokens_decoder key %q is not an id", k)
		}
		if !seen[id] {
			a.ID = id
			added = append(added, a)
			seen[id] = true
		}
	}
	maxID := -1
	for tok, id := range t.model.vocab {
		if id < 0 || id > maxTokenID {
			return fmt.Errorf("tokenizer.json vocab token %q has id %d outside 0..%d", tok, id, maxTokenID)
		}
		maxID = max(maxID, id)
	}
	for _, a := range added {
		if a.ID < 0 || a.ID > maxTokenID {
			return fmt.Errorf("tokenizer.json added token %q has id %d outside 0..%d", a.Content, a.ID, maxTokenID)
		}
		maxID = max(maxID, a.ID)
	}
	t.vocabSize = maxID + 1
	t.idToTok = make([]string, t.vocabSize)
	held := make([]bool, t.vocabSize)
	for tok, id := range t.model.vocab {
		if held[id] {
			// Which of the two the id decodes to would be the map's iteration order: a different text each run.
			prev := t.idToTok[id]
			return fmt.Errorf("tokenizer.json vocab tokens %q and %q both have id %d", min(prev, tok), max(prev, tok), id)
		}
		t.idToTok[id], held[id] = tok, true
	}
	t.added = append([]AddedToken(nil), added...)
	sort.SliceStable(t.added, func(i, j int) bool { return t.added[i].ID < t.added[j].ID })
	var rawPats, normPats []addedPattern
	for i := range t.added {
		a := &t.added[i]
		if a.Content == "" {
			continue
		}
		t.byID[a.ID] = a
		if _, dup := t.byContent[a.Content]; !dup {
			t.byContent[a.Content] = a.ID
		}
		text := a.Content
		if a.Normalized && t.norm != nil {
			text = t.norm.normalize(a.Content)
			normPats = append(normPats, addedPattern{text, a})
		} else if a.Normalized {
			normPats = append(normPats, addedPattern{text, a})
		} else {
			rawPats = append(rawPats, addedPattern{text, a})
		}
		t.addedText[a.ID] = text
	}
	t.rawSet, t.normSet = newAddedMatcher(rawPats), newAddedMatcher(normPats)
	return nil
}

// Encode tokenizes text; addSpecial adds the model's special tokens through the post-processor.
func (t *Tokenizer) Encode(text string, addSpecial bool) []int {
	return t.EncodeWith(text, EncodeOptions{AddSpecial: addSpecial})
}

// EncodeWith tokenizes text with options.
func (t *Tokenizer) EncodeWith(text string, o EncodeOptions) []int {
	var skip func(*AddedToken) bool
	if o.SplitSpecial {
		skip = func(a *AddedToken) bool { return a.Special }
	}
	var ids []int
	var words []piece
	// flushWords pre-tokenizes and BPE-encodes the plain text gathered since the last added token.
	flushWords := func() {
		if len(words) == 0 {
			return
		}
		if t.pre != nil {
			words = t.pre.preTokenize(words)
		}
		for _, w := range words {
			ids = t.model.tokenize(w.text, ids)
		}
		words = words[:0]
	}
	if text != "" {
		for _, seg := range t.rawSet.split(text, true, skip, nil) {
			if seg.tok != nil {
				flushWords()
				ids = append(ids, seg.tok.ID)
				continue
			}
			s := seg.text
			if t.norm != nil {
				s = t.norm.normalize(s)
			}
			if s == "" {
				continue
			}
			for _, sub := range t.normSet.split(s, seg.first, skip, nil) {
				if sub.tok != nil {
					flushWords()
					ids = append(ids, sub.tok.ID)
					continue
				}
				words = append(words, piece{sub.text, sub.first})
			}
		}
		flushWords()
	}
	if o.AddSpecial && t.post != nil {
		ids = t.post.process(ids)
	}
	return ids
}

// tokenString is the string the decoder chain sees for id: an added token's text or the model's token.
func (t *Tokenizer) tokenString(id int) (string, bool) {
	if s, ok := t.addedText[id]; ok {
		return s, true
	}
	if id >= 0 && id < len(t.idToTok) && t.idToTok[id] != "" {
		return t.idToTok[id], true
	}
	return "", false
}

// Decode turns ids back into text. Unknown ids are skipped; skipSpecial also skips special added tokens.
func (t *Tokenizer) Decode(ids []int, skipSpecial bool) string {
	return t.decode(ids, skipSpecial, decodeOpts{})
}

// decode runs the decoder chain over the token strings of ids.
func (t *Tokenizer) decode(ids []int, skipSpecial bool, o decodeOpts) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		s, ok := t.tokenString(id)
		if !ok || (skipSpecial && t.IsSpecial(id)) {
			continue
		}
		toks = append(toks, s)
	}
	if t.dec == nil {
		return strings.Join(toks, " ")
	}
	return strings.Join(t.dec.decodeChain(toks, o), "")
}

// TokenBytes returns the bytes id contributes to decoded text in the middle of a sequence: byte-level tokens
// map back to raw bytes (possibly an incomplete UTF-8 sequence), '▁' becomes ' ', <0xXX> becomes its byte. Nil
// for an unknown id. Samplers that constrain output by bytes (grammars) build their tables from this.
func (t *Tokenizer) TokenBytes(id int) []byte {
	s, ok := t.tokenString(id)
	if !ok {
		return nil
	}
	if t.dec == nil {
		return []byte(s)
	}
	return []byte(strings.Join(t.dec.decodeChain([]string{s}, decodeOpts{raw: true, cont: true}), ""))
}

// VocabSize is one more than the largest id of the model vocabulary and the added tokens.
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// ID looks up a token string (an added token's content or a model vocabulary entry).
func (t *Tokenizer) ID(token string) (int, bool) {
	if id, ok := t.byContent[token]; ok {
		return id, true
	}
	id, ok := t.model.vocab[token]
	return id, ok
}

// Token is the vocabulary string of id (byte-level tokens in their alphabet, e.g. "Ġhello").
func (t *Tokenizer) Token(id int) (string, bool) {
	if a, ok := t.byID[id]; ok {
		return a.Content, true
	}
	if id >= 0 && id < len(t.idToTok) && t.idToTok[id] != "" {
		return t.idToTok[id], true
	}
	return "", false
}

// IsSpecial reports whether id is an added token marked special.
func (t *Tokenizer) IsSpecial(id int) bool {
	a, ok := t.byID[id]
	return ok && a.Special
}

// AddedTokens lists the added tokens by id.
func (t *Tokenizer) AddedTokens() []AddedToken { return append([]AddedToken(nil), t.added...) }

// Specials returns the named special tokens.
func (t *Tokenizer) Specials() SpecialTokens { return t.specials }
