// viterbi.cu transcribed into Go and checked against the CPU encoder with no GPU: the kernel's loops (each thread's
// groups and predecessors, its code values from registers or the shared table's lane copy, the steps between
// barriers, the packed backpointer words, the warp-shuffle argmin, thread 0's traceback, the persistent grid over a
// batch and its per-block scratch) with the same float32 operations in the
// same order, run on random Gaussian blocks and on blocks made to tie, must give trellis.CPU's paths bit for bit,
// and trellis.EncodeWith through it trellis.Encode's words and scales. A change to those kernel lines must be
// mirrored here (TestViterbiConstants pins the ones this relies on).

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/trellis"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

// vitBig is VIT_BIG, trellis's bigCost.
const vitBig uint32 = 0x7149f2ca

// vitCodes caches, per L, code1mad.cuh's trellis_value(trellis_y(s)) for every state: the values a thread holds in
// registers (Vit::CBREG).
var vitCodes = struct {
	sync.Mutex
	by map[int][]float32
}{by: map[int][]float32{}}

func vitCodeTable(L int) []float32 {
	vitCodes.Lock()
	defer vitCodes.Unlock()
	if c, ok := vitCodes.by[L]; ok {
		return c
	}
	c := make([]float32, 1<<L)
	for s := range c {
		y := trellisY(uint32(s))
		q := y * trellis.Rcp1MAD
		c[s] = fma32(fma32(-q, trellis.Divisor1MAD, y), trellis.Rcp1MAD, q) // trellis_value
	}
	vitCodes.by[L] = c
	return c
}

// vitTable is VitCodes<false>::init's shared table: word 32·b + l holds trellis_value(y) for the byte sum b (y =
// b − 510, through the bits of 1.5·2^23 as trellis_y), in all 32 lane copies l.
var vitTable = sync.OnceValue(func() []float32 {
	t := make([]float32, 1021*32)
	for i := range t {
		y := math.Float32frombits(0x4B3FFE02+uint32(i>>5)) - 12582912
		q := y * trellis.Rcp1MAD
		t[i] = fma32(fma32(-q, trellis.Divisor1MAD, y), trellis.Rcp1MAD, q)
	}
	return t
})

// dp4aU is dp4a.u32.u32: the four byte products of a and b summed onto c.
func dp4aU(a, b, c uint32) uint32 {
	for i := uint(0); i < 32; i += 8 {
		c += (a >> i & 0xff) * (b >> i & 0xff)
	}
	return c
}

// vitBlock is one thread block's shared memory and scratch (viterbi_search's smem carve-up and bp slice).
type vitBlock struct {
	K, L, T, NT, G, H, RG int
	reg                   bool      // Vit::CBREG: code values in registers, else from tbl
	cb                    []float32 // the register values, by state
	tbl                   []float32 // the shared table
	M                     []uint32
	xs                    []float32
	path                  []uint32
	red                   []uint64
	bp                    []uint32
	best                  [][]uint32 // per thread: best[RG]
}

// at is VitCodes::at for thread tid: the held value, or the table's word at the byte address dp4a gives (the
// table at shared address 0, so lane4 is the lane's byte offset).
func (v *vitBlock) at(tid, s int) float32 {
	if v.reg {
		return v.cb[s]
	}
	a := dp4aU(uint32(s)*34038481+76625530, 0x80808080, uint32(tid&31)*4)
	return v.tbl[a/4]
}

