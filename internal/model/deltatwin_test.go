package model_test

import (
	"math"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
)

// deltaTwin is a CPU backend whose gated delta rule runs in the chunked form (for the model) and, on a shadow
// state, in the recurrent form from the very same inputs; each call checks the two outputs against the f32
// rounding bound of deltaBound. It serves one prompt per layer from position 0 (a zero state), as
// TestHybridChunkedPrompt runs it.
type deltaTwin struct {
	*cpu.Backend
	t        *testing.T
	rec      *cpu.Backend
	shadow   map[backend.RecurrentState]backend.RecurrentState
	seen     map[int]bool // layers called: deltaBound assumes one call per layer, from a zero state
	worst    float64      // the largest ‖o_chunked − o_recurrent‖₂ / bound over every row, head and layer
	diff     float64      // the largest max-abs difference of the outputs
	compared int          // rows × heads held to the bound
}

func newDeltaTwin(t *testing.T, chunk int) *deltaTwin {
	return &deltaTwin{Backend: &cpu.Backend{DeltaChunk: chunk}, t: t, rec: &cpu.Backend{DeltaChunk: -1},
		shadow: map[backend.RecurrentState]backend.RecurrentState{}, seen: map[int]bool{}}
}

func (b *deltaTwin) NewRecurrentState(cfg backend.RecurrentConfig) (backend.RecurrentState, error) {
	st, err := b.Backend.NewRecurrentState(cfg)
	if err != nil {
		return nil, err
	}
	sh, err := b.rec.NewRecurrentState(cfg)
	if err != nil {
		return nil, err
	}
	b.shadow[st] = sh
	return st, nil
}

