// Linear layers on the CPU: dense weights widened to float32 once at load, quantized weights decoded on the fly
// by their format packages (trellis, affine, exl3), which own the reference decode arithmetic.
package cpu

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/trellis"
	"github.com/mlxbun/mlxbun/internal/vec"
)

type linear struct {
	out, in int
	w       []float32 // dense [out, in]
	bias    []float32 // [out] or nil
	q       quantized // trellis, affine or EXL3, when w is nil
}

// quantized is a weight format that multiplies by decoding on the fly: y[n, out] = x[n, in]·Wᵀ.
type quantized interface {
	MatMul(y, x []float32, n int)
	Dense() []float32 // [out, in], decoded with the same arithmetic as MatMul
}

func (l *linear) In() int  { return l.in }
func (l *linear) Out() int { return l.out }

func (b *Backend) LoadLinear(spec backend.LinearSpec) (backend.Linear, error) {
	l := &linear{out: spec.Out, in: spec.In}
	switch {
	case spec.Dense != nil:
		h := *spec.Dense
		if len(h.Shape) != 2 || h.Shape[0] != spec.Out || h.Shape[1] != spec.In {
			return nil, fmt.Errorf("linear %s: weight shape %v, want [%d %d]", spec.Name, h.Shape, spec.Out, spec.In)
		}
		w, err := h.Float32s()
		if err != nil {
			return nil, fmt.Errorf("linear %s: %w", spec.Name, err)
		}
		l.w = w
	case spec.Trellis != nil || spec.Affine != nil || spec.EXL3 != nil:
		q, err := b.loadQuantized(spec)
		if err != nil {
			return nil, err
		}
		if int64(spec.Out)*int64(spec.In)*4 <= b.ExpandQuantizedBelow {
			l.w = q.Dense() // the same weights, multiplied by the dense kernels
		} else {
			l.q = q
		}
	default:
		return nil, fmt.Errorf("linear %s: no weights given", spec.Name)
	}
	if spec.Bias != nil {
		bias, err := spec.Bias.Float32s()
		if err != nil {
			return nil, fmt.Errorf("linear %s bias: %w", spec.Name, err)
		}
		if len(bias) != spec.Out {
			return nil, fmt.Errorf("linear %s: bias has %d values, want %d", spec.Name, len(bias), spec.Out)
		}
		l.bias = bias
	}
	return l, nil
}

func (b *Backend) MatMul(dst, x backend.Tensor, w backend.Linear) {
	l := w.(*linear)
	n, in := dims(x)
	ys := f32(dst)
	if in != l.in || len(ys) != n*l.out {
		backend.ShapeError("MatMul", "x, dst", x.Shape(), fmt.Sprintf("[n %d] -> [n %d]", l.in, l.out))
	}
	xs := f32(x)
	if l.q != nil {
		l.q.MatMul(ys, xs, n)
	} else {
		b.denseMatMul(ys, xs, l.w, n, l.in, l.out)
	}
	if l.bias != nil {
		for r := 0; r < n; r++ {
			row := ys[r*l.out : (r+1)*l.out]
			for o, v := range l.bias {
				row[o] += v
			}
		}
	}
}

// denseMatMul: y[n, out] = x[n, in]·w[out, in]ᵀ. Work is split over output rows in blocks so a block of w stays
// in cache while every activation row streams past it; inside, 4 activation rows × 4 weight rows are combined
// per step (16 independent sums), which keeps a core's floating-point pipes busy where a lone dot product waits
// on its adds.
func (b *Backend) denseMatMul(y, x, w []float32, n, in, out int) {
	const block = 16
	blocks := (out + block - 1) / block
	b.parallel(blocks, func(lo, hi int) {
		for bk := lo; bk < hi; bk++ {
			o0, o1 := bk*block, min((bk+1)*block, out)
			r := 0
			for ; r+tileRows <= n; r += tileRows {
				o := o0
				for ; o+tileCols <= o1; o += tileCols {
					tile(y, x, w, r, o, in, out)
				}
				for ; o < o1; o++ {
					for rr := r; rr < r+tileRows; rr++ {
						y[rr*out+o] = dot(x[rr*in:(rr+1)*in], w[o*in:(o+1)*in])
					}
				}
			}
			for ; r < n; r++ {
				xr := x[r*in : (r+1)*in]
				for o := o0; o < o1; o++ {
					y[r*out+o] = dot(xr, w[o*in:(o+1)*in])
				}
			}
		}
	})
}