// vitPass is vit_pass, the threads of each phase between two barriers run one after another.
func (v *vitBlock) vitPass(off, overlap, stop int, path []uint32) uint32 {
	K, G, H, RG, NT, T := v.K, v.G, v.H, v.RG, v.NT, v.T
	keep := ^uint32(H-1) | uint32(int32(T)>>31) // vit_keep
	tag := func(c float32, h int) uint32 { return math.Float32bits(c)&keep | uint32(h) }
	// step 0
	xt := v.xs[off]
	for tid := range NT {
		for r := range RG {
			g := tid + r*NT
			b := ^uint32(0)
			for h := range H {
				s := h*G + g
				d := xt - v.at(tid, s)
				c := float32(d * d)
				if overlap >= 0 && s>>K != overlap {
					c = math.Float32frombits(vitBig)
				}
				b = min(b, tag(c, h))
			}
			v.best[tid][r] = b
		}
	}
	for t := 1; ; t++ {
		// vit_store: M, and each thread's word of its groups' predecessor indices
		bpt := v.bp[t*NT:]
		for tid := range NT {
			var word uint32
			for r := range RG {
				v.M[tid+r*NT] = v.best[tid][r]
				word |= (v.best[tid][r] & uint32(H-1)) << uint(r*K)
			}
			bpt[tid] = word
		}
		if t == T-1 {
			break
		}
		p := t + off
		if p >= T {
			p -= T
		}
		xt := v.xs[p]
		for tid := range NT {
			for r := range RG {
				g := tid + r*NT
				b := ^uint32(0)
				for h := range H {
					s := h*G + g
					m := math.Float32frombits(v.M[h*(G>>K)+g>>K])
					d := xt - v.at(tid, s)
					b = min(b, tag(float32(m+float32(d*d)), h))
				}
				v.best[tid][r] = b
			}
		}
	}
	// the last position
	p := T - 1 + off
	if p >= T {
		p -= T
	}
	xt = v.xs[p]
	keys := make([]uint64, NT)
	for tid := range NT {
		key := ^uint64(0)
		for r := range RG {
			g := tid + r*NT
			if overlap >= 0 && g != overlap {
				continue
			}
			for h := range H {
				s := h*G + g
				m := math.Float32frombits(v.M[h*(G>>K)+g>>K])
				d := xt - v.at(tid, s)
				k := uint64(math.Float32bits(float32(m+float32(d*d))))<<32 | uint64(s)
				key = min(key, k)
			}
		}
		keys[tid] = key
	}
	for o := 16; o > 0; o >>= 1 { // __shfl_xor_sync butterflies, all lanes reading before any writes
		next := make([]uint64, NT)
		for tid := range NT {
			next[tid] = min(keys[tid], keys[tid&^31|(tid&31)^o])
		}
		keys = next
	}
	for warp := range NT / 32 {
		v.red[warp] = keys[warp*32]
	}
	key := keys[0]
	for w := 1; w < NT/32; w++ {
		key = min(key, v.red[w])
	}
	st := uint32(key)
	if path != nil {
		path[T-1] = st
	}
	for t := T - 1; t > stop; t-- {
		g := st >> uint(K)
		w := v.bp[t*NT+int(g)&(NT-1)]
		h := w >> (g / uint32(NT) * uint32(K)) & uint32(H-1)
		st = h<<uint(v.L-K) | g
		if path != nil {
			path[t-1] = st
		}
	}
	v.red[0] = uint64(st)
	return uint32(v.red[0])
}

// vitSearch is the kernel launch: grid thread blocks over the batch x (nblocks × T), states out as u16.
func vitSearch(K, L, T int, x []float32, grid int) []uint16 {
	NT := viterbiThreads(K, L)
	G := 1 << (L - K)
	words := viterbiBPWords(K, L, T)
	nblocks := len(x) / T
	states := make([]uint16, len(x))
	bpAll := make([]uint32, grid*words)
	for blk := range grid {
		v := &vitBlock{K: K, L: L, T: T, NT: NT, G: G, H: 1 << K, RG: G / NT, reg: !viterbiCodeTable(K, L),
			cb: vitCodeTable(L), tbl: vitTable(),
			M: make([]uint32, G), xs: make([]float32, T), path: make([]uint32, T), red: make([]uint64, NT/32),
			bp: bpAll[blk*words : (blk+1)*words]}
		v.best = make([][]uint32, NT)
		for i := range v.best {
			v.best[i] = make([]uint32, v.RG)
		}
		half := T / 2
		for j := blk; j < nblocks; j += grid {
			copy(v.xs, x[j*T:(j+1)*T])
			mid := v.vitPass(half, -1, half, nil)
			v.vitPass(0, int(mid>>uint(K)), 0, v.path)
			for i := range T {
				states[j*T+i] = uint16(v.path[i])
			}
		}
	}
	return states
}

