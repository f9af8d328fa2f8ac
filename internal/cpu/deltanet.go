// The gated DeltaNet ops on the CPU (backend.LinearAttention, backend.SigmoidGate): the per-sequence recurrent
// state, the short causal conv, the gated delta rule in its recurrent form (the reference) and its chunked form
// (the one prompt kernels use, equal within f32 rounding), the gated RMSNorm and the sigmoid gate. Float32
// throughout, as transformers' torch fallbacks compute them.
package cpu

import (
	"fmt"
	"math"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// defaultDeltaChunk is the chunk length of the chunked form (transformers' and fla's 64).
const defaultDeltaChunk = 64

// recurrentState holds, per (DeltaNet layer, sequence), the conv state and the delta-rule state matrices.
type recurrentState struct {
	cfg  backend.RecurrentConfig
	conv []float32 // [layers, seqs, kernel-1, convDim]: the last kernel-1 conv inputs, oldest first
	s    []float32 // [layers, seqs, valueHeads, keyDim, valueDim]
}

func (st *recurrentState) Config() backend.RecurrentConfig { return st.cfg }
func (st *recurrentState) Release()                        { st.conv, st.s = nil, nil }

func (st *recurrentState) convAt(layer, seq int) []float32 {
	n := (st.cfg.ConvKernel - 1) * st.cfg.ConvDim
	at := (layer*st.cfg.Seqs + seq) * n
	return st.conv[at : at+n]
}

// matrix is the [keyDim, valueDim] state of value head h.
func (st *recurrentState) matrix(layer, seq, h int) []float32 {
	c := st.cfg
	n := c.KeyDim * c.ValueDim
	at := ((layer*c.Seqs+seq)*c.ValueHeads + h) * n
	return st.s[at : at+n]
}

func (b *Backend) NewRecurrentState(cfg backend.RecurrentConfig) (backend.RecurrentState, error) {
	c := cfg
	if c.Layers <= 0 || c.Seqs <= 0 || c.ConvDim <= 0 || c.ConvKernel <= 0 || c.KeyHeads <= 0 || c.ValueHeads <= 0 ||
		c.KeyDim <= 0 || c.ValueDim <= 0 || c.ValueHeads%c.KeyHeads != 0 {
		return nil, fmt.Errorf("recurrent state: every dimension must be positive and value heads a multiple of key heads, got %+v", c)
	}
	conv := int64(c.Layers) * int64(c.Seqs) * int64(c.ConvKernel-1) * int64(c.ConvDim)
	s := int64(c.Layers) * int64(c.Seqs) * int64(c.ValueHeads) * int64(c.KeyDim) * int64(c.ValueDim)
	if mem := physicalMemory(); mem > 0 && (conv+s)*4 > mem {
		return nil, fmt.Errorf("recurrent state: %d sequences need %.1f GiB, the machine has %.1f GiB: out of memory",
			c.Seqs, float64((conv+s)*4)/(1<<30), float64(mem)/(1<<30))
	}
	return &recurrentState{cfg: c, conv: make([]float32, conv), s: make([]float32, s)}, nil
}

func silu(x float32) float32 { return x / (1 + float32(math.Exp(float64(-x)))) }

func sigmoid(x float32) float32 { return 1 / (1 + float32(math.Exp(float64(-x)))) }

// softplus is torch's F.softplus (β 1, threshold 20): log(1+eˣ), x itself above 20.
func softplus(x float32) float32 {
	if x > 20 {
		return x
	}
	return float32(math.Log1p(math.Exp(float64(x))))
}

func (b *Backend) CausalConv(dst, x, w backend.Tensor, st backend.RecurrentState, layer int, seq, pos backend.Tensor) {
	s := st.(*recurrentState)
	c := s.cfg
	n, C := dims(x)
	xs, ds, ws, seqs, poss := f32(x), f32(dst), f32(w), i32(seq), i32(pos)
	K := c.ConvKernel
	if C != c.ConvDim || len(ds) != len(xs) || len(ws) != C*K || len(seqs) != n || len(poss) != n || layer < 0 || layer >= c.Layers {
		backend.ShapeError("CausalConv", "x, w", []any{x.Shape(), w.Shape()}, fmt.Sprintf("[n, %d], [%d, %d], layer < %d", c.ConvDim, c.ConvDim, K, c.Layers))
	}
	for r := range n {
		if q := int(seqs[r]); q < 0 || q >= c.Seqs {
			panic(fmt.Sprintf("backend: CausalConv: row %d in sequence %d of %d", r, q, c.Seqs))
		}
	}
	// Channels are independent; rows run in order within each, so a sequence's inputs reach its state in turn.
	b.parallel(C, func(lo, hi int) {
		for r := range n {
			win := s.convAt(layer, int(seqs[r]))
			if poss[r] == 0 {
				for j := 0; j < K-1; j++ {
					clear(win[j*C+lo : j*C+hi])
				}
			}
			for ch := lo; ch < hi; ch++ {
				wc := ws[ch*K : (ch+1)*K]
				xv := xs[r*C+ch]
				var acc float32
				for j := 0; j < K-1; j++ {
					acc += wc[j] * win[j*C+ch]
				}
				acc += wc[K-1] * xv
				for j := 0; j < K-2; j++ {
					win[j*C+ch] = win[(j+1)*C+ch]
				}
				if K > 1 {
					win[(K-2)*C+ch] = xv
				}
				ds[r*C+ch] = silu(acc)
			}
		}
	})
}

// deltaInputs are one row's inputs to one value head: l2-normalised q (scaled by 1/√keyDim) and k, v, β and g.
type deltaInputs struct {
	q, k, v []float32
	beta, g float32
}

// l2 is x/√(Σx² + 1e-6), transformers' (and fla's) l2norm, written into dst.
func l2(dst, x []float32, scale float32) {
	var ss float32
	for _, e := range x {
		ss += e * e
	}
	inv := 1 / float32(math.Sqrt(float64(ss+1e-6)))
	for i, e := range x {
		dst[i] = e * inv * scale
	}
}

func (b *Backend) GatedDeltaRule(dst, qkv, a, bt, aLog, dtBias backend.Tensor, st backend.RecurrentState, layer int, seq, pos backend.Tensor) {
	s := st.(*recurrentState)
	c := s.cfg
	n, C := dims(qkv)
	kw, vw := c.KeyHeads*c.KeyDim, c.ValueHeads*c.ValueDim
	as, bs, al, db, out := f32(a), f32(bt), f32(aLog), f32(dtBias), f32(dst)
	seqs, poss := i32(seq), i32(pos)
	if C != 2*kw+vw || len(as) != n*c.ValueHeads || len(bs) != n*c.ValueHeads || len(al) != c.ValueHeads ||
		len(db) != c.ValueHeads || len(out) != n*vw || len(seqs) != n || len(poss) != n || layer < 0 || layer >= c.Layers {
		backend.ShapeError("GatedDeltaRule", "qkv, a, b, dst", []any{qkv.Shape(), a.Shape(), bt.Shape(), dst.Shape()},
			fmt.Sprintf("[n, %d], [n, %d] ×2, [n, %d], layer < %d", 2*kw+vw, c.ValueHeads, vw, c.Layers))
	}
	// Runs: each sequence's rows in order, cut where a row restarts its sequence at position 0.
	var runs []int // each run's sequence
	var rows [][]int
	open := map[int]int{} // sequence → its current run
	for r := range n {
		q := int(seqs[r])
		if q < 0 || q >= c.Seqs {
			panic(fmt.Sprintf("backend: GatedDeltaRule: row %d in sequence %d of %d", r, q, c.Seqs))
		}
		k, ok := open[q]
		if !ok || poss[r] == 0 {
			k = len(runs)
			open[q] = k
			runs = append(runs, q)
			rows = append(rows, nil)
		}
		rows[k] = append(rows[k], r)
	}
	chunk := b.DeltaChunk
	if chunk == 0 {
		chunk = defaultDeltaChunk
	}
	group := c.ValueHeads / c.KeyHeads
	xs := f32(qkv)
	// Runs of one sequence must go in order (a restart follows the run before it); value heads are independent.
	// So: for each head, the runs in order; heads in parallel.
	b.parallel(c.ValueHeads, func(lo, hi int) {
		qn, kn := make([]float32, c.KeyDim), make([]float32, c.KeyDim)
		scale := float32(1 / math.Sqrt(float64(c.KeyDim)))
		for h := lo; h < hi; h++ {
			kh := h / group
			A := -float32(math.Exp(float64(al[h])))
			input := func(r int, q, k []float32) deltaInputs {
				row := xs[r*C : (r+1)*C]
				l2(q, row[kh*c.KeyDim:(kh+1)*c.KeyDim], scale)
				l2(k, row[kw+kh*c.KeyDim:kw+(kh+1)*c.KeyDim], 1)
				return deltaInputs{q: q, k: k, v: row[2*kw+h*c.ValueDim : 2*kw+(h+1)*c.ValueDim],
					beta: sigmoid(bs[r*c.ValueHeads+h]), g: A * softplus(as[r*c.ValueHeads+h]+db[h])}
			}
			for k, q := range runs {
				S := s.matrix(layer, q, h)
				rs := rows[k]
				if poss[rs[0]] == 0 {
					clear(S)
				}
				if chunk > 0 && len(rs) >= chunk {
					deltaChunked(S, rs, chunk, c.ValueDim, func(r int) deltaInputs {
						return input(r, make([]float32, c.KeyDim), make([]float32, c.KeyDim))
					}, func(r int) []float32 { return out[r*vw+h*c.ValueDim : r*vw+(h+1)*c.ValueDim] })
					continue
				}
				for _, r := range rs {
					deltaStep(S, input(r, qn, kn), out[r*vw+h*c.ValueDim:r*vw+(h+1)*c.ValueDim])
				}
			}
		}
	})
}

// deltaStep is one row of the recurrent form on the state S [dk, dv]:
// S ← exp(g)·S; S ← S + k ⊗ β(v − Sᵀk); o = Sᵀq.
func deltaStep(S []float32, in deltaInputs, o []float32) {
	dv := len(in.v)
	decay := float32(math.Exp(float64(in.g)))
	clear(o)
	for i := range S {
		S[i] *= decay
	}
	for i, ki := range in.k { // o holds Sᵀk for now
		row := S[i*dv : (i+1)*dv]
		for j, sv := range row {
			o[j] += sv * ki
		}
	}
	for j := range o { // then δ = β(v − Sᵀk)
		o[j] = (in.v[j] - o[j]) * in.beta
	}
	for i, ki := range in.k {
		row := S[i*dv : (i+1)*dv]
		for j := range row {
			row[j] += ki * o[j]
		}
	}
	clear(o)
	for i, qi := range in.q {
		row := S[i*dv : (i+1)*dv]
		for j, sv := range row {
			o[j] += sv * qi
		}
	}
}

// deltaChunked runs rows (one sequence's, in order) through the chunked form, chunk rows at a time. Within a
// chunk starting from state S₀, with c_t the cumulative sum of g up to row t,
//
//	u_t = β_t(v_t − e^{c_t}·S₀ᵀk_t) − Σ_{j<t} β_t·e^{c_t−c_j}(k_t·k_j)·u_j      (forward substitution: the WY/UT
//	o_t = e^{c_t}·S₀ᵀq_t + Σ_{j≤t} e^{c_t−c_j}(q_t·k_j)·u_j                      transform, solved row by row)
//	S   = e^{c_T}·S₀ + Σ_j e^{c_T−c_j}·k_j ⊗ u_j
//
// which unrolls the recurrence exactly; only the rounding differs.
func deltaChunked(S []float32, rows []int, chunk, dv int, input func(r int) deltaInputs, output func(r int) []float32) {
	ins := make([]deltaInputs, 0, chunk)
	cum := make([]float64, chunk)
	u := make([]float32, chunk*dv)
	for start := 0; start < len(rows); start += chunk {
		rs := rows[start:min(start+chunk, len(rows))]
		ins = ins[:0]
		var acc float64
		for t, r := range rs {
			in := input(r)
			ins = append(ins, in)
			acc += float64(in.g)
			cum[t] = acc
		}
		for t, in := range ins {
			ut := u[t*dv : (t+1)*dv]
			ct := float32(math.Exp(cum[t]))
			stateT(ut, S, in.k, dv) // S₀ᵀk_t
			for j := range ut {
				ut[j] = in.beta * (in.v[j] - ct*ut[j])
			}
			for j := 0; j < t; j++ {
				coef := in.beta * float32(math.Exp(cum[t]-cum[j])) * dot(in.k, ins[j].k)
				uj := u[j*dv : (j+1)*dv]
				for x := range ut {
					ut[x] -= coef * uj[x]
				}
			}
		}
		for t, in := range ins {
			o := output(rs[t])
			ct := float32(math.Exp(cum[t]))
			stateT(o, S, in.q, dv) // S₀ᵀq_t
			for j := range o {
				o[j] *= ct
			}
			for j := 0; j <= t; j++ {
				coef := float32(math.Exp(cum[t]-cum[j])) * dot(in.q, ins[j].k)
				uj := u[j*dv : (j+1)*dv]
				for x := range o {
					o[x] += coef * uj[x]
				}
			}
		}
		last := len(rs) - 1
		total := float32(math.Exp(cum[last]))
		for i := range S {
			S[i] *= total
		}
		for j, in := range ins {
			w := float32(math.Exp(cum[last] - cum[j]))
			uj := u[j*dv : (j+1)*dv]
			for i, ki := range in.k {
				kw := w * ki
				row := S[i*dv : (i+1)*dv]
				for x := range row {
					row[x] += kw * uj[x]
				}
			}
		}
	}
}

func (b *Backend) RMSNormGated(dst, x, z, w backend.Tensor, eps float32) {
	xs, zs, ds, ws := f32(x), f32(z), f32(dst), f32(w)
	g := len(ws)
	if g == 0 || len(xs)%g != 0 || len(zs) != len(xs) || len(ds) != len(xs) {
		backend.ShapeError("RMSNormGated", "x, z", []any{x.Shape(), z.Shape()}, fmt.Sprintf("equal, columns a multiple of %d", g))
	}
	b.parallel(len(xs)/g, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			v := xs[k*g : (k+1)*g]
			var ss float64
			for _, e := range v {
				ss += float64(e) * float64(e)
			}
			inv := float32(1 / math.Sqrt(ss/float64(g)+float64(eps)))
			o, zz := ds[k*g:(k+1)*g], zs[k*g:(k+1)*g]
			for j, e := range v {
				o[j] = ws[j] * (e * inv) * silu(zz[j])
			}
		}
	})
}

