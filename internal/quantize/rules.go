// Per-path bit widths (--bits-per-path): comma-separated `pattern=bits` rules over module paths such as
// "model.layers.0.mlp.down_proj". A pattern matches when the path contains it, `*` standing for any run of
// characters, so `mlp.down_proj`, `layers.0.*` and `layers.0.` all match anywhere in the path. The first matching
// rule gives the tensor's bits; tensors no rule matches get the default.
package quantize

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mlxbun/mlxbun/internal/trellis"
)

// Rule gives the trellis-coded tensors whose module path matches Pattern Bits bits per weight.
type Rule struct {
	Pattern string
	Bits    int
}

// String is the rule as the command line spells it.
func (r Rule) String() string { return r.Pattern + "=" + strconv.Itoa(r.Bits) }

// ParseRules reads "pattern=bits,pattern=bits,...". An empty string is no rules; an empty entry, a missing '=',
// an empty pattern or bits that are not an integer in 1..8 is an error naming the entry.
func ParseRules(s string) ([]Rule, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var rules []Rule
	for i, entry := range strings.Split(s, ",") {
		pattern, bits, ok := strings.Cut(entry, "=")
		pattern, bits = strings.TrimSpace(pattern), strings.TrimSpace(bits)
		n, err := strconv.Atoi(bits)
		switch {
		case strings.TrimSpace(entry) == "":
			return nil, fmt.Errorf("--bits-per-path: rule %d is empty (rules are pattern=bits, comma-separated)", i+1)
		case !ok:
			return nil, fmt.Errorf("--bits-per-path: rule %q has no '=' (want pattern=bits)", entry)
		case pattern == "":
			return nil, fmt.Errorf("--bits-per-path: rule %q has an empty pattern", entry)
		case err != nil || n < trellis.MinK || n > trellis.MaxK:
			return nil, fmt.Errorf("--bits-per-path: rule %q: bits %q is not an integer in %d..%d", entry, bits, trellis.MinK, trellis.MaxK)
		}
		rules = append(rules, Rule{Pattern: pattern, Bits: n})
	}
	return rules, nil
}

// Matches reports whether path contains the pattern, `*` matching any run of characters (empty included).
// The pieces between stars are found left to right, each as early as possible, which decides an unanchored
// star pattern exactly.
func (r Rule) Matches(path string) bool {
	rest := path
	for _, piece := range strings.Split(r.Pattern, "*") {
		i := strings.Index(rest, piece)
		if i < 0 {
			return false
		}
		rest = rest[i+len(piece):]
	}
	return true
}

// bitsFor returns the bits of the first rule matching path, or def.
func bitsFor(rules []Rule, path string, def int) int {
	for _, r := range rules {
		if r.Matches(path) {
			return r.Bits
		}
	}
	return def
}
