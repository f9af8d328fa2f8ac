// Linear layers on the CPU: dense weights widened to float32 once at load, quantized weights decoded on the fly
// by their format packages (trellis, affine), which own the reference decode arithmetic.
package cpu

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

type linear struct {
	out, in int
	w       []float32 // dense [out, in]
	bias    []float32 // [out] or nil
	q       quantized // trellis or affine, when w is nil
}

// quantized is a weight format that multiplies by decoding on the fly: y[n, out] = x[n, in]·Wᵀ.
type quantized interface {
	MatMul(y, x []float32, n int)
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
	case spec.Trellis != nil || spec.Affine != nil:
		q, err := loadQuantized(spec)
		if err != nil {
			return nil, err
		}
		l.q = q
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
// in cache while every activation row streams past it.
func (b *Backend) denseMatMul(y, x, w []float32, n, in, out int) {
	const block = 8
	blocks := (out + block - 1) / block
	b.parallel(blocks, func(lo, hi int) {
		for bk := lo; bk < hi; bk++ {
			o0, o1 := bk*block, min((bk+1)*block, out)
			for r := 0; r < n; r++ {
				xr := x[r*in : (r+1)*in]
				yr := y[r*out : (r+1)*out]
				for o := o0; o < o1; o++ {
					yr[o] = dot(xr, w[o*in:(o+1)*in])
				}
			}
		}
	})
}

// dot is a float32 dot product with four independent accumulators (the order differs from a naive loop only
// within float32 rounding).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	k := 0
	for ; k+4 <= len(a); k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return (s0 + s1) + (s2 + s3)
}