func (b *deltaTwin) GatedDeltaRule(dst, qkv, a, bt, aLog, dtBias backend.Tensor, st backend.RecurrentState, layer int, seq, pos backend.Tensor) {
	t := b.t
	if b.seen[layer] {
		t.Fatalf("layer %d: a second delta-rule call; deltaBound assumes one prompt from a zero state", layer)
	}
	b.seen[layer] = true
	b.Backend.GatedDeltaRule(dst, qkv, a, bt, aLog, dtBias, st, layer, seq, pos)
	ref, err := b.rec.Alloc(backend.F32, dst.Shape()...)
	if err != nil {
		t.Fatal(err)
	}
	defer b.rec.Free(ref)
	b.rec.GatedDeltaRule(ref, qkv, a, bt, aLog, dtBias, b.shadow[st], layer, seq, pos)
	read := func(x backend.Tensor) []float32 {
		n := 1
		for _, d := range x.Shape() {
			n *= d
		}
		v := make([]float32, n)
		if err := b.ReadFloat32(x, v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	got, want := read(dst), read(ref)
	bound := deltaBound(st.Config(), b.DeltaChunk, read(qkv), read(a), read(bt), read(aLog), read(dtBias))
	c := st.Config()
	n, dv := len(got)/(c.ValueHeads*c.ValueDim), c.ValueDim
	for r := range n {
		for h := range c.ValueHeads {
			at := (r*c.ValueHeads + h) * dv
			var d2 float64
			for j := range dv {
				d := float64(got[at+j]) - float64(want[at+j])
				d2 += d * d
				b.diff = max(b.diff, math.Abs(d))
			}
			e := math.Sqrt(d2)
			b.compared++
			b.worst = max(b.worst, e/bound[r*c.ValueHeads+h])
			if e > bound[r*c.ValueHeads+h] {
				t.Errorf("layer %d row %d head %d: ‖chunked − recurrent‖₂ %.3g above its f32 rounding bound %.3g",
					layer, r, h, e, bound[r*c.ValueHeads+h])
			}
		}
	}
}

// deltaBound is, per row t and value head h, a first-order bound on ‖o_chunked − o_recurrent‖₂ for rows that
// are one sequence from position 0 (a zero state), in chunks of L, computed from the inputs both forms read.
// With u = 2⁻²⁴ and γ = γ_{dk+L+8} = (dk+L+8)u/(1−(dk+L+8)u), covering a dk-long dot product, a sum of at most
// L+1 terms and the few roundings around either (f32 exp of an f64 exponent, β, the decays): the exact step
// S_t = d_t(I − β_t k_t k_tᵀ)S_{t−1} + β_t k_t v_tᵀ has ‖I − βkkᵀ‖₂ ≤ 1 (β‖k‖² ≤ 2), so an error made in one
// step reaches later states shrunk by the decays and never grown; the chunked form's u_j are exactly the
// recurrence's β_j(v_j − d_j S_{j−1}ᵀk_j) for the state its earlier u_j imply, so an error e_j in u_j is an error
// k_j e_jᵀ in that state and propagates the same way. So with ‖S_t‖_F ≤ M_t = d_t M_{t−1} + β_t‖v_t‖‖k_t‖,
// ‖u_t‖ ≤ W_t = β_t(‖v_t‖ + d_t M_{t−1}‖k_t‖) and D_{j,t} = Π_{j<i≤t} d_i, for the chunk of rows s…e that starts
// from S_{s−1}:
//
//	recurrent: E_t = d_t E_{t−1} + γ(d_t M_{t−1} + ‖v_t‖),    ‖ô_t − o_t‖ ≤ ‖q_t‖(E_t + γM_t)
//	chunked:   F_t = d_t F_{t−1} + ‖k_t‖γβ_t(‖v_t‖ + D_{s−1,t}M_{s−1} + Σ_{s≤j<t} D_{j,t}W_j)   (forward substitution)
//	           F_e += γ(D_{s−1,e}M_{s−1} + Σ_{s≤j≤e} D_{j,e}‖k_j‖W_j)                      (the chunk's state update)
//	           ‖ô_t − o_t‖ ≤ ‖q_t‖(F_t + γ(D_{s−1,t}M_{s−1} + Σ_{s≤j≤t} D_{j,t}W_j))
//
// and the bound is the two forms' errors summed. Terms of order (nγ)² are left out: with n = 24 rows nγ < 1e-4,
// so they would move the bound by less than 1e-4 of itself.
func deltaBound(c backend.RecurrentConfig, L int, qkv, a, bt, aLog, dtBias []float32) []float64 {
	kw, vw := c.KeyHeads*c.KeyDim, c.ValueHeads*c.ValueDim
	C := 2*kw + vw
	n := len(qkv) / C
	u := math.Ldexp(1, -24)
	m := float64(c.KeyDim + L + 8)
	g := m * u / (1 - m*u)
	scale := 1 / math.Sqrt(float64(c.KeyDim))
	// norm of l2(x)·s as deltanet.go computes it: s‖x‖/√(‖x‖²+1e-6), its f32 rounding inside γ.
	l2n := func(x []float32, s float64) float64 {
		var ss float64
		for _, e := range x {
			ss += float64(e) * float64(e)
		}
		return s * math.Sqrt(ss) / math.Sqrt(ss+1e-6) * (1 + g)
	}
	out := make([]float64, n*c.ValueHeads)
	group := c.ValueHeads / c.KeyHeads
	for h := range c.ValueHeads {
		kh := h / group
		A := math.Exp(float64(aLog[h]))
		Q, K, V, B, d := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for r := range n {
			row := qkv[r*C : (r+1)*C]
			Q[r] = l2n(row[kh*c.KeyDim:(kh+1)*c.KeyDim], scale)
			K[r] = l2n(row[kw+kh*c.KeyDim:kw+(kh+1)*c.KeyDim], 1)
			V[r] = l2n(row[2*kw+h*c.ValueDim:2*kw+(h+1)*c.ValueDim], 1) // ≥ ‖v‖
			B[r] = 1 / (1 + math.Exp(-float64(bt[r*c.ValueHeads+h])))
			x := float64(a[r*c.ValueHeads+h] + dtBias[h])
			sp := x
			if x <= 20 {
				sp = math.Log1p(math.Exp(x))
			}
			d[r] = math.Exp(-A * sp)
		}
		decay := func(j, t int) float64 { // D_{j,t} = Π_{j<i≤t} d_i
			p := 1.0
			for i := j + 1; i <= t; i++ {
				p *= d[i]
			}
			return p
		}
		M, W := make([]float64, n), make([]float64, n)
		var prevM, E, F float64
		for s := 0; s < n; s += L {
			Ms := prevM // the state norm bound the chunk starts from
			end := min(s+L, n)
			for t := s; t < end; t++ {
				W[t] = B[t] * (V[t] + d[t]*prevM*K[t])
				M[t] = d[t]*prevM + B[t]*V[t]*K[t]
				E = d[t]*E + g*(d[t]*prevM+V[t])
				rec := Q[t] * (E + g*M[t])
				// D runs from the chunk's start to t; sums of the earlier u in the chunk, decayed to t.
				D, sumU, sumKU := decay(s-1, t), 0.0, 0.0
				for j := s; j < t; j++ {
					sumU += decay(j, t) * W[j]
				}
				F = d[t]*F + K[t]*g*B[t]*(V[t]+D*Ms+sumU)
				chunked := Q[t] * (F + g*(D*Ms+sumU+W[t]))
				out[t*c.ValueHeads+h] = rec + chunked
				if t == end-1 {
					for j := s; j <= t; j++ {
						sumKU += decay(j, t) * K[j] * W[j]
					}
					F += g * (D*Ms + sumKU)
				}
				prevM = M[t]
			}
		}
	}
	return out
}
