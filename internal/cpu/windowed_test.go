package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// naiveAttention is windowed, softcapped GQA attention in float64 over whole k, v [n, kvHeads·hd] of one
// sequence at positions 0..n-1.
func naiveAttention(q, k, v []float32, n, heads, kvHeads, hd int, o backend.AttnOptions) []float64 {
	out := make([]float64, n*heads*hd)
	group := heads / kvHeads
	for r := range n {
		for h := range heads {
			kh := h / group
			first := 0
			if o.Window > 0 {
				first = max(0, r-o.Window+1)
			}
			var w []float64
			mx := math.Inf(-1)
			for t := first; t <= r; t++ {
				var s float64
				for d := range hd {
					s += float64(q[r*heads*hd+h*hd+d]) * float64(k[t*kvHeads*hd+kh*hd+d])
				}
				s *= float64(o.Scale)
				if o.Softcap > 0 {
					s = math.Tanh(s/float64(o.Softcap)) * float64(o.Softcap)
				}
				w = append(w, s)
				mx = max(mx, s)
			}
			var sum float64
			for i := range w {
				w[i] = math.Exp(w[i] - mx)
				sum += w[i]
			}
			for i, e := range w {
				for d := range hd {
					out[r*heads*hd+h*hd+d] += e / sum * float64(v[(first+i)*kvHeads*hd+kh*hd+d])
				}
			}
		}
	}
	return out
}

// TestAttentionWith: windowed and softcapped attention over a ring of Window slots, fed in calls of 1, 3 and 13
// rows (a call longer than the window reads most keys from its own rows), and over a full cache, agrees with
// the float64 formula; the ring's memory is the window's.
func TestAttentionWith(t *testing.T) {
	const n, heads, kvHeads, hd, window = 40, 4, 2, 16, 6
	rng := rand.New(rand.NewPCG(3, 4))
	randn := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	q, k, v := randn(n*heads*hd), randn(n*kvHeads*hd), randn(n*kvHeads*hd)
	b := New()
	for _, o := range []backend.AttnOptions{{Scale: 0.7, Window: window}, {Scale: 0.7, Softcap: 2}, {Scale: 0.7, Softcap: 2, Window: window}} {
		want := naiveAttention(q, k, v, n, heads, kvHeads, hd, o)
		for _, ring := range []bool{false, true} {
			if ring && o.Window == 0 {
				continue
			}
			layer := backend.KVLayer{KVHeads: kvHeads, HeadDim: hd}
			if ring {
				layer.Window = o.Window
			}
			for _, chunk := range []int{1, 3, 13} {
				cache, err := b.NewKVCache(backend.KVConfig{Layers: 1, Seqs: 1, MaxLen: n, PerLayer: []backend.KVLayer{layer}})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := cache.(*kvCache).Bytes(), int64(8*layer.Slots(n)*kvHeads*hd); got != want {
					t.Errorf("cache of %+v: %d bytes, want %d", layer, got, want)
				}
				var worst float64
				for at := 0; at < n; at += chunk {
					end := min(at+chunk, n)
					rows := end - at
					pos := make([]int32, rows)
					for i := range pos {
						pos[i] = int32(at + i)
					}
					qt := &Tensor{shape: []int{rows, heads * hd}, dt: backend.F32, f: q[at*heads*hd : end*heads*hd]}
					kt := &Tensor{shape: []int{rows, kvHeads * hd}, dt: backend.F32, f: k[at*kvHeads*hd : end*kvHeads*hd]}
					vt := &Tensor{shape: []int{rows, kvHeads * hd}, dt: backend.F32, f: v[at*kvHeads*hd : end*kvHeads*hd]}
					st := &Tensor{shape: []int{rows}, dt: backend.I32, i: make([]int32, rows)}
					pt := &Tensor{shape: []int{rows}, dt: backend.I32, i: pos}
					dst, _ := b.Alloc(backend.F32, rows, heads*hd)
					b.AttentionWith(dst, qt, kt, vt, cache, 0, st, pt, o)
					for i, x := range f32(dst) {
						worst = max(worst, math.Abs(float64(x)-want[at*heads*hd+i]))
					}
				}
				if worst > 1e-5 {
					t.Errorf("%+v ring %v chunks of %d: max|err| %.3g against float64", o, ring, chunk, worst)
				}
			}
		}
	}
}

// TestPointwise: Scale, Softcap and GeGLU against their formulas in float64.
func TestPointwise(t *testing.T) {
	b := New()
	xs := []float32{-30, -4, -1.5, -0.25, 0, 0.1, 0.5, 2, 7, 60}
	x := &Tensor{shape: []int{len(xs)}, dt: backend.F32, f: xs}
	up := &Tensor{shape: []int{len(xs)}, dt: backend.F32, f: make([]float32, len(xs))}
	for i := range up.f {
		up.f[i] = float32(i) - 3.5
	}
	dst, _ := b.Alloc(backend.F32, len(xs))
	b.Softcap(dst, x, 5)
	for i, v := range f32(dst) {
		if want := math.Tanh(float64(xs[i])/5) * 5; math.Abs(float64(v)-want) > 1e-6*max(1, math.Abs(want)) {
			t.Errorf("softcap(%g) = %g, want %g", xs[i], v, want)
		}
	}
	b.GeGLU(dst, x, up)
	for i, v := range f32(dst) {
		g := float64(xs[i])
		want := 0.5 * g * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(g+0.044715*g*g*g))) * float64(up.f[i])
		if math.Abs(float64(v)-want) > 1e-6*max(1, math.Abs(want)) {
			t.Errorf("geglu(%g, %g) = %g, want %g", xs[i], up.f[i], v, want)
		}
	}
	b.Scale(dst, x, 0.5)
	for i, v := range f32(dst) {
		if v != xs[i]/2 {
			t.Errorf("scale(%g) = %g", xs[i], v)
		}
	}
}
