// The fragment arithmetic of attn_prompt_wide_hd* (shaders/cuda/attention.cu, head dims 256 and 512) transcribed
// into Go and run without a GPU: the dynamic shared memory layout (q, the K tile, V's slice: offsets and the byte
// count attnPromptWideSmem launches with), the staging of each tile, the a/b fragments each lane loads,
// mma.m16n8k16 assembled from the 32 lanes as the PTX ISA lays them out, the causal mask, the online softmax
// with its quad shuffles, P rounded to bf16 for P·V, and the C registers written back to (row, head, dim slice).
// The chunk form at those head dims (attn_chunk_wide_hd*, the same body) adds the query indices of a kv head's
// rows and heads, the position slices and the partials attn_combine reads. Checked against an f64 attention over
// the same bf16-rounded operands. A change to those kernel lines must be mirrored here.

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func bfr(v float32) float32 { return backend.BF16ToF32(backend.F32ToBF16(v)) }

// mma16816 is mma.sync.m16n8k16 .bf16 × .bf16 → .f32 on one warp (lane = 4·g + c): A reg 0 = row g, k 2c, 2c+1
// (k 2c in the low half); reg 1 = row g+8; reg 2 = row g, k 2c+8..; reg 3 = row g+8, k 2c+8..; B reg 0 = k 2c,
// 2c+1 of column g, reg 1 = k 2c+8, 2c+9; C c0, c1 = row g, columns 2c, 2c+1; c2, c3 = row g+8.
func mma16816(d *[32][4]float32, a *[32][4]uint32, b *[32][2]uint32) {
	half := func(w uint32, hi bool) float32 {
		if hi {
			return backend.BF16ToF32(uint16(w >> 16))
		}
		return backend.BF16ToF32(uint16(w))
	}
	var A [16][16]float32
	var B [16][8]float32
	for lane := 0; lane < 32; lane++ {
		g, c := lane>>2, lane&3
		for e := 0; e < 2; e++ {
			A[g][2*c+e] = half(a[lane][0], e == 1)
			A[g+8][2*c+e] = half(a[lane][1], e == 1)
			A[g][2*c+8+e] = half(a[lane][2], e == 1)
			A[g+8][2*c+8+e] = half(a[lane][3], e == 1)
			B[2*c+e][g] = half(b[lane][0], e == 1)
			B[2*c+8+e][g] = half(b[lane][1], e == 1)
		}
	}
	for lane := 0; lane < 32; lane++ {
		g, c := lane>>2, lane&3
		for i := 0; i < 4; i++ {
			row, col := g+8*(i>>1), 2*c+(i&1)
			var s float32
			for k := 0; k < 16; k++ {
				s += A[row][k] * B[k][col]
			}
			d[lane][i] += s
		}
	}
}

