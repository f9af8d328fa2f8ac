// Encoding one tensor: trellis codes for a projection, MLX affine 8-bit for an embedding table, bf16 for the rest;
// each quantized tensor's SNR is measured from the stored bits (decoded row by row, so no second dense copy).
package quantize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/trellis"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// encodeTrellis codes one projection and adds <path>.weight (U32, the stored shape) and <path>.scales (F16
// [rows]) to the sink, and with rotations <path>.rht_in (I8 [in]) and <path>.rht_out (I8 [out]). With rotations
// the codes are of W̃ = R_out·W·R_inᵀ (its Hessian R_in·H·R_inᵀ); with a Hessian they are chosen by LDLQ. SNR and
// proxy loss are measured in the coded basis, which the rotations (orthogonal) leave them equal to.
func encodeTrellis(it item, h backend.Host, s *sink, hs *hessian, o Options) (*TensorReport, *trellis.Weights, error) {
	dense, err := h.Float32s()
	if err != nil {
		return nil, nil, err
	}
	return encodeTrellisDense(it, dense, s, hs, o)
}

// encodeTrellisDense is encodeTrellis of the weight's values dense [out, in] (f32, the checkpoint's basis).
func encodeTrellisDense(it item, dense []float32, s *sink, hs *hessian, o Options) (*TensorReport, *trellis.Weights, error) {
	start := time.Now()
	var err error
	if hs != nil && hs.cross != nil {
		if dense, err = asymTarget(dense, it.out, it.in, hs, o.Damp); err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %w", it.name, err)
		}
	}
	if it.rotIn != nil || it.rotOut != nil {
		dense = rht.RotateWeight(dense, it.out, it.in, it.rotIn, it.rotOut)
	}
	var hfull []float64
	if hs != nil {
		if hs.n != it.in {
			return nil, nil, fmt.Errorf("tensor %q: calibration Hessian of %d inputs for %d in-features", it.name, hs.n, it.in)
		}
		hfull = rht.RotateHessian(hs.full(), hs.n, it.rotIn)
	}
	w, err := ldlq(dense, it, hfull, o)
	if err != nil {
		return nil, nil, fmt.Errorf("tensor %q: %w", it.name, err)
	}
	snr := trellisSNR(dense, w)
	proxy, rel := proxyLoss(dense, w, hfull, hs)
	words := backend.Host{Name: it.path + ".weight", DType: backend.U32, Shape: w.StoredShape(), Data: u32Bytes(w.Words)}
	scales := backend.Host{Name: it.path + ".scales", DType: backend.F16, Shape: []int{w.Rows}, Data: make([]byte, 2*w.Rows)}
	for r, x := range w.Scales {
		binary.LittleEndian.PutUint16(scales.Data[2*r:], backend.F32ToF16(x))
	}
	ts := []backend.Host{words, scales}
	if it.rotIn != nil {
		ts = append(ts, signTensor(it.path+model.SignsIn, it.rotIn.Signs))
	}
	if it.rotOut != nil {
		ts = append(ts, signTensor(it.path+model.SignsOut, it.rotOut.Signs))
	}
	// The geometry record ties the codes to their K, L, T, axis and layout (trellis/record.go).
	if err := s.addWithMeta(map[string]string{trellis.RecordKey(words.Name): w.Geometry.Record()}, ts...); err != nil {
		return nil, nil, err
	}
	return &TensorReport{
		Name: it.path, Spec: it.qspec, Shape: [2]int{it.out, it.in}, Interleaved: w.Interleaved, SNRdB: snr,
		Bits: storedBits(dense, ts...), Elapsed: time.Since(start), Proxy: proxy, ProxyRel: rel,
		RotatedIn: it.rotIn != nil, RotatedOut: it.rotOut != nil, LDLQ: hfull != nil,
	}, w, nil
}

