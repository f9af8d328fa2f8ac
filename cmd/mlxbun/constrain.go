// Constrained decoding for generate: --json-schema FILE|-, --grammar FILE (GBNF), --regex RE compile to a
// grammar automaton over the tokenizer's vocabulary (package grammar), whose Picker fills each token bitmask while
// the forward pass runs. The end ids are allowed only where the output is complete, and generation halts when
// nothing else may follow.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/mlxbun/mlxbun/internal/grammar"
	"github.com/mlxbun/mlxbun/internal/tokenizer"
)

// constraintFlags are the three ways to give a grammar; at most one may be set.
type constraintFlags struct {
	jsonSchema, grammarFile, regex string
}

func (c *constraintFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&c.jsonSchema, "json-schema", "", "constrain the output to JSON valid under this JSON Schema file (- for stdin)")
	fl.StringVar(&c.grammarFile, "grammar", "", "constrain the output to this GBNF grammar file (start rule: root)")
	fl.StringVar(&c.regex, "regex", "", "constrain the whole output to match this regular expression")
}

func (c *constraintFlags) set() bool {
	return c.jsonSchema != "" || c.grammarFile != "" || c.regex != ""
}

// usesStdin reports whether the constraint is read from stdin.
func (c *constraintFlags) usesStdin() bool { return c.jsonSchema == "-" }

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
	read := func(flag, path string) ([]byte, error) {
		var b []byte
		var err error
		if path == "-" {
			b, err = io.ReadAll(stdin)
		} else {
			b, err = os.ReadFile(path)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		return b, nil
	}
	switch {
	case c.jsonSchema != "":
		b, err := read("--json-schema", c.jsonSchema)
		if err != nil {
			return nil, err
		}
		g, err := grammar.ParseJSONSchema(b)
		if err != nil {
			return nil, fmt.Errorf("--json-schema %s: %w", c.jsonSchema, err)
		}
		return g, nil
	case c.grammarFile != "":
		b, err := read("--grammar", c.grammarFile)
		if err != nil {
			return nil, err
		}
		g, err := grammar.ParseGBNF(string(b))
		if err != nil {
			return nil, fmt.Errorf("--grammar %s: %w", c.grammarFile, err)
		}
		return g, nil
	}
	g, err := grammar.ParseRegex(c.regex)
	if err != nil {
		return nil, fmt.Errorf("--regex: %w", err)
	}
	return g, nil
}

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