// emulWide is attn_wide_body<HD, T, CHUNK> over the whole launch for one sequence (seq 0, layer 0) whose rows
// are at positions pos (consecutive) of an f32 cache [maxLen, kvHeads·hd]; q [n, heads·hd] f32. cl = 0: the
// prompt form (attn_prompt_wide_hd*), out [n, heads·hd], unwritten output NaN; cl > 0: the chunk form
// (attn_chunk_wide_hd*) with slices of cl positions, part [n, heads, S, hd+2], unwritten partials NaN.
func emulWide(t *testing.T, hd int, q, kc, vc []float32, pos []int32, heads, kvHeads int, scale float32, cl int) (out, part []float32, S int) {
	BK, DV := cuConst(t, "attention.cu", "ATTN_WIDE_BK"), cuConst(t, "attention.cu", "ATTN_WIDE_DV")
	const BQ = 64
	LD, LDV := hd+8, DV+8
	KSTEPS, DTILES, NT := hd/16, DV/8, BK/8
	n, G := len(pos), heads/kvHeads
	qstride, width := heads*hd, kvHeads*hd
	ninf := float32(math.Inf(-1))
	nan := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(math.NaN())
		}
		return v
	}
	smem := make([]uint16, attnPromptWideSmem(hd)/2)
	Qs, Ks := 0, BQ*LD
	Vs := Ks + BK*LD
	if Vs+BK*LDV != len(smem) {
		t.Fatalf("hd %d: the layout takes %d bf16, attnPromptWideSmem %d", hd, Vs+BK*LDV, len(smem))
	}
	word := func(i int) uint32 { return uint32(smem[i]) | uint32(smem[i+1])<<16 }
	// block is one block: its query rows or indices from q0 (row maps one to (row, head), false past the
	// launch's), kv head kvh, output slice z0, positions [t0, t1) staged up to lim; store takes each lane's two
	// rows' results (index, running max, quad-summed sum, the DTILES·4 accumulators, the lane's column pair c)
	block := func(q0, kvh, z0, t0, t1, lim int, row func(i int) (r, h int, ok bool),
		store func(i int, m, l float32, o [][4]float32, c int)) {
		rowPos := func(i int) int {
			if r, _, ok := row(i); ok {
				return int(pos[r])
			}
			return -1
		}
		for i := range smem {
			smem[i] = 0xffff // stale: every read must be of something staged
		}
		for i := 0; i < BQ; i++ {
			for cc := 0; cc < hd; cc++ {
				var v uint16
				if r, hh, ok := row(q0 + i); ok {
					v = backend.F32ToBF16(q[r*qstride+hh*hd+cc])
				}
				smem[Qs+i*LD+cc] = v
			}
		}
		oa := make([][32][4]float32, 4*DTILES) // warp w's o[dt] is oa[w·DTILES+dt]
		var mA, mB, lA, lB [4][32]float32
		for w := range 4 {
			for l := range 32 {
				mA[w][l], mB[w][l] = ninf, ninf
			}
		}
		for kt := t0 / BK; kt < (t1+BK-1)/BK; kt++ {
			for i := 0; i < BK; i++ {
				t := kt*BK + i
				for cc := 0; cc < hd; cc++ {
					var kv uint16
					if t <= lim {
						kv = backend.F32ToBF16(kc[t*width+kvh*hd+cc])
					}
					smem[Ks+i*LD+cc] = kv
				}
				for cc := 0; cc < DV; cc++ {
					var vv uint16
					if t <= lim {
						vv = backend.F32ToBF16(vc[t*width+kvh*hd+z0+cc])
					}
					smem[Vs+i*LDV+cc] = vv
				}
			}
			for w := range 4 {
				s := make([][32][4]float32, NT)
				for kk := 0; kk < KSTEPS; kk++ {
					var a [32][4]uint32
					for lane := range 32 {
						g, c := lane>>2, lane&3
						qp := Qs + (w*16+g)*LD + c*2 + kk*16
						a[lane] = [4]uint32{word(qp), word(qp + 8*LD), word(qp + 8), word(qp + 8*LD + 8)}
					}
					for j := 0; j < NT; j++ {
						var b [32][2]uint32
						for lane := range 32 {
							g, c := lane>>2, lane&3
							kp := Ks + (j*8+g)*LD + kk*16 + c*2
							b[lane] = [2]uint32{word(kp), word(kp + 8)}
						}
						mma16816((*[32][4]float32)(&s[j]), &a, &b)
					}
				}
				var mxA, mxB, corrA, corrB, uA, uB [32]float32
				for lane := range 32 {
					g, c := lane>>2, lane&3
					pa, pb := rowPos(q0+w*16+g), rowPos(q0+w*16+g+8)
					mxA[lane], mxB[lane] = ninf, ninf
					for j := 0; j < NT; j++ {
						for e := 0; e < 4; e++ {
							t := kt*BK + j*8 + c*2 + (e & 1)
							rp := pb
							if e < 2 {
								rp = pa
							}
							if t <= rp {
								s[j][lane][e] *= scale
							} else {
								s[j][lane][e] = ninf
							}
						}
						mxA[lane] = max(mxA[lane], s[j][lane][0], s[j][lane][1])
						mxB[lane] = max(mxB[lane], s[j][lane][2], s[j][lane][3])
					}
				}
				quad := func(v *[32]float32, f func(a, b float32) float32) { // __shfl_xor 1, then 2
					for _, m := range []int{1, 2} {
						var nv [32]float32
						for l := range 32 {
							nv[l] = f(v[l], v[l^m])
						}
						*v = nv
					}
				}
				fmax := func(a, b float32) float32 { return max(a, b) }
				quad(&mxA, fmax)
				quad(&mxB, fmax)
				for lane := range 32 {
					nA, nB := max(mA[w][lane], mxA[lane]), max(mB[w][lane], mxB[lane])
					uA[lane], uB[lane] = nA, nB
					if nA == ninf {
						uA[lane] = 0
					}
					if nB == ninf {
						uB[lane] = 0
					}
					corrA[lane] = float32(math.Exp(float64(mA[w][lane] - uA[lane])))
					corrB[lane] = float32(math.Exp(float64(mB[w][lane] - uB[lane])))
					mA[w][lane], mB[w][lane] = nA, nB
					var sumA, sumB float32
					for j := 0; j < NT; j++ {
						for e := 0; e < 4; e++ {
							u := uA[lane]
							if e >= 2 {
								u = uB[lane]
							}
							s[j][lane][e] = float32(math.Exp(float64(s[j][lane][e] - u)))
						}
						sumA += s[j][lane][0] + s[j][lane][1]
						sumB += s[j][lane][2] + s[j][lane][3]
					}
					lA[w][lane] = lA[w][lane]*corrA[lane] + sumA
					lB[w][lane] = lB[w][lane]*corrB[lane] + sumB
					for dt := 0; dt < DTILES; dt++ {
						r := &oa[w*DTILES+dt][lane]
						r[0], r[1], r[2], r[3] = r[0]*corrA[lane], r[1]*corrA[lane], r[2]*corrB[lane], r[3]*corrB[lane]
					}
				}
				pack := func(lo, hi float32) uint32 {
					return uint32(backend.F32ToBF16(lo)) | uint32(backend.F32ToBF16(hi))<<16
				}
				for u := 0; u < BK/16; u++ {
					var pf [32][4]uint32
					for lane := range 32 {
						a, b := s[2*u][lane], s[2*u+1][lane]
						pf[lane] = [4]uint32{pack(a[0], a[1]), pack(a[2], a[3]), pack(b[0], b[1]), pack(b[2], b[3])}
					}
					for dt := 0; dt < DTILES; dt++ {
						var bv [32][2]uint32
						for lane := range 32 {
							g, c := lane>>2, lane&3
							vp := Vs + (u*16+c*2)*LDV + dt*8 + g
							bv[lane] = [2]uint32{uint32(smem[vp]) | uint32(smem[vp+LDV])<<16,
								uint32(smem[vp+8*LDV]) | uint32(smem[vp+9*LDV])<<16}
						}
						mma16816((*[32][4]float32)(&oa[w*DTILES+dt]), &pf, &bv)
					}
				}
			}
		}
		fsum := func(a, b float32) float32 { return a + b }
		for w := range 4 {
			quadA, quadB := lA[w], lB[w]
			for _, m := range []int{1, 2} {
				var na, nb [32]float32
				for l := range 32 {
					na[l], nb[l] = fsum(quadA[l], quadA[l^m]), fsum(quadB[l], quadB[l^m])
				}
				quadA, quadB = na, nb
			}
			for lane := range 32 {
				g, c := lane>>2, lane&3
				oA, oB := make([][4]float32, DTILES), make([][4]float32, DTILES)
				for dt := 0; dt < DTILES; dt++ {
					r := oa[w*DTILES+dt][lane]
					oA[dt], oB[dt] = [4]float32{r[0], r[1]}, [4]float32{r[2], r[3]}
				}
				store(q0+w*16+g, mA[w][lane], quadA[lane], oA, c)
				store(q0+w*16+g+8, mB[w][lane], quadB[lane], oB, c)
			}
		}
	}
	if cl == 0 {
		out = nan(n * qstride)
		for bx := 0; bx < (n+BQ-1)/BQ; bx++ {
			for h := 0; h < heads; h++ {
				for z := 0; z < hd/DV; z++ {
					q0, z0 := bx*BQ, z*DV
					last := int(pos[min(q0+BQ, n)-1])
					row := func(i int) (int, int, bool) { return i, h, i < n }
					block(q0, h/G, z0, 0, last+1, last, row, func(i int, _, l float32, o [][4]float32, c int) {
						if i >= n {
							return
						}
						inv := float32(0)
						if l > 0 {
							inv = 1 / l
						}
						for dt := range o {
							col := h*hd + z0 + dt*8 + c*2
							out[i*qstride+col], out[i*qstride+col+1] = o[dt][0]*inv, o[dt][1]*inv
						}
					})
				}
			}
		}
		return out, nil, 0
	}
	last := int(pos[n-1])
	S = (last + cl) / cl
	part = nan(n * heads * S * (hd + 2))
	for s := 0; s < S; s++ {
		for kvh := 0; kvh < kvHeads; kvh++ {
			for zq := 0; zq < (n*G+BQ-1)/BQ; zq++ {
				for zd := 0; zd < hd/DV; zd++ {
					q0, z0, t0 := zq*BQ, zd*DV, s*cl
					t1 := min(t0+cl, last+1)
					row := func(i int) (int, int, bool) { return i / G, kvh*G + i%G, i < n*G }
					block(q0, kvh, z0, t0, t1, t1-1, row, func(i int, m, l float32, o [][4]float32, c int) {
						r, h, ok := row(i)
						if !ok || t0 > int(pos[r]) {
							return
						}
						pp := part[((r*heads+h)*S+s)*(hd+2):]
						for dt := range o {
							col := z0 + dt*8 + c*2
							pp[col], pp[col+1] = o[dt][0], o[dt][1]
						}
						if c == 0 && z0 == 0 {
							pp[hd], pp[hd+1] = m, l
						}
					})
				}
			}
		}
	}
	return nil, part, S
}

