// The index arithmetic of trellis.cu and affine.cu transcribed line for line into Go and checked against the
// reference decoders (internal/trellis, internal/affine) on random codes, with no GPU: which words a lane loads
// for a run or a piece (block wrap, the 3-bit interleave), the compile-time window of each position, the dp4a
// byte-sum trick and the constants. A change to those kernel lines must be mirrored here.

package cuda

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/trellis"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

// shfR is shf.r.wrap.b32: the 32 bits at s (mod 32) of hi:lo.
func shfR(lo, hi, s uint32) uint32 { return uint32((uint64(hi)<<32 | uint64(lo)) >> (s & 31)) }

// pieceState is trellis.cu's piece_state<K, P>.
func pieceState(a []uint32, K, P, j int) uint32 {
	bit := (P - 1 - j) * K
	wi, off := bit>>5, bit&31
	if off+16 <= 32 {
		return a[wi] >> off
	}
	return shfR(a[wi], a[wi+1], uint32(off))
}

// trellisY is trellis.cu's trellis_y (dp4a onto the bits of 1.5·2^23 − 510, one subtract).
func trellisY(s uint32) float32 {
	x := s*34038481 + 76625530
	u := uint32(0x4B3FFE02) + x&0xFF + x>>8&0xFF + x>>16&0xFF + x>>24
	return math.Float32frombits(u) - 12582912
}

// pieceNA is Piece<K, P>::NA.
func pieceNA(K, P int) int { return ((P-1)*K + 16 + 31) / 32 }

func randomTrellis(rng *rand.Rand, spec trellis.Spec, rows, cols int, interleave bool) *trellis.Weights {
	shape := []int{rows, cols * spec.K / 32}
	if interleave {
		shape = []int{cols / 512, rows, 48}
	}
	g, err := trellis.NewGeometry(spec, shape)
	if err != nil {
		panic(err)
	}
	words := make([]uint32, g.Words())
	for i := range words {
		words[i] = rng.Uint32()
	}
	scales := make([]float32, g.Rows)
	for i := range scales {
		scales[i] = dtype.RoundF16(float32(0.5 + rng.Float64()))
	}
	w, err := trellis.NewWeights(g, words, scales)
	if err != nil {
		panic(err)
	}
	return w
}

func TestTrellisConstants(t *testing.T) {
	src := cudashaders.Sources["code1mad.cuh"]
	m := regexp.MustCompile(`trellis_rcp\(\) \{ return __uint_as_float\(0x([0-9a-f]+)u\); \}`).FindStringSubmatch(src)
	if m == nil {
		t.Fatal("code1mad.cuh: trellis_rcp's bit pattern not found")
	}
	bits, _ := strconv.ParseUint(m[1], 16, 32)
	if uint32(bits) != math.Float32bits(trellis.Rcp1MAD) {
		t.Errorf("trellis_rcp bits %#x, trellis.Rcp1MAD %#x", bits, math.Float32bits(trellis.Rcp1MAD))
	}
	for s := uint32(0); s < 1<<16; s++ {
		if got, want := trellisY(s), float32(trellis.Code1MAD(s)); got != want {
			t.Fatalf("trellis_y(%d) = %v, want %v", s, got, want)
		}
	}
	// affine_q: q | 0x4B000000 as a float, minus 2^23.
	for q := uint32(0); q < 256; q++ {
		if got := math.Float32frombits(q|0x4B000000) - 8388608; got != float32(q) {
			t.Fatalf("affine_q(%d) = %v", q, got)
		}
	}
}

// fma32 is a correctly rounded f32 fused multiply-add (CUDA's fmaf).
func fma32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

// TestTrellisRefinedValue: trellis_value (the expansion's division-free value) is trellis.Value1MAD for every code.
func TestTrellisRefinedValue(t *testing.T) {
	for y := -510; y <= 510; y++ {
		yf := float32(y)
		q := yf * trellis.Rcp1MAD
		got := fma32(fma32(-q, trellis.Divisor1MAD, yf), trellis.Rcp1MAD, q)
		if want := yf / trellis.Divisor1MAD; got != want {
			t.Errorf("y %d: %v, want %v", y, got, want)
		}
	}
	if !strings.Contains(cudashaders.Sources["code1mad.cuh"], "return fmaf(fmaf(-q, 147.800537109375f, y), trellis_rcp(), q);") {
		t.Error("code1mad.cuh's trellis_value is not the arithmetic checked here")
	}
}

