// Constrained decoding for generate: --json-schema, --grammar (GBNF) and --regex compile to a grammar automaton
// over the tokenizer's vocabulary (package grammar), whose Picker fills each token bitmask while the forward pass
// runs. The end ids are allowed only where the output is complete, and generation halts when nothing else may
// follow. A schema or grammar is a file, stdin ("-"), or, as llama.cpp takes them, the text itself when no such
// file exists and the argument reads as one (a JSON object or boolean; a GBNF rule with "::=").
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mlxbun/mlxbun/internal/grammar"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

// constraintFlags are the three ways to give a grammar; at most one may be set.
type constraintFlags struct {
	jsonSchema, grammarFile, regex string
	inline                         bool // the --json-schema or --grammar argument was the text itself (set by parse)
}

func (c *constraintFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&c.jsonSchema, "json-schema", "", "constrain the output to JSON valid under this JSON Schema: a file, - for stdin, or the schema itself")
	fl.StringVar(&c.grammarFile, "grammar", "", "constrain the output to this GBNF grammar (start rule: root): a file, - for stdin, or the grammar itself")
	fl.StringVar(&c.regex, "regex", "", "constrain the whole output to match this regular expression")
}

func (c *constraintFlags) set() bool {
	return c.jsonSchema != "" || c.grammarFile != "" || c.regex != ""
}

// usesStdin reports whether the constraint is read from stdin.
func (c *constraintFlags) usesStdin() bool { return c.jsonSchema == "-" || c.grammarFile == "-" }

// name names the constraint in errors: the flag and its file, or the flag alone for inline text and --regex.
func (c *constraintFlags) name() string {
	switch {
	case c.jsonSchema != "" && !c.inline:
		return "--json-schema " + c.jsonSchema
	case c.jsonSchema != "":
		return "--json-schema (inline)"
	case c.grammarFile != "" && !c.inline:
		return "--grammar " + c.grammarFile
	case c.grammarFile != "":
		return "--grammar (inline)"
	}
	return "--regex"
}

// parse reads and parses the one constraint given.
func (c *constraintFlags) parse(stdin io.Reader) (*grammar.Grammar, error) {
	n := 0
	for _, s := range []string{c.jsonSchema, c.grammarFile, c.regex} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		return nil, errors.New("generate: give only one of --json-schema, --grammar and --regex")
	}
	switch {
	case c.jsonSchema != "":
		b, inline, err := specText("--json-schema", c.jsonSchema, stdin, looksLikeSchema)
		if err != nil {
			return nil, err
		}
		c.inline = inline
		g, err := grammar.ParseJSONSchema(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name(), err)
		}
		return g, nil
	case c.grammarFile != "":
		b, inline, err := specText("--grammar", c.grammarFile, stdin, looksLikeGBNF)
		if err != nil {
			return nil, err
		}
		c.inline = inline
		g, err := grammar.ParseGBNF(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name(), err)
		}
		return g, nil
	}
	g, err := grammar.ParseRegex(c.regex)
	if err != nil {
		return nil, fmt.Errorf("--regex: %w", err)
	}
	return g, nil
}

// specText is the text of a schema or grammar flag: stdin for "-", the file arg names, or arg itself when no such
// file exists and inline says it reads as the text (inline true then).
func specText(flag, arg string, stdin io.Reader, inline func(string) bool) ([]byte, bool, error) {
	if arg != "-" {
		// Any stat failure, not only a missing file: a long inline schema is a name too long to stat.
		if _, err := os.Stat(arg); err != nil {
			if inline(arg) {
				return []byte(arg), true, nil
			}
			if errors.Is(err, fs.ErrNotExist) {
				return nil, false, fmt.Errorf("%s %s: no such file (nor does it read as the text itself)", flag, arg)
			}
		}
	}
	b, err := readArg(flag, arg, stdin, maxSpecBytes)
	return b, false, err
}

// looksLikeSchema: JSON, and an object or a boolean (the two forms a JSON Schema takes).
func looksLikeSchema(s string) bool {
	t := strings.TrimSpace(s)
	return json.Valid([]byte(t)) && (strings.HasPrefix(t, "{") || t == "true" || t == "false")
}

// looksLikeGBNF: a rule definition.
func looksLikeGBNF(s string) bool { return strings.Contains(s, "::=") }

// compileConstraint compiles g over tok's vocabulary for logits rows of vocabSize ids with end ids eos.
func compileConstraint(g *grammar.Grammar, what string, tok *tokenizer.Tokenizer, vocabSize int, eos []int) (*grammar.Tables, error) {
	start := time.Now()
	a, err := grammar.Compile(g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	v := grammar.VocabFromTokenizer(tok, vocabSize, eos)
	log.Info().Int("rules", a.Rules()).Int("states", a.States()).Dur("compile", time.Since(start)).Msg("grammar compiled")
	return grammar.NewTables(a, v), nil
}
