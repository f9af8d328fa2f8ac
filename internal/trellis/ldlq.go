// This file is LDLQ (QuIP's Hessian-aware feedback rounding, QTIP's outer loop) with the Viterbi search as the
// inner quantizer: the columns of W [out, in] (the input features) are coded block by block, each block's target
// being its weights plus the earlier blocks' rounding errors fed forward through H's block-LDL factor, so the
// error that remains is the one the layer's inputs see least. With H = XᵀX the proxy loss tr(ΔW·H·ΔWᵀ) is the
// layer's output error over the calibration inputs X.
//
// The block is the format's: along axis 1 a coded block runs along the input dimension, so a feedback block is T
// columns (one trellis block of every row); along axis 0 a coded row is one input feature, so the feedback block
// is ldlqRows coded rows (each searched whole, with its own least-squares scale).
package trellis

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// ldlqRows is the feedback block along axis 0 (input features coded together): smaller blocks feed back more
// (1 is exact LDLQ) but search fewer blocks in parallel; 16 rows of a 512-wide output are 32 trellis blocks.
const ldlqRows = 16

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
	// means ldlqRows. Smaller is closer to exact LDLQ (1) and searches fewer blocks in parallel. It is halved until
	// it divides the input features.
	Rows int
	// RefitScales re-solves the axis-0 scales jointly against H after rounding (refitScalesAxis0).
	RefitScales bool
}

// QuantizeLDLQWith is QuantizeLDLQ with the options o.
func QuantizeLDLQWith(dense []float32, out, in int, spec Spec, interleave bool, h []float64, o LDLQOptions) (*Weights, error) {
	if o.Rows < 0 {
		return nil, fmt.Errorf("trellis ldlq: feedback block of %d rows", o.Rows)
	}
	if h == nil {
		return Quantize(dense, out, in, spec, interleave)
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
		w, err = ldlqAxis1(dense, out, in, spec, h)
	} else {
		w, err = ldlqAxis0(dense, out, in, spec, h, o.Rows)
		if err == nil && o.RefitScales {
			_, _, err = refitScalesAxis0(w, dense, out, in, h)
		}
	}
	if err != nil || !interleave {
		return w, err
	}
	return w.interleave(), nil
}

// ldlqAxis1: rows are independent (feedback runs along a row), so each worker takes whole rows and walks their
// blocks in order.
func ldlqAxis1(dense []float32, out, in int, spec Spec, h []float64) (*Weights, error) {
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
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for range min(runtime.GOMAXPROCS(0), out) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := newViterbi(spec)
			x := make([]float32, T)
			st := make([]uint32, T)
			tgt := make([]float64, in)
			codes := make([]float64, in)
			e := make([]float64, T)
			hc := make([]float64, in)
			for {
				r := int(next.Add(1)) - 1
				if r >= out {
					return
				}
				row := dense[r*in : (r+1)*in]
				var ss float64
				for i, w := range row {
					tgt[i] = float64(w)
					ss += float64(w) * float64(w)
				}
				if ss == 0 {
					continue // an all-zero row: zero words, scale 0
				}
				first := math.Sqrt(ss/float64(in)) * scaleFactor(spec.K, spec.L)
				s := float64(dtype.RoundF16(float32(first)))
				if s == 0 { // below fp16's range: search with the exact value, the refit sets what is stored
					s = first
				}
				for b := range in / T {
					lo := b * T
					for i := range x {
						x[i] = float32(tgt[lo+i] / s)
					}
					v.encodeBlock(x, st)
					packBlock(words[g.blockOffset(r, b):][:wpb], st, spec.K)
					for i, q := range st {
						c := float64(cb[q])
						codes[lo+i] = c
						e[i] = float64(row[lo+i]) - s*c
					}
					// feed block b's errors forward: tgt[c] += Σ_i e_i·M[lo+i][c] for the later columns
					for i, ei := range e {
						if ei == 0 {
							continue
						}
						mr := m[(lo+i)*in : (lo+i+1)*in]
						for c := lo + T; c < in; c++ {
							tgt[c] += ei * mr[c]
						}
					}
				}
				// the scale minimising (w − s·c)·H·(w − s·c)ᵀ with the codes fixed: s = w·H·cᵀ / c·H·cᵀ
				for i := range in {
					hr := h[i*in : (i+1)*in]
					var t float64
					for j, c := range codes {
						t += hr[j] * c
					}
					hc[i] = t
				}
				var whc, chc float64
				for i, t := range hc {
					whc += float64(row[i]) * t
					chc += codes[i] * t
				}
				best := s
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
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return nil, err
	}
	wt, err := NewWeights(g, words, scales)
	if err != nil {
		return nil, fmt.Errorf("trellis ldlq: %w", err)
	}
	return wt, nil
}

// ldlqAxis0: coded row j is input feature j (column j of W, Cols = out positions); blocks of ldlqRows coded rows
// are searched together by Encode, then their errors are fed into the later rows' targets.
func ldlqAxis0(dense []float32, out, in int, spec Spec, h []float64, rows int) (*Weights, error) {
	gsz := ldlqRows
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
		sub, err := Encode(tgt[r0*out:(r0+gsz)*out], gsz, out, spec)
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
