// Fuzz targets for everything a tokenizer file reaches: Parse over arbitrary tokenizer.json and
// tokenizer_config.json bytes (then a short encode/decode of arbitrary text through whatever loaded), Encode of
// arbitrary text through the real tokenizers, and Decode (whole and streamed) of arbitrary id lists. Whatever the
// input: no panic, no hang, every id Encode returns inside [0, VocabSize).
//
// The round-trip promise checked is the one the goldens back: a byte-level tokenizer (Llama 3, Qwen 3, the
// trained pycoder model) decodes its own encoding of valid UTF-8 text back to that text after its normalizer
// (NFC for Qwen 3, none for the others), and streaming decode concatenates to Decode's text (for a byte-level
// tokenizer whatever the ids; otherwise for ids encoding valid text, see streamed). Llama 2
// (metaspace, byte fallback, Strip decoder) promises less: Decode(Encode(s)) == s only for text that holds no
// '▁' (which decodes to ' ') and no added token's content (after which the Prepend normalizer adds a space), and
// that is what is asserted for it.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
	"golang.org/x/text/unicode/norm"
)

// shrinkTokenizer cuts a real tokenizer.json down to a fuzzable seed: the model vocabulary below n, the merges
// among it (at most 64), the first few added tokens renumbered from n, and the post-processor's special ids
// renumbered with them. Normalizer, pre-tokenizer and decoder stay as they are. Nil when b is nil.
func shrinkTokenizer(tb testing.TB, b []byte, n int) []byte {
	if b == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("shrink: %v", err)
	}
	model := m["model"].(map[string]any)
	vocab := map[string]any{}
	for tok, id := range model["vocab"].(map[string]any) {
		if int(id.(float64)) < n {
			vocab[tok] = id
		}
	}
	model["vocab"] = vocab
	var merges []any
	list, _ := model["merges"].([]any)
	for _, mg := range list {
		var a, b string
		switch v := mg.(type) {
		case string:
			a, b, _ = strings.Cut(v, " ")
		case []any:
			a, b = v[0].(string), v[1].(string)
		}
		if vocab[a] != nil && vocab[b] != nil && vocab[a+b] != nil {
			merges = append(merges, mg)
		}
		if len(merges) == 64 {
			break
		}
	}
	model["merges"] = merges
	remap := map[float64]float64{}
	added, _ := m["added_tokens"].([]any)
	if len(added) > 6 {
		added = added[:6]
	}
	for i, a := range added {
		at := a.(map[string]any)
		remap[at["id"].(float64)] = float64(n + i)
		at["id"] = float64(n + i)
	}
	m["added_tokens"] = added
	if pp, ok := m["post_processor"].(map[string]any); ok {
		if st, ok := pp["special_tokens"].(map[string]any); ok {
			for _, e := range st {
				ids := e.(map[string]any)["ids"].([]any)
				for i, id := range ids {
					if r, ok := remap[id.(float64)]; ok {
						ids[i] = r
					}
				}
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		tb.Fatalf("shrink: %v", err)
	}
	return out
}

// shrinkConfig keeps a tokenizer_config.json's named special tokens; nil when b is nil.
func shrinkConfig(tb testing.TB, b []byte) []byte {
	if b == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("shrink: %v", err)
	}
	keep := map[string]any{}
	for _, k := range []string{"bos_token", "eos_token", "pad_token", "unk_token"} {
		if v, ok := m[k]; ok {
			keep[k] = v
		}
	}
	out, err := json.Marshal(keep)
	if err != nil {
		tb.Fatalf("shrink: %v", err)
	}
	return out
}

// loadSeeds are small hand-written tokenizer.json files covering the components Parse knows.
var loadSeeds = []string{
	`{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2,"<unk>":3},"merges":["a b"],"unk_token":"<unk>","fuse_unk":true}}`,
	`{"model":{"vocab":{"a":0,"##b":1,"a##b":2},"merges":[["a","##b"]],"continuing_subword_prefix":"##","end_of_word_suffix":"</w>","ignore_merges":true},
	  "decoder":{"type":"BPEDecoder","suffix":"</w>"}}`,
	`{"added_tokens":[{"id":4,"content":"<x>","special":true,"lstrip":true},{"id":5,"content":"sw","single_word":true,"rstrip":true,"normalized":true}],
	  "normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Lowercase"},{"type":"StripAccents"},{"type":"Strip","strip_left":true,"strip_right":true},
	    {"type":"Replace","pattern":{"Regex":"\\s+"},"content":" "},{"type":"Prepend","prepend":"▁"}]},
	  "pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":true},{"type":"Punctuation","behavior":"Contiguous"},
	    {"type":"WhitespaceSplit"},{"type":"Whitespace"},{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true}]},
	  "post_processor":{"type":"Sequence","processors":[{"type":"ByteLevel"},{"type":"BertProcessing","cls":["<x>",4],"sep":["<x>",4]}]},
	  "decoder":{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":1}]},
	  "model":{"type":"BPE","vocab":{"a":0,"b":1,"<0x41>":2,"▁":3},"merges":[],"byte_fallback":true}}`,
	`{"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(?i:'s|'t)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"MergedWithNext","invert":true},
	  "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>"}},{"Sequence":{"id":"A"}}],"special_tokens":{"<s>":{"id":"<s>","ids":[0]}}},
	  "decoder":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always"},
	  "model":{"vocab":{"<s>":0,"x":1}}}`,
	`{"normalizer":{"type":"ByteLevel"},"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":true,"use_regex":true},"decoder":{"type":"ByteLevel"},
	  "model":{"vocab":{"Ġ":0,"a":1,"Ġa":2},"merges":["Ġ a"]}}`,
}

