// Unit tests on small hand-built tokenizer.json files: BPE merge order and options, added-token matching rules,
// normalizers, pre-tokenizer behaviors, decoders, streaming, and load errors. Expected ids are worked out by hand
// from the rules in the reference implementation.
package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// spec describes a test tokenizer; build turns it into tokenizer.json bytes.
type spec struct {
	vocab      []string // id = index
	merges     any      // [][2]string or []string
	model      map[string]any
	added      []AddedToken
	normalizer any
	pre        any
	post       any
	decoder    any
}

func (s spec) build(t *testing.T) []byte {
	t.Helper()
	vocab := map[string]int{}
	for i, v := range s.vocab {
		vocab[v] = i
	}
	model := map[string]any{"type": "BPE", "vocab": vocab, "merges": s.merges}
	if s.merges == nil {
		model["merges"] = [][2]string{}
	}
	for k, v := range s.model {
		model[k] = v
	}
	data, err := json.Marshal(map[string]any{
		"version": "1.0", "added_tokens": s.added, "normalizer": s.normalizer, "pre_tokenizer": s.pre,
		"post_processor": s.post, "decoder": s.decoder, "model": model,
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (s spec) tokenizer(t *testing.T) *Tokenizer {
	t.Helper()
	tok, err := Parse(s.build(t), nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return tok
}

// ids maps token strings to ids in vocab order, for readable expectations.
func (s spec) ids(toks ...string) []int {
	out := []int{}
	for _, tk := range toks {
		out = append(out, slices.Index(s.vocab, tk))
	}
	return out
}

func checkEncode(t *testing.T, tok *Tokenizer, text string, o EncodeOptions, want []int) {
	t.Helper()
	if got := tok.EncodeWith(text, o); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("Encode(%q, %+v) = %v, want %v", text, o, got, want)
	}
}

func TestBPEMergeOrder(t *testing.T) {
	s := spec{
		vocab:  []string{"a", "b", "c", "ab", "bc", "abc", "aa"},
		merges: [][2]string{{"b", "c"}, {"a", "b"}, {"ab", "c"}, {"a", "a"}},
	}
	tok := s.tokenizer(t)
	// (b,c) outranks (a,b), and no merge joins a with bc.
	checkEncode(t, tok, "abc", EncodeOptions{}, s.ids("a", "bc"))
	checkEncode(t, tok, "abab", EncodeOptions{}, s.ids("ab", "ab"))
	// Equal ranks merge leftmost first: aaa is aa|a, not a|aa.
	checkEncode(t, tok, "aaa", EncodeOptions{}, s.ids("aa", "a"))
	checkEncode(t, tok, "aaaaa", EncodeOptions{}, s.ids("aa", "aa", "a"))

	// The same merges written in the older "a b" form give the same result.
	s.merges = []string{"b c", "a b", "ab c", "a a"}
	checkEncode(t, s.tokenizer(t), "abc", EncodeOptions{}, s.ids("a", "bc"))

	// Swapping the first two ranks lets ab form first and then ab+c.
	s.merges = [][2]string{{"a", "b"}, {"b", "c"}, {"ab", "c"}}
	checkEncode(t, s.tokenizer(t), "abc", EncodeOptions{}, s.ids("abc"))
}

func TestBPEOptions(t *testing.T) {
	base := spec{vocab: []string{"<unk>", "a", "b", "c", "ab", "abc", "<0xC3>", "<0xA9>"}, merges: [][2]string{{"a", "b"}}}

	t.Run("ignore_merges", func(t *testing.T) {
		s := base
		checkEncode(t, s.tokenizer(t), "abc", EncodeOptions{}, s.ids("ab", "c"))
		s.model = map[string]any{"ignore_merges": true}
		checkEncode(t, s.tokenizer(t), "abc", EncodeOptions{}, s.ids("abc"))
		checkEncode(t, s.tokenizer(t), "abcab", EncodeOptions{}, s.ids("ab", "c", "ab"))
	})
	t.Run("byte_fallback", func(t *testing.T) {
		s := base
		s.model = map[string]any{"byte_fallback": true, "unk_token": "<unk>"}
		// é is C3 A9; ü (C3 BC) lacks <0xBC> and falls to <unk>.
		checkEncode(t, s.tokenizer(t), "aéb", EncodeOptions{}, s.ids("a", "<0xC3>", "<0xA9>", "b"))
		checkEncode(t, s.tokenizer(t), "aüb", EncodeOptions{}, s.ids("a", "<unk>", "b"))
	})
	t.Run("unk", func(t *testing.T) {
		s := base
		s.model = map[string]any{"unk_token": "<unk>"}
		checkEncode(t, s.tokenizer(t), "axyb", EncodeOptions{}, s.ids("a", "<unk>", "<unk>", "b"))
		s.model["fuse_unk"] = true
		checkEncode(t, s.tokenizer(t), "axyb", EncodeOptions{}, s.ids("a", "<unk>", "b"))
		checkEncode(t, s.tokenizer(t), "xaby", EncodeOptions{}, s.ids("<unk>", "ab", "<unk>"))
		// Without an unknown token, unknown characters are dropped, and their neighbours can then merge.
		s.model = nil
		checkEncode(t, s.tokenizer(t), "axyb", EncodeOptions{}, s.ids("ab"))
	})
	t.Run("continuing_subword_prefix", func(t *testing.T) {
		s := spec{vocab: []string{"a", "##b", "##c", "ab", "ab##c", "abc"}, merges: [][2]string{{"a", "##b"}, {"ab", "##c"}},
			model: map[string]any{"continuing_subword_prefix": "##"}}
		// a ##b merges to "ab" (the prefix of the right side is dropped), then ab ##c to "abc".
		checkEncode(t, s.tokenizer(t), "abc", EncodeOptions{}, s.ids("abc"))
	})
	t.Run("end_of_word_suffix", func(t *testing.T) {
		s := spec{vocab: []string{"a", "b", "b</w>", "ab</w>", "ab"}, merges: [][2]string{{"a", "b</w>"}},
			model: map[string]any{"end_of_word_suffix": "</w>"}}
		checkEncode(t, s.tokenizer(t), "ab", EncodeOptions{}, s.ids("ab</w>"))
		// The final "a</w>" is unknown and dropped; a b stays apart (only a + b</w> merges).
		checkEncode(t, s.tokenizer(t), "aba", EncodeOptions{}, s.ids("a", "b"))
	})
}

// charSpec is a character-level vocabulary (no merges) with added tokens, for the matching rules.
func charSpec(added ...AddedToken) spec {
	s := spec{}
	for _, r := range "abcdefghijklmnopqrstuvwxyz <>[]_ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
		s.vocab = append(s.vocab, string(r))
	}
	for i := range added {
		added[i].ID = len(s.vocab)
		s.vocab = append(s.vocab, added[i].Content)
	}
	s.added = added
	return s
}

func TestAddedTokens(t *testing.T) {
	s := charSpec(
		AddedToken{Content: "<x>", Special: true},
		AddedToken{Content: "<x>>", Special: true},
		AddedToken{Content: "[l]", LStrip: true},
		AddedToken{Content: "[r]", RStrip: true},
		AddedToken{Content: "sw", SingleWord: true},
		AddedToken{Content: "hey", Normalized: true},
	)
	s.normalizer = map[string]any{"type": "Lowercase"}
	tok := s.tokenizer(t)
	c := func(text string, o EncodeOptions, toks ...string) {
		t.Helper()
		checkEncode(t, tok, text, o, s.ids(toks...))
	}

	c("a<x>b", EncodeOptions{}, "a", "<x>", "b")
	c("a<x>>b", EncodeOptions{}, "a", "<x>>", "b") // leftmost-longest
	c("a  [l]b", EncodeOptions{}, "a", "[l]", "b") // lstrip swallows the spaces before
	c("a  [r]  b", EncodeOptions{}, "a", " ", " ", "[r]", "b")
	c("a sw b", EncodeOptions{}, "a", " ", "sw", " ", "b")
	c("asw b", EncodeOptions{}, "a", "s", "w", " ", "b") // not a single word: read as text
	c("swa", EncodeOptions{}, "s", "w", "a")
	// hey is matched after lowercasing; <X> (normalized=false) is not matched in the raw text and lowercases.
	c("HEY<X>", EncodeOptions{}, "hey", "<", "x", ">")
	// SplitSpecial reads special tokens as text but still matches the others.
	c("<x>sw", EncodeOptions{SplitSpecial: true}, "<", "x", ">", "sw")
	c("", EncodeOptions{AddSpecial: true})

	if !tok.IsSpecial(s.ids("<x>")[0]) || tok.IsSpecial(s.ids("sw")[0]) || tok.IsSpecial(0) {
		t.Errorf("IsSpecial disagrees with the added tokens' special flags")
	}
	if got := tok.Decode(s.ids("a", "<x>", "b"), true); got != "a b" {
		t.Errorf("Decode skipping specials (no decoder joins with spaces) = %q, want %q", got, "a b")
	}
}

func TestNormalizersAndPreTokenizers(t *testing.T) {
	s := charSpec()
	s.vocab = append(s.vocab, "▁", "▁a", "1", "2", "3", "12", ",", ".", "é")
	cases := []struct {
		name       string
		normalizer any
		pre        any
		text       string
		want       []string
	}{
		{"metaspace always", nil, map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"},
			"a b", []string{"▁", "a", "▁", "b"}},
		{"metaspace never", nil, map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": false},
			"a b", []string{"a", "▁", "b"}},
		{"digits contiguous", nil, map[string]any{"type": "Digits", "individual_digits": false}, "a12b", []string{"a", "1", "2", "b"}},
		{"whitespace", nil, map[string]any{"type": "Whitespace"}, " ab , c.", []string{"a", "b", ",", "c", "."}},
		{"whitespace split", nil, map[string]any{"type": "WhitespaceSplit"}, " a  b ", []string{"a", "b"}},
		{"split removed", nil, map[string]any{"type": "Split", "pattern": map[string]any{"String": ","}, "behavior": "Removed", "invert": false},
			"a,b", []string{"a", "b"}},
		{"nfkc lowercase", map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "NFKC"}, map[string]any{"type": "Lowercase"}}}, nil, "ＡＢ", []string{"a", "b"}},
		{"nfd strip accents", map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "NFD"}, map[string]any{"type": "StripAccents"}}}, nil, "é", []string{"e"}},
		{"nfc", map[string]any{"type": "NFC"}, nil, "e\u0301", []string{"é"}},
		{"strip", map[string]any{"type": "Strip", "strip_left": true, "strip_right": false}, nil, "  a ", []string{"a", " "}},
		{"regex replace", map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " +"}, "content": "_"}, nil,
			"a   b", []string{"a", "_", "b"}},
		{"prepend", map[string]any{"type": "Prepend", "prepend": "▁"}, nil, "a", []string{"▁", "a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s2 := s
			s2.normalizer, s2.pre = c.normalizer, c.pre
			checkEncode(t, s2.tokenizer(t), c.text, EncodeOptions{}, s2.ids(c.want...))
		})
	}
}

