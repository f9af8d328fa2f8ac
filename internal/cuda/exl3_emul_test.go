// exl3.cu's arithmetic transcribed line for line into Go and checked against the reference (internal/exl3,
// rht.Apply) with no GPU: the constants, the codebook decode with the PTX conversions, the state window of a tile's
// words, the lane → weight mapping, the warp-shuffle Hadamard, the GEMV's work split and reduction order, and the
// expansion's transposed store. A change to those kernel lines must be mirrored here.

package cuda

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/rht"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

// exl3H2F is cvt.f32.f16; exl3HFMA and exl3HAdd are fma.rn.f16 and add.rn.f16 by their bits: the exact result
// (exact in float64 for fp16 operands: 22-bit products, sums of aligned halves) rounded once to the nearest fp16,
// ties to even, subnormals kept.
func exl3H2F(h uint32) float32 { return dtype.F16ToF32(uint16(h)) }
func exl3HFMA(a, b, c uint16) uint16 {
	f := func(h uint16) float64 { return float64(dtype.F16ToF32(h)) }
	return dtype.F32ToF16(dtype.RoundF16F64(f(a)*f(b) + f(c)))
}
func exl3HAdd(a, b uint16) uint16 {
	return dtype.F32ToF16(dtype.RoundF16F64(float64(dtype.F16ToF32(a)) + float64(dtype.F16ToF32(b))))
}

// exl3DecodeDev is exl3_decode<CB>: mul1's dp4a onto 0x6400 (the fp16 bits of 1024 + the byte sum) then one fp16
// fma by the kernel's constants; 3inst and mcg's lop3 then the fp16 add of the two halves; then the widening.
func exl3DecodeDev(cb exl3.Codebook, s uint32) float32 {
	if cb == exl3.Mul1 {
		x := s * 0x83DCD12D
		h := 0x6400 + x&0xff + x>>8&0xff + x>>16&0xff + x>>24 // dp4a.u32.u32 against 0x01010101
		return exl3H2F(uint32(exl3HFMA(uint16(h), exl3Mul1Inv, exl3Mul1Bias)))
	}
	x := s*89226354 + 64248484
	if cb == exl3.MCG {
		x = s * 0xCBAC1FED
	}
	x = x&0x8fff8fff ^ 0x3b603b60 // lop3 0x6a
	return exl3H2F(uint32(exl3HAdd(uint16(x), uint16(x>>16))))
}

// exl3Mul1Inv and exl3Mul1Bias are exl3_mul1_inv and exl3_mul1_bias (TestEXL3Constants checks the kernel's).
const (
	exl3Mul1Inv  uint16 = 0x1eee
	exl3Mul1Bias uint16 = 0xc931
)

// exl3StateDev is exl3_state<K> over a tile's 32-bit words.
func exl3StateDev(w []uint32, k, t int) uint32 {
	nw := 8 * k
	b1 := (t+1)*k + 256*k
	b0 := b1 - 16
	i0, i1 := b0>>5, (b1-1)>>5
	m := uint64(w[i0%nw])<<32 | uint64(w[i1%nw])
	return uint32(m>>((i1+1)*32-b1)) & 0xffff
}

// exl3LaneStatesDev is exl3_window<K> then exl3_lane_state<K> for j = 0..7: lane's NA+1 words from stream bit
// b = (8·lane+1)·K + 256·K − 16 (wrapping), shifted left by b%32, each state the 16 bits at offset j·K.
func exl3LaneStatesDev(w []uint32, k, lane int) [8]uint32 {
	nw, na := 8*k, (7*k+16+31)/32
	b := (8*lane+1)*k + 256*k - 16
	off := uint(b & 31)
	shlHi := func(hi, lo uint32, s uint) uint32 { return uint32((uint64(hi)<<32 | uint64(lo)) >> (32 - s)) }
	wv := make([]uint32, na+1)
	for v := range wv {
		wv[v] = w[((b>>5)+v)%nw]
	}
	a := make([]uint32, na)
	for v := range a {
		a[v] = shlHi(wv[v], wv[v+1], off)
	}
	var st [8]uint32
	for j := range 8 {
		q := j * k
		v, s := q>>5, uint(q&31)
		if s <= 16 {
			st[j] = a[v] >> (16 - s) & 0xffff
		} else {
			st[j] = shlHi(a[v], a[min(v+1, na-1)], s) >> 16
		}
	}
	return st
}