// loadTexts are the texts FuzzLoad seeds pair with each tokenizer.
var loadTexts = []string{"Hello, world! 123", " <x>a  sw\n\t", "é😀\u2581<s>ÅΣ", "a\xffb\xc3"}

// loadTextLimit bounds the text FuzzLoad encodes: the target is the loader and what it builds, and a
// backtracking split pattern is allowed to be quadratic in its input.
const loadTextLimit = 256

func FuzzLoad(f *testing.F) {
	for i, s := range loadSeeds {
		f.Add([]byte(s), []byte(nil), loadTexts[i%len(loadTexts)])
	}
	f.Add([]byte(loadSeeds[0]), []byte(`{"bos_token":{"content":"a"},"eos_token":"<nope>","added_tokens_decoder":{"7":{"content":"<y>","special":true}}}`), "a<y>b")
	for _, c := range []struct {
		dir string
		n   int
	}{{"tokenizers/llama2", 400}, {"tokenizers/llama3", 300}, {"tokenizers/qwen3", 300}, {"trained/pycoder-12m", 1 << 20}} {
		tj := shrinkTokenizer(f, testutil.FixtureBytes(f, c.dir+"/tokenizer.json"), c.n)
		if tj == nil {
			continue
		}
		cj := shrinkConfig(f, testutil.FixtureBytes(f, c.dir+"/tokenizer_config.json"))
		for _, text := range loadTexts {
			f.Add(tj, cj, text)
		}
	}
	f.Fuzz(func(t *testing.T, tokJSON, cfgJSON []byte, text string) {
		defer limit.Watch(t, limit.FuzzInput)()
		tok, err := Parse(tokJSON, cfgJSON)
		if err != nil {
			return
		}
		n := tok.VocabSize()
		inVocab := func(what string, ids []int) {
			for _, id := range ids {
				if id < 0 || id >= n {
					t.Fatalf("%s: id %d outside the vocabulary of %d", what, id, n)
				}
			}
		}
		if len(text) > loadTextLimit {
			text = text[:loadTextLimit]
		}
		for _, o := range []EncodeOptions{{}, {AddSpecial: true, SplitSpecial: true}} {
			ids := tok.EncodeWith(text, o)
			inVocab(fmt.Sprintf("Encode(%q, %+v)", text, o), ids)
			tok.Decode(ids, false)
			s := tok.NewStream(true)
			for _, id := range ids {
				s.Add(id)
			}
			s.Flush()
		}
		edges := []int{-1, 0, n - 1, n, 1 << 40}
		tok.Decode(edges, false)
		tok.Decode(edges, true)
		for _, id := range append(edges, 1, 2, n-2) {
			tok.TokenBytes(id)
			tok.Token(id)
			tok.IsSpecial(id)
		}
		sp := tok.Specials()
		for _, id := range []int{sp.BOS, sp.EOS, sp.PAD, sp.UNK} {
			if id < -1 || id >= n {
				t.Fatalf("Specials %+v: id %d outside the vocabulary of %d", sp, id, n)
			}
		}
		for _, a := range tok.AddedTokens() {
			inVocab("added token", []int{a.ID})
		}
	})
}

// fuzzTok is a real tokenizer FuzzEncode and FuzzDecode drive: byteLevel says Decode(Encode(s)) must give back
// normalize(s) (s when normalize is nil) for valid UTF-8 s, not only s free of '▁' and added tokens' content.
type fuzzTok struct {
	dir       string
	byteLevel bool
	normalize func(string) string
	tok       *Tokenizer
}

// fuzzLoaded loads the real tokenizers present in the fixtures.
func fuzzLoaded(f *testing.F) []fuzzTok {
	var out []fuzzTok
	for _, c := range []fuzzTok{
		{dir: "tokenizers/qwen3", byteLevel: true, normalize: norm.NFC.String},
		{dir: "tokenizers/llama3", byteLevel: true},
		{dir: "trained/pycoder-12m", byteLevel: true},
		{dir: "tokenizers/llama2"},
	} {
		tj := testutil.FixtureBytes(f, c.dir+"/tokenizer.json")
		if tj == nil {
			continue
		}
		var err error
		if c.tok, err = Parse(tj, testutil.FixtureBytes(f, c.dir+"/tokenizer_config.json")); err != nil {
			f.Fatalf("%s: %v", c.dir, err)
		}
		out = append(out, c)
	}
	return out
}

