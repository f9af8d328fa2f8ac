// The index arithmetic of moe.cu transcribed into Go and checked against the CPU reference (cpu.Route,
// cpu.Experts) with no GPU: the router's strided per-thread candidates, warp shuffles and cross-warp pick with
// the lower id among equals; Experts' dense-over-all-rows form with the masked accumulation, and the routed
// decode form (moe_gemv's slots, moe_combine's order), and the routed trellis form (trellis.cu's moe_trellis1 over
// the table moe.go builds). A change to those kernel lines must be mirrored here.

package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// moeConst reads a #define of moe.cu.
func moeConst(t *testing.T, name string) int { return cuConst(t, "moe.cu", name) }

// emulRoute is moe_route for one row with threads threads (warps of 32): ids and weights [k].
func emulRoute(row []float32, k int, norm bool, threads int) ([]int32, []float32) {
	E := len(row)
	mx := float32(math.Inf(-1))
	for _, v := range row {
		mx = max(mx, v)
	}
	p := make([]float32, E)
	for j, v := range row {
		p[j] = float32(math.Exp(float64(v - mx)))
	}
	var sum float32
	for j := range p {
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
	better := func(ov float32, oi int, bv float32, bi int) bool {
		return oi >= 0 && (bi < 0 || ov > bv || (ov == bv && oi < bi))
	}
	ids, ws := make([]int32, k), make([]float32, k)
	var chosen float32
	nw := threads / 32
	for t := 0; t < k; t++ {
		bv, bi := make([]float32, threads), make([]int, threads)
		for tid := range threads {
			bv[tid], bi[tid] = -1, -1
			for j := tid; j < E; j += threads {
				if v := p[j]; v >= 0 && (bi[tid] < 0 || v > bv[tid]) {
					bv[tid], bi[tid] = v, j
				}
			}
		}
		for o := 16; o > 0; o >>= 1 { // __shfl_xor_sync: every lane reads its partner's value before any writes
			nv, ni := append([]float32(nil), bv...), append([]int(nil), bi...)
			for tid := range threads {
				ov, oi := bv[tid^o], bi[tid^o]
				if better(ov, oi, bv[tid], bi[tid]) {
					nv[tid], ni[tid] = ov, oi
				}
			}
			bv, bi = nv, ni
		}
		v, i := bv[0], bi[0]
		for w := 1; w < nw; w++ {
			if better(bv[w*32], bi[w*32], v, i) {
				v, i = bv[w*32], bi[w*32]
			}
		}
		ids[t], ws[t] = int32(i), v
		chosen += v
		if i >= 0 {
			p[i] = -1
		}
	}
	if norm {
		for t := range ws {
			ws[t] /= chosen
		}
	}
	return ids, ws
}

func TestRouteEmulated(t *testing.T) {
	threads := moeConst(t, "MOE_THREADS")
	rng := rand.New(rand.NewPCG(13, 14))
	ref := hyRef{cpu.New(), t}
	defer ref.Close()
	for _, c := range []struct{ rows, e, k int }{{6, 4, 2}, {5, 512, 10}, {4, 300, 7}, {3, 129, 129}, {2, 1, 1}} {
		for _, norm := range []bool{false, true} {
			v := make([]float32, c.rows*c.e)
			for i := range v { // few levels: many ties, across threads and warps
				v[i] = float32(rng.IntN(5))
			}
			ids, _ := ref.Alloc(backend.I32, c.rows, c.k)
			ws, _ := ref.Alloc(backend.F32, c.rows, c.k)
			ref.Route(ids, ws, ref.f(v, c.rows, c.e), c.k, norm)
			wantI, wantW := make([]int32, c.rows*c.k), ws.(*cpu.Tensor).Float32s()
			if err := ref.ReadInt32(ids, wantI); err != nil {
				t.Fatal(err)
			}
			for r := range c.rows {
				gi, gw := emulRoute(v[r*c.e:(r+1)*c.e], c.k, norm, threads)
				if fmt.Sprint(gi) != fmt.Sprint(wantI[r*c.k:(r+1)*c.k]) || fmt.Sprint(gw) != fmt.Sprint(wantW[r*c.k:(r+1)*c.k]) {
					t.Errorf("%d experts top %d norm %v row %d: ids %v weights %v, want %v %v", c.e, c.k, norm, r, gi, gw,
						wantI[r*c.k:(r+1)*c.k], wantW[r*c.k:(r+1)*c.k])
				}
			}
		}
	}
}

// TestExpertsEmulated: every expert over all rows, then moe_accum's masked, weighted sum in increasing expert
// order (the first expert starting from zero) equals cpu.Experts, which multiplies only the routed rows.
func TestExpertsEmulated(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	ref := hyRef{cpu.New(), t}
	defer ref.Close()
	const n, hidden, inter, E, k = 5, 32, 16, 6, 2
	randn := func(m int, std float64) []float32 {
		v := make([]float32, m)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * std)
		}
		return v
	}
	load := func(in, out int) backend.Linear {
		h := backend.HostF32("w", randn(in*out, 1/math.Sqrt(float64(in))), out, in)
		l, err := ref.LoadLinear(backend.LinearSpec{Name: "w", Out: out, In: in, Dense: &h})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	var gate, up, down []backend.Linear
	for range E {
		gate, up, down = append(gate, load(hidden, inter)), append(up, load(hidden, inter)), append(down, load(inter, hidden))
	}
	ids := []int32{3, 1, 0, 5, 5, 2, 1, 3, 3, 4} // expert 0 once, every row two distinct experts
	wv := randn(n*k, 1)
	x := ref.f(randn(n*hidden, 1), n, hidden)
	want, _ := ref.Alloc(backend.F32, n, hidden)
	ref.Experts(want, x, ref.i(ids, n, k), ref.f(wv, n, k), gate, up, down)
	got := make([]float32, n*hidden)
	g, _ := ref.Alloc(backend.F32, n, inter)
	u, _ := ref.Alloc(backend.F32, n, inter)
	y, _ := ref.Alloc(backend.F32, n, hidden)
	for e := range E {
		ref.MatMul(g, x, gate[e])
		ref.MatMul(u, x, up[e])
		ref.SwiGLU(g, g, u)
		ref.MatMul(y, g, down[e])
		ys := y.(*cpu.Tensor).Float32s()
		for r := range n { // moe_accum, block r
			hits := 0
			for t := range k {
				if ids[r*k+t] == int32(e) {
					hits++
				}
			}
			if hits == 0 && e != 0 {
				continue
			}
			for c := range hidden {
				o := got[r*hidden+c]
				if e == 0 {
					o = 0
				}
				for t := range k {
					if ids[r*k+t] == int32(e) {
						o = o + float32(ys[r*hidden+c]*wv[r*k+t])
					}
				}
				got[r*hidden+c] = o
			}
		}
	}
	if e := relErr(want.(*cpu.Tensor).Float32s(), got); e > 1e-6 {
		t.Errorf("Experts: dense-over-rows form off by %.3g of max", e)
	}
}

