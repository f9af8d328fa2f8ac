// Greedy picks on the device: a forward whose answer is each output row's greedy token instead of its logits, so a
// greedy decode step reads outRows int32 back rather than outRows × vocab float32 (~608 KB a row at a 152k
// vocabulary). On a backend with an Argmaxer the argmax is the last of the recorded ops (one more node of the
// CUDA graph); elsewhere the logits are read and the picks made on the host, with the same answer. Also the
// optional Picker interface that says a picker's choice is exactly that argmax, which is how callers (Generate,
// the scheduler, the bench verb) decide a step may take the picks.
package model

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/sample"
)

// GreedyPicker is a Picker that can say its choice is plain greedy: when Greedy reports (r, true), Pick(row, h)
// returns sample.GreedyNormalizedArgmax(row, r) for every row and every history of in-vocabulary ids, or, for a
// degenerate row (token 0 picked with a -Inf logit), an error; it looks at nothing else and changes no state. A
// caller may then hand it a pick from ForwardPicks instead of the row. *sample.Sampler implements it.
type GreedyPicker interface {
	Picker
	Greedy() (sample.Rounding, bool)
}

// PicksRounding is the one logits rounding ForwardPicks implements: the device argmax (backend.Argmaxer) promises
// sample.GreedyNormalizedArgmax with F32 rounding only, which is also the dtype of the model's logits
// (newWorkspace allocates them F32). A picker greedy in another rounding reads the logits.
const PicksRounding = sample.F32

// PicksGreedily reports whether p's choice is the pick ForwardPicks makes: a GreedyPicker in PicksRounding.
func PicksGreedily(p Picker) bool {
	g, ok := p.(GreedyPicker)
	if !ok {
		return false
	}
	r, greedy := g.Greedy()
	return greedy && r == PicksRounding
}

// Greedy is the plain greedy Picker: sample.GreedyNormalizedArgmax(row, PicksRounding), whatever the history.
type Greedy struct{}

// Pick returns the row's greedy token.
func (Greedy) Pick(logits []float32, _ []int) (int, error) {
	return sample.GreedyNormalizedArgmax(logits, PicksRounding), nil
}

// Greedy reports that Pick is plain greedy in PicksRounding.
func (Greedy) Greedy() (sample.Rounding, bool) { return PicksRounding, true }

// Picks is ForwardPicks' answer; its buffers belong to the caller that holds it and are reused call after call
// (what a call returns is valid until the next call with the same Picks).
type Picks struct {
	// IDs[r] is output row r's greedy token, sample.GreedyNormalizedArgmax(row r, PicksRounding) [outRows].
	IDs []int32
	// Logits is nil, or, after a call where some row picked token 0, every output row's logits [outRows, vocab]
	// as Forward returns them. Token 0 is also the answer for a row the reference calls degenerate (a NaN or +Inf
	// logit, or every logit -Inf), which Generate and the scheduler must fail instead (NonFiniteError); with the
	// logits at hand they do exactly what they do on Forward's rows. The one case the picks cannot show is a row
	// holding -Inf logits beside finite ones, whose normalizer stays finite: its pick is the finite argmax where
	// Forward's caller would stop with NonFiniteError. An f32 logit reaches -Inf only through an overflow in the
	// output projection, which after the final RMSNorm takes a non-finite weight (--check-tensors finds it).
	Logits []float32
	buf    []float32
}

// ForwardPicks runs the rows of s through the model as Forward does, filling cache, and sets p.IDs to the greedy
// picks of the last outRows rows (see Picks for when p.Logits is set too). Only the picks are read back unless a
// row picked token 0.
func (m *Model) ForwardPicks(s Step, cache backend.KVCache, outRows int, p *Picks) error {
	am, device := m.b.(backend.Argmaxer)
	ws, err := m.prepare(s, cache, outRows, device)
	if err != nil {
		return err
	}
	if ws.n > maxRecordedRows {
		defer m.freeWorkspace(ws)
	}
	if cap(p.IDs) < outRows {
		p.IDs = make([]int32, outRows)
	}
	p.IDs, p.Logits = p.IDs[:outRows], nil
	if !device {
		if p.buf, err = m.readLogits(ws, p.buf); err != nil {
			return err
		}
		v := m.Config.VocabSize
		for r := range p.IDs {
			p.IDs[r] = int32(sample.GreedyNormalizedArgmax(p.buf[r*v:(r+1)*v], PicksRounding))
		}
	} else {
		if err := am.ReadInt32(ws.picks, p.IDs); err != nil {
			return fmt.Errorf("forward: picks: %w", err)
		}
		if err := m.b.Sync(); err != nil {
			return fmt.Errorf("forward on %s: %w", m.b.Name(), err)
		}
	}
	for _, id := range p.IDs {
		if id == 0 {
			if device {
				if p.buf, err = m.readLogits(ws, p.buf); err != nil {
					return err
				}
			}
			p.Logits = p.buf
			break
		}
	}
	return nil
}

// StepRows is the answer of the latest forward call of a decode loop (Generate, the scheduler): each output row's
// device pick (ForwardPicks) or its logits, its buffers reused call after call. The zero value is ready.
type StepRows struct {
	p      Picks
	logits []float32 // the rows, when the call read them (no picks asked, or p.Logits)
	vocab  int
	picked bool // the picks alone answer the call
}

// Forward runs s as ForwardPicks does when picks (every output row is picked plain greedily: PicksGreedily), else
// as ForwardInto. A picks call in which some row picked token 0 keeps every row's logits too (Picks.Logits), and
// then answers through Row like a logits call.
func (st *StepRows) Forward(m *Model, s Step, cache backend.KVCache, outRows int, picks bool) error {
	st.vocab, st.picked = m.Config.VocabSize, false
	if !picks {
		var err error
		st.logits, err = m.ForwardInto(s, cache, outRows, st.logits)
		return err
	}
	if err := m.ForwardPicks(s, cache, outRows, &st.p); err != nil {
		return err
	}
	if st.p.Logits != nil {
		st.logits = st.p.Logits
	} else {
		st.picked = true
	}
	return nil
}

// Picked is output row r's device pick, when the picks alone answer the last call.
func (st *StepRows) Picked(r int) (int, bool) {
	if !st.picked {
		return 0, false
	}
	return int(st.p.IDs[r]), true
}

// PicksOnly reports whether the picks alone answered the last call (no row's logits were read).
func (st *StepRows) PicksOnly() bool { return st.picked }

// Row is output row r's logits [vocab] of the last call, when it read them (Picked reports false).
func (st *StepRows) Row(r int) []float32 { return st.logits[r*st.vocab : (r+1)*st.vocab] }
