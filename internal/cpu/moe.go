// The sparse MoE ops on the CPU (backend.MoE): softmax top-k routing and the routed SwiGLU experts, each expert
// multiplying the rows routed to it at once through the linear kernels (linear.go).
package cpu

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func (b *Backend) Route(ids, weights, logits backend.Tensor, k int, norm bool) {
	n, e := dims(logits)
	ls, is, ws := f32(logits), i32(ids), f32(weights)
	if k < 1 || k > e || len(is) != n*k || len(ws) != n*k {
		backend.ShapeError("Route", "ids, weights", []any{ids.Shape(), weights.Shape()}, []int{n, k})
	}
	p := make([]float32, e)
	for r := range n {
		row := ls[r*e : (r+1)*e]
		mx := float32(math.Inf(-1))
		for _, v := range row {
			mx = max(mx, v)
		}
		var sum float32
		for j, v := range row {
			p[j] = float32(math.Exp(float64(v - mx)))
			sum += p[j]
		}
		for j := range p {
			p[j] /= sum
		}
		oi, ow := is[r*k:(r+1)*k], ws[r*k:(r+1)*k]
		var total float32
		for j := range k { // selection: the largest left, the lower id among equals
			best := -1
			for x, v := range p {
				if v >= 0 && (best < 0 || v > p[best]) {
					best = x
				}
			}
			oi[j], ow[j] = int32(best), p[best]
			total += p[best]
			p[best] = -1
		}
		if norm {
			for j := range ow {
				ow[j] /= total
			}
		}
	}
}

func (b *Backend) Experts(dst, x, ids, weights backend.Tensor, gate, up, down []backend.Linear) {
	n, d := dims(x)
	_, k := dims(ids)
	xs, ds, is, ws := f32(x), f32(dst), i32(ids), f32(weights)
	if len(ds) != n*d || len(is) != n*k || len(ws) != n*k || len(up) != len(gate) || len(down) != len(gate) {
		backend.ShapeError("Experts", "x, ids, experts", []any{x.Shape(), ids.Shape(), len(gate), len(up), len(down)}, "matching")
	}
	// Each expert's rows (and which of their k choices routed them), in row order.
	type pick struct{ r, j int }
	routed := make([][]pick, len(gate))
	for r := range n {
		for j := range k {
			e := int(is[r*k+j])
			if e < 0 || e >= len(gate) {
				panic(fmt.Sprintf("backend: Experts: row %d routed to expert %d of %d", r, e, len(gate)))
			}
			routed[e] = append(routed[e], pick{r, j})
		}
	}
	clear(ds)
	for e, picks := range routed {
		if len(picks) == 0 {
			continue
		}
		m, inter := len(picks), gate[e].Out()
		in := &Tensor{shape: []int{m, d}, dt: backend.F32, f: make([]float32, m*d)}
		for i, p := range picks {
			copy(in.f[i*d:(i+1)*d], xs[p.r*d:(p.r+1)*d])
		}
		g := &Tensor{shape: []int{m, inter}, dt: backend.F32, f: make([]float32, m*inter)}
		u := &Tensor{shape: []int{m, inter}, dt: backend.F32, f: make([]float32, m*inter)}
		b.MatMul(g, in, gate[e])
		b.MatMul(u, in, up[e])
		b.SwiGLU(g, g, u)
		b.MatMul(in, g, down[e])
		for i, p := range picks {
			w, o := ws[p.r*k+p.j], ds[p.r*d:(p.r+1)*d]
			for c, v := range in.f[i*d : (i+1)*d] {
				o[c] += v * w
			}
		}
	}
}