// streamed decodes ids one at a time through a Stream and joins what it emits. That equals Decode(ids) for the
// encoding of valid UTF-8 text, but not for every id sequence: with byte fallback a later byte token can turn an
// earlier, already emitted run of <0xXX> tokens invalid (<0x0A> then <0xFE> decodes to "\n" and then, as one
// run, to "\uFFFD\uFFFD"), and Hugging Face's DecodeStream emits the same "\n" first.
func streamed(tok *Tokenizer, ids []int, skipSpecial bool) string {
	var b strings.Builder
	s := tok.NewStream(skipSpecial)
	for _, id := range ids {
		b.WriteString(s.Add(id))
	}
	b.WriteString(s.Flush())
	return b.String()
}

func FuzzEncode(f *testing.F) {
	toks := fuzzLoaded(f)
	for _, s := range []string{"", "Hello, world!", "  leading and trailing  ", "é😀\u2581 tabs\tand\nnewlines\r\n",
		"<|im_start|>user\nhi<|im_end|>", "<|begin_of_text|>x", "<s> a </s>", "def f(x):\n    return x ** 2\n",
		"ǅ ﬁ Å 한국어 \u0301e", "a\xffb\xc3", "'s 's'll 123456 ...!!!"} {
		for i := range toks {
			f.Add(s, uint8(i))
		}
	}
	if b := testutil.FixtureBytes(f, "trained/pycoder-12m/heldout.txt"); b != nil {
		f.Add(string(b[:2000]), uint8(2))
	}
	f.Fuzz(func(t *testing.T, text string, which uint8) {
		if len(toks) == 0 {
			t.Skip("no tokenizer fixtures")
		}
		defer limit.Watch(t, limit.FuzzInput)()
		c := toks[int(which)%len(toks)]
		tok := c.tok
		for _, o := range []EncodeOptions{{}, {AddSpecial: true}, {SplitSpecial: true}} {
			ids := tok.EncodeWith(text, o)
			for _, id := range ids {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("%s: Encode(%q, %+v): id %d outside the vocabulary of %d", c.dir, text, o, id, tok.VocabSize())
				}
			}
			dec := tok.Decode(ids, false)
			if !utf8.ValidString(text) {
				continue // see streamed for why the stream promise needs valid text
			}
			for _, skip := range []bool{false, true} {
				if got, want := streamed(tok, ids, skip), tok.Decode(ids, skip); got != want {
					t.Fatalf("%s: stream(skip=%v) of %v = %q, Decode %q", c.dir, skip, ids, got, want)
				}
			}
			if o.AddSpecial {
				continue
			}
			want := text
			if c.normalize != nil {
				want = c.normalize(text)
			}
			if !c.byteLevel && (strings.Contains(text, "\u2581") || containsAdded(tok, text)) {
				continue
			}
			if dec != want {
				t.Fatalf("%s: Decode(Encode(%q, %+v)) = %q, want %q (ids %v)", c.dir, text, o, dec, want, ids)
			}
		}
	})
}

// containsAdded reports whether text holds some added token's content.
func containsAdded(tok *Tokenizer, text string) bool {
	for _, a := range tok.added {
		if a.Content != "" && strings.Contains(text, a.Content) {
			return true
		}
	}
	return false
}

func FuzzDecode(f *testing.F) {
	toks := fuzzLoaded(f)
	f.Add([]byte{}, uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x40, 0x4f, 0x02, 0x00}, uint8(0))
	f.Add([]byte{0xe6, 0, 0, 0, 0x98, 0, 0, 0, 0x80, 0, 0, 0}, uint8(2))
	f.Add([]byte{1, 0, 0, 0, 0xFF, 0x7c, 0, 0, 3, 1, 0, 0, 0x2c, 0x01, 0, 0}, uint8(3))
	f.Fuzz(func(t *testing.T, idBytes []byte, which uint8) {
		if len(toks) == 0 {
			t.Skip("no tokenizer fixtures")
		}
		defer limit.Watch(t, limit.FuzzInput)()
		c := toks[int(which)%len(toks)]
		tok := c.tok
		// Ids are little-endian int32s: negative, inside and far outside the vocabulary.
		ids := make([]int, len(idBytes)/4)
		for k := range ids {
			b := idBytes[4*k:]
			ids[k] = int(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
		}
		for _, skip := range []bool{false, true} {
			text := tok.Decode(ids, skip)
			if !utf8.ValidString(text) {
				t.Fatalf("%s: Decode(%v, %v) = %q is not valid UTF-8", c.dir, ids, skip, text)
			}
			if got := streamed(tok, ids, skip); got != text && c.byteLevel {
				t.Fatalf("%s: stream(skip=%v) of %v = %q, Decode %q", c.dir, skip, ids, got, text)
			}
		}
		for _, id := range ids {
			tok.TokenBytes(id)
		}
	})
}
