// The fragment arithmetic of trellis_mma0 (the axis-0 tensor-core form, shaders/cuda/trellis.cu) transcribed into
// Go and run without a GPU: which words each lane loads for its two coded rows (both layouts, the wrapping last
// word of a block's first piece), the A/B registers it builds, mma.m16n8k32 assembled from the 32 lanes' fragments
// as the PTX ISA lays them out, the C registers mapped back to (position, batch row), the per-warp int8
// quantization, the 8-warp tree and the split-K reduce. Checked against the reference decoder (internal/trellis):
// every warp's int32 sums exactly, the result against x·W within the int8 bound. A change to those kernel lines
// must be mirrored here.

package cuda

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/trellis"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

// mirrored fails t unless the kernel source file still has every line the Go transcription of form mirrors.
func mirrored(t *testing.T, file, form string, lines ...string) {
	t.Helper()
	src := cudashaders.Sources[file]
	for _, line := range lines {
		if !strings.Contains(src, line) {
			t.Fatalf("%s's %s no longer has %q: mirror the change here", file, form, line)
		}
	}
}

// mma16832 is mma.sync.m16n8k32 .u8 × .s8 → .s32 on one warp's registers (PTX ISA "Matrix Fragments for
// mma.m16n8k32", lane = 4·g + t): A reg 0 = row g, k 4t..4t+3; reg 1 = row g+8, same k; reg 2 = row g, k
// 16+4t..; reg 3 = row g+8, k 16+4t..; B reg 0 = k 4t.., column g; reg 1 = k 16+4t.., column g; C c0, c1 = row g,
// columns 2t, 2t+1; c2, c3 = row g+8.
func mma16832(c *[32][4]int32, a *[32][4]uint32, b *[32][2]uint32) {
	var A [16][32]int32
	var B [32][8]int32
	for lane := range 32 {
		g, t := lane>>2, lane&3
		for r := range 4 {
			row, k0 := g+8*(r&1), 4*t+16*(r>>1)
			for i := range 4 {
				A[row][k0+i] = int32(a[lane][r] >> (8 * i) & 0xff) // unsigned
			}
		}
		for r := range 2 {
			for i := range 4 {
				B[4*t+16*r+i][g] = int32(int8(b[lane][r] >> (8 * i))) // signed
			}
		}
	}
	for lane := range 32 {
		g, t := lane>>2, lane&3
		for i := range 4 {
			row, col := g+8*(i>>1), 2*t+(i&1)
			var s int32
			for k := range 32 {
				s += A[row][k] * B[k][col]
			}
			c[lane][i] += s
		}
	}
}

