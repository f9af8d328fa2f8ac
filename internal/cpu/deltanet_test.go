package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// deltaCase is random inputs for the DeltaNet ops: 2 key heads of 8, 4 value heads of 6, conv kernel 4.
type deltaCase struct {
	cfg                backend.RecurrentConfig
	qkv, a, b          []float32 // [n, convDim], [n, valueHeads] ×2
	aLog, dtBias, conv []float32
}

func newDeltaCase(r *rand.Rand, n int) deltaCase {
	cfg := backend.RecurrentConfig{Layers: 2, Seqs: 2, ConvDim: 2*2*8 + 4*6, ConvKernel: 4, KeyHeads: 2, ValueHeads: 4, KeyDim: 8, ValueDim: 6}
	rnd := func(k int, scale float64) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(r.NormFloat64() * scale)
		}
		return v
	}
	return deltaCase{cfg: cfg, qkv: rnd(n*cfg.ConvDim, 1), a: rnd(n*4, 1), b: rnd(n*4, 1.5),
		aLog: rnd(4, 0.5), dtBias: rnd(4, 0.5), conv: rnd(cfg.ConvDim*4, 0.5)}
}

func tensor(v []float32, shape ...int) *Tensor {
	return &Tensor{shape: shape, dt: backend.F32, f: v}
}

func ints(v ...int32) *Tensor { return &Tensor{shape: []int{len(v)}, dt: backend.I32, i: v} }

// rule runs GatedDeltaRule over rows [lo, hi) of dc (sequence seq at positions start+r-lo) on st.
func (dc deltaCase) rule(b *Backend, st backend.RecurrentState, seq int32, start, lo, hi int) []float32 {
	c, n := dc.cfg, hi-lo
	vh := c.ValueHeads
	out := make([]float32, n*vh*c.ValueDim)
	seqs, pos := make([]int32, n), make([]int32, n)
	for r := range n {
		seqs[r], pos[r] = seq, int32(start+r)
	}
	b.GatedDeltaRule(tensor(out, n, vh*c.ValueDim), tensor(dc.qkv[lo*c.ConvDim:hi*c.ConvDim], n, c.ConvDim),
		tensor(dc.a[lo*vh:hi*vh], n, vh), tensor(dc.b[lo*vh:hi*vh], n, vh), tensor(dc.aLog, vh), tensor(dc.dtBias, vh),
		st, 1, ints(seqs...), ints(pos...))
	return out
}

func relDiff(a, b []float32) float64 {
	var d, m float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
		m = max(m, math.Abs(float64(a[i])))
	}
	return d / m
}

// TestDeltaRuleChunkedEqualsRecurrent: the chunked form (chunks of 8, a short last one) gives the recurrent
// form's outputs and final state within f32 rounding, from a zero state and from the state a first run left.
func TestDeltaRuleChunkedEqualsRecurrent(t *testing.T) {
	dc := newDeltaCase(rand.New(rand.NewPCG(1, 2)), 61)
	rec, chunked := &Backend{DeltaChunk: -1}, &Backend{DeltaChunk: 8}
	sr, _ := rec.NewRecurrentState(dc.cfg)
	sc, _ := chunked.NewRecurrentState(dc.cfg)
	for _, span := range [][2]int{{0, 37}, {37, 61}} {
		want := dc.rule(rec, sr, 1, span[0], span[0], span[1])
		got := dc.rule(chunked, sc, 1, span[0], span[0], span[1])
		do, ds := relDiff(want, got), relDiff(sr.(*recurrentState).s, sc.(*recurrentState).s)
		t.Logf("rows %v: chunked vs recurrent: outputs %.2g, state %.2g of max", span, do, ds)
		if do > 2e-6 || ds > 2e-6 {
			t.Errorf("rows %v: chunked differs from recurrent by %.3g (outputs), %.3g (state) of max", span, do, ds)
		}
	}
	// Decoding row by row is the recurrent form exactly.
	step, _ := rec.NewRecurrentState(dc.cfg)
	var rows []float32
	for r := range 61 {
		rows = append(rows, dc.rule(rec, step, 1, r, r, r+1)...)
	}
	all, _ := rec.NewRecurrentState(dc.cfg)
	if whole := dc.rule(rec, all, 1, 0, 0, 61); relDiff(whole, rows) != 0 {
		t.Error("row-by-row decode differs from one recurrent call")
	}
}