// emulCombine is attn_combine_* with a fixed slice length cl over part [n, heads, S, hd+2]: out [n, heads·hd].
func emulCombine(part []float32, pos []int32, heads, hd, S, cl int) []float32 {
	n := len(pos)
	out := make([]float32, n*heads*hd)
	for r := 0; r < n; r++ {
		active := (int(pos[r]) + cl) / cl
		for h := 0; h < heads; h++ {
			pp := part[(r*heads+h)*S*(hd+2):]
			M := float32(math.Inf(-1))
			for s := 0; s < active; s++ {
				M = max(M, pp[s*(hd+2)+hd])
			}
			var L float32
			wt := make([]float32, active)
			for s := range active {
				wt[s] = float32(math.Exp(float64(pp[s*(hd+2)+hd] - M)))
				L += pp[s*(hd+2)+hd+1] * wt[s]
			}
			for d := 0; d < hd; d++ {
				var a float32
				for s := range active {
					a += pp[s*(hd+2)+d] * wt[s]
				}
				out[(r*heads+h)*hd+d] = a / L
			}
		}
	}
	return out
}

// attnRef64 is causal attention in f64 over the bf16-rounded q, K and V (one sequence, layer 0): [n, heads·hd].
func attnRef64(q, kc, vc []float32, pos []int32, heads, kvHeads, hd int, scale float32) []float64 {
	n, width := len(pos), kvHeads*hd
	out := make([]float64, n*heads*hd)
	for r := 0; r < n; r++ {
		for h := 0; h < heads; h++ {
			kvh := h / (heads / kvHeads)
			P := int(pos[r])
			sc := make([]float64, P+1)
			m := math.Inf(-1)
			for tp := 0; tp <= P; tp++ {
				var d float64
				for i := 0; i < hd; i++ {
					d += float64(bfr(q[(r*heads+h)*hd+i])) * float64(bfr(kc[tp*width+kvh*hd+i]))
				}
				sc[tp] = d * float64(scale)
				m = max(m, sc[tp])
			}
			var l float64
			for tp := range sc {
				sc[tp] = math.Exp(sc[tp] - m)
				l += sc[tp]
			}
			for i := 0; i < hd; i++ {
				var o float64
				for tp := range sc {
					o += sc[tp] * float64(bfr(vc[tp*width+kvh*hd+i]))
				}
				out[(r*heads+h)*hd+i] = o / l
			}
		}
	}
	return out
}