// h200 is the device description viterbiGrid sizes grids for in these tests (driver.Info of the H200).
var h200 = driver.Info{SMs: 132, MaxSharedPerBlock: 232448, CCMajor: 9}

// emulSearcher is SearchBlocks with the launch replaced by vitSearch (the host's batching and grid sizing kept),
// ptxas's register counts standing in for the function attribute.
type emulSearcher struct{ regs int }

func (e emulSearcher) SearchBlocks(spec trellis.Spec, x []float32, states []uint32) error {
	if err := trellis.CheckBatch(spec, x, states); err != nil {
		return err
	}
	if err := viterbiSupports(spec, h200.MaxSharedPerBlock); err != nil {
		return err
	}
	T := spec.T
	nb := len(x) / T
	per := max(1, min(nb, viterbiBatch/T))
	grid := viterbiGrid(per, viterbiThreads(spec.K, spec.L), e.regs, viterbiSmem(spec.K, spec.L, T), h200)
	for j0 := 0; j0 < nb; j0 += per {
		n := min(per, nb-j0)
		for i, s := range vitSearch(spec.K, spec.L, T, x[j0*T:(j0+n)*T], min(grid, n)) {
			states[j0*T+i] = uint32(s)
		}
	}
	return nil
}

// tieBlocks are blocks made to tie: zeros, a constant, a constant far outside the code's range (every state
// clips alike), alternating signs, and the code values along a random path (a zero-cost path, and with it many
// equal tagged minima).
func tieBlocks(rng *rand.Rand, spec trellis.Spec) [][]float32 {
	T, L, K := spec.T, spec.L, spec.K
	cb := trellis.Codebook(L)
	var out [][]float32
	for _, c := range []float32{0, 1.25, 40} {
		b := make([]float32, T)
		for i := range b {
			b[i] = c
		}
		out = append(out, b)
	}
	alt := make([]float32, T)
	for i := range alt {
		alt[i] = float32(1 - 2*(i&1))
	}
	path := make([]float32, T)
	s := rng.Uint32N(1 << L)
	for i := range path {
		s = (s<<uint(K) | rng.Uint32N(1<<K)) & (1<<L - 1)
		path[i] = cb[s]
	}
	return append(out, alt, path)
}

// TestViterbiTranscription: the transcription's paths are trellis.CPU's on Gaussian and tying blocks, k 2/3/4 at
// L 12 (a batch spread over fewer thread blocks than blocks, so each loops; T 256 and 128) and L 16 (two blocks),
// at L 14, T 64 (a form whose code values stay in registers with 1024 threads) and k 2, L 15, T 64 (the code
// table with the steps' loop unrolled by 2); and
// EncodeWith through it gives Encode's words and scales at L 12.
func TestViterbiTranscription(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 16))
	for _, c := range []struct{ K, L, T, gauss, grid int }{
		{2, 12, 256, 6, 3}, {3, 12, 256, 6, 3}, {4, 12, 256, 6, 3}, {2, 12, 128, 4, 2}, {4, 14, 64, 3, 1},
		{2, 16, 256, 1, 2}, {3, 16, 256, 1, 2}, {4, 16, 256, 1, 2}, {2, 15, 64, 1, 1},
	} {
		t.Run(fmt.Sprintf("k%d_L%d_T%d", c.K, c.L, c.T), func(t *testing.T) {
			spec := trellis.Spec{K: c.K, L: c.L, T: c.T, Code: "1mad", Axis: 1}
			var x []float32
			for range c.gauss * c.T {
				x = append(x, float32(rng.NormFloat64()))
			}
			if c.L == 12 {
				for _, b := range tieBlocks(rng, spec) {
					x = append(x, b...)
				}
			} else {
				x = append(x, tieBlocks(rng, spec)[4]...)
			}
			want := make([]uint32, len(x))
			if err := trellis.CPU.SearchBlocks(spec, x, want); err != nil {
				t.Fatal(err)
			}
			got := vitSearch(c.K, c.L, c.T, x, c.grid)
			for i := range want {
				if uint32(got[i]) != want[i] {
					t.Fatalf("block %d position %d: state %#x, the CPU's %#x", i/c.T, i%c.T, got[i], want[i])
				}
			}
		})
	}
	t.Run("encode", func(t *testing.T) {
		spec := trellis.Spec{K: 3, L: 12, T: 256, Code: "1mad", Axis: 1}
		rows, cols := 5, 512
		w := make([]float32, rows*cols)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 0.02)
		}
		clear(w[2*cols : 3*cols]) // an all-zero row
		want, err := trellis.Encode(w, rows, cols, spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := trellis.EncodeWith(w, rows, cols, spec, emulSearcher{regs: 64})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Words, want.Words) || !slices.Equal(got.Scales, want.Scales) {
			t.Error("EncodeWith through the transcription differs from Encode")
		}
	})
}