// TestSplitBehaviors checks every SplitDelimiterBehavior on the reference's own example.
func TestSplitBehaviors(t *testing.T) {
	want := map[string][]string{
		"Removed":            {"The", "final", "countdown"},
		"Isolated":           {"The", "-", "final", "-", "-", "countdown"},
		"MergedWithPrevious": {"The-", "final-", "-", "countdown"},
		"MergedWithNext":     {"The", "-final", "-", "-countdown"},
		"Contiguous":         {"The", "-", "final", "--", "countdown"},
	}
	p := pattern{literal: "-"}
	for name, w := range want {
		var got []string
		for _, pc := range splitPiece(piece{text: "The-final--countdown"}, p.spans("The-final--countdown"), behaviors[name], nil) {
			got = append(got, pc.text)
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: %q, want %q", name, got, w)
		}
	}
}

func TestPostProcessors(t *testing.T) {
	s := charSpec(AddedToken{Content: "<s>", Special: true}, AddedToken{Content: "</s>", Special: true})
	bos, eos := s.ids("<s>")[0], s.ids("</s>")[0]
	s.post = map[string]any{"type": "TemplateProcessing",
		"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}}},
		"special_tokens": map[string]any{"<s>": map[string]any{"id": "<s>", "ids": []int{bos}}, "</s>": map[string]any{"id": "</s>", "ids": []int{eos}}}}
	tok := s.tokenizer(t)
	checkEncode(t, tok, "ab", EncodeOptions{AddSpecial: true}, []int{bos, s.ids("a")[0], s.ids("b")[0], eos})
	checkEncode(t, tok, "ab", EncodeOptions{}, s.ids("a", "b"))
	checkEncode(t, tok, "", EncodeOptions{AddSpecial: true}, []int{bos, eos})

	s.post = map[string]any{"type": "Sequence", "processors": []any{
		map[string]any{"type": "ByteLevel"}, map[string]any{"type": "BertProcessing", "cls": []any{"<s>", bos}, "sep": []any{"</s>", eos}}}}
	checkEncode(t, s.tokenizer(t), "a", EncodeOptions{AddSpecial: true}, []int{bos, s.ids("a")[0], eos})
}