// wideErr is max |got − want| and max |want|, failing on an element never written (NaN).
func wideErr(t *testing.T, tag string, got []float32, want []float64) (worst, top float64) {
	t.Helper()
	for i, o := range want {
		g := float64(got[i])
		if math.IsNaN(g) {
			t.Fatalf("%s: output %d never written", tag, i)
		}
		worst, top = max(worst, math.Abs(g-o)), max(top, math.Abs(o))
	}
	return worst, top
}

// TestPromptWideEmulated: the wide prompt form's transcription at head dims 256 and 512 against an f64
// attention over the same bf16-rounded q, K and V, for a chunk of 70 rows (a full and a partial block of 64)
// after 37 cached positions (tiles straddling the chunk's start), GQA groups of 2 and 1; every output element is
// written, and within the bf16 rounding of P (the form's promise: ~1e-3 of max|out|).
func TestPromptWideEmulated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 20))
	for _, c := range []struct{ hd, heads, kvHeads int }{{256, 4, 2}, {512, 2, 2}} {
		const n, past = 70, 37
		maxLen := past + n
		width := c.kvHeads * c.hd
		randn := func(k int) []float32 {
			v := make([]float32, k)
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
			return v
		}
		q, kc, vc := randn(n*c.heads*c.hd), randn(maxLen*width), randn(maxLen*width)
		pos := make([]int32, n)
		for r := range pos {
			pos[r] = int32(past + r)
		}
		scale := float32(1 / math.Sqrt(float64(c.hd)))
		got, _, _ := emulWide(t, c.hd, q, kc, vc, pos, c.heads, c.kvHeads, scale, 0)
		worst, top := wideErr(t, fmt.Sprintf("hd %d", c.hd), got, attnRef64(q, kc, vc, pos, c.heads, c.kvHeads, c.hd, scale))
		if worst > 4e-3*top {
			t.Errorf("hd %d: max |emulated − f64| %.3g of max|out| %.3g", c.hd, worst, top)
		}
		t.Logf("hd %d: max |emulated − f64| %.3g of max|out| %.3g", c.hd, worst, top)
	}
}