// emulMoeGemv is moe_gemv over its grid: y [n·k, out] from x ([n, in], or [n·k, in] when xslot), the experts'
// weights W[e] [out, in] as f32 values of bf16.
func emulMoeGemv(y, x []float32, ids []int32, W [][]float32, in, out, k int, xslot bool) {
	for s := range ids {
		xr := x[(s/k)*in:]
		if xslot {
			xr = x[s*in:]
		}
		w := W[ids[s]]
		for o := 0; o < out; o++ {
			var lanes [32]float32
			for lane := range 32 {
				if in%8 == 0 {
					for c := lane * 8; c < in; c += 256 {
						for e := range 8 {
							lanes[lane] += w[o*in+c+e] * xr[c+e]
						}
					}
				} else {
					for c := lane; c < in; c += 32 {
						lanes[lane] += w[o*in+c] * xr[c]
					}
				}
			}
			for off := 16; off > 0; off >>= 1 { // warp_sum: xor shuffles
				var next [32]float32
				for l := range 32 {
					next[l] = lanes[l] + lanes[l^off]
				}
				lanes = next
			}
			y[s*out+o] = lanes[0]
		}
	}
}

// emulMoeCombine is moe_combine: each row's slots in increasing expert id (equal ids in slot order).
func emulMoeCombine(dst, y []float32, ids []int32, weights []float32, d, k int) {
	for r := 0; r < len(ids)/k; r++ {
		id := ids[r*k : (r+1)*k]
		ord := make([]int, k)
		for j := range k {
			rank := 0
			for i := range k {
				if id[i] < id[j] || (id[i] == id[j] && i < j) {
					rank++
				}
			}
			ord[rank] = j
		}
		for c := range d {
			var o float32
			for _, j := range ord {
				s := r*k + j
				o = o + float32(y[s*d+c]*weights[s])
			}
			dst[r*d+c] = o
		}
	}
}