func TestQGemvParamsLayout(t *testing.T) {
	var p qgemvParams
	if unsafe.Sizeof(p) != 96 || unsafe.Offsetof(p.Partial) != 48 || unsafe.Offsetof(p.Out) != 56 ||
		unsafe.Offsetof(p.NRows) != 72 || unsafe.Offsetof(p.IL) != 88 || unsafe.Offsetof(p.Axis) != 92 {
		t.Errorf("qgemvParams: size %d, Partial %d, Out %d, NRows %d, IL %d, Axis %d; quant.cuh has 96, 48, 56, 72, 88, 92",
			unsafe.Sizeof(p), unsafe.Offsetof(p.Partial), unsafe.Offsetof(p.Out), unsafe.Offsetof(p.NRows),
			unsafe.Offsetof(p.IL), unsafe.Offsetof(p.Axis))
	}
	src := cudashaders.Sources["quant.cuh"]
	for _, want := range []string{"float* partial;        // 48", "int out;               // 56", "int nrows;             // 72",
		"int interleaved;       // 88", "int axis;              // 92", "};                         // 96 bytes"} {
		if !strings.Contains(src, want) {
			t.Errorf("quant.cuh no longer declares %q", want)
		}
	}
}

// TestTrellisRunWords: TrellisRow::run/load/weight (axis-1 GEMV) and trellis_expand's words give DecodeRow's states.
func TestTrellisRunWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, K := range trellisBits {
		for _, T := range []int{32, 64, 256} {
			for _, L := range []int{K + 1, 12, 16} {
				spec := trellis.Spec{K: K, L: L, T: T, Code: "1mad", Axis: 1}
				w := randomTrellis(rng, spec, 3, 4*T, false)
				shift, wpb, mask := log2(T), K*T/32, uint32(1)<<L-1
				want := make([]float32, w.Cols)
				for r := range w.Rows {
					w.DecodeRow(r, trellis.Factored, want) // f32(y)·(scale·rcp): compare codes via y
					row := w.Words[r*w.WordsPerRow() : (r+1)*w.WordsPerRow()]
					f := w.Scales[r] * trellis.Rcp1MAD
					for q := range w.Cols / 32 {
						pos, t0 := q<<5, q<<5&(T-1)
						blk := (pos >> shift) * wpb
						o := blk + ((T-t0)>>5)*K - K
						ow := o + K
						if t0 == 0 {
							ow = blk
						}
						a := make([]uint32, K+1)
						copy(a, row[o:o+K])
						a[K] = row[ow]
						if pieceNA(K, 32) != K+1 {
							t.Fatalf("K %d: NA %d", K, pieceNA(K, 32))
						}
						for j := range 32 {
							y := trellisY(pieceState(a, K, 32, j) & mask)
							if y*f != want[pos+j] {
								t.Fatalf("K %d T %d L %d row %d pos %d: %v, want %v", K, T, L, r, pos+j, y*f, want[pos+j])
							}
						}
					}
				}
			}
		}
	}
}

// TestTrellisPieceWords: trellis_gemv0's pieces (P = 32, 16, 8, unaligned ones funnel-shifted), both layouts.
func TestTrellisPieceWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type tc struct {
		K, L, T    int
		interleave bool
	}
	var cases []tc
	for _, K := range trellisBits {
		for _, T := range []int{32, 256} {
			cases = append(cases, tc{K, 12, T, false}, tc{K, 16, T, false})
		}
	}
	cases = append(cases, tc{3, 12, 256, true})
	for _, c := range cases {
		spec := trellis.Spec{K: c.K, L: c.L, T: c.T, Code: "1mad", Axis: 0}
		cols := 1024
		w := randomTrellis(rng, spec, 5, cols, c.interleave)
		shift, wpb, wpr, mask := log2(c.T), c.K*c.T/32, cols/32*c.K, uint32(1)<<c.L-1
		want := make([]float32, cols)
		for _, P := range []int{32, 16, 8} {
			NA := pieceNA(c.K, P)
			aligned := P*c.K%32 == 0
			NL := NA
			if !aligned {
				NL++
			}
			for r := range w.Rows {
				w.DecodeRow(r, trellis.Factored, want)
				f := w.Scales[r] * trellis.Rcp1MAD
				for c0 := 0; c0 < cols; c0 += P {
					b, t0 := c0>>shift, c0&(c.T-1)
					sb := (c.T - t0 - P) * c.K
					sh := uint32(sb & 31)
					base, stride := b*wpb, wpr
					if c.interleave {
						base, stride = (b>>1)*w.Rows*48+(b&1)*wpb, 48
					}
					ld := make([]uint32, NL)
					for i := range ld {
						ld[i] = w.Words[base+r*stride+((sb>>5)+i)%wpb]
					}
					a := make([]uint32, NA)
					for i := range a {
						a[i] = ld[i]
						if !aligned {
							a[i] = shfR(ld[i], ld[i+1], sh)
						}
					}
					for j := range P {
						y := trellisY(pieceState(a, c.K, P, j) & mask)
						if y*f != want[c0+j] {
							t.Fatalf("%+v P %d row %d pos %d: %v, want %v", c, P, r, c0+j, y*f, want[c0+j])
						}
					}
				}
			}
		}
	}
}