// byteLevelSpec is a byte-level vocabulary with id = byte value and no merges.
func byteLevelSpec() spec {
	s := spec{pre: map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
		decoder: map[string]any{"type": "ByteLevel"}}
	for b := 0; b < 256; b++ {
		s.vocab = append(s.vocab, string(byteToRune[b]))
	}
	return s
}

func TestByteLevel(t *testing.T) {
	s := byteLevelSpec()
	tok := s.tokenizer(t)
	text := "héllo 😀\n"
	var want []int
	for i := 0; i < len(text); i++ {
		want = append(want, int(text[i]))
	}
	checkEncode(t, tok, text, EncodeOptions{}, want)
	if got := tok.Decode(want, false); got != text {
		t.Errorf("Decode = %q, want %q", got, text)
	}
	// Invalid UTF-8 input is not an error: its bytes encode as themselves.
	checkEncode(t, tok, "a\xffb\xc3", EncodeOptions{}, []int{'a', 0xff, 'b', 0xc3})
	if got := string(tok.TokenBytes(0xF0)); got != "\xF0" {
		t.Errorf("TokenBytes(0xF0) = %q, want the raw byte", got)
	}
	// A cut-off character decodes to one U+FFFD (maximal subpart), as Rust's from_utf8_lossy does.
	if got := tok.Decode([]int{'a', 0xF0, 0x9F, 0x98}, false); got != "a\uFFFD" {
		t.Errorf("Decode of a truncated emoji = %q, want %q", got, "a\uFFFD")
	}
}