// emulMma0 runs trellis_mma0<K, N, P> over every block of the launch mma0Split-like (rps rows per split) and returns
// y [nrows, out] after trellis_splitk_reduce. check, when set, sees every warp's int32 sums once its groups are
// done: c[j][lane][i] is C element i of m-tile j, with the warp's rows, positions of the block and the quantized
// activations (a[m][r], r relative to the split) that produced it.
func emulMma0(w *trellis.Weights, x []float32, nrows, N, P, rps int, interleaved bool,
	check func(rs, cols0, warp int, a [][]int32, c [][32][4]int32)) []float32 {
	K, J := w.K, P/2
	rows, cols := w.Rows, w.Cols
	NA := pieceNA(K, P)
	aligned := P*K%32 == 0
	NL := NA
	if !aligned {
		NL++
	}
	splits := (rows + rps - 1) / rps
	partial := make([]float32, splits*nrows*cols)
	shift, T := log2(w.T), w.T
	wpb, wpr := (K<<shift)>>5, (cols>>5)*K
	stride := wpr
	if interleaved {
		stride = 48
	}
	mask := uint32(1)<<w.L - 1
	for by := range splits {
		rs := by * rps
		nr := min(rps, rows-rs)
		ngrp := nr >> 3
		xsh := make([][]float32, nr) // [row of the split][m], x' = x·f32(scale·rcp)
		for i := range nr {
			f := w.Scales[rs+i] * trellis.Rcp1MAD
			xsh[i] = make([]float32, N)
			for m := range min(N, nrows) {
				xsh[i][m] = x[m*rows+rs+i] * f
			}
		}
		for bx := range (cols + 8*P - 1) / (8 * P) {
			// Per lane: its piece (cg), and the word indexes of pa[h] / pl[h] before the warp's first group.
			type laneGeo struct {
				cg     int
				active bool
				sh     uint32
				w0, wl int // the piece's first word and its last (possibly wrapped) word, within the row
				base   int
			}
			var geo [32]laneGeo
			for lane := range 32 {
				g := lane >> 2
				L := &geo[lane]
				L.cg = (bx*8 + g) * P
				L.active = L.cg < cols
				c0 := 0
				if L.active {
					c0 = L.cg
				}
				b, t0 := c0>>shift, c0&(T-1)
				sb := (T - t0 - P) * K
				L.sh = uint32(sb & 31)
				L.base = b * wpb
				if interleaved {
					L.base = (b>>1)*rows*48 + (b&1)*wpb
				}
				L.w0, L.wl = sb>>5, ((sb>>5)+NL-1)%wpb
			}
			var acc [8][32][][4]float32
			for warp := range 8 {
				// The warp quantizes its own rows: groups warp, warp+8, ... of the split.
				a := make([][]int32, N)
				sq, ioff := make([]float32, N), make([]int32, N)
				for m := range N {
					a[m] = make([]int32, nr)
					var amax float32
					for G := warp; G < ngrp; G += 8 {
						for i := range 8 {
							amax = max(amax, float32(math.Abs(float64(xsh[8*G+i][m]))))
						}
					}
					f := float32(0)
					if amax > 0 {
						f = 127 / amax
					}
					var sum int32
					for G := warp; G < ngrp; G += 8 {
						for i := range 8 {
							v := int32(math.RoundToEven(float64(xsh[8*G+i][m] * f)))
							a[m][8*G+i], sum = v, sum+v
						}
					}
					sq[m], ioff[m] = amax*(1.0/127), -510*sum
				}
				// C starts at the offsets of the lane's columns 2t, 2t+1 (o0, o1); s0, s1 their scales.
				c := make([][32][4]int32, J)
				var s0, s1 [32]float32
				for lane := range 32 {
					t := lane & 3
					for m := range N {
						if m == 2*t {
							s0[lane] = sq[m]
							for j := range J {
								c[j][lane][0], c[j][lane][2] = ioff[m], ioff[m]
							}
						}
						if m == 2*t+1 {
							s1[lane] = sq[m]
							for j := range J {
								c[j][lane][1], c[j][lane][3] = ioff[m], ioff[m]
							}
						}
					}
				}
				for G := warp; G < ngrp; G += 8 {
					var A [32][4]uint32
					var B [32][2]uint32
					var aw [32][2][]uint32
					for lane := range 32 {
						g, t := lane>>2, lane&3
						L := &geo[lane]
						for h := range 2 {
							// pa[h] = row + w0, pl[h] = row + wl, each stepped by 64·stride per group after the first.
							row := L.base + (rs+8*warp+4*h+t)*stride + (G-warp)/8*64*stride
							nx := make([]uint32, NL)
							for i := range NL - 1 {
								nx[i] = w.Words[row+L.w0+i]
							}
							nx[NL-1] = w.Words[row+L.wl]
							av := make([]uint32, NA)
							for i := range NA {
								av[i] = nx[i]
								if !aligned {
									av[i] = shfR(nx[i], nx[i+1], L.sh)
								}
							}
							aw[lane][h] = av
							B[lane][h] = uint32(a[min(g, N-1)][8*G+4*h+t]&0xff) * 0x01010101
						}
					}
					for j := range J {
						for lane := range 32 {
							lcg := func(h, jj int) uint32 { return (pieceState(aw[lane][h], K, P, jj)&mask)*34038481 + 76625530 }
							A[lane] = [4]uint32{lcg(0, j), lcg(0, J+j), lcg(1, j), lcg(1, J+j)}
						}
						mma16832(&c[j], &A, &B)
					}
				}
				if check != nil {
					check(rs, bx*8*P, warp, a, c)
				}
				for lane := range 32 {
					acc[warp][lane] = make([][4]float32, J)
					for j := range J {
						acc[warp][lane][j] = [4]float32{float32(c[j][lane][0]) * s0[lane], float32(c[j][lane][1]) * s1[lane],
							float32(c[j][lane][2]) * s0[lane], float32(c[j][lane][3]) * s1[lane]}
					}
				}
			}
			for half := 4; half >= 1; half >>= 1 {
				for warp := range half {
					for lane := range 32 {
						for j := range J {
							for i := range 4 {
								acc[warp][lane][j][i] += acc[warp+half][lane][j][i]
							}
						}
					}
				}
			}
			for lane := range 32 {
				t, L := lane&3, &geo[lane]
				if !L.active {
					continue
				}
				for i := range 4 {
					n := 2*t + i&1
					if n >= nrows {
						continue
					}
					for j := range J {
						partial[(by*nrows+n)*cols+L.cg+(i>>1)*J+j] = acc[0][lane][j][i]
					}
				}
			}
		}
	}
	// trellis_splitk_reduce: warp w sums splits w, w+8, ... in order; the 8 sums in a fixed tree.
	total := nrows * cols
	y := make([]float32, total)
	for e := range total {
		var r [8]float32
		for k := range splits {
			r[k%8] += partial[k*total+e]
		}
		y[e] = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
	}
	return y
}