// exl3PosDev is exl3_pos.
func exl3PosDev(lane, j int) (r, c int) {
	return (lane&3)*2 + (j & 1) + 8*((j>>1)&1), (lane >> 2) + 8*(j>>2)
}

// tileWords reads a tile's int16 elements as the kernels' 32-bit words (element 2m the low half).
func tileWords(tile []uint16) []uint32 {
	w := make([]uint32, len(tile)/2)
	for m := range w {
		w[m] = uint32(tile[2*m]) | uint32(tile[2*m+1])<<16
	}
	return w
}

func TestEXL3Constants(t *testing.T) {
	src := cudashaders.Sources["exl3.cu"]
	// mul1's fp16 constants as the transcription holds them (TestEXL3DecodeDev checks those against the reference).
	for name, want := range map[string]uint16{"exl3_mul1_inv": exl3Mul1Inv, "exl3_mul1_bias": exl3Mul1Bias} {
		m := regexp.MustCompile(name + `\(\) \{ return 0x([0-9a-f]+); \}`).FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("exl3.cu: %s's bit pattern not found", name)
		}
		if bits, _ := strconv.ParseUint(m[1], 16, 16); uint16(bits) != want {
			t.Errorf("%s = %#x, want %#x", name, bits, want)
		}
	}
	for _, c := range []string{"0x83DCD12Du", "0xCBAC1FEDu", "89226354u", "64248484u", "0x8fff8fffu", "0x3b603b60u", "0x6400u"} {
		if !strings.Contains(src, c) {
			t.Errorf("exl3.cu does not hold the constant %s", c)
		}
	}
	if exl3.MCGMult != 0xCBAC1FED || exl3.Mul1Mult != 0x83DCD12D {
		t.Errorf("exl3's multipliers %#x, %#x", exl3.MCGMult, exl3.Mul1Mult)
	}
}

// TestEXL3DecodeDev: the device decode of every state of every codebook, bit for bit exl3.Codebook.Decode.
func TestEXL3DecodeDev(t *testing.T) {
	for _, cb := range exl3Codebooks {
		for s := range uint32(1 << 16) {
			if got, want := exl3DecodeDev(cb, s), cb.Decode(uint16(s)); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("%v(%d): device %v, reference %v", cb, s, got, want)
			}
		}
	}
}

// randomTile is one tile of random K-bit codes as stored.
func randomTile(rng *rand.Rand, k int) []uint16 {
	codes := make([]uint16, exl3.TileSize)
	for i := range codes {
		codes[i] = uint16(rng.IntN(1 << k))
	}
	return exl3.Pack(codes, k)
}

func TestEXL3StateDev(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		tile := randomTile(rng, k)
		w := tileWords(tile)
		for pos := range exl3.TileSize {
			if got, want := exl3StateDev(w, k, pos), uint32(exl3.State(tile, k, pos)); got != want {
				t.Fatalf("K %d position %d: device %#x, reference %#x", k, pos, got, want)
			}
		}
	}
	// The GEMV's lane window against the state of every position, every K, tiles of random and extreme words.
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		for trial := range 4 {
			tile := randomTile(rng, k)
			if trial == 1 || trial == 2 {
				for i := range tile {
					tile[i] = uint16(0xffff * (trial - 1))
				}
			}
			w := tileWords(tile)
			for lane := range 32 {
				st := exl3LaneStatesDev(w, k, lane)
				for j := range 8 {
					if want := exl3StateDev(w, k, 8*lane+j); st[j] != want {
						t.Fatalf("K %d lane %d j %d: window %#x, state %#x", k, lane, j, st[j], want)
					}
				}
			}
		}
	}
	for lane := range 32 {
		for j := range 8 {
			r, c := exl3PosDev(lane, j)
			if wr, wc := exl3.Position(8*lane + j); r != wr || c != wc {
				t.Fatalf("lane %d j %d: (%d, %d), want (%d, %d)", lane, j, r, c, wr, wc)
			}
		}
	}
}

