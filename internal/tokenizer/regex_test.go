// Tests of the regex engine: differential against Go's regexp (an independent leftmost-first engine) on
// lookaround-free patterns over random text, and hand-worked cases for what RE2 cannot express.
package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// White_Space spelled out for Go's regexp, whose \s is ASCII-only (Oniguruma's is Unicode White_Space).
const goSpace = `\t\n\v\f\r \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// goWord is Oniguruma's \w (L, M, Nd, Pc) for Go's regexp, whose \w is ASCII-only.
const goWord = `\p{L}\p{M}\p{Nd}\p{Pc}`

// toGoSyntax rewrites \s, \S, \d and \w (inside and outside classes) for Go's regexp.
func toGoSyntax(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			switch {
			case n == 's' && inClass:
				b.WriteString(goSpace)
			case n == 's':
				b.WriteString("[" + goSpace + "]")
			case n == 'S' && !inClass:
				b.WriteString("[^" + goSpace + "]")
			case n == 'S':
				panic("\\S inside a class has no Go spelling here")
			case n == 'd':
				b.WriteString(`\p{Nd}`)
			case n == 'w' && inClass:
				b.WriteString(goWord)
			case n == 'w':
				b.WriteString("[" + goWord + "]")
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// differentialPatterns are lookaround-free patterns in Oniguruma syntax, real tokenizer splits first.
var differentialPatterns = []string{
	// Llama 3 / Qwen 2 without the \s+(?!\S) alternative.
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+`,
	// GPT-2 without it.
	`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+`,
	// o200k-style case-aware words.
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+`,
	// DeepSeek V3's word split without its lookahead alternative.
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+",
	// DeepSeek-style explicit ranges.
	`\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓ]+`,
	`\s?[!-/:-~！-／：-～‘-‟　-。]+`,
	`[一-龥ࠀ-一가-퟿]+`,
	`\p{N}+|[\r\n]`,
	// Backtracking shapes: alternation order, nested and counted repetition, laziness, anchors.
	`(?:ab|a)(?:bc)?c`,
	`(a|ab)(c|bcd)(d*)`,
	`a*?b|a+`,
	`(?:ab){2,3}|b`,
	`(?:a|b){1,2}?b`,
	`[a-c]{0,2}?c`,
	`(?:a*)*b`,
	`(?:a?b?)*c`,
	`(?:a|ab)+?c|.`,
	`x{2}y{1,}|z{0,2}`,
	`(?i)straße|σ+`,
	`[^a-c\d]+|\d+|\w+`,
	`\x41|\x{263a}|\u00e9|\.|\[|\\`,
}

// randomText draws runes from a mix chosen to hit every class in the patterns above.
func randomText(r *rand.Rand, n int) string {
	alphabet := []rune("aabbcddxyzAZSsſKk '’\t\n\r\u00a0\u3000\u2028 .,!?;:-_/\\[]()\"$%&*+=<>@#^`|~{}" +
		"0123456789²٣ßéÉ\u0301ŉΣσςαβ日本語中文한국어ПриветمرحباΩ€¥😀👍🏽\u200d\u200bＡｚ！・")
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// goMatches runs Go's regexp and converts byte offsets to rune offsets.
func goMatches(re *regexp.Regexp, s string) [][2]int {
	var out [][2]int
	for _, m := range re.FindAllStringIndex(s, -1) {
		out = append(out, [2]int{utf8.RuneCountInString(s[:m[0]]), utf8.RuneCountInString(s[:m[1]])})
	}
	return out
}

func TestRegexDifferentialAgainstGoRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "a", "ab", "abbc", "aaab", "abcd", "abababc", "I'm John's, isn't it? We'll SEE'S", "  x\n\n  y \r\n"}
	for i := 0; i < 300; i++ {
		texts = append(texts, randomText(r, 1+r.IntN(40)))
	}
	for _, p := range differentialPatterns {
		ours, err := compileRegex(p)
		if err != nil {
			t.Fatalf("compile %q: %v", p, err)
		}
		goRe := regexp.MustCompile(strings.NewReplacer(`\x{263a}`, `\x{263a}`, `\u00e9`, `\x{e9}`).Replace(toGoSyntax(p)))
		bad := 0
		for _, s := range texts {
			got, want := ours.findAll([]rune(s)), goMatches(goRe, s)
			if !slices.Equal(got, want) && bad < 3 {
				bad++
				t.Errorf("pattern %q on %q:\n got %v\nwant %v", p, s, got, want)
			}
		}
	}
}