// TestDeltaNetSequencesIndependent: two sequences' rows interleaved in one call (conv and delta rule) give what
// each gives alone, and a row at position 0 restarts its sequence.
func TestDeltaNetSequencesIndependent(t *testing.T) {
	dc := newDeltaCase(rand.New(rand.NewPCG(3, 4)), 12)
	c, b := dc.cfg, &Backend{}
	conv := func(st backend.RecurrentState, rows []int, seqs, pos []int32) ([]float32, []float32) {
		n := len(rows)
		x := make([]float32, n*c.ConvDim)
		a, bb := make([]float32, n*4), make([]float32, n*4)
		for i, r := range rows {
			copy(x[i*c.ConvDim:], dc.qkv[r*c.ConvDim:(r+1)*c.ConvDim])
			copy(a[i*4:], dc.a[r*4:(r+1)*4])
			copy(bb[i*4:], dc.b[r*4:(r+1)*4])
		}
		xt := tensor(x, n, c.ConvDim)
		b.CausalConv(xt, xt, tensor(dc.conv, c.ConvDim, c.ConvKernel), st, 0, ints(seqs...), ints(pos...))
		out := make([]float32, n*24)
		b.GatedDeltaRule(tensor(out, n, 24), xt, tensor(a, n, 4), tensor(bb, n, 4), tensor(dc.aLog, 4), tensor(dc.dtBias, 4),
			st, 0, ints(seqs...), ints(pos...))
		return x, out
	}
	// Alone: rows 0-5 as sequence 0 in two calls, rows 6-11 as sequence 1 in one.
	st, _ := b.NewRecurrentState(c)
	x0a, o0a := conv(st, []int{0, 1, 2}, []int32{0, 0, 0}, []int32{0, 1, 2})
	x0b, o0b := conv(st, []int{3, 4, 5}, []int32{0, 0, 0}, []int32{3, 4, 5})
	x1, o1 := conv(st, []int{6, 7, 8, 9, 10, 11}, []int32{1, 1, 1, 1, 1, 1}, []int32{0, 1, 2, 3, 4, 5})
	// Together, interleaved, in a state that held other sequences before (position 0 restarts them).
	mixed, _ := b.NewRecurrentState(c)
	conv(mixed, []int{11, 10, 9}, []int32{0, 1, 0}, []int32{0, 0, 1})
	xm, om := conv(mixed, []int{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}, []int32{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
		[]int32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5})
	for i := range 6 {
		alone0x, alone0o := append(x0a, x0b...), append(o0a, o0b...)
		if relDiff(xm[2*i*c.ConvDim:(2*i+1)*c.ConvDim], alone0x[i*c.ConvDim:(i+1)*c.ConvDim]) != 0 ||
			relDiff(xm[(2*i+1)*c.ConvDim:(2*i+2)*c.ConvDim], x1[i*c.ConvDim:(i+1)*c.ConvDim]) != 0 {
			t.Errorf("position %d: conv outputs of interleaved sequences differ from alone", i)
		}
		if relDiff(om[2*i*24:(2*i+1)*24], alone0o[i*24:(i+1)*24]) != 0 || relDiff(om[(2*i+1)*24:(2*i+2)*24], o1[i*24:(i+1)*24]) != 0 {
			t.Errorf("position %d: delta-rule outputs of interleaved sequences differ from alone", i)
		}
	}
}