// TestAffineRunWords: AffineRow's run words and affine_q give DecodeRow's weights at every width and group.
func TestAffineRunWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, bits := range affineBits {
		for _, g := range []int{32, 64, 128} {
			out, in := 3, 256
			dense := make([]float32, out*in)
			for i := range dense {
				dense[i] = float32(rng.NormFloat64())
			}
			a, err := affine.Quantize(dense, out, in, bits, g)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float32, in)
			for o := range out {
				a.DecodeRow(o, want)
				row := a.Packed[o*a.WordsPerRow() : (o+1)*a.WordsPerRow()]
				ng := in >> log2(g)
				for q := range in / 32 {
					v := row[q*bits : (q+1)*bits]
					grp := (q << 5) >> log2(g)
					s, bias := a.Scales[o*ng+grp], a.Biases[o*ng+grp]
					for j := range 32 {
						bit := j * bits
						wi, off := bit>>5, bit&31
						var qv uint32
						if off+bits <= 32 {
							qv = v[wi] >> off
						} else {
							qv = shfR(v[wi], v[wi+1], uint32(off))
						}
						qv &= 1<<bits - 1
						qf := math.Float32frombits(qv|0x4B000000) - 8388608
						if got := s*qf + bias; got != want[q*32+j] {
							t.Fatalf("bits %d group %d row %d pos %d: %v, want %v", bits, g, o, q*32+j, got, want[q*32+j])
						}
					}
				}
			}
		}
	}
}

// TestQuantSelection: the form each case gets, and that every kernel the launchers may name is instantiated.
func TestQuantSelection(t *testing.T) {
	pick := func(c quantCase) string {
		for _, f := range quantForms {
			if f.supports(c) {
				return f.name
			}
		}
		return ""
	}
	tw := func(axis, k int) quantCaseW { return quantCaseW{format: "trellis", axis: axis, bits: k} }
	for _, tc := range []struct {
		n, in, out int
		w          quantCaseW
		exact      bool
		want       string
	}{
		{1, 5120, 17408, tw(1, 3), false, "trellis_gemv1"},
		{8, 17408, 5120, tw(0, 3), false, "trellis_gemv0"},
		{3, 5120, 5120, quantCaseW{format: "affine", bits: 4}, false, "affine_gemv"},
		{512, 5120, 17408, tw(1, 3), false, "expand_cublaslt"},
		{512, 5120, 17408, tw(1, 3), true, "gemv_chunks"},
		{40, 512, 1536, tw(0, 2), false, "gemv_chunks"},
	} {
		c := quantCase{n: tc.n, in: tc.in, out: tc.out, w: tc.w.weight(), exact: tc.exact, splitMax: defaultTuning().splitGemmMax}
		if got := pick(c); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc, got, tc.want)
		}
	}
	seen := map[string]bool{}
	re := regexp.MustCompile(`^[A-Z][A-Z0-9_]*\((\w+),`)
	for _, lines := range quantInstantiations(true) {
		for _, l := range lines {
			seen[re.FindStringSubmatch(l)[1]] = true
		}
	}
	var want []string
	for N := 1; N <= maxGemvRows; N++ {
		n := qInst(N)
		for _, k := range trellisBits {
			for _, v := range quantVariants {
				want = append(want, trellisGemv1Name(k, n, qShapes[n].R, v, false), trellisGemv0Name(k, n, v))
			}
			want = append(want, trellisGemv1I8Name(k, n, qShapes[n].R, qI8U(n)), trellisGemv0I8Name(k, n))
			want = append(want, trellisExpandName(k))
		}
		for _, b := range affineBits {
			want = append(want, affineGemvName(b, n, qShapes[n].R), affineExpandName(b))
		}
	}
	for _, v := range quantVariants {
		for _, r := range qLab {
			want = append(want, trellisGemv1Name(3, 1, r, v, false))
		}
		for _, r := range qLabPrefetch {
			want = append(want, trellisGemv1Name(3, 1, r, v, true))
		}
	}
	for _, x := range qLabI8 {
		want = append(want, trellisGemv1I8Name(3, 1, x[0], x[1]))
	}
	for _, name := range want {
		if !seen[name] {
			t.Errorf("the host may launch %s, which is not instantiated", name)
		}
	}
	if !strings.Contains(cudashaders.Sources["trellis.cu"], "void __launch_bounds__(256) "+trellisReduceName+"(") {
		t.Errorf("%s is not defined in trellis.cu", trellisReduceName)
	}
	// The split-K shape of the 14B down projection: ~4 blocks per SM, staged rows within the kernel's bound.
	for _, N := range qRowsInst {
		rps, splits := gemv0Split(17408, 5120, N, 132, defaultTuning().gemv0Blocks)
		if rps > gemv0MaxRows(N) || rps%8 != 0 || splits*rps < 17408 || (splits-1)*rps >= 17408 {
			t.Errorf("gemv0Split(N=%d) = %d rows × %d splits", N, rps, splits)
		}
	}
	if got := fmt.Sprint(qSplit(1024, 2, 132), qSplit(17408, 2, 132)); got != "8 1" {
		t.Errorf("qSplit(k/v, gate) = %s, want 8 1", got)
	}
}