// TestTrellisMma0Fragments: trellis_mma0's fragments give, for every warp, exactly Σ_r y(r, c)·a[m][r] over its
// rows (y the reference decoder's codes), and the launch's result is x·W within the int8 activation bound — for
// 2/3/4 bits, blocks of 32 and 256 positions, the plain and the 3-bit interleaved layouts, P 16 and 32, 1..8 rows,
// several splits (the last one short) and several groups per warp (the pointer steps).
func TestTrellisMma0Fragments(t *testing.T) {
	mirrored(t, "trellis.cu", "trellis_mma0",
		"const unsigned x1 = (piece_state<K, P>(a[0], J + j) & mask) * 34038481u + 76625530u;",
		"const unsigned x2 = (piece_state<K, P>(a[1], j) & mask) * 34038481u + 76625530u;",
		"mma_u8s8(c[j], x0, x1, x2, x3, b0, b1);",
		"const unsigned b0 = __float_as_uint(xsh[(8 * G + t) * N + bcol]), b1 = __float_as_uint(xsh[(8 * G + 4 + t) * N + bcol]);",
		"const unsigned* row = p.W + base + (long long)(rs + 8 * warp + 4 * h + t) * stride;",
		"const int w0 = sb >> 5, wl = (w0 + NL - 1) % wpb;",
		"float* dst = p.partial + ((long long)blockIdx.y * p.nrows + n) * cols + cg + (i >> 1) * J;")
	rng := rand.New(rand.NewPCG(7, 8))
	type tc struct {
		K, T, P, rows, cols int
		il                  bool
		ns                  []int
	}
	var cases []tc
	for _, K := range trellisBits {
		for _, T := range []int{32, 256} {
			for _, P := range []int{16, 32} {
				cases = append(cases, tc{K, T, P, 272, 512, false, []int{1, 3, 8}})
			}
		}
	}
	cases = append(cases, tc{3, 256, 16, 272, 1024, true, []int{2, 4, 5}}, tc{3, 256, 32, 272, 1024, true, []int{8}},
		tc{2, 32, 16, 272, 384, false, []int{2, 4}}) // 384: the last block's pieces past the end
	for _, c := range cases {
		spec := trellis.Spec{K: c.K, L: 12, T: c.T, Code: "1mad", Axis: 0}
		w := randomTrellis(rng, spec, c.rows, c.cols, c.il)
		states := make([][]uint32, c.rows)
		for r := range states {
			states[r] = make([]uint32, c.cols)
			w.RowStates(r, states[r])
		}
		dense := w.Dense(trellis.Factored) // [out, in]
		for _, n := range c.ns {
			N := qInst(n)
			x := make([]float32, n*c.rows)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			for _, rps := range []int{136, 128} { // two splits of 17 groups (3 for warp 0); 128, 128, 16
				bad := 0
				check := func(rs, cols0, warp int, a [][]int32, cc [][32][4]int32) {
					for lane := range 32 {
						g, tt := lane>>2, lane&3
						for j := range c.P / 2 {
							for i := range 4 {
								col := 2*tt + i&1
								pos := cols0 + g*c.P + (i>>1)*(c.P/2) + j
								if col >= N || pos >= c.cols {
									continue
								}
								var want int32
								for G := warp; G < len(a[0])>>3; G += 8 {
									for r := 8 * G; r < 8*G+8; r++ {
										want += trellis.Code1MAD(states[rs+r][pos]) * a[col][r]
									}
								}
								if cc[j][lane][i] != want && bad < 5 {
									bad++
									t.Errorf("%+v n %d rps %d: rows %d+ warp %d lane %d tile %d c%d (position %d, batch row %d): %d, want %d",
										c, n, rps, rs, warp, lane, j, i, pos, col, cc[j][lane][i], want)
								}
							}
						}
					}
				}
				y := emulMma0(w, x, n, N, c.P, rps, c.il, check)
				var maxRef, maxErr float64
				for m := range n {
					for o := range c.cols {
						var ref float64
						for r := range c.rows {
							ref += float64(x[m*c.rows+r]) * float64(dense[o*c.rows+r])
						}
						maxRef = max(maxRef, math.Abs(ref))
						maxErr = max(maxErr, math.Abs(ref-float64(y[m*c.cols+o])))
					}
				}
				if maxErr > 1.5e-2*maxRef {
					t.Errorf("%+v n %d rps %d: max error %.3g of max|ref| %.3g (bound 1.5e-2)", c, n, rps, maxErr/maxRef, maxRef)
				}
			}
		}
	}
}

