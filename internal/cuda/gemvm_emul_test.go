// The fragment arithmetic of trellis_gemvm (the one-row grouped form on the tensor cores, shaders/cuda/trellis.cu)
// transcribed into Go and run without a GPU: the per-group int8 staging (qstage_i8_g4), the runs each lane loads in
// a round, the A/B registers of each of the 16 MMA steps, mma.m16n8k32 assembled from the 32 lanes' fragments
// (mma16832), and the diagonal entries each segment's lane takes back. Checked against the reference decoder
// (internal/trellis): every segment's int32 sum over its group exactly, and the unit's outputs against x·W within
// the int8 bound of the staged activations. A change to those kernel lines must be mirrored here.

package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/trellis"
)

// stageI8G4 is qstage_i8_g4: x [in] into run-strided words (36 a run), the group's s and −510·Σa at run 4G's
// words 32 and 33; a holds the int8 values.
func stageI8G4(x []float32) (xs []uint32, a []int32) {
	nq := len(x) / 32
	xs, a = make([]uint32, nq*36), make([]int32, len(x))
	for G := range nq / 4 {
		var amax float32
		for _, v := range x[128*G : 128*G+128] {
			amax = float32(math.Max(float64(amax), math.Abs(float64(v))))
		}
		var f float32
		if amax > 0 {
			f = 127 / amax
		}
		sum := int32(0)
		for j := range 128 {
			v := int32(math.RoundToEven(float64(x[128*G+j] * f)))
			a[128*G+j], sum = v, sum+v
			xs[(4*G+j/32)*36+j%32] = uint32(v&0xff) * 0x01010101
		}
		xs[4*G*36+32], xs[4*G*36+33] = math.Float32bits(amax*(1.0/127)), uint32(-510*sum)
	}
	return xs, a
}

// runWordsOf is trellis_run + trellis_run_load: the K+1 words of run q of a coded row.
func runWordsOf(row []uint32, K, shift, q int) []uint32 {
	pos := q << 5
	t0 := pos & (1<<shift - 1)
	blk := (pos >> shift) * (K << shift >> 5)
	o := blk + ((1<<shift-t0)>>5)*K - K
	ow := o + K
	if t0 == 0 {
		ow = blk
	}
	a := append(make([]uint32, 0, K+1), row[o:o+K]...)
	return append(a, row[ow])
}

// lcgX is trellis.cu's lcg_x: the 1MAD LCG output of position j of a run's words.
func lcgX(a []uint32, K, j int, mask uint32) uint32 {
	return (pieceState(a, K, 32, j)&mask)*34038481 + 76625530
}

// emulGemvm runs trellis_gemvm's rounds for one unit (rows r0, r1 of w) on the staged xs and returns each lane's
// acc (before the warp sum). check sees every round's diagonal sums: d[r][g] = D[g + 8r][g] + −510·Σa of segment
// g's group (live segments only).
func emulGemvm(w *trellis.Weights, r0, r1 int, xs []uint32, U int, check func(rho int, d [2][8]int32, live [8]bool)) [32][2]float32 {
	K, shift, mask := w.Spec.K, log2(w.Spec.T), uint32(1)<<w.Spec.L-1
	wpr := w.WordsPerRow()
	rows := [2][]uint32{w.Words[r0*wpr : (r0+1)*wpr], w.Words[r1*wpr : (r1+1)*wpr]}
	nq := w.Cols / 32
	rounds := (nq + 31) / 32
	var acc [32][2]float32
	round := func(rho int) {
		var a [32][4]uint32
		var b [32][2]uint32
		var c [32][4]int32
		var wd [32][2][]uint32
		for lane := range 32 { // a lane past the last run reads the last run
			q := min(32*rho+lane, nq-1)
			for r := range 2 {
				wd[lane][r] = runWordsOf(rows[r], K, shift, q)
			}
		}
		for s := range 16 {
			for lane := range 32 {
				q := min(32*rho+lane, nq-1)
				a[lane] = [4]uint32{lcgX(wd[lane][0], K, 2*s, mask), lcgX(wd[lane][1], K, 2*s, mask),
					lcgX(wd[lane][0], K, 2*s+1, mask), lcgX(wd[lane][1], K, 2*s+1, mask)}
				b[lane] = [2]uint32{xs[q*36+2*s], xs[q*36+2*s+1]}
			}
			mma16832(&c, &a, &b)
		}
		var d [2][8]int32
		var live [8]bool
		for lane := range 32 {
			g, t, q := lane>>2, lane&3, 32*rho+lane
			d0, d1 := c[lane][0], c[lane][2]
			if g&1 != 0 {
				d0, d1 = c[lane][1], c[lane][3]
			}
			if q < nq && t == g>>1 {
				e := min(q, nq-1) &^ 3
				off, sc := int32(xs[e*36+33]), math.Float32frombits(xs[e*36+32])
				acc[lane][0] = fma32(float32(d0+off), sc, acc[lane][0])
				acc[lane][1] = fma32(float32(d1+off), sc, acc[lane][1])
				d[0][g], d[1][g], live[g] = d0+off, d1+off, true
			}
		}
		if check != nil {
			check(rho, d, live)
		}
	}
	r := 0
	for ; r+U <= rounds; r += U {
		for u := range U {
			round(r + u)
		}
	}
	for ; r < rounds; r++ {
		round(r)
	}
	return acc
}