// The tile kernel computes y[r..r+tileRows, o..o+tileCols]; a SIMD build (matmul_simd_amd64.go) swaps in a
// vector kernel where the processor has one, and names it in kernels.
var (
	tileRows, tileCols = 4, 4
	tile               = tile4x4
	dot                = vec.Dot
	kernels            = "scalar"
)

// Kernels names the matmul and dot kernels this process runs: "scalar" (linear.go, vec.Dot) or "avx2-fma"
// (matmul_simd_amd64.go). They sum in another order, so a float result is reproducible bit for bit only under the
// same kernels (and the same compiler fusing of the scalar code: GOARCH, GOAMD64).
func Kernels() string { return kernels }

// tile4x4 computes y[r..r+4, o..o+4].
func tile4x4(y, x, w []float32, r, o, in, out int) {
	x0, x1, x2, x3 := x[r*in:(r+1)*in], x[(r+1)*in:(r+2)*in], x[(r+2)*in:(r+3)*in], x[(r+3)*in:(r+4)*in]
	w0, w1, w2, w3 := w[o*in:(o+1)*in], w[(o+1)*in:(o+2)*in], w[(o+2)*in:(o+3)*in], w[(o+3)*in:(o+4)*in]
	x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
	w0, w1, w2, w3 = w0[:len(x0)], w1[:len(x0)], w2[:len(x0)], w3[:len(x0)]
	var s00, s01, s02, s03, s10, s11, s12, s13, s20, s21, s22, s23, s30, s31, s32, s33 float32
	for k, a0 := range x0 {
		a1, a2, a3 := x1[k], x2[k], x3[k]
		b0, b1, b2, b3 := w0[k], w1[k], w2[k], w3[k]
		s00 += a0 * b0
		s01 += a0 * b1
		s02 += a0 * b2
		s03 += a0 * b3
		s10 += a1 * b0
		s11 += a1 * b1
		s12 += a1 * b2
		s13 += a1 * b3
		s20 += a2 * b0
		s21 += a2 * b1
		s22 += a2 * b2
		s23 += a2 * b3
		s30 += a3 * b0
		s31 += a3 * b1
		s32 += a3 * b2
		s33 += a3 * b3
	}
	y0, y1, y2, y3 := y[r*out+o:r*out+o+4], y[(r+1)*out+o:(r+1)*out+o+4], y[(r+2)*out+o:(r+2)*out+o+4], y[(r+3)*out+o:(r+3)*out+o+4]
	y0[0], y0[1], y0[2], y0[3] = s00, s01, s02, s03
	y1[0], y1[1], y1[2], y1[3] = s10, s11, s12, s13
	y2[0], y2[1], y2[2], y2[3] = s20, s21, s22, s23
	y3[0], y3[1], y3[2], y3[3] = s30, s31, s32, s33
}

// extraOps are the ops beside OpMatMul the CPU serves; each op's file adds its own in init.
var extraOps = map[backend.Op]bool{}

// Supports: the CPU serves every weight format the loader reads, at any row count (it is the reference), and
// the ops of extraOps.
func (b *Backend) Supports(q backend.Query) error {
	if q.Op != backend.OpMatMul {
		return b.supportsOp(q) // the hybrids' ops (deltanet.go)
	}
	w := q.Weight
	var err error
	switch w.Format {
	case backend.FormatDense:
		switch w.DType {
		case backend.F32, backend.F16, backend.BF16:
		default:
			err = fmt.Errorf("dense weights in %s", w.DType)
		}
	case backend.FormatTrellis:
		err = trellis.Spec{K: w.Bits, L: w.L, T: w.Group, Code: w.Code, Axis: w.Axis}.Validate()
	case backend.FormatAffine:
		err = affine.Supported(w.Bits, w.Group)
	case backend.FormatEXL3:
		if w.Bits < exl3.MinK || w.Bits > exl3.MaxK {
			err = fmt.Errorf("EXL3 codes of %d bits (1..8)", w.Bits)
		} else {
			_, err = exl3.ParseCodebook(w.Code)
		}
	default:
		err = fmt.Errorf("unknown weight format")
	}
	if err != nil {
		return &backend.UnsupportedError{Backend: b.Name(), Query: q, Why: err.Error()}
	}
	return nil
}