// exl3HadDev is exl3_had over one row: each warp's run of 128 columns, lane l holding columns 4l..4l+3.
func exl3HadDev(x, pre, post, bias []float32, xcols, cols, dcols int) []float32 {
	dst := make([]float32, dcols)
	scale := rht.Scale(exl3.Block)
	for run := 0; run < cols/128; run++ {
		var v [32][4]float32
		for lane := range 32 {
			for e := range 4 {
				c := run*128 + 4*lane + e
				a := float32(0)
				if c < xcols {
					a = x[c]
				}
				if pre != nil {
					a *= pre[c]
				}
				v[lane][e] = a
			}
			t0, t1, t2, t3 := v[lane][0]+v[lane][1], v[lane][0]-v[lane][1], v[lane][2]+v[lane][3], v[lane][2]-v[lane][3]
			v[lane] = [4]float32{t0 + t2, t1 + t3, t0 - t2, t1 - t3}
		}
		for m := 1; m < 32; m <<= 1 {
			old := v
			for lane := range 32 {
				for e := range 4 {
					p := old[lane^m][e]
					if lane&m != 0 {
						v[lane][e] = p - old[lane][e]
					} else {
						v[lane][e] = old[lane][e] + p
					}
				}
			}
		}
		for lane := range 32 {
			for e := range 4 {
				c := run*128 + 4*lane + e
				a := v[lane][e] * scale
				if post != nil {
					a *= post[c]
				}
				if c < dcols {
					if bias != nil {
						a += bias[c]
					}
					dst[c] = a
				}
			}
		}
	}
	return dst
}

// TestEXL3HadDev: the warp-shuffle Hadamard, bit for bit rht.Apply (with the zero padding and the cut, and the
// bias added after, as the CPU's EXL3 forward and linear do).
func TestEXL3HadDev(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	const cols = 384
	for _, c := range []struct{ xcols, dcols int }{{384, 384}, {300, 384}, {384, 257}} {
		x, pre, post, bias := vec(c.xcols), vec(cols), vec(cols), vec(c.dcols)
		ref := make([]float32, cols)
		copy(ref, x)
		rht.Apply(ref, ref, pre, post, exl3.Block)
		got := exl3HadDev(x, pre, post, bias, c.xcols, cols, c.dcols)
		for i := range got {
			if want := ref[i] + bias[i]; math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("%+v column %d: %v, want %v", c, i, got[i], want)
			}
		}
	}
}

// exl3GemvCopyDev is exl3_gemv_copier's issue: lane's chunks of group kb0 (tile kb0 + 8(lane%8), chunks lane/8 +
// 4i of 2K) from the layer's tile column nb into ring[u][words], tiles at or past tk left as they were.
func exl3GemvCopyDev(w *exl3.Weights, ring [][]uint32, nb, kb0, lane int) {
	k := w.K
	u, p0 := lane&7, lane>>3
	kb := kb0 + 8*u
	if kb >= w.TilesK {
		return
	}
	src := tileWords(w.Tile(w.Tiles, kb, nb))
	for i := range (k + 1) / 2 {
		if p := p0 + 4*i; p < 2*k {
			copy(ring[u][4*p:4*p+4], src[4*p:4*p+4])
		}
	}
}