// TestViterbiHost: the instantiations cover what viterbiSupports accepts with viterbiThreads' thread counts, the
// thread counts fit the kernel's static asserts, and the shared memory and grids are what the contract says on
// the H200.
func TestViterbiHost(t *testing.T) {
	lines := viterbiInstantiations()
	for K := 1; K <= 8; K++ {
		for L := K; L <= 16; L++ {
			spec := trellis.Spec{K: K, L: L, T: 256, Code: "1mad", Axis: 1}
			err := viterbiSupports(spec, h200.MaxSharedPerBlock)
			nt := viterbiThreads(K, L)
			line := fmt.Sprintf("VITERBI(%s, %d, %d, %d)", viterbiName(K, L), K, L, nt)
			if has := slices.Contains(lines, line); has != (err == nil) {
				t.Errorf("k %d L %d: instantiated %v, supported: %v", K, L, has, err)
			}
			if err == nil && (nt%32 != 0 || (1<<(L-K))%nt != 0 || L < 2*K || nt > 1024) {
				t.Errorf("k %d L %d: %d threads break viterbi.cu's static asserts", K, L, nt)
			}
		}
	}
	if err := viterbiSupports(trellis.Spec{K: 2, L: 16, T: 1 << 15, Code: "1mad"}, h200.MaxSharedPerBlock); err == nil {
		t.Error("T 32768 at L 16 should not fit the shared memory")
	}
	for K := 2; K <= 4; K++ {
		for L := 12; L <= 16; L++ {
			if got, want := viterbiCodeTable(K, L), L >= 15; got != want {
				t.Errorf("k %d L %d: code table %v, want %v (more than 16 states a thread from L 15)", K, L, got, want)
			}
			if err := viterbiSupports(trellis.Spec{K: K, L: L, T: 4096, Code: "1mad"}, h200.MaxSharedPerBlock); err != nil {
				t.Errorf("k %d L %d: T 4096 should fit the H200's shared memory: %v", K, L, err)
			}
		}
	}
	// What the backend answers the quantizer (trellis.SpecSearcher), and so what quantize's --L auto picks on an
	// H200: L 16 for the widths the kernels serve, L 12 when a width would be handed back to the CPU.
	b := &Backend{info: h200}
	for K := 1; K <= 8; K++ {
		spec := trellis.Spec{K: K, L: 16, T: 256, Code: "1mad", Axis: 1}
		if got, want := b.SupportsSearch(spec), viterbiSupports(spec, h200.MaxSharedPerBlock); (got == nil) != (want == nil) {
			t.Errorf("k %d L 16: SupportsSearch %v, viterbiSupports %v", K, got, want)
		}
		L, why := quantize.ResolveL(quantize.Options{Bits: K, Searcher: b})
		if want := map[bool]int{true: quantize.DeviceL, false: quantize.DefaultL}[K >= 2 && K <= 4]; L != want {
			t.Errorf("--bits %d on cuda: --L auto chose %d (%s), want %d", K, L, why, want)
		}
	}
	for _, c := range []struct{ K, L, regs, smem, grid int }{
		// L 12: 256 threads; 64 registers allow 4 blocks a multiprocessor
		{2, 12, 64, 8*8 + 4*1024 + 8*256, 4 * 132},
		{4, 12, 64, 8*8 + 4*256 + 8*256, 4 * 132},
		// L 16: 1024 threads, the code table (1021 × 32 f32) besides the minima: one block a multiprocessor
		{2, 16, 64, 1021*32*4 + 8*32 + 4*16384 + 8*256, 132},
		{3, 16, 64, 1021*32*4 + 8*32 + 4*8192 + 8*256, 132},
		{4, 16, 32, 1021*32*4 + 8*32 + 4*4096 + 8*256, 132},
	} {
		if s := viterbiSmem(c.K, c.L, 256); s != c.smem {
			t.Errorf("k %d L %d: %d bytes of shared memory, want %d", c.K, c.L, s, c.smem)
		}
		if g := viterbiGrid(1<<20, viterbiThreads(c.K, c.L), c.regs, c.smem, h200); g != c.grid {
			t.Errorf("k %d L %d: grid %d, want %d", c.K, c.L, g, c.grid)
		}
	}
	if g := viterbiGrid(5, 256, 64, 10000, h200); g != 5 {
		t.Errorf("a batch of 5 blocks got a grid of %d", g)
	}
}