// ldlq codes dense (in the coded basis) with LDLQ against h damped by λ·mean(diag h) (o.Damp, with o's refit and
// feedback block); a Hessian the factorisation rejects is damped ten times more, up to three times. Without h it
// is plain Quantize.
func ldlq(dense []float32, it item, h []float64, o Options) (*trellis.Weights, error) {
	if h == nil {
		return trellis.QuantizeWith(dense, it.out, it.in, it.spec, it.interleave, o.searcher())
	}
	lo := trellis.LDLQOptions{Rows: o.LDLQRows, RefitScales: o.RefitScales, Searcher: o.searcher()}
	damp := o.Damp
	for try := 0; ; try++ {
		w, err := trellis.QuantizeLDLQWith(dense, it.out, it.in, it.spec, it.interleave, damped(h, it.in, damp), lo)
		if !errors.Is(err, trellis.ErrNotPositiveDefinite) || try == 3 {
			return w, err
		}
		damp *= 10
	}
}

// asymTarget is W' = W + W·Eᵀ·H̃_d⁻¹ for W [out, in] (Options.Asymmetric): row o of the correction solves
// H̃_d·z = E·W_oᵀ, H̃_d = H̃ + λ·mean(diag H̃)·I. Without the damping this is the least-squares map of the quantized
// model's inputs X̃ to the unquantized outputs X·Wᵀ; the damping only shrinks the correction, never W itself.
func asymTarget(w []float32, out, in int, hs *hessian, damp float64) ([]float32, error) {
	l := damped(hs.full(), in, damp)
	if err := trellis.CholeskyFactor(l, in); err != nil {
		return nil, fmt.Errorf("asymmetric target: %w", err)
	}
	res := make([]float32, len(w))
	vec.ParallelFor(out, 1, func(lo, hi int) {
		r := make([]float64, in)
		for o := lo; o < hi; o++ {
			row := w[o*in : (o+1)*in]
			for i := range in {
				var t float64
				for j, x := range hs.cross[i*in : (i+1)*in] {
					t += x * float64(row[j])
				}
				r[i] = t
			}
			z := trellis.CholeskySolve(l, r, in)
			for i, x := range row {
				res[o*in+i] = float32(float64(x) + z[i])
			}
		}
	})
	return res, nil
}

// proxyLoss is tr(ΔW·H·ΔWᵀ)/tokens and its ratio to tr(W·H·Wᵀ)/tokens for W [out, in] and its decoded codes; H = I
// when h is nil. With a Hessian it costs out·in² multiply-adds, as much as the encoding at large in, so the rows
// run on every core; each row's sums are added in row order, so the result does not depend on the scheduling.
func proxyLoss(dense []float32, w *trellis.Weights, h []float64, hs *hessian) (float64, float64) {
	out, in := w.OutFeatures(), w.InFeatures()
	q := w.Dense(trellis.Exact)
	rowLoss, rowSig := make([]float64, out), make([]float64, out)
	vec.ParallelFor(out, 1, func(lo, hi int) {
		d := make([]float64, in)
		for o := lo; o < hi; o++ {
			row := dense[o*in : (o+1)*in]
			for i := range in {
				d[i] = float64(q[o*in+i]) - float64(row[i])
			}
			var loss, sig float64
			if h == nil {
				for i, x := range d {
					loss += x * x
					sig += float64(row[i]) * float64(row[i])
				}
			} else {
				for i := range in {
					hr := h[i*in : (i+1)*in]
					var td, tw float64
					for j, x := range d {
						td += hr[j] * x
						tw += hr[j] * float64(row[j])
					}
					loss += d[i] * td
					sig += float64(row[i]) * tw
				}
			}
			rowLoss[o], rowSig[o] = loss, sig
		}
	})
	var loss, sig float64
	for o := range out {
		loss += rowLoss[o]
		sig += rowSig[o]
	}
	if hs != nil && hs.tokens > 0 {
		loss /= float64(hs.tokens)
		sig /= float64(hs.tokens)
	}
	rel := math.NaN()
	if sig > 0 {
		rel = loss / sig
	}
	return loss, rel
}

// signTensor stores a sign vector as I8 ±1.
func signTensor(name string, s []float32) backend.Host {
	b := make([]byte, len(s))
	for i, v := range s {
		b[i] = byte(int8(v))
	}
	return backend.Host{Name: name, DType: backend.I8, Shape: []int{len(s)}, Data: b}
}

