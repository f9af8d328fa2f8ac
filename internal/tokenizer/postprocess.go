// Post-processors: add the special tokens a model expects around an encoded sequence (llama2's <s>, BERT-style
// [CLS] ... [SEP]) when the caller asks for special tokens. Only single sequences are handled; pair templates are
// parsed and ignored. ByteLevel's post-processor only trims offsets, so it leaves ids alone.
package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor wraps the ids of one encoded sequence.
type postProcessor interface {
	process(ids []int) []int
}

type (
	// templateProc is TemplateProcessing's "single" template, flattened to ids with -1 marking the sequence.
	templateProc []int
	// wrapProc is BertProcessing and RobertaProcessing for one sequence: cls, ids, sep.
	wrapProc     struct{ cls, sep int }
	procSequence []postProcessor
	noopProc     struct{}
)

const sequenceSlot = -1

func (t templateProc) process(ids []int) []int {
	out := make([]int, 0, len(ids)+len(t))
	for _, id := range t {
		if id == sequenceSlot {
			out = append(out, ids...)
		} else {
			out = append(out, id)
		}
	}
	return out
}

func (w wrapProc) process(ids []int) []int {
	out := make([]int, 0, len(ids)+2)
	out = append(out, w.cls)
	out = append(out, ids...)
	return append(out, w.sep)
}

func (s procSequence) process(ids []int) []int {
	for _, p := range s {
		ids = p.process(ids)
	}
	return ids
}

func (noopProc) process(ids []int) []int { return ids }

// templatePieceJSON is one element of a template: {"SpecialToken":{"id":"<s>"}} or {"Sequence":{"id":"A"}}.
type templatePieceJSON struct {
	SpecialToken *struct {
		ID string `json:"id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID string `json:"id"`
	} `json:"Sequence"`
}

// postProcessorJSON holds every field the supported post-processors use.
type postProcessorJSON struct {
	Type          string              `json:"type"`
	Single        []templatePieceJSON `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
	Processors []json.RawMessage `json:"processors"`
	Cls        []json.RawMessage `json:"cls"` // ["[CLS]", 101]
	Sep        []json.RawMessage `json:"sep"`
}

// parsePostProcessor builds a post-processor from its JSON; null gives nil.
func parsePostProcessor(raw json.RawMessage) (postProcessor, error) {
	if isNull(raw) {
		return nil, nil
	}
	var j postProcessorJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	switch j.Type {
	case "ByteLevel":
		return noopProc{}, nil
	case "TemplateProcessing":
		var t templateProc
		for i, p := range j.Single {
			switch {
			case p.Sequence != nil:
				t = append(t, sequenceSlot)
			case p.SpecialToken != nil:
				st, ok := j.SpecialTokens[p.SpecialToken.ID]
				if !ok {
					return nil, fmt.Errorf("post_processor TemplateProcessing: single[%d] names %q, which special_tokens lacks", i, p.SpecialToken.ID)
				}
				t = append(t, st.IDs...)
			default:
				return nil, fmt.Errorf("post_processor TemplateProcessing: single[%d] is neither SpecialToken nor Sequence", i)
			}
		}
		return t, nil
	case "BertProcessing", "RobertaProcessing":
		cls, err := tokenPairID(j.Cls)
		if err != nil {
			return nil, fmt.Errorf("post_processor %s cls: %w", j.Type, err)
		}
		sep, err := tokenPairID(j.Sep)
		if err != nil {
			return nil, fmt.Errorf("post_processor %s sep: %w", j.Type, err)
		}
		return wrapProc{cls, sep}, nil
	case "Sequence":
		var seq procSequence
		for i, sub := range j.Processors {
			p, err := parsePostProcessor(sub)
			if err != nil {
				return nil, fmt.Errorf("post_processor Sequence[%d]: %w", i, err)
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	}
	return nil, fmt.Errorf("post_processor type %q: %w", j.Type, ErrUnsupported)
}

// tokenPairID reads the id out of a ["token", id] pair.
func tokenPairID(pair []json.RawMessage) (int, error) {
	if len(pair) != 2 {
		return 0, fmt.Errorf("want [token, id], got %d elements", len(pair))
	}
	var id int
	if err := json.Unmarshal(pair[1], &id); err != nil {
		return 0, fmt.Errorf("id: %w", err)
	}
	return id, nil
}