// exl3GemvDev is EXL3_GEMV over a layer: block nb per tile column, warp w over tiles kb ≡ w (mod 8) in groups of
// EXL3_GEMV_AHEAD through the warp's ring of exl3_gemv_stages slots (copies issued S − 1 groups ahead, each landing
// at once: one order the kernel's copies may take; the ring starts poisoned), each lane's states through its window
// (exl3LaneStatesDev), x as the two float2 of its rows, its 2·n fused multiply-add sums, the lanes of a column pair
// added by shuffles xor 1 then 2, the warps in order.
func exl3GemvDev(w *exl3.Weights, x []float32, n int) []float32 {
	const U = 8
	tk, tn, pk, pn := w.TilesK, w.TilesN, w.PadIn(), w.PadOut()
	S := 2
	if w.K <= 4 {
		S = 3
	}
	y := make([]float32, n*pn)
	fma := func(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
	for nb := range tn {
		var red [8][][16]float32
		for warp := range 8 {
			ring := make([][][]uint32, S)
			for s := range ring {
				ring[s] = make([][]uint32, U)
				for u := range ring[s] {
					ring[s][u] = make([]uint32, 8*w.K)
					for i := range ring[s][u] {
						ring[s][u][i] = 0xdeadbeef
					}
				}
			}
			issue := func(kb0, slot int) {
				for lane := range 32 {
					exl3GemvCopyDev(w, ring[slot], nb, kb0, lane)
				}
			}
			for s := range S - 1 {
				issue(warp+8*U*s, s)
			}
			acc := make([][32][2]float32, n)
			st := 0
			for kb0 := warp; kb0 < tk; kb0 += 8 * U {
				issue(kb0+8*U*(S-1), (st+S-1)%S)
				for u := range U {
					kb := kb0 + 8*u
					if kb >= tk {
						break
					}
					for lane := range 32 {
						states := exl3LaneStatesDev(ring[st][u], w.K, lane)
						xl := kb*16 + 2*(lane&3)
						for j := range 8 {
							wt := exl3DecodeDev(w.Codebook, states[j])
							for m := range n {
								xa, xb := x[m*pk+xl:m*pk+xl+2], x[m*pk+xl+8:m*pk+xl+10]
								v := xa
								if j&2 != 0 {
									v = xb
								}
								acc[m][lane][j>>2] = fma(wt, v[j&1], acc[m][lane][j>>2])
							}
						}
					}
				}
				st = (st + 1) % S
			}
			red[warp] = make([][16]float32, n)
			for m := range n {
				for h := range 2 {
					var s [32]float32
					for lane := range 32 {
						s[lane] = acc[m][lane][h]
					}
					for _, o := range []int{1, 2} {
						old := s
						for lane := range 32 {
							s[lane] = old[lane] + old[lane^o]
						}
					}
					for lane := 0; lane < 32; lane += 4 {
						red[warp][m][lane>>2+8*h] = s[lane]
					}
				}
			}
		}
		for m := range n {
			for c := range 16 {
				s := red[0][m][c]
				for warp := 1; warp < 8; warp++ {
					s += red[warp][m][c]
				}
				y[m*pn+nb*16+c] = s
			}
		}
	}
	return y
}

// TestEXL3GemvCopyDev: the copier's chunks of a group, over the warp's lanes, write every word of its 8 tiles once,
// from the same word of the tile, for every K.
func TestEXL3GemvCopyDev(t *testing.T) {
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		seen := make([][]int, 8)
		for u := range seen {
			seen[u] = make([]int, 8*k)
		}
		for lane := range 32 {
			for i := range (k + 1) / 2 {
				if p := lane>>3 + 4*i; p < 2*k {
					for q := range 4 {
						seen[lane&7][4*p+q]++
					}
				}
			}
		}
		for u := range seen {
			for i, c := range seen[u] {
				if c != 1 {
					t.Fatalf("K %d tile %d word %d copied %d times", k, u, i, c)
				}
			}
		}
	}
}

