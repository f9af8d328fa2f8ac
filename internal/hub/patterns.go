// Which files of a repository are fetched: glob patterns matched as huggingface_hub's filter_repo_objects matches
// them (Python's fnmatchcase: '*' crosses '/', a pattern ending in '/' means everything under that folder).
package hub

import "strings"

// ModelPatterns are the files a model needs: mlx-lm's DEFAULT_ALLOW_PATTERNS less "*.py" (mlxbun runs no code
// from a repository). Weights are model*.safetensors as in mlx-lm, so a repository's second copy in another
// layout (consolidated.safetensors) is not fetched.
var ModelPatterns = []string{
	"*.json",
	"model*.safetensors",
	"tokenizer.model",
	"*.tiktoken",
	"tiktoken.model",
	"*.txt",
	"*.jsonl",
	"*.jinja",
}

// Match reports whether name matches any of patterns.
func Match(name string, patterns []string) bool {
	for _, p := range patterns {
		p = strings.ReplaceAll(p, "\\", "/")
		if strings.HasSuffix(p, "/") {
			p += "*"
		}
		if fnmatch(p, name) {
			return true
		}
	}
	return false
}

// fnmatch is Python's fnmatchcase: '*' any run (including '/'), '?' one character, '[...]' a set with ranges and
// a leading '!' for its complement; a '[' without its ']' is literal.
func fnmatch(pattern, name string) bool {
	p, n := []rune(pattern), []rune(name)
	// Iterative matching with one backtrack point for the last '*' (the classic wildcard algorithm).
	pi, ni, star, mark := 0, 0, -1, 0
	for ni < len(n) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				star, mark = pi, ni
				pi++
				continue
			case '?':
				pi++
				ni++
				continue
			case '[':
				if ok, width := matchSet(p[pi:], n[ni]); width > 0 {
					if ok {
						pi += width
						ni++
						continue
					}
				} else if n[ni] == '[' {
					pi++
					ni++
					continue
				}
			default:
				if p[pi] == n[ni] {
					pi++
					ni++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		pi, mark = star+1, mark+1
		ni = mark
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchSet matches c against the set at the start of p ("[...]"); width is the set's length, 0 when the '[' has
// no closing ']' (then it is a literal).
func matchSet(p []rune, c rune) (ok bool, width int) {
	i := 1
	negate := i < len(p) && p[i] == '!'
	if negate {
		i++
	}
	start := i
	for ; i < len(p); i++ {
		if p[i] == ']' && i > start {
			break
		}
	}
	if i >= len(p) {
		return false, 0
	}
	set := p[start:i]
	for j := 0; j < len(set); j++ {
		if j+2 < len(set) && set[j+1] == '-' {
			if set[j] <= c && c <= set[j+2] {
				ok = true
			}
			j += 2
		} else if set[j] == c {
			ok = true
		}
	}
	return ok != negate, i + 1
}