// TestRegexLookaround checks the constructs Go's regexp lacks against hand-worked matches (rune ranges).
func TestRegexLookaround(t *testing.T) {
	cases := []struct {
		pattern, text string
		want          [][2]int
	}{
		// \s+ backs off one space so the next word keeps its leading space.
		{`\s+(?!\S)|\s+`, "a   b", [][2]int{{1, 3}, {3, 4}}},
		{`\s+(?!\S)|\s+`, "a   ", [][2]int{{1, 4}}},
		{`\s+(?!\S)|\s+`, "a \n b", [][2]int{{1, 3}, {3, 4}}},
		{`a(?=b)`, "abacab", [][2]int{{0, 1}, {4, 5}}},
		{`(?<=a)b`, "abcbab", [][2]int{{1, 2}, {5, 6}}},
		{`(?<!a)b`, "abcbab", [][2]int{{3, 4}}},
		{`(?<=ab|c)d`, "abdcdxd", [][2]int{{2, 3}, {4, 5}}},
		// Atomic and possessive: no giving back.
		{`(?>a+)a`, "aaa", nil},
		{`a++a`, "aaa", nil},
		{`a*+b`, "aab", [][2]int{{0, 3}}},
		{`(?:ab)++c|b`, "ababc", [][2]int{{0, 5}}},
		{`(?>ab|a)c`, "ac abc", [][2]int{{0, 2}, {3, 6}}},
		// Oniguruma lines: ^ and $ work at every newline.
		{`^a|b$`, "ab\nab\nb", [][2]int{{0, 1}, {1, 2}, {3, 4}, {4, 5}, {6, 7}}},
		{`\s+$`, "a  \nb  ", [][2]int{{1, 3}, {5, 7}}},
		// \b and \B use Unicode \w.
		{`\bab\b|\Bb`, "ab éab abb b_b", [][2]int{{0, 2}, {5, 6}, {8, 9}, {9, 10}, {13, 14}}},
		// {,m} is {0,m}.
		{`z{,2}`, "zzz", [][2]int{{0, 2}, {2, 3}}},
		{`\Aa|a\z`, "aaa", [][2]int{{0, 1}, {2, 3}}},
		// Empty matches advance one rune and are skipped right after a match.
		{`x*`, "axxb", [][2]int{{0, 0}, {1, 3}, {4, 4}}},
		// Case folding reaches ſ (U+017F) and K (Kelvin) through the folding orbit.
		{`(?i:'s|k)`, "'ſ 'S K", [][2]int{{0, 2}, {3, 5}, {6, 7}}},
		// {n,m}+ is a repeated interval in Oniguruma syntax, not a possessive one.
		{`\d{1,3}+`, "12345", [][2]int{{0, 5}}},
	}
	for _, c := range cases {
		re, err := compileRegex(c.pattern)
		if err != nil {
			t.Fatalf("compile %q: %v", c.pattern, err)
		}
		if got := re.findAll([]rune(c.text)); !slices.Equal(got, c.want) {
			t.Errorf("%q on %q = %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}

// TestRegexClasses checks Oniguruma's Unicode meanings of the class escapes on single runes.
func TestRegexClasses(t *testing.T) {
	cases := []struct {
		pattern string
		in, out string // runes that must match / must not match the whole pattern
	}{
		{`\s`, " \t\n\r\v\f\u0085\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000", "a\u200b\u180e_"},
		{`\S`, "a\u200b_", " \u00a0\u3000"},
		{`\d`, "0٣९", "a²Ⅻ"},
		{`\w`, "aé_日\u0301٣", " -.!\u200d"},
		{`\p{L}`, "aΩ日ß", "1 _\u0301"},
		{`\p{N}`, "1²٣Ⅻ½", "a _"},
		{`\P{L}`, "1 _", "aΩ"},
		{`\p{Lu}`, "AΩ", "aω"},
		{`\p{Han}`, "日本", "aカ"},
		{`\p{^L}`, "1", "a"},
		{`[^\s\p{L}\p{N}]`, "!_€😀\u200d", " a1\u3000"},
		{`[\S]`, "a!", " \n"},
		{`[\W\d]`, "1 !", "a_"},
		{`.`, "a \r\u2028", "\n"},
		{`[\]\-^]`, "]-^", "a\\"},
		{`\h`, "0aF", "gG"},
	}
	for _, c := range cases {
		re, err := compileRegex(c.pattern)
		if err != nil {
			t.Fatalf("compile %q: %v", c.pattern, err)
		}
		for _, r := range c.in {
			if m := re.findAll([]rune{r}); len(m) != 1 || m[0] != [2]int{0, 1} {
				t.Errorf("%q should match %U", c.pattern, r)
			}
		}
		for _, r := range c.out {
			if m := re.findAll([]rune{r}); len(m) != 0 {
				t.Errorf("%q should not match %U", c.pattern, r)
			}
		}
	}
}

// TestRegexRejects checks that unsupported or malformed syntax fails to compile with an error naming it.
func TestRegexRejects(t *testing.T) {
	cases := map[string]string{
		`(a)\1`:       "backreference",
		`[[:alpha:]]`: "POSIX",
		`[a&&b]`:      "intersection",
		`(?x)a`:       "flag",
		`a)`:          "unmatched",
		`(a`:          "missing",
		`[ab`:         "unterminated",
		`*a`:          "nothing to repeat",
		`\p{Nope}`:    "Unicode property",
		`[z-a]`:       "reversed",
		`\q`:          "unsupported escape",
	}
	for p, want := range cases {
		_, err := compileRegex(p)
		if err == nil {
			t.Errorf("%q compiled, want an error about %s", p, want)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("%q", p)) {
			t.Errorf("%q: error %q should name the pattern and %q", p, err, want)
		}
	}
}

// TestRegexRealPatternsCompile compiles split patterns shipped by real tokenizers, lookaround and possessive
// forms included, and checks one characteristic split of each.
func TestRegexRealPatternsCompile(t *testing.T) {
	cases := []struct {
		name, pattern, text string
		want                []string
	}{
		{"gpt2", `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
			"it's  12 ok", []string{"it", "'s", " ", " 12", " ok"}},
		{"cl100k", `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`,
			"I'LL go  \n x", []string{"I", "'LL", " go", "  \n", " x"}},
		{"o200k", `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
			"HelloWorld's 1234", []string{"Hello", "World's", " ", "123", "4"}},
	}
	for _, c := range cases {
		re, err := compileRegex(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		rs := []rune(c.text)
		for _, m := range re.findAll(rs) {
			got = append(got, string(rs[m[0]:m[1]]))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s on %q = %q, want %q", c.name, c.text, got, c.want)
		}
	}
}

// TestRegexLimits: patterns from a hostile tokenizer.json fail to compile or stop matching instead of overflowing
// the stack, compiling for minutes, or backtracking for ages (regressions found while fuzzing FuzzLoad).
func TestRegexLimits(t *testing.T) {
	for _, c := range []struct{ name, pattern, want string }{
		{"deep groups", strings.Repeat("(", 1<<20) + strings.Repeat(")", 1<<20), "nest deeper"},
		{"deep classes", strings.Repeat("[", 1<<20), "nest deeper"},
		{"nested intervals", "((a{0,1000}){0,1000}){0,1000}", "instructions"},
		{"long unroll", "(ab){100000}", "instructions"},
	} {
		if _, err := compileRegex(c.pattern); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := compileRegex(strings.Repeat("(", maxRegexDepth) + "a" + strings.Repeat(")", maxRegexDepth)); err != nil {
		t.Errorf("nesting %d deep: %v", maxRegexDepth, err)
	}
	// (a|aa)*c over n a's takes Fibonacci(n) steps; the budget stops it with no match found.
	re := mustCompileRegex(`(a|aa)*c|b`)
	in := []rune(strings.Repeat("a", 200) + "b")
	if got := re.findAll(in); len(got) != 0 {
		t.Errorf("exhausted search found %v, want nothing", got)
	}
	if got := re.findAll([]rune("aac b")); !slices.Equal(got, [][2]int{{0, 3}, {4, 5}}) {
		t.Errorf("findAll within budget = %v, want [[0 3] [4 5]]", got)
	}
}