func TestStreamHoldsIncompleteCharacters(t *testing.T) {
	tok := byteLevelSpec().tokenizer(t)
	text := "é😀a"
	var got []string
	s := tok.NewStream(false)
	for i := 0; i < len(text); i++ {
		got = append(got, s.Add(int(text[i])))
	}
	want := []string{"", "é", "", "", "", "😀", "a"}
	if !slices.Equal(got, want) {
		t.Errorf("stream steps %q, want %q", got, want)
	}
	// An unfinished character at the end comes out of Flush as U+FFFD.
	s.Add('b')
	s.Add(0xE6)
	if rest := s.Flush(); rest != "\uFFFD" {
		t.Errorf("Flush = %q, want U+FFFD", rest)
	}
}

func TestLossyUTF8(t *testing.T) {
	cases := []struct{ in, want string }{
		// The example of "U+FFFD Substitution of Maximal Subparts", Unicode Standard §3.9.
		{"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd"},
		{"\xE0\x80", "\uFFFD\uFFFD"},           // E0 needs A0..BF next
		{"\xED\xA0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate
		{"\xF4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"\xF0\x9F\x98", "\uFFFD"},
		{"ok\xC3", "ok\uFFFD"},
		{"日本", "日本"},
	}
	for _, c := range cases {
		if got := lossyUTF8([]byte(c.in)); got != c.want {
			t.Errorf("lossyUTF8(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDecoders(t *testing.T) {
	s := spec{vocab: []string{"▁hi", "▁there", "<0xE6>", "<0x97>", "<0xA5>", "x", "▁▁"}}
	s.decoder = map[string]any{"type": "Sequence", "decoders": []any{
		map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "},
		map[string]any{"type": "ByteFallback"}, map[string]any{"type": "Fuse"},
		map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0}}}
	tok := s.tokenizer(t)
	cases := []struct {
		ids  []int
		want string
	}{
		{[]int{0, 1}, "hi there"},
		{[]int{2, 3, 4, 5}, "日x"},
		{[]int{2, 3, 5}, "\uFFFD\uFFFDx"}, // an incomplete byte run: one U+FFFD per byte
		{[]int{6, 0}, "  hi"},             // Strip cuts one leading space only
		{[]int{99, 0}, "hi"},              // unknown ids are skipped
	}
	for _, c := range cases {
		if got := tok.Decode(c.ids, false); got != c.want {
			t.Errorf("Decode(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
	if got := string(tok.TokenBytes(0)); got != " hi" {
		t.Errorf("TokenBytes(▁hi) = %q, want %q (no start-of-text strip mid-sequence)", got, " hi")
	}

	s.decoder = map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}
	if got := s.tokenizer(t).Decode([]int{0, 1}, false); got != "hi there" {
		t.Errorf("Metaspace Decode = %q, want %q", got, "hi there")
	}
	s.decoder = map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never"}
	if got := s.tokenizer(t).Decode([]int{0, 1}, false); got != " hi there" {
		t.Errorf("Metaspace (never) Decode = %q, want %q", got, " hi there")
	}
}

func TestLoadErrors(t *testing.T) {
	good := charSpec()
	cases := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
		unsupp bool
	}{
		{"unigram", func(m map[string]any) { m["model"].(map[string]any)["type"] = "Unigram" }, "Unigram", true},
		{"normalizer", func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Precompiled"} }, "Precompiled", true},
		{"pre_tokenizer", func(m map[string]any) { m["pre_tokenizer"] = map[string]any{"type": "UnicodeScripts"} }, "UnicodeScripts", true},
		{"decoder", func(m map[string]any) { m["decoder"] = map[string]any{"type": "CTC"} }, "CTC", true},
		{"post", func(m map[string]any) { m["post_processor"] = map[string]any{"type": "Weird"} }, "Weird", true},
		{"merge", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []string{"a zz"} }, `"zz" is not in the vocabulary`, false},
		{"merge result", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []string{"a b"} }, `result "ab"`, false},
		{"merge form", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []string{"a b c"} }, "two space-separated", false},
		{"behavior", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Split", "pattern": map[string]any{"String": "a"}, "behavior": "Sideways"}
		}, "Sideways", false},
		{"regex", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `(a`}, "behavior": "Isolated"}
		}, "missing ')'", false},
		{"template", func(m map[string]any) {
			m["post_processor"] = map[string]any{"type": "TemplateProcessing", "single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>"}}}}
		}, `"<s>"`, false},
		{"huge id", func(m map[string]any) { m["model"].(map[string]any)["vocab"].(map[string]any)["a"] = 1 << 32 }, "outside 0..", false},
		{"post id", func(m map[string]any) {
			m["post_processor"] = map[string]any{"type": "BertProcessing", "cls": []any{"a", 0}, "sep": []any{"z", 1 << 20}}
		}, "post_processor adds id 1048576", false},
		{"not json", nil, "tokenizer.json", false},
		// Two tokens of one id: which one it decodes to would change from run to run.
		{"shared id", func(m map[string]any) { m["model"].(map[string]any)["vocab"].(map[string]any)["q"] = 1 },
			`tokenizer.json vocab tokens "b" and "q" both have id 1`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte("{not json")
			if c.mutate != nil {
				var m map[string]any
				if err := json.Unmarshal(good.build(t), &m); err != nil {
					t.Fatal(err)
				}
				c.mutate(m)
				var err error
				if data, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Parse(data, nil)
			if err == nil {
				t.Fatalf("Parse succeeded, want an error mentioning %s", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %s", err, c.want)
			}
			if errors.Is(err, ErrUnsupported) != c.unsupp {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v (%v)", !c.unsupp, c.unsupp, err)
			}
		})
	}
	// added_tokens_decoder keys are ids as written: "12abc" or "07" would be read as id 12 or 7.
	for _, key := range []string{"12abc", "07", "+7", " 7"} {
		cfg := []byte(`{"added_tokens_decoder":{"` + key + `":{"content":"<x>","special":true}}}`)
		want := fmt.Sprintf("tokenizer_config.json added_tokens_decoder key %q is not an id", key)
		if _, err := Parse(good.build(t), cfg); err == nil || err.Error() != want {
			t.Errorf("added_tokens_decoder key %q: err = %v, want %s", key, err, want)
		}
	}
	if _, err := Parse(good.build(t), []byte(`{"eos_token": 7}`)); err == nil || !strings.Contains(err.Error(), "eos_token") {
		t.Errorf("config with a numeric eos_token: err = %v, want one naming eos_token", err)
	}
	tok, err := Parse(good.build(t), []byte(`{"eos_token": "<nope>", "bos_token": {"content": "a"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sp := tok.Specials(); sp.EOS != -1 || sp.EOSText != "<nope>" || sp.BOS != 0 || sp.BOSText != "a" {
		t.Errorf("Specials = %+v, want EOS -1 \"<nope>\" and BOS 0 \"a\"", sp)
	}
}

func TestSpecialsAndVocab(t *testing.T) {
	cases := []struct {
		name               string
		vocabSize          int
		bos, eos, pad, unk int
		eosText            string
	}{
		{"llama2", 32000, 1, 2, -1, 0, "</s>"},
		{"llama3", 128256, 128000, 128001, -1, -1, "<|end_of_text|>"},
		{"qwen3", 151669, -1, 151645, 151643, -1, "<|im_end|>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, _ := loadFixture(t, c.name)
			sp := tok.Specials()
			got := []int{tok.VocabSize(), sp.BOS, sp.EOS, sp.PAD, sp.UNK}
			if want := []int{c.vocabSize, c.bos, c.eos, c.pad, c.unk}; !slices.Equal(got, want) {
				t.Errorf("vocab size, BOS, EOS, PAD, UNK = %v, want %v", got, want)
			}
			if sp.EOSText != c.eosText {
				t.Errorf("EOSText = %q, want %q", sp.EOSText, c.eosText)
			}
			if id, ok := tok.ID(c.eosText); !ok || id != c.eos {
				t.Errorf("ID(%q) = %d, %v", c.eosText, id, ok)
			}
			if s, ok := tok.Token(c.eos); !ok || s != c.eosText {
				t.Errorf("Token(%d) = %q, %v", c.eos, s, ok)
			}
			if !tok.IsSpecial(c.eos) {
				t.Errorf("IsSpecial(%d) = false", c.eos)
			}
			if _, ok := tok.Token(tok.VocabSize()); ok {
				t.Errorf("Token(VocabSize()) found a token")
			}
		})
	}
}

// TestTrainedModelPrompt checks a trained byte-level model's prompt and greedy continuation from its fixture.
func TestTrainedModelPrompt(t *testing.T) {
	dir := testutil.Fixture(t, "trained/pycoder-12m")
	tok, err := readDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(dir + "/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		PromptText   string `json:"prompt_text"`
		PromptIDs    []int  `json:"prompt_ids"`
		GreedyText   string `json:"greedy_text"`
		GreedyNewIDs []int  `json:"greedy_new_ids"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode(g.PromptText, true); !slices.Equal(got, g.PromptIDs) {
		t.Errorf("Encode(prompt) differs from the reference prompt ids (%d vs %d ids)", len(got), len(g.PromptIDs))
	}
	if got := tok.Decode(g.GreedyNewIDs, false); got != g.GreedyText {
		t.Errorf("Decode(greedy ids) = %q, want %q", got, g.GreedyText)
	}
	if tok.Specials().EOS != 256 {
		t.Errorf("EOS = %d, want 256", tok.Specials().EOS)
	}
}

// TestConcurrentEncode encodes the golden cases from several goroutines at once (the word cache is shared) and
// checks every result; run with -race to check the locking too.
func TestConcurrentEncode(t *testing.T) {
	tok, dir := loadFixture(t, "qwen3")
	g := readGolden(t, filepath.Join(dir, "encode_golden.json"))
	tok.model.mu.Lock()
	tok.model.cache = make(map[string][]int)
	tok.model.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(g.Cases))
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range g.Cases {
				if got := tok.Encode(c.Text, false); !slices.Equal(got, c.IDs) {
					errs <- c.Text
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for text := range errs {
		t.Errorf("concurrent Encode(%q) differs from the golden ids", text)
	}
}