// TestTrellisGemvmFragments: trellis_gemvm's fragments give, for every round and segment, exactly Σ y(r, pos)·a(pos)
// over the segment's group of 128 positions for both rows of the unit (y the reference decoder's codes), and the
// unit's outputs are x·W within the bound of the int8 activations — for 2/3/4 bits, blocks of 32 and 256, L 12 and
// 16, widths that fill every round (1024, 5120: two rounds at once and a last one alone) and one that does not (640).
func TestTrellisGemvmFragments(t *testing.T) {
	mirrored(t, "trellis.cu", "trellis_gemvm",
		"const unsigned x00 = lcg_x<K>(wd[u][0].a, 2 * s, mask), x01 = lcg_x<K>(wd[u][1].a, 2 * s, mask);",
		"const unsigned x02 = lcg_x<K>(wd[u][0].a, 2 * s + 1, mask), x03 = lcg_x<K>(wd[u][1].a, 2 * s + 1, mask);",
		"qc[u] = min(q0 + 32 * u + lane, nq - 1);",
		"const uint4 b = *(const uint4*)(xs + qc[u] * 36 + 4 * s2);",
		"const unsigned b0 = h ? b.z : b.x, b1 = h ? b.w : b.y;",
		"const int d0 = (g & 1) ? c[u][1] : c[u][0], d1 = (g & 1) ? c[u][3] : c[u][2];",
		"const bool use = q0 + 32 * u + lane < nq && t == (g >> 1);",
		"const uint2 e = *(const uint2*)(xs + (qc[u] & ~3) * 36 + 32);",
		"for (; r + U <= rounds; r += U) gemvm_rounds<K, U>(p.shift, rw, xs, nq, 32 * r, mask, lane, acc);",
		"if (ok && (q & 3) == 0) *(uint2*)(r + 32) = make_uint2(__float_as_uint(amax * (1.f / 127.f)), (unsigned)(-510 * sum));")
	rng := rand.New(rand.NewPCG(11, 12))
	for _, K := range trellisBits {
		for _, T := range []int{32, 256} {
			for _, L := range []int{12, 16} {
				for _, cols := range []int{640, 1024, 5120} {
					if cols%T != 0 {
						continue
					}
					spec := trellis.Spec{K: K, L: L, T: T, Code: "1mad", Axis: 1}
					w := randomTrellis(rng, spec, 3, cols, false)
					x := make([]float32, cols)
					for i := range x {
						x[i] = float32(rng.NormFloat64())
					}
					xs, a := stageI8G4(x)
					dense := w.Dense(trellis.Factored)
					for _, rr := range [][2]int{{0, 1}, {2, 2}} { // a pair; the clamped second row of an odd out
						states := [2][]uint32{make([]uint32, cols), make([]uint32, cols)}
						w.RowStates(rr[0], states[0])
						w.RowStates(rr[1], states[1])
						U := []int{1, 2, 4}[(rr[0]+cols/128)%3] // the shapes' rounds at once: the order of rounds must not matter
						acc := emulGemvm(w, rr[0], rr[1], xs, U, func(rho int, d [2][8]int32, live [8]bool) {
							for g := range 8 {
								G := 8*rho + g
								if live[g] != (G < cols/128) {
									t.Fatalf("K %d T %d cols %d round %d segment %d: live %v", K, T, cols, rho, g, live[g])
								}
								if !live[g] {
									continue
								}
								for r := range 2 {
									var want int32
									for j := 128 * G; j < 128*G+128; j++ {
										want += int32(trellisY(states[r][j]&(1<<L-1))) * a[j]
									}
									if d[r][g] != want {
										t.Fatalf("K %d T %d L %d cols %d rows %v round %d segment %d row %d: %d, want %d", K, T, L, cols, rr, rho, g, r, d[r][g], want)
									}
								}
							}
						})
						for r := range 2 {
							var sum float32
							for lane := range 32 {
								sum += acc[lane][r]
							}
							f := w.Scales[rr[r]] * trellis.Rcp1MAD
							got := sum * f
							var want, bound float64
							for j := range cols {
								wv := float64(dense[rr[r]*cols+j])
								want += wv * float64(x[j])
								G := j / 128
								bound += math.Abs(wv) * float64(math.Float32frombits(xs[4*G*36+32])) / 2
							}
							if math.Abs(float64(got)-want) > bound*1.01+1e-4 {
								t.Errorf("K %d T %d L %d cols %d rows %v row %d: %g, want %g (bound %g)", K, T, L, cols, rr, r, got, want, bound)
							}
						}
					}
				}
			}
		}
	}
}