// TestCausalConvReference: the conv against its definition, silu(Σ_j w[c][j]·x_{p-3+j}[c]) with zeros before
// position 0.
func TestCausalConvReference(t *testing.T) {
	dc := newDeltaCase(rand.New(rand.NewPCG(5, 6)), 7)
	c, b := dc.cfg, &Backend{}
	st, _ := b.NewRecurrentState(c)
	out := make([]float32, 7*c.ConvDim)
	b.CausalConv(tensor(out, 7, c.ConvDim), tensor(dc.qkv, 7, c.ConvDim), tensor(dc.conv, c.ConvDim, 4), st, 1,
		ints(0, 0, 0, 0, 0, 0, 0), ints(0, 1, 2, 3, 4, 5, 6))
	for p := range 7 {
		for ch := range c.ConvDim {
			var acc float32
			for j := range 4 {
				if t := p - 3 + j; t >= 0 {
					acc += dc.conv[ch*4+j] * dc.qkv[t*c.ConvDim+ch]
				}
			}
			if want := silu(acc); math.Abs(float64(out[p*c.ConvDim+ch]-want)) > 1e-6 {
				t.Fatalf("position %d channel %d: %g, want %g", p, ch, out[p*c.ConvDim+ch], want)
			}
		}
	}
}

// TestRoute: softmax top-k with renormalisation, the lower id first among equal probabilities.
func TestRoute(t *testing.T) {
	b := &Backend{}
	logits := tensor([]float32{1, 3, 2, 3, 0, 0, 0, 5}, 2, 4)
	ids, w := ints(0, 0, 0, 0), tensor(make([]float32, 4), 2, 2)
	ids.shape = []int{2, 2}
	for _, norm := range []bool{false, true} {
		b.Route(ids, w, logits, 2, norm)
		e1, e3 := math.Exp(1), math.Exp(3)
		sum := e1 + 2*e3 + math.Exp(2)
		want := []float64{e3 / sum, e3 / sum}
		if norm {
			want = []float64{0.5, 0.5}
		}
		if ids.i[0] != 1 || ids.i[1] != 3 || ids.i[2] != 3 || math.Abs(float64(w.f[0])-want[0]) > 1e-6 || math.Abs(float64(w.f[1])-want[1]) > 1e-6 {
			t.Errorf("norm %v: ids %v weights %v, want [1 3 3 …] %v", norm, ids.i, w.f, want)
		}
		if norm && math.Abs(float64(w.f[2]+w.f[3])-1) > 1e-6 {
			t.Errorf("row 1 weights %v do not sum to 1", w.f[2:])
		}
	}
}

// TestExperts: the routed SwiGLU experts against a direct per-row sum.
func TestExperts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	b := &Backend{}
	const n, d, inter, experts, k = 5, 8, 6, 3, 2
	rnd := func(m int) []float32 {
		v := make([]float32, m)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	var gate, up, down []backend.Linear
	var gw, uw, dw [][]float32
	for range experts {
		g, u, dd := rnd(inter*d), rnd(inter*d), rnd(d*inter)
		gw, uw, dw = append(gw, g), append(uw, u), append(dw, dd)
		gate, up, down = append(gate, &linear{out: inter, in: d, w: g}), append(up, &linear{out: inter, in: d, w: u}),
			append(down, &linear{out: d, in: inter, w: dd})
	}
	x, wts := rnd(n*d), rnd(n*k)
	ids := ints(0, 2, 1, 0, 2, 1, 1, 2, 0, 1)
	ids.shape = []int{n, k}
	out := make([]float32, n*d)
	b.Experts(tensor(out, n, d), tensor(x, n, d), ids, tensor(wts, n, k), gate, up, down)
	for row := range n {
		want := make([]float64, d)
		for j := range k {
			e := ids.i[row*k+j]
			h := make([]float64, inter)
			for o := range inter {
				var g, u float64
				for c := range d {
					g += float64(gw[e][o*d+c]) * float64(x[row*d+c])
					u += float64(uw[e][o*d+c]) * float64(x[row*d+c])
				}
				h[o] = g / (1 + math.Exp(-g)) * u
			}
			for c := range d {
				var s float64
				for o := range inter {
					s += float64(dw[e][c*inter+o]) * h[o]
				}
				want[c] += float64(wts[row*k+j]) * s
			}
		}
		for c := range d {
			if math.Abs(float64(out[row*d+c])-want[c]) > 1e-4*(1+math.Abs(want[c])) {
				t.Fatalf("row %d col %d: %g, want %g", row, c, out[row*d+c], want[c])
			}
		}
	}
}
