// Constrained decoding for the API: response_format json_object / json_schema and the grammar (GBNF) and regex
// extensions compile to grammar tables over the model's vocabulary (package grammar). Compiled tables are kept by
// source in a small LRU, since clients repeat one schema across many requests; each request gets its own matcher.
package server

import (
	"fmt"
	"sync"

	"github.com/mlxbun/mlxbun/internal/grammar"
)

// grammarCache keeps the tables of the last few grammars.
type grammarCache struct {
	mu    sync.Mutex
	limit int
	keys  []string // least recently used first
	tabs  map[string]*grammar.Tables
}

func newGrammarCache(limit int) *grammarCache {
	return &grammarCache{limit: limit, tabs: map[string]*grammar.Tables{}}
}

func (c *grammarCache) get(key string, build func() (*grammar.Tables, error)) (*grammar.Tables, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.tabs[key]; ok {
		c.touch(key)
		return t, nil
	}
	t, err := build()
	if err != nil {
		return nil, err
	}
	c.tabs[key] = t
	c.keys = append(c.keys, key)
	if len(c.keys) > c.limit {
		delete(c.tabs, c.keys[0])
		c.keys = c.keys[1:]
	}
	return t, nil
}

func (c *grammarCache) touch(key string) {
	for i, k := range c.keys {
		if k == key {
			c.keys = append(append(c.keys[:i:i], c.keys[i+1:]...), key)
			return
		}
	}
}

// constraint returns the tables a request's response_format, grammar or regex asks for (nil for none); a
// grammar that does not parse or compile is a 400 naming the field.
func (s *Server) constraint(e *Engine, sp *sampling) (*grammar.Tables, *apiError) {
	type source struct{ field, kind, text string }
	var srcs []source
	if rf := sp.ResponseFormat; rf != nil {
		switch rf.Type {
		case "", "text":
			if rf.JSONSchema != nil {
				return nil, badField("response_format.json_schema", "is only allowed with type json_schema")
			}
		case "json_object":
			if rf.JSONSchema != nil {
				return nil, badField("response_format.json_schema", "is only allowed with type json_schema")
			}
			srcs = append(srcs, source{"response_format", "schema", `{"type":"object"}`})
		case "json_schema":
			if rf.JSONSchema == nil || !set(rf.JSONSchema.Schema) {
				return nil, badField("response_format.json_schema.schema", "is required with type json_schema")
			}
			srcs = append(srcs, source{"response_format.json_schema.schema", "schema", string(rf.JSONSchema.Schema)})
		default:
			return nil, badField("response_format.type", fmt.Sprintf("%q: want text, json_object or json_schema", rf.Type))
		}
	}
	if sp.Grammar != "" {
		srcs = append(srcs, source{"grammar", "gbnf", sp.Grammar})
	}
	if sp.Regex != "" {
		srcs = append(srcs, source{"regex", "regex", sp.Regex})
	}
	switch len(srcs) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, badRequest("give only one of response_format (json_object, json_schema), grammar and regex (got %s and %s)", srcs[0].field, srcs[1].field)
	}
	src := srcs[0]
	s.vocabOnce.Do(func() { s.vocab = grammar.VocabFromTokenizer(e.Tok, e.VocabSize, e.EOS) })
	tabs, err := s.grammars.get(src.kind+"\x00"+src.text, func() (*grammar.Tables, error) {
		var g *grammar.Grammar
		var err error
		switch src.kind {
		case "schema":
			g, err = grammar.ParseJSONSchema([]byte(src.text))
		case "gbnf":
			g, err = grammar.ParseGBNF(src.text)
		default:
			g, err = grammar.ParseRegex(src.text)
		}
		if err != nil {
			return nil, err
		}
		a, err := grammar.Compile(g)
		if err != nil {
			return nil, err
		}
		return grammar.NewTables(a, s.vocab), nil
	})
	if err != nil {
		return nil, badField(src.field, err.Error())
	}
	return tabs, nil
}