type quantCaseW struct {
	format     string
	axis, bits int
}

func (q quantCaseW) weight() backend.Weight {
	if q.format == "affine" {
		return backend.Weight{Format: backend.FormatAffine, Bits: q.bits, Group: 64}
	}
	return backend.Weight{Format: backend.FormatTrellis, Bits: q.bits, Group: 256, L: 12, Code: "1mad", Axis: q.axis}
}

// TestQMmaParamsLayout: qmmaSeg and qmmaParams match QMmaSeg and QMmaParams in trellis.cu.
func TestQMmaParamsLayout(t *testing.T) {
	var s qmmaSeg
	var p qmmaParams
	if unsafe.Sizeof(s) != 40 || unsafe.Offsetof(s.Out) != 32 || unsafe.Offsetof(s.Tile0) != 36 {
		t.Errorf("qmmaSeg: size %d, Out %d, Tile0 %d; trellis.cu has 40, 32, 36", unsafe.Sizeof(s), unsafe.Offsetof(s.Out), unsafe.Offsetof(s.Tile0))
	}
	if unsafe.Sizeof(p) != 168 || unsafe.Offsetof(p.X) != 120 || unsafe.Offsetof(p.H) != 128 || unsafe.Offsetof(p.NSeg) != 136 ||
		unsafe.Offsetof(p.NRows) != 152 || unsafe.Offsetof(p.NTiles) != 164 {
		t.Errorf("qmmaParams: size %d, X %d, H %d, NSeg %d, NRows %d, NTiles %d; trellis.cu has 168, 120, 128, 136, 152, 164",
			unsafe.Sizeof(p), unsafe.Offsetof(p.X), unsafe.Offsetof(p.H), unsafe.Offsetof(p.NSeg), unsafe.Offsetof(p.NRows), unsafe.Offsetof(p.NTiles))
	}
	src := cudashaders.Sources["trellis.cu"]
	for _, want := range []string{"int tile0;             // 36", "};                         // 40 bytes", "const float* x;        // 120",
		"float* h;              // 128", "int nseg;              // 136", "int nrows;             // 152", "int ntiles;            // 164",
		"};                         // 168 bytes"} {
		if !strings.Contains(src, want) {
			t.Errorf("trellis.cu no longer declares %q", want)
		}
	}
}