// TestMma0Split: the 14B down projection's split (rows a multiple of 8 within the staged bound) and the form's
// selection: batches of 2..8 rows by default, one row on the dp4a form, both pinned by SetQuantMMA's field.
func TestMma0Split(t *testing.T) {
	for _, tc := range []struct{ rows, cols, P, rps, splits int }{
		{17408, 5120, qmma0Piece, 872, 20},    // 14B down: 40 × 20 blocks, two waves of 3 blocks on 132 SMs
		{17408, 5120, qmma0LabPiece, 440, 40}, // 20 × 40
		{1536, 512, qmma0Piece, 64, 24},       // pycoder-12m down: a group of 8 rows per warp
	} {
		rps, splits := mma0Split(tc.rows, tc.cols, tc.P, 132)
		if rps != tc.rps || splits != tc.splits || rps > mma0MaxRows || rps%8 != 0 || splits*rps < tc.rows || (splits-1)*rps >= tc.rows {
			t.Errorf("mma0Split(%d, %d, P=%d) = %d rows × %d splits, want %d × %d", tc.rows, tc.cols, tc.P, rps, splits, tc.rps, tc.splits)
		}
	}
	pick := func(c quantCase) string {
		for _, f := range quantForms {
			if f.supports(c) {
				return f.name
			}
		}
		return ""
	}
	w := quantCaseW{format: "trellis", axis: 0, bits: 3}.weight()
	for _, tc := range []struct {
		n, mmaRows int
		act8       bool
		want       string
	}{
		{1, 2, true, "trellis_gemv0_i8"}, {2, 2, true, "trellis_mma0"},
		{4, 2, true, "trellis_mma0"}, {8, 2, true, "trellis_mma0"}, {4, qmma0DefaultRows, true, "trellis_mma0"},
		{1, 1, true, "trellis_mma0"}, {4, 0, true, "trellis_gemv0_i8"}, {4, 2, false, "trellis_gemv0"},
	} {
		c := quantCase{n: tc.n, in: 17408, out: 5120, w: w, act8: tc.act8, mmaRows: tc.mmaRows}
		if got := pick(c); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc, got, tc.want)
		}
	}
	seen := map[string]bool{}
	for _, lines := range quantInstantiations(true) {
		for _, l := range lines {
			if strings.HasPrefix(l, "TRELLIS_MMA_SPLITK(") {
				seen[l[len("TRELLIS_MMA_SPLITK("):strings.Index(l, ",")]] = true
			}
		}
	}
	for _, k := range trellisBits {
		for n := 1; n <= maxGemvRows; n++ {
			for _, P := range qmma0Pieces(k, true) {
				if name := trellisMma0Name(k, qInst(n), P); !seen[name] {
					t.Errorf("the host may launch %s, which is not instantiated", name)
				}
			}
		}
	}
}