// TestChunkWideEmulated: the wide chunk form's transcription (attn_chunk_wide_hd*, then attn_combine with the
// same slice length) at head dims 256 and 512 against the f64 attention: a follow-up of 23 rows after 200 cached
// positions in slices of 64 (four tiles of 32 a slice, the last slice partial and holding the rows' own
// positions), GQA groups of 3 and 4 (69 and 92 query indices: a full and a partial block of 64 at 3, a row's heads
// split across two blocks); every partial a row's slices hold is written, the rest never, and the result within
// the bf16 rounding of P as the prompt form.
func TestChunkWideEmulated(t *testing.T) {
	mirrored(t, "attention.cu", "attn_chunk_wide",
		"const int ra = CHUNK ? ia / G : ia, rb = CHUNK ? ib / G : ib;",
		"const int t0 = CHUNK ? s * cl : 0, t1 = CHUNK ? min(t0 + cl, last + 1) : last + 1, lim = t1 - 1;",
		"const bool wa = ia < nq && t0 <= pa, wb = ib < nq && t0 <= pb;",
		"if (c == 0 && z0 == 0) {")
	rng := rand.New(rand.NewPCG(7, 21))
	for _, c := range []struct{ hd, heads, kvHeads int }{{256, 6, 2}, {512, 4, 1}} {
		const n, past, cl = 23, 200, 64
		maxLen := past + n
		width := c.kvHeads * c.hd
		randn := func(k int) []float32 {
			v := make([]float32, k)
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
			return v
		}
		q, kc, vc := randn(n*c.heads*c.hd), randn(maxLen*width), randn(maxLen*width)
		pos := make([]int32, n)
		for r := range pos {
			pos[r] = int32(past + r)
		}
		scale := float32(1 / math.Sqrt(float64(c.hd)))
		_, part, S := emulWide(t, c.hd, q, kc, vc, pos, c.heads, c.kvHeads, scale, cl)
		for r := 0; r < n; r++ { // the partials of slices past a row's position stay unwritten
			for h := 0; h < c.heads; h++ {
				for s := 0; s < S; s++ {
					pp := part[((r*c.heads+h)*S+s)*(c.hd+2):][:c.hd+2]
					held := s*cl <= int(pos[r])
					for _, v := range pp {
						if math.IsNaN(float64(v)) == held {
							t.Fatalf("hd %d: row %d head %d slice %d: written %v, holds positions %v", c.hd, r, h, s, !held, held)
						}
					}
				}
			}
		}
		got := emulCombine(part, pos, c.heads, c.hd, S, cl)
		worst, top := wideErr(t, fmt.Sprintf("hd %d", c.hd), got, attnRef64(q, kc, vc, pos, c.heads, c.kvHeads, c.hd, scale))
		if worst > 4e-3*top {
			t.Errorf("hd %d: max |emulated − f64| %.3g of max|out| %.3g", c.hd, worst, top)
		}
		t.Logf("hd %d, %d slices: max |emulated − f64| %.3g of max|out| %.3g", c.hd, S, worst, top)
	}
}
