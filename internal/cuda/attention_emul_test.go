// The fragment arithmetic of attn_prompt_wide_hd* (shaders/cuda/attention.cu, head dims 256 and 512) transcribed
// into Go and run without a GPU: the dynamic shared memory layout (q, the K tile, V's slice: offsets and the byte
// count attnPromptWideSmem launches with), the staging of each tile, the a/b fragments each lane loads,
// mma.m16n8k16 assembled from the 32 lanes as the PTX ISA lays them out, the causal mask, the online softmax
// with its quad shuffles, P rounded to bf16 for P·V, and the C registers written back to (row, head, dim slice).
// Checked against an f64 attention over the same bf16-rounded operands. A change to those kernel lines must be
// mirrored here.

package cuda

import (
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

// emulPromptWide is attn_prompt_wide_body<HD> over the whole launch for one sequence (seq 0, layer 0) whose rows
// are at positions pos (consecutive) of an f32 cache [maxLen, kvHeads·hd]; q [n, heads·hd] f32. Unwritten output
// stays NaN.
func emulPromptWide(t *testing.T, hd int, q, kc, vc []float32, pos []int32, heads, kvHeads int, scale float32) []float32 {
	BK, DV := cuConst(t, "attention.cu", "ATTN_WIDE_BK"), cuConst(t, "attention.cu", "ATTN_WIDE_DV")
	const BQ = 64
	LD, LDV := hd+8, DV+8
	KSTEPS, DTILES, NT := hd/16, DV/8, BK/8
	n := len(pos)
	qstride, width := heads*hd, kvHeads*hd
	ninf := float32(math.Inf(-1))
	out := make([]float32, n*qstride)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	smem := make([]uint16, attnPromptWideSmem(hd)/2)
	Qs, Ks := 0, BQ*LD
	Vs := Ks + BK*LD
	if Vs+BK*LDV != len(smem) {
		t.Fatalf("hd %d: the layout takes %d bf16, attnPromptWideSmem %d", hd, Vs+BK*LDV, len(smem))
	}
	word := func(i int) uint32 { return uint32(smem[i]) | uint32(smem[i+1])<<16 }
	for bx := 0; bx < (n+BQ-1)/BQ; bx++ {
		for h := 0; h < heads; h++ {
			for z := 0; z < hd/DV; z++ {
				kvh, z0, q0 := h/(heads/kvHeads), z*DV, bx*BQ
				last := int(pos[min(q0+BQ, n)-1])
				for i := range smem {
					smem[i] = 0xffff // stale: every read must be of something staged
				}
				for i := 0; i < BQ; i++ {
					for cc := 0; cc < hd; cc++ {
						var v uint16
						if r := q0 + i; r < n {
							v = backend.F32ToBF16(q[r*qstride+h*hd+cc])
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
				for kt := 0; kt <= last/BK; kt++ {
					for i := 0; i < BK; i++ {
						t := kt*BK + i
						for cc := 0; cc < hd; cc++ {
							var kv uint16
							if t <= last {
								kv = backend.F32ToBF16(kc[t*width+kvh*hd+cc])
							}
							smem[Ks+i*LD+cc] = kv
						}
						for cc := 0; cc < DV; cc++ {
							var vv uint16
							if t <= last {
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
							ra := q0 + w*16 + g
							rb := ra + 8
							pa, pb := -1, -1
							if ra < n {
								pa = int(pos[ra])
							}
							if rb < n {
								pb = int(pos[rb])
							}
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
						ra := q0 + w*16 + g
						rb := ra + 8
						iA, iB := float32(0), float32(0)
						if quadA[lane] > 0 {
							iA = 1 / quadA[lane]
						}
						if quadB[lane] > 0 {
							iB = 1 / quadB[lane]
						}
						for dt := 0; dt < DTILES; dt++ {
							r := oa[w*DTILES+dt][lane]
							col := h*hd + z0 + dt*8 + c*2
							if ra < n {
								out[ra*qstride+col], out[ra*qstride+col+1] = r[0]*iA, r[1]*iA
							}
							if rb < n {
								out[rb*qstride+col], out[rb*qstride+col+1] = r[2]*iB, r[3]*iB
							}
						}
					}
				}
			}
		}
	}
	return out
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
		got := emulPromptWide(t, c.hd, q, kc, vc, pos, c.heads, c.kvHeads, scale)
		var worst, top float64
		for r := 0; r < n; r++ {
			for h := 0; h < c.heads; h++ {
				kvh := h / (c.heads / c.kvHeads)
				P := int(pos[r])
				sc := make([]float64, P+1)
				m := math.Inf(-1)
				for tp := 0; tp <= P; tp++ {
					var d float64
					for i := 0; i < c.hd; i++ {
						d += float64(bfr(q[(r*c.heads+h)*c.hd+i])) * float64(bfr(kc[tp*width+kvh*c.hd+i]))
					}
					sc[tp] = d * float64(scale)
					m = max(m, sc[tp])
				}
				var l float64
				for tp := range sc {
					sc[tp] = math.Exp(sc[tp] - m)
					l += sc[tp]
				}
				for i := 0; i < c.hd; i++ {
					var o float64
					for tp := range sc {
						o += sc[tp] * float64(bfr(vc[tp*width+kvh*c.hd+i]))
					}
					o /= l
					g := float64(got[(r*c.heads+h)*c.hd+i])
					if math.IsNaN(g) {
						t.Fatalf("hd %d: row %d head %d dim %d never written", c.hd, r, h, i)
					}
					worst, top = max(worst, math.Abs(g-o)), max(top, math.Abs(o))
				}
			}
		}
		if worst > 4e-3*top {
			t.Errorf("hd %d: max |emulated − f64| %.3g of max|out| %.3g", c.hd, worst, top)
		}
		t.Logf("hd %d: max |emulated − f64| %.3g of max|out| %.3g", c.hd, worst, top)
	}
}
