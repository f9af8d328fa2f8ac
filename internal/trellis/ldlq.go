// This file is LDLQ (QuIP's Hessian-aware feedback rounding, QTIP's outer loop) with the Viterbi search as the
// inner quantizer: the columns of W [out, in] (the input features) are coded block by block, each block's target
// being its weights plus the earlier blocks' rounding errors fed forward through H's block-LDL factor, so the
// error that remains is the one the layer's inputs see least. With H = XᵀX the proxy loss tr(ΔW·H·ΔWᵀ) is the
// layer's output error over the calibration inputs X.
//
// The block is the format's: along axis 1 a coded block runs along the input dimension, so a feedback block is T
// columns (one trellis block of every row); along axis 0 a coded row is one input feature, so the feedback block
// is DefaultLDLQRows coded rows (each searched whole, with its own least-squares scale).
package trellis

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// DefaultLDLQRows is the default feedback block along axis 0 (input features coded together): smaller blocks feed back more
// (1 is exact LDLQ) but search fewer blocks in parallel; 16 rows of a 512-wide output are 32 trellis blocks.
const DefaultLDLQRows = 16

// ErrNotPositiveDefinite is returned for a Hessian whose Cholesky factorisation fails (damp it more).
var ErrNotPositiveDefinite = errors.New("hessian is not positive definite")