// TestExpertsRoutedEmulated: the routed form (moe_gemv per projection over the n·k slots, swiglu, moe_combine)
// equals cpu.Experts within f32 summation order, at widths that take moe_gemv's 8-wide and single-column paths
// and with ids unsorted within rows.
func TestExpertsRoutedEmulated(t *testing.T) {
	if moeConst(t, "MOE_MAX_K") != moeMaxK {
		t.Fatalf("MOE_MAX_K differs from moeMaxK %d", moeMaxK)
	}
	rng := rand.New(rand.NewPCG(17, 18))
	ref := hyRef{cpu.New(), t}
	defer ref.Close()
	bf := func(m int, std float64) []float32 {
		v := make([]float32, m)
		for i := range v {
			v[i] = backend.BF16ToF32(backend.F32ToBF16(float32(rng.NormFloat64() * std)))
		}
		return v
	}
	for _, c := range []struct{ n, hidden, inter, E, k int }{{3, 512, 64, 6, 2}, {2, 100, 36, 5, 3}, {1, 256, 16, 9, 4}} {
		load := func(w []float32, in, out int) backend.Linear {
			h := backend.HostF32("w", w, out, in)
			l, err := ref.LoadLinear(backend.LinearSpec{Name: "w", Out: out, In: in, Dense: &h})
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		var gate, up, down []backend.Linear
		var Wg, Wu, Wd [][]float32
		for range c.E {
			g, u, d := bf(c.hidden*c.inter, 0.1), bf(c.hidden*c.inter, 0.1), bf(c.inter*c.hidden, 0.1)
			Wg, Wu, Wd = append(Wg, g), append(Wu, u), append(Wd, d)
			gate, up, down = append(gate, load(g, c.hidden, c.inter)), append(up, load(u, c.hidden, c.inter)), append(down, load(d, c.inter, c.hidden))
		}
		ids := make([]int32, c.n*c.k)
		for r := range c.n {
			for j, e := range rng.Perm(c.E)[:c.k] {
				ids[r*c.k+j] = int32(e)
			}
		}
		wv, x := bf(c.n*c.k, 1), bf(c.n*c.hidden, 1)
		want, _ := ref.Alloc(backend.F32, c.n, c.hidden)
		ref.Experts(want, ref.f(x, c.n, c.hidden), ref.i(ids, c.n, c.k), ref.f(wv, c.n, c.k), gate, up, down)
		slots := c.n * c.k
		g, u, y := make([]float32, slots*c.inter), make([]float32, slots*c.inter), make([]float32, slots*c.hidden)
		emulMoeGemv(g, x, ids, Wg, c.hidden, c.inter, c.k, false)
		emulMoeGemv(u, x, ids, Wu, c.hidden, c.inter, c.k, false)
		for i := range g {
			g[i] = g[i] / (1 + float32(math.Exp(-float64(g[i])))) * u[i]
		}
		emulMoeGemv(y, g, ids, Wd, c.inter, c.hidden, c.k, true)
		got := make([]float32, c.n*c.hidden)
		emulMoeCombine(got, y, ids, wv, c.hidden, c.k)
		if e := relErr(want.(*cpu.Tensor).Float32s(), got); e > 1e-5 {
			t.Errorf("%+v: routed form off by %.3g of max", c, e)
		}
	}
}

// emulMoeTrellis1 is moe_trellis1<K, VAR> over its grid ((⌈out/16⌉, n·k) blocks of 256 threads): the slot's x
// row staged padded (xs[c + c/32]), warp w of block bx taking rows 16·bx + w and + 8, lane l the runs l, l+32, …
// of the row (trellis_run's words), warp_sum; with wt2 (the up projection's tables) silu_mul of the two rows. wt,
// st, wt2, st2 are the kernel's tables of E pointers; words and scales map a pointer to what it names.
func emulMoeTrellis1(y, x []float32, ids []int32, wt, st, wt2, st2 []driver.DevPtr, words map[driver.DevPtr][]uint32,
	scales map[driver.DevPtr][]float32, in, out, k int, xslot bool, K, shift, L int, v trellis.Variant) {
	const threads = moeQThreads
	nw, nq, mask := threads/32, in>>5, uint32(1)<<L-1
	xs := make([]float32, in+in/32)
	row := func(W []uint32, S []float32, o int) float32 { // moe_trellis_row
		row, scale := W[o*(nq*K):], S[o]
		var lanes [32]float32
		for lane := range 32 {
			for q := lane; q < nq; q += 32 {
				pos, t0 := q<<5, q<<5&(1<<shift-1)
				blk := (pos >> shift) * ((K << shift) >> 5)
				ro := blk + ((1<<shift-t0)>>5)*K - K
				ow := ro + K
				if t0 == 0 {
					ow = blk
				}
				a := append(append([]uint32(nil), row[ro:ro+K]...), row[ow])
				for j := range 32 {
					wv := trellisY(pieceState(a, K, 32, j) & mask)
					if v == trellis.Reciprocal {
						wv = wv * trellis.Rcp1MAD * scale
					}
					lanes[lane] = float32(math.FMA(float64(wv), float64(xs[33*q+j]), float64(lanes[lane])))
				}
			}
		}
		for off := 16; off > 0; off >>= 1 {
			var next [32]float32
			for l := range 32 {
				next[l] = lanes[l] + lanes[l^off]
			}
			lanes = next
		}
		if v == trellis.Factored {
			return lanes[0] * (scale * trellis.Rcp1MAD)
		}
		return lanes[0]
	}
	for s := range ids {
		xr := x[(s/k)*in:]
		if xslot {
			xr = x[s*in:]
		}
		for c := range in {
			xs[c+(c>>5)] = xr[c]
		}
		e := ids[s]
		for bx := 0; bx < (out+moeQRows-1)/moeQRows; bx++ {
			row0 := bx * 2 * nw
			for w := range nw {
				for o := row0 + w; o < min(row0+2*nw, out); o += nw {
					g := row(words[wt[e]], scales[st[e]], o)
					if wt2 != nil {
						u := row(words[wt2[e]], scales[st2[e]], o)
						g = g / (1 + float32(math.Exp(-float64(g)))) * u
					}
					y[s*out+o] = g
				}
			}
		}
	}
}

// TestExpertsTrellisRoutedEmulated: the routed trellis form — quantTable's pointer table read at
// quantRouted.proj's offsets, moe_trellis1 for gate and up with SwiGLU, then for down, moe_combine — equals cpu.Experts
// within f32 summation order, both decode variants, 2/3/4-bit codes, rows of fewer runs than lanes, blocks of 64
// and 256 positions.
func TestExpertsTrellisRoutedEmulated(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	ref := hyRef{cpu.New(), t}
	defer ref.Close()
	for _, c := range []struct {
		n, hidden, inter, E, k, K, T int
		v                            trellis.Variant
	}{{2, 512, 256, 6, 3, 3, 256, trellis.Factored}, {1, 256, 192, 5, 2, 2, 64, trellis.Reciprocal}, {3, 128, 64, 4, 4, 4, 64, trellis.Factored}} {
		next := driver.DevPtr(0x10000)
		words, scales := map[driver.DevPtr][]uint32{}, map[driver.DevPtr][]float32{}
		var sets [3][]backend.Linear // the CPU's layers
		var devs [3][]backend.Linear // qlinear stand-ins whose pointers name the same codes
		for range c.E {
			for si, io := range [][2]int{{c.hidden, c.inter}, {c.hidden, c.inter}, {c.inter, c.hidden}} {
				spec := trellis.Spec{K: c.K, L: 12, T: c.T, Code: "1mad", Axis: 1}
				w := randomTrellis(rng, spec, io[1], io[0], false)
				for i := range w.Scales {
					w.Scales[i] /= float32(math.Sqrt(float64(io[0])))
				}
				l, err := ref.LoadLinear(backend.LinearSpec{Name: "e", Out: io[1], In: io[0], Trellis: w})
				if err != nil {
					t.Fatal(err)
				}
				q := &qlinear{out: io[1], in: io[0], w: backend.Weight{Format: backend.FormatTrellis, Bits: c.K, Group: c.T, Code: "1mad", L: 12, Axis: 1},
					variant: c.v, shift: log2(c.T), L: 12, rows: io[1], words: next, scales: next + 8}
				words[q.words], scales[q.scales] = w.Words, w.Scales
				next += 16
				sets[si], devs[si] = append(sets[si], l), append(devs[si], q)
			}
		}
		rt, buf, ok := quantTable(devs[0], devs[1], devs[2])
		if !ok || rt.k != c.K || rt.shift != log2(c.T) || rt.L != 12 || rt.kernel != moeTrellis1Name(c.K, c.v) {
			t.Fatalf("%+v: quantTable %+v ok %v", c, rt, ok)
		}
		table := make([]driver.DevPtr, (len(buf)-1)/8)
		for i := range table {
			table[i] = driver.DevPtr(binary.LittleEndian.Uint64(buf[1+8*i:]))
		}
		tab := func(p driver.DevPtr) []driver.DevPtr { return table[int(p-rt.table)/8:] }
		ids := make([]int32, c.n*c.k)
		for r := range c.n {
			for j, e := range rng.Perm(c.E)[:c.k] {
				ids[r*c.k+j] = int32(e)
			}
		}
		wv, x := make([]float32, c.n*c.k), make([]float32, c.n*c.hidden)
		for i := range wv {
			wv[i] = float32(rng.Float64())
		}
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		want, _ := ref.Alloc(backend.F32, c.n, c.hidden)
		ref.Experts(want, ref.f(x, c.n, c.hidden), ref.i(ids, c.n, c.k), ref.f(wv, c.n, c.k), sets[0], sets[1], sets[2])
		slots := c.n * c.k
		g, y := make([]float32, slots*c.inter), make([]float32, slots*c.hidden)
		w0, s0, b0 := rt.proj(0, c.E)
		w1, s1, b1 := rt.proj(1, c.E)
		w2, s2, b2 := rt.proj(2, c.E)
		for _, bt := range []driver.DevPtr{b0, b1, b2} {
			for e, p := range tab(bt)[:c.E] {
				if p != 0 {
					t.Fatalf("%+v: trellis expert %d has a biases pointer %#x in the table", c, e, p)
				}
			}
		}
		emulMoeTrellis1(g, x, ids, tab(w0), tab(s0), tab(w1), tab(s1), words, scales, c.hidden, c.inter, c.k, false, c.K, rt.shift, rt.L, c.v)
		emulMoeTrellis1(y, g, ids, tab(w2), tab(s2), nil, nil, words, scales, c.inter, c.hidden, c.k, true, c.K, rt.shift, rt.L, c.v)
		got := make([]float32, c.n*c.hidden)
		emulMoeCombine(got, y, ids, wv, c.hidden, c.k)
		if e := relErr(want.(*cpu.Tensor).Float32s(), got); e > 1e-5 {
			t.Errorf("%+v: routed trellis form off by %.3g of max", c, e)
		}
	}
}