// trellisSNR compares W [out, in] with its codes decoded (Exact) one coded row at a time; on axis 0 coded row r is
// column r of W.
func trellisSNR(dense []float32, w *trellis.Weights) float64 {
	var acc snrSum
	row := make([]float32, w.Cols)
	for r := range w.Rows {
		w.DecodeRow(r, trellis.Exact, row)
		if w.Axis == 1 {
			acc.add(dense[r*w.Cols:(r+1)*w.Cols], row)
			continue
		}
		for c, x := range row {
			acc.one(dense[c*w.Rows+r], x)
		}
	}
	return acc.dB()
}

// encodeAffine stores an embedding table (or lm_head) as MLX affine: <path>.weight U32 [out, in·bits/32],
// <path>.scales and <path>.biases BF16 [out, in/group]. The SNR is measured with the bf16-rounded scales and
// biases the file holds.
func encodeAffine(it item, h backend.Host, s *sink) (*TensorReport, error) {
	start := time.Now()
	dense, err := h.Float32s()
	if err != nil {
		return nil, err
	}
	a, err := affine.Quantize(dense, it.out, it.in, it.qspec.Bits, it.qspec.GroupSize)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", it.name, err)
	}
	groups := it.in / it.qspec.GroupSize
	scales, sb := roundBF16(a.Scales)
	biases, bb := roundBF16(a.Biases)
	a.Scales, a.Biases = scales, biases
	var acc snrSum
	row := make([]float32, it.in)
	for o := range it.out {
		a.DecodeRow(o, row)
		acc.add(dense[o*it.in:(o+1)*it.in], row)
	}
	shape := []int{it.out, groups}
	words := backend.Host{Name: it.path + ".weight", DType: backend.U32, Shape: []int{it.out, a.WordsPerRow()}, Data: u32Bytes(a.Packed)}
	sh := backend.Host{Name: it.path + ".scales", DType: backend.BF16, Shape: shape, Data: sb}
	bh := backend.Host{Name: it.path + ".biases", DType: backend.BF16, Shape: shape, Data: bb}
	if err := s.add(words, sh, bh); err != nil {
		return nil, err
	}
	return &TensorReport{
		Name: it.path, Spec: it.qspec, Shape: [2]int{it.out, it.in}, SNRdB: acc.dB(),
		Bits: storedBits(dense, words, sh, bh), Elapsed: time.Since(start),
	}, nil
}

// keepBF16 adds a floating tensor as bf16: a bf16 input as is (aliasing the input's mapping), f32 and f16 rounded
// to nearest even.
func keepBF16(h backend.Host, s *sink) error {
	if h.DType == backend.BF16 {
		return s.add(h)
	}
	f, err := h.Float32s()
	if err != nil {
		return err
	}
	_, b := roundBF16(f)
	return s.add(backend.Host{Name: h.Name, DType: backend.BF16, Shape: h.Shape, Data: b})
}

// roundBF16 rounds values to bf16, returning them widened back and as little-endian bf16 bytes.
func roundBF16(v []float32) ([]float32, []byte) {
	r := make([]float32, len(v))
	b := make([]byte, 2*len(v))
	for i, x := range v {
		u := backend.F32ToBF16(x)
		r[i] = backend.BF16ToF32(u)
		binary.LittleEndian.PutUint16(b[2*i:], u)
	}
	return r, b
}

func u32Bytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// storedBits is the bits the tensors hold per weight of dense.
func storedBits(dense []float32, ts ...backend.Host) float64 {
	var n int
	for _, t := range ts {
		n += len(t.Data)
	}
	return float64(n) * 8 / float64(len(dense))
}

// snrSum accumulates signal and noise energy in float64.
type snrSum struct{ signal, noise float64 }

func (s *snrSum) one(w, q float32) {
	d := float64(w) - float64(q)
	s.signal += float64(w) * float64(w)
	s.noise += d * d
}

func (s *snrSum) add(w, q []float32) {
	for i, x := range w {
		s.one(x, q[i])
	}
}

// dB is 10·log10(signal/noise), +Inf for an exact reconstruction (an all-zero tensor included).
func (s *snrSum) dB() float64 {
	if s.noise == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(s.signal/s.noise)
}