// blockFeedback factors a symmetric positive definite h [n, n] (row-major) as H = M·D·Mᵀ with M block upper
// unit triangular (blocks of g; identity diagonal blocks) and D block diagonal, and returns M [n, n]: entry (r, c)
// with block(r) < block(c) is the weight with which column r's rounding error is fed into column c; the rest is
// zero. Quantizing blocks in order with targets W_k + Σ_{j<k} (W_j − Ŵ_j)·M_jk leaves the proxy loss
// Σ_k Z_k·D_k·Z_kᵀ, Z_k block k's own rounding error.
//
// Computed from the Cholesky factor of H in reversed order: P·H·P = C·Cᵀ (C lower, P the reversal) gives
// H = U·Uᵀ with U = P·C·P upper triangular, and M = U·blockdiag(U)⁻¹.
func blockFeedback(h []float64, n, g int) ([]float64, error) {
	if len(h) != n*n || g < 1 || n%g != 0 {
		return nil, fmt.Errorf("ldlq: hessian of %d values for %d inputs in blocks of %d", len(h), n, g)
	}
	// Cholesky of the reversed matrix, stored as U directly: U[i][j] = C[n−1−i][n−1−j], i ≤ j.
	// For the reversed order the recurrence runs from the last index down.
	u := make([]float64, n*n)
	for j := n - 1; j >= 0; j-- {
		// diagonal: U_jj² = H_jj − Σ_{k>j} U_jk²
		s := h[j*n+j]
		rowJ := u[j*n : (j+1)*n]
		for k := j + 1; k < n; k++ {
			s -= rowJ[k] * rowJ[k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("ldlq: pivot %d is %g: %w", j, s, ErrNotPositiveDefinite)
		}
		d := math.Sqrt(s)
		rowJ[j] = d
		// column j above the diagonal: U_ij = (H_ij − Σ_{k>j} U_ik·U_jk) / U_jj for i < j
		for i := 0; i < j; i++ {
			rowI := u[i*n : (i+1)*n]
			t := h[i*n+j]
			for k := j + 1; k < n; k++ {
				t -= rowI[k] * rowJ[k]
			}
			rowI[j] = t / d
		}
	}
	// M's block column k: rows of earlier blocks solve x·U_kk = U[r, block k] (U_kk upper triangular).
	m := make([]float64, n*n)
	for k0 := g; k0 < n; k0 += g {
		for r := 0; r < k0; r++ {
			src, dst := u[r*n+k0:r*n+k0+g], m[r*n+k0:r*n+k0+g]
			for j := range g {
				t := src[j]
				for i := 0; i < j; i++ {
					t -= dst[i] * u[(k0+i)*n+k0+j]
				}
				dst[j] = t / u[(k0+j)*n+k0+j]
			}
		}
	}
	return m, nil
}

// QuantizeLDLQ codes W [out, in] like Quantize, choosing the codes with LDLQ against the input Hessian h [in, in]
// (row-major, symmetric positive definite: the caller damps it). A nil h is plain Quantize (LDLQ with an identity
// Hessian is plain rounding). Axis 1 rows keep the first-pass scale RMS·scaleFactor (rounded to fp16) during the
// feedback and are refit at the end to the scale minimising the row's proxy loss; axis 0 rows are searched whole
// and get Encode's least-squares scale.
func QuantizeLDLQ(dense []float32, out, in int, spec Spec, interleave bool, h []float64) (*Weights, error) {
	return QuantizeLDLQWith(dense, out, in, spec, interleave, h, LDLQOptions{})
}

// LDLQOptions tune QuantizeLDLQWith; the zero value is QuantizeLDLQ's behaviour.
type LDLQOptions struct {
	// Rows is the axis-0 feedback block (coded rows searched together before their errors are fed forward); 0
	// means DefaultLDLQRows. Smaller is closer to exact LDLQ (1) and searches fewer blocks in parallel. It is halved until
	// it divides the input features.
	Rows int
	// RefitScales re-solves the axis-0 scales jointly against H after rounding (refitScalesAxis0).
	RefitScales bool
	// Searcher does the block searches (nil: CPU); the codes do not depend on which one as long as it returns
	// encodeBlock's paths.
	Searcher Searcher
}

// QuantizeLDLQWith is QuantizeLDLQ with the options o.
func QuantizeLDLQWith(dense []float32, out, in int, spec Spec, interleave bool, h []float64, o LDLQOptions) (*Weights, error) {
	if o.Rows < 0 {
		return nil, fmt.Errorf("trellis ldlq: feedback block of %d rows", o.Rows)
	}
	if h == nil {
		return QuantizeWith(dense, out, in, spec, interleave, o.Searcher)
	}
	if out < 1 || in < 1 || out > math.MaxInt/in || len(dense) != out*in {
		return nil, fmt.Errorf("trellis ldlq: %d values for a %d×%d weight", len(dense), out, in)
	}
	if len(h) != in*in {
		return nil, fmt.Errorf("trellis ldlq: hessian of %d values for %d inputs", len(h), in)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("trellis ldlq: %w", err)
	}
	if interleave && (!spec.interleavable() || out%InterleaveCols != 0) {
		return nil, fmt.Errorf("trellis ldlq: %w: the block interleave needs axis 0, k 3, T 256, L 12, 1mad and out %% 512 == 0", ErrFormat)
	}
	var w *Weights
	var err error
	if spec.Axis == 1 {
		w, err = ldlqAxis1(dense, out, in, spec, h, searcherOr(o.Searcher))
	} else {
		w, err = ldlqAxis0(dense, out, in, spec, h, o.Rows, o.Searcher)
		if err == nil && o.RefitScales {
			_, _, err = refitScalesAxis0(w, dense, out, in, h)
		}
	}
	if err != nil || !interleave {
		return w, err
	}
	return w.interleave(), nil
}

// ldlqAxis1Chunk bounds the weights of the rows coded together: their targets and codes (f64, 16 bytes a
// weight) are the memory ldlqAxis1 holds beyond the words, 128 MiB however large the weight; a chunk of a
// 5120-input weight is 1638 rows, enough blocks per search to fill a GPU.
const ldlqAxis1Chunk = 1 << 23

// ldlqAxis1: rows are independent (feedback runs along a row), so rows are coded a chunk at a time and within a
// chunk block column by block column: block b of every live row (one Searcher call), then each row's errors fed
// into its later columns. Each row's arithmetic is the same whatever the chunk, so the result does not depend on
// the batching.
func ldlqAxis1(dense []float32, out, in int, spec Spec, h []float64, s Searcher) (*Weights, error) {
	g := Geometry{Spec: spec, Rows: out, Cols: in}
	if in%spec.T != 0 {
		return nil, fmt.Errorf("trellis ldlq: %w: %d inputs are not whole blocks of %d", ErrFormat, in, spec.T)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("trellis ldlq: %w", err)
	}
	m, err := blockFeedback(h, in, spec.T)
	if err != nil {
		return nil, fmt.Errorf("trellis ldlq: %w", err)
	}
	for _, x := range dense {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("trellis ldlq: a non-finite weight")
		}
	}
	words := make([]uint32, g.Words())
	scales := make([]float32, out)
	cb := tablesFor(spec.L).value
	wpb, T := spec.WordsPerBlock(), spec.T
	per := max(1, min(out, ldlqAxis1Chunk/in))
	tgt := make([]float64, per*in)   // each chunk row's target, errors fed forward
	codes := make([]float64, per*in) // each chunk row's chosen code values
	scl := make([]float64, per)      // each chunk row's first-pass scale
	x := make([]float32, per*T)      // block b of the live rows, normalised
	st := make([]uint32, per*T)
	live := make([]int, 0, per) // chunk rows that are not all zero, in order
	var failed atomic.Value
	for r0 := 0; r0 < out; r0 += per {
		nr := min(per, out-r0)
		live = live[:0]
		for i := range nr {
			row := dense[(r0+i)*in : (r0+i+1)*in]
			var ss float64
			for c, w := range row {
				tgt[i*in+c] = float64(w)
				ss += float64(w) * float64(w)
			}
			if ss == 0 {
				continue // an all-zero row: zero words, scale 0
			}
			first := math.Sqrt(ss/float64(in)) * scaleFactor(spec.K, spec.L)
			sc := float64(dtype.RoundF16(float32(first)))
			if sc == 0 { // below fp16's range: search with the exact value, the refit sets what is stored
				sc = first
			}
			scl[i] = sc
			live = append(live, i)
		}
		n := len(live)
		for b := range in / T {
			lo := b * T
			vec.ParallelFor(n, 16, func(a, z int) {
				for k := a; k < z; k++ {
					i := live[k]
					for p := range T {
						x[k*T+p] = float32(tgt[i*in+lo+p] / scl[i])
					}
				}
			})
			if err := s.SearchBlocks(spec, x[:n*T], st[:n*T]); err != nil {
				return nil, fmt.Errorf("trellis ldlq: rows %d..%d, block %d: %w", r0, r0+nr-1, b, err)
			}
			if err := checkStates(st[:n*T], spec.L); err != nil {
				return nil, fmt.Errorf("trellis ldlq: rows %d..%d, block %d: %w", r0, r0+nr-1, b, err)
			}
			vec.ParallelFor(n, 1, func(a, z int) {
				e := make([]float64, T)
				for k := a; k < z; k++ {
					i, r := live[k], r0+live[k]
					path := st[k*T : (k+1)*T]
					packBlock(words[g.blockOffset(r, b):][:wpb], path, spec.K)
					row, t := dense[r*in:(r+1)*in], tgt[i*in:(i+1)*in]
					for p, q := range path {
						c := float64(cb[q])
						codes[i*in+lo+p] = c
						e[p] = float64(row[lo+p]) - scl[i]*c
					}
					// feed block b's errors forward: t[c] += Σ_p e_p·M[lo+p][c] for the later columns
					for p, ep := range e {
						if ep == 0 {
							continue
						}
						mr := m[(lo+p)*in : (lo+p+1)*in]
						for c := lo + T; c < in; c++ {
							t[c] += ep * mr[c]
						}
					}
				}
			})
		}
		// the scale minimising (w − s·c)·H·(w − s·c)ᵀ with the codes fixed: s = w·H·cᵀ / c·H·cᵀ
		vec.ParallelFor(n, 1, func(a, z int) {
			hc := make([]float64, in)
			for k := a; k < z; k++ {
				i, r := live[k], r0+live[k]
				row, cs := dense[r*in:(r+1)*in], codes[i*in:(i+1)*in]
				for p := range in {
					hr := h[p*in : (p+1)*in]
					var t float64
					for j, c := range cs {
						t += hr[j] * c
					}
					hc[p] = t
				}
				var whc, chc float64
				for p, t := range hc {
					whc += float64(row[p]) * t
					chc += cs[p] * t
				}
				best := scl[i]
				if chc > 0 && whc > 0 {
					if f := float64(dtype.RoundF16(float32(whc / chc))); f > 0 && !math.IsInf(f, 0) {
						best = f
					}
				}
				if math.IsInf(best, 0) {
					failed.Store(fmt.Errorf("trellis ldlq: row %d scale %g overflows fp16", r, best))
				}
				scales[r] = float32(best)
			}
		})
	}
	if err, ok := failed.Load().(error); ok {
		return nil, err
	}
	wt, err := NewWeights(g, words, scales)
	if err != nil {
		return nil, fmt.Errorf("trellis ldlq: %w", err)
	}
	return wt, nil
}