func (b *Backend) SigmoidMul(dst, x, g backend.Tensor) {
	xs, gs, ds := f32(x), f32(g), f32(dst)
	n, c := dims(x)
	if len(ds) != len(xs) || (len(gs) != len(xs) && len(gs) != n) {
		backend.ShapeError("SigmoidMul", "x, g", []any{x.Shape(), g.Shape()}, "equal, or g one column")
	}
	perRow := len(gs) != len(xs)
	b.parallel(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for j := range c {
				gv := gs[r] // one gate per row
				if !perRow {
					gv = gs[r*c+j]
				}
				ds[r*c+j] = xs[r*c+j] * sigmoid(gv)
			}
		}
	})
}

// supportsOp answers Supports for the ops beyond matmul: the CPU serves them all.
func (b *Backend) supportsOp(q backend.Query) error {
	if extraOps[q.Op] { // the Gemmas' ops
		return nil
	}
	switch q.Op {
	case backend.OpGatedDeltaNet, backend.OpSigmoidGate, backend.OpMoE:
		return nil
	}
	if slices.Contains(backend.FusedOps, q.Op) {
		return backend.ServesFused(b, q.Op) // none: the reference runs every fused op as its plain sequence
	}
	return &backend.UnsupportedError{Backend: b.Name(), Query: q, Why: "unknown op"}
}

// stateT sets dst [dv] = Sᵀx for the state S [len(x), dv] (row i of S scaled by x_i, summed in row order).
func stateT(dst, S, x []float32, dv int) {
	clear(dst)
	for i, xi := range x {
		row := S[i*dv : (i+1)*dv]
		for j, sv := range row {
			dst[j] += sv * xi
		}
	}
}