// TestQGroupParamsLayout: qgroupParams matches QGroupParams in trellis.cu.
func TestQGroupParamsLayout(t *testing.T) {
	var p qgroupParams
	if unsafe.Sizeof(p) != 192 || unsafe.Offsetof(p.X) != 120 || unsafe.Offsetof(p.H) != 128 || unsafe.Offsetof(p.Ctr) != 136 ||
		unsafe.Offsetof(p.NSeg) != 144 || unsafe.Offsetof(p.In) != 148 || unsafe.Offsetof(p.NUnits) != 160 ||
		unsafe.Offsetof(p.Eps) != 164 || unsafe.Offsetof(p.NormW) != 168 || unsafe.Offsetof(p.XN) != 176 || unsafe.Offsetof(p.Res) != 184 {
		t.Errorf("qgroupParams: size %d, X %d, H %d, Ctr %d, NSeg %d, In %d, NUnits %d, Eps %d, NormW %d, XN %d, Res %d; "+
			"trellis.cu has 192, 120, 128, 136, 144, 148, 160, 164, 168, 176, 184",
			unsafe.Sizeof(p), unsafe.Offsetof(p.X), unsafe.Offsetof(p.H), unsafe.Offsetof(p.Ctr), unsafe.Offsetof(p.NSeg),
			unsafe.Offsetof(p.In), unsafe.Offsetof(p.NUnits), unsafe.Offsetof(p.Eps), unsafe.Offsetof(p.NormW),
			unsafe.Offsetof(p.XN), unsafe.Offsetof(p.Res))
	}
	src := cudashaders.Sources["trellis.cu"]
	for _, want := range []string{"int* ctr;              // 136", "int nseg;              // 144", "int in;                // 148",
		"int nunits;            // 160", "float eps;             // 164", "const float* normw;    // 168",
		"float* xn;             // 176", "const float* res;      // 184", "};                         // 192 bytes"} {
		if !strings.Contains(src, want) {
			t.Errorf("trellis.cu no longer declares %q", want)
		}
	}
}

// gemvgUnit transcribes gemvg_unit (trellis.cu): the segment and rows unit u multiplies.
func gemvgUnit(outs []int, tile0 []int, glu bool, u int) (si, r0, r1 int) {
	if glu {
		return 0, u, u
	}
	switch {
	case len(outs) > 2 && u >= tile0[2]:
		si = 2
	case len(outs) > 1 && u >= tile0[1]:
		si = 1
	}
	r0 = 2 * (u - tile0[si])
	return si, r0, r0 + 1
}

// TestGemvgUnits: the units of a trellis_gemvg launch, as launchGemvg numbers them, cover every output row of
// every segment exactly once (odd widths: the clamped second row is not stored), and SwiGLU units pair gate and
// up row by row.
func TestGemvgUnits(t *testing.T) {
	for _, outs := range [][]int{{5120, 1024, 1024}, {17408, 17408}, {7}, {1, 3, 2}, {128, 129}} {
		var tile0 []int
		units := 0
		for _, o := range outs {
			tile0 = append(tile0, units)
			units += (o + 1) / 2
		}
		seen := make([]map[int]int, len(outs))
		for i := range seen {
			seen[i] = map[int]int{}
		}
		for u := range units {
			si, r0, r1 := gemvgUnit(outs, tile0, false, u)
			seen[si][r0]++
			if r1 < outs[si] { // as the kernel: stored only inside the segment
				seen[si][r1]++
			}
		}
		for i, o := range outs {
			for r := range o {
				if seen[i][r] != 1 {
					t.Fatalf("outs %v: segment %d row %d stored %d times", outs, i, r, seen[i][r])
				}
			}
			if len(seen[i]) != o {
				t.Fatalf("outs %v: segment %d: %d rows stored, want %d", outs, i, len(seen[i]), o)
			}
		}
	}
	for u := range 9 {
		if si, r0, r1 := gemvgUnit([]int{9, 9}, []int{0, 5}, true, u); si != 0 || r0 != u || r1 != u {
			t.Fatalf("SwiGLU unit %d: segment %d rows %d, %d", u, si, r0, r1)
		}
	}
}

// TestGemvgRound: the shapes launches of few units take under gemvg_round, at Qwen3-14B on the H200's 132 SMs
// (o: 2,560 units, q/k/v: 3,584, gate/up: 17,408, all at in = 5,120: five runs a lane) and at other inputs.
func TestGemvgRound(t *testing.T) {
	for _, c := range []struct {
		units, in int
		want      string
	}{
		{2560, 5120, "{1 5 20} true"}, {3584, 5120, "{1 3 28} true"}, {17408, 5120, "{0 0 0} false"},
		{2640, 5120, "{1 5 20} true"}, {2641, 5120, "{1 3 28} true"}, {3697, 5120, "{0 0 0} false"},
		{2560, 4096, "{1 3 28} true"}, {2560, 2048, "{0 0 0} false"}, {2560, 8192, "{0 0 0} false"}, {2560, 7168, "{1 5 20} true"},
	} {
		s, ok := gemvgRound(c.units, c.in, 132)
		if got := fmt.Sprint(s, ok); got != c.want {
			t.Errorf("gemvgRound(%d units, in %d) = %s, want %s", c.units, c.in, got, c.want)
		}
	}
}