// ldlqAxis0: coded row j is input feature j (column j of W, Cols = out positions); blocks of DefaultLDLQRows coded rows
// are searched together by Encode, then their errors are fed into the later rows' targets.
func ldlqAxis0(dense []float32, out, in int, spec Spec, h []float64, rows int, s Searcher) (*Weights, error) {
	gsz := DefaultLDLQRows
	if rows > 0 {
		gsz = rows
	}
	for in%gsz != 0 {
		gsz /= 2
	}
	m, err := blockFeedback(h, in, gsz)
	if err != nil {
		return nil, fmt.Errorf("trellis ldlq: %w", err)
	}
	tgt := make([]float32, len(dense)) // Wᵀ [in, out]: the coded rows
	for o := range out {
		for i, x := range dense[o*in : (o+1)*in] {
			tgt[i*out+o] = x
		}
	}
	orig := append([]float32(nil), tgt...)
	g := Geometry{Spec: spec, Rows: in, Cols: out}
	words := make([]uint32, 0, g.Words())
	scales := make([]float32, 0, in)
	e := make([]float32, gsz*out)
	for r0 := 0; r0 < in; r0 += gsz {
		sub, err := EncodeWith(tgt[r0*out:(r0+gsz)*out], gsz, out, spec, s)
		if err != nil {
			return nil, fmt.Errorf("trellis ldlq: rows %d..%d: %w", r0, r0+gsz-1, err)
		}
		words = append(words, sub.Words...)
		scales = append(scales, sub.Scales...)
		for i := range gsz {
			q := e[i*out : (i+1)*out]
			sub.DecodeRow(i, Exact, q)
			for c, w := range orig[(r0+i)*out : (r0+i+1)*out] {
				q[c] = w - q[c]
			}
		}
		if r0+gsz == in {
			break
		}
		// tgt[j] += Σ_i M[r0+i][j]·e_i for every later coded row j, in parallel over j
		later := in - r0 - gsz
		var wg sync.WaitGroup
		workers := min(runtime.GOMAXPROCS(0), later)
		for wk := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := r0 + gsz + wk; j < in; j += workers {
					dst := tgt[j*out : (j+1)*out]
					for i := range gsz {
						f := float32(m[(r0+i)*in+j])
						if f == 0 {
							continue
						}
						for c, v := range e[i*out : (i+1)*out] {
							dst[c] += f * v
						}
					}
				}
			}()
		}
		wg.Wait()
	}
	wt, err := NewWeights(g, words, scales)
	if err != nil {
		return nil, fmt.Errorf("trellis ldlq: %w", err)
	}
	return wt, nil
}