// TestViterbiConstants pins the kernel lines the transcription mirrors.
func TestViterbiConstants(t *testing.T) {
	if math.Float32bits(1e30) != vitBig {
		t.Fatalf("1e30f is %#x, VIT_BIG %#x", math.Float32bits(1e30), vitBig)
	}
	src := cudashaders.Sources["viterbi.cu"]
	for _, line := range []string{
		fmt.Sprintf("#define VIT_BIG %#xu", vitBig),
		"return (__float_as_uint(c) & keep) | (unsigned)h;",
		"return Vit<K, L, NT>::KEEP | (unsigned)(T >> 31);",
		"const float d = __fsub_rn(xt, cb.at(r, h, s));",
		"float c = __fmul_rn(d, d);",
		"if (overlap >= 0 && (int)(s >> K) != overlap) c = __uint_as_float(VIT_BIG);",
		"const float m = __uint_as_float(M[h * (V::G >> K) + (g >> K)]); // M[s >> K]",
		"const unsigned v = vit_tag(__fadd_rn(m, __fmul_rn(d, d)), h, keep);",
		"const unsigned v = vit_tag(c, h, keep);",
		"if (overlap >= 0 && g != (unsigned)overlap) continue;",
		"const unsigned long long k = (unsigned long long)__float_as_uint(__fadd_rn(m, __fmul_rn(d, d))) << 32 | s;",
		"M[tid + r * NT] = best[r];",
		"word |= (best[r] & (unsigned)(Vit<K, L, NT>::H - 1)) << (r * K);",
		"bpt[tid] = word;",
		"vit_store<K, L, NT>(best, M, bp + (size_t)t * NT, tid);",
		"const unsigned w = bp[(size_t)t * NT + (g & (NT - 1))]; // group g's word: thread g mod NT's",
		"const unsigned h = (w >> (g / NT * K)) & (unsigned)(V::H - 1);",
		"st = h << (L - K) | g;",
		"const unsigned mid = vit_pass<K, L, NT>(cb, xs, T, half, -1, half, M, bp, red, nullptr);",
		"vit_pass<K, L, NT>(cb, xs, T, 0, (int)(mid >> K), 0, M, bp, red, path);",
		"v[r][h] = trellis_value(trellis_y(h * Vit<K, L, NT>::G + tid + r * NT));",
		"static constexpr bool CBREG = (1 << L) / NT <= 16;",
		"#define VIT_CODES 1021",
		"for (unsigned i = tid; i < VIT_CODES * 32; i += NT) t[i] = trellis_value(__uint_as_float(0x4B3FFE02u + (i >> 5)) - 12582912.0f);",
		"lane4 = (unsigned)__cvta_generic_to_shared(t) + (tid & 31) * 4;",
		`asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(a) : "r"(s * 34038481u + 76625530u), "r"(0x80808080u), "r"(lane4));`,
		`asm("ld.shared.f32 %0, [%1];" : "=f"(c) : "r"(a));`,
		"float* tbl = (float*)vit_smem; ",
		"unsigned* bp = bpAll + (size_t)blockIdx.x * T * NT;",
	} {
		if !strings.Contains(src, line) {
			t.Errorf("viterbi.cu no longer holds %q", line)
		}
	}
}