// randomEXL3Layer is a layer of random codes with fp16 sign-and-scale vectors of magnitude about 1/√(in·out)^½.
func randomEXL3Layer(t *testing.T, rng *rand.Rand, in, out, k int, cb exl3.Codebook) *exl3.Weights {
	t.Helper()
	g := exl3.Geometry{TilesK: exl3.Padded(in) / 16, TilesN: exl3.Padded(out) / 16, K: k}
	var tiles []uint16
	for range g.TilesK * g.TilesN {
		tiles = append(tiles, randomTile(rng, k)...)
	}
	vec := func(n int, s float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = dtype.RoundF16(float32(s * (0.5 + rng.Float64()) * float64(1-2*rng.IntN(2))))
		}
		return v
	}
	w, err := exl3.New(g, cb, in, out, tiles, vec(g.PadIn(), math.Pow(float64(in), -0.25)), vec(g.PadOut(), math.Pow(float64(in), -0.25)))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestEXL3LayerDev: the three launches of a decode MatMul (the sides around the GEMV), emulated, against the CPU's
// EXL3 forward (exl3.Weights.MatMul), for several K, every codebook and a padded layer.
func TestEXL3LayerDev(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		in, out, k, n int
		cb            exl3.Codebook
	}{{256, 384, 2, 1, exl3.Mul1}, {1152, 256, 3, 3, exl3.MCG}, {200, 130, 6, 8, exl3.ThreeInst}, {128, 128, 8, 2, exl3.Mul1}} {
		w := randomEXL3Layer(t, rng, c.in, c.out, c.k, c.cb)
		x := make([]float32, c.n*c.in)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		bias := make([]float32, c.out)
		for i := range bias {
			bias[i] = float32(rng.NormFloat64())
		}
		pk, pn := w.PadIn(), w.PadOut()
		xr := make([]float32, c.n*pk)
		for m := range c.n {
			copy(xr[m*pk:], exl3HadDev(x[m*c.in:(m+1)*c.in], w.SU, nil, nil, c.in, pk, pk))
		}
		yr := exl3GemvDev(w, xr, c.n)
		ref := make([]float32, c.n*c.out)
		w.MatMul(ref, x, c.n)
		var maxRef, maxErr float64
		for m := range c.n {
			got := exl3HadDev(yr[m*pn:(m+1)*pn], nil, w.SV, bias, pn, pn, c.out)
			for o := range c.out {
				want := ref[m*c.out+o] + bias[o]
				maxRef = max(maxRef, math.Abs(float64(want)))
				maxErr = max(maxErr, math.Abs(float64(got[o]-want)))
			}
		}
		t.Logf("%+v: max|err| %.3g of max|y| %.3g", c, maxErr, maxRef)
		if maxErr > 1e-5*maxRef {
			t.Errorf("%+v: max|err| %.3g > 1e-5·%.3g", c, maxErr, maxRef)
		}
	}
}

// TestEXL3ExpandDev: EXL3_EXPAND's store (position → transposed shared tile → 16 rows of 16 values) writes
// bf16(Ŵᵀ), each weight once.
func TestEXL3ExpandDev(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	w := randomEXL3Layer(t, rng, 256, 384, 5, exl3.ThreeInst)
	pk, pn := w.PadIn(), w.PadOut()
	got := make([]uint16, pn*pk)
	written := make([]int, pn*pk)
	for tile := range w.TilesK * w.TilesN {
		kb, nb := tile/w.TilesN, tile%w.TilesN
		sw := tileWords(w.Tile(w.Tiles, kb, nb))
		var st [16][16]uint16
		for th := range 256 {
			r, c := exl3PosDev(th>>3, th&7)
			st[c][r] = dtype.F32ToBF16(exl3DecodeDev(w.Codebook, exl3StateDev(sw, w.K, th)))
		}
		for th := range 128 {
			oc, p := th>>3, th&7
			i := (nb*16+oc)*pk + kb*16 + 2*p
			got[i], got[i+1] = st[oc][2*p], st[oc][2*p+1]
			written[i]++
			written[i+1]++
		}
	}
	inner := w.Inner()
	for o := range pn {
		for k := range pk {
			if written[o*pk+k] != 1 {
				t.Fatalf("weight (%d, %d) written %d times", o, k, written[o*pk+k])
			}
			if want := dtype.F32ToBF16(inner[k*pn+o]); got[o*pk+k] != want {
				t.Fatalf("weight (%d, %d): %#x, want %#x", o, k, got[o*pk+k], want)
			}
		}
	}
}
