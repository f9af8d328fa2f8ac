// The launch folds behind tuning keys, held on the GPU (MLXBUN_CUDA=1) to what they promise against the launches
// they replace on the same device: rmsnorm_rope_qk (norm_rope_qk) bit-identical to two rmsnorm_rope launches, and
// attn_split_store (attn_store) bit-identical to kv_store then attn_split — outputs step after step and the cache
// slots the steps stored — each with one launch fewer. verify's Fused/NormRopeQK and Attention cases hold both
// forms to the CPU reference (TestConformance with MLXBUN_CUDA_TUNE=norm_rope_qk=1,attn_store=1).
package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// withTune runs fn with g's tuning changed by set, then restores it (the fields are read per call).
func withTune(g *Backend, set func(*tuning), fn func()) {
	saved := g.tune
	set(&g.tune)
	defer func() { g.tune = saved }()
	fn()
}

// launched is the count of single launches fn queues, run to completion.
func launched(t *testing.T, g *Backend, fn func()) int64 {
	t.Helper()
	if err := g.Sync(); err != nil {
		t.Fatal(err)
	}
	before := g.Stats().Launches
	fn()
	if err := g.Sync(); err != nil {
		t.Fatal(err)
	}
	return g.Stats().Launches - before
}

func gaussian(rng *rand.Rand, n int, std float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * std)
	}
	return v
}

// alloc is a device tensor freed when the test ends.
func alloc(t *testing.T, g *Backend, dt backend.DType, shape ...int) backend.Tensor {
	t.Helper()
	x, err := g.Alloc(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Free(x) })
	return x
}

// uploadAs makes a device tensor of dtype dt [rows, cols] holding v (rounded to bf16 for BF16).
func uploadAs(t *testing.T, g *Backend, dt backend.DType, v []float32, rows, cols int) backend.Tensor {
	t.Helper()
	x := alloc(t, g, dt, rows, cols)
	if err := g.WriteFloat32(x, v); err != nil {
		t.Fatal(err)
	}
	return x
}

func readAll(t *testing.T, g *Backend, x backend.Tensor) []float32 {
	t.Helper()
	v := make([]float32, tensorOf("read", x).elems())
	if err := g.ReadFloat32(x, v); err != nil {
		t.Fatal(err)
	}
	return v
}

// sameBits is the count of positions where a and b differ in their bits (NaNs included).
func sameBits(a, b []float32) int {
	bad := 0
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			bad++
		}
	}
	return bad
}

// TestNormRopeQKBitIdentical: NormRopeQK with norm_rope_qk on is one rmsnorm_rope_qk launch whose q and k equal
// bit for bit what two rmsnorm_rope launches (the key off) leave, at Qwen3-14B (40/8 × 128) and fixture shapes, 1
// and 8 rows, partial rotary (16 of 64 dims), traditional pairs, a block holding heads of q and k (6/3 heads, 3
// rows), f32 and bf16.
func TestNormRopeQKBitIdentical(t *testing.T) {
	g, _ := bk(t)
	type shape struct {
		tag                 string
		n, qh, kh, hd, dims int
		traditional         bool
	}
	shapes := []shape{
		{"qwen3-14b", 1, 40, 8, 128, 128, false}, {"qwen3-14b", 8, 40, 8, 128, 128, false},
		{"fixture tiny-qwen3", 1, 4, 2, 64, 64, false}, {"fixture tiny-qwen3", 8, 4, 2, 64, 64, false},
		{"fixture tiny-qwen3_5 partial", 8, 4, 2, 64, 16, false}, {"odd straddling", 3, 6, 3, 64, 64, true},
		{"wide hd 256", 2, 4, 2, 256, 256, false},
	}
	rng := rand.New(rand.NewPCG(17, 1))
	for _, s := range shapes {
		for _, dt := range []backend.DType{backend.F32, backend.BF16} {
			t.Run(fmt.Sprintf("%s n=%d %d/%d×%d dims %d %s", s.tag, s.n, s.qh, s.kh, s.hd, s.dims, dt), func(t *testing.T) {
				tab, err := rope.New(s.dims, 1e6, s.traditional, nil, 4096)
				if err != nil {
					t.Fatal(err)
				}
				qv, kv := gaussian(rng, s.n*s.qh*s.hd, 2), gaussian(rng, s.n*s.kh*s.hd, 2)
				wq := uploadAs(t, g, backend.F32, gaussian(rng, s.hd, 0.3), 1, s.hd)
				wk := uploadAs(t, g, backend.F32, gaussian(rng, s.hd, 0.3), 1, s.hd)
				pv := make([]int32, s.n)
				for i := range pv {
					pv[i] = int32(100 + 7*i)
				}
				pos := alloc(t, g, backend.I32, s.n)
				if err := g.WriteInt32(pos, pv); err != nil {
					t.Fatal(err)
				}
				run := func(on bool) ([]float32, []float32, int64) {
					q, k := uploadAs(t, g, dt, qv, s.n, s.qh*s.hd), uploadAs(t, g, dt, kv, s.n, s.kh*s.hd)
					var l int64
					withTune(g, func(tu *tuning) { tu.normRopeQK = on }, func() {
						l = launched(t, g, func() {
							g.NormRopeQK(q, k, pos, wq, wk, s.qh, s.kh, 1e-6, tab)
						})
					})
					return readAll(t, g, q), readAll(t, g, k), l
				}
				q0, k0, l0 := run(false)
				q1, k1, l1 := run(true)
				if l0 != 2 || l1 != 1 {
					t.Errorf("MISMATCH launches: %d plain, %d fused; want 2 and 1", l0, l1)
				}
				if bq, bk := sameBits(q0, q1), sameBits(k0, k1); bq+bk > 0 {
					t.Errorf("MISMATCH rmsnorm_rope_qk differs from two rmsnorm_rope launches at %d of %d q and %d of %d k values", bq, len(q0), bk, len(k0))
				}
			})
		}
	}
}

// foldStep is one attention call of the fold tests: row r at position pos[r] of sequence seq[r].
type foldStep struct{ seq, pos []int32 }

// foldMaxLen is the fold tests' cache length.
const foldMaxLen = 160

// foldSteps: prompts of three sequences, then single rows in a row (a later step reads what the folded store of an
// earlier one wrote), 8 rows of one sequence (rows read positions other rows of the launch store), rows of three
// sequences, two rows per sequence interleaved, a row outside the cache.
func foldSteps() []foldStep {
	prompt := func(seq int32, n int) foldStep {
		var s foldStep
		for i := 0; i < n; i++ {
			s.seq, s.pos = append(s.seq, seq), append(s.pos, int32(i))
		}
		return s
	}
	return []foldStep{prompt(0, 40), prompt(1, 9), prompt(2, 63),
		{[]int32{0}, []int32{40}}, {[]int32{0}, []int32{41}}, {[]int32{0}, []int32{42}},
		{[]int32{0, 0, 0, 0, 0, 0, 0, 0}, []int32{43, 44, 45, 46, 47, 48, 49, 50}},
		{[]int32{0}, []int32{51}},
		{[]int32{0, 1, 2}, []int32{52, 9, 63}},
		{[]int32{1, 2, 1, 2}, []int32{10, 64, 11, 65}},
		{[]int32{2, 0}, []int32{66, 53}},
		{[]int32{1, 0}, []int32{foldMaxLen, 54}}, // a row outside the cache: zeros, nothing stored
		{[]int32{0, 1, 2}, []int32{55, 12, 67}},
	}
}

// foldCall is one side of a fold test's step: the plain sequence (folded false) or the fold, on layer 1 of c.
type foldCall func(folded bool, out, q, k, v, seq, pos backend.Tensor, c *kvCache)

// compareFolds runs foldSteps on two caches (3 sequences, 2 layers, kvh × hd) with fresh q (heads × hd), k and v
// (gaussians of sd qkSD, qkSD and 1) each step, through call unfolded on one cache and folded on the other: every
// step's output bit for bit, the launches of a decode step (plain and folded), then every slot of layer 1 the
// steps stored. what names the plain sequence in the messages.
func compareFolds(t *testing.T, g *Backend, rng *rand.Rand, heads, kvh, hd int, qkSD float64, plain, folded int64, what string, call foldCall) {
	t.Helper()
	cfg := backend.KVConfig{Layers: 2, Seqs: 3, MaxLen: foldMaxLen, KVHeads: kvh, HeadDim: hd}
	var caches [2]*kvCache
	for i := range caches {
		c, err := g.NewKVCache(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		caches[i] = c.(*kvCache)
	}
	width := kvh * hd
	stored := map[[2]int32]bool{}
	for si, st := range foldSteps() {
		n := len(st.pos)
		qv, kv, vv := gaussian(rng, n*heads*hd, qkSD), gaussian(rng, n*width, qkSD), gaussian(rng, n*width, 1)
		var outs [2][]float32
		var ls [2]int64
		for side := range 2 {
			q := uploadAs(t, g, backend.F32, qv, n, heads*hd)
			k, v := uploadAs(t, g, backend.F32, kv, n, width), uploadAs(t, g, backend.F32, vv, n, width)
			out := alloc(t, g, backend.F32, n, heads*hd)
			seq, pos := alloc(t, g, backend.I32, n), alloc(t, g, backend.I32, n)
			if err := firstErr(g.WriteInt32(seq, st.seq), g.WriteInt32(pos, st.pos)); err != nil {
				t.Fatal(err)
			}
			ls[side] = launched(t, g, func() { call(side == 1, out, q, k, v, seq, pos, caches[side]) })
			outs[side] = readAll(t, g, out)
		}
		if n <= backend.MaxDecodeRows && (ls[0] != plain || ls[1] != folded) {
			t.Errorf("MISMATCH step %d (%d rows): %d launches with %s, %d folded; want %d and %d", si, n, ls[0], what, ls[1], plain, folded)
		}
		if bad := sameBits(outs[0], outs[1]); bad > 0 {
			t.Errorf("MISMATCH step %d (%d rows at %v of %v): %d of %d outputs differ from %s", si, n, st.pos, st.seq, bad, len(outs[0]), what)
		}
		for r := range st.pos {
			if st.pos[r] >= 0 && st.pos[r] < foldMaxLen {
				stored[[2]int32{st.seq[r], st.pos[r]}] = true
			}
		}
	}
	total := cfg.Layers * cfg.Seqs * foldMaxLen * width
	var kvs [2][2][]float32
	for side, c := range caches {
		for j, p := range []driver.DevPtr{c.k, c.v} {
			kvs[side][j] = readAll(t, g, &Tensor{ptr: p, shape: []int{total}, dt: backend.F32, kind: kindView})
		}
	}
	bad := 0
	for slot := range stored {
		off := ((1*cfg.Seqs+int(slot[0]))*foldMaxLen + int(slot[1])) * width
		for j := range 2 {
			bad += sameBits(kvs[0][j][off:off+width], kvs[1][j][off:off+width])
		}
	}
	if bad > 0 {
		t.Errorf("MISMATCH the fold left %d cache values of %d slots unlike %s", bad, len(stored), what)
	}
}

// TestAttnStoreBitIdentical: decode steps with attn_store on (attn_split_store, two launches a call) against the
// same steps with it off (kv_store, attn_split, attn_combine), each side on its own cache, over foldSteps (from
// prompts stored by both): every step's output bit for bit, then every slot the steps stored; at Qwen3-14B
// (40/8 × 128), fixture (4/2 × 64), odd (hd 80) and wide (hd 256) heads, on layer 1 of 2.
func TestAttnStoreBitIdentical(t *testing.T) {
	g, _ := bk(t)
	rng := rand.New(rand.NewPCG(17, 2))
	for _, s := range []struct {
		tag            string
		heads, kvh, hd int
	}{{"qwen3-14b", 40, 8, 128}, {"fixture", 4, 2, 64}, {"odd hd 80", 4, 2, 80}, {"wide hd 256", 4, 2, 256}} {
		t.Run(fmt.Sprintf("%s %d/%d×%d", s.tag, s.heads, s.kvh, s.hd), func(t *testing.T) {
			scale := float32(1 / math.Sqrt(float64(s.hd)))
			compareFolds(t, g, rng, s.heads, s.kvh, s.hd, 1, 3, 2, "kv_store + attn_split",
				func(folded bool, out, q, k, v, seq, pos backend.Tensor, c *kvCache) {
					withTune(g, func(tu *tuning) { tu.attnStore = folded }, func() {
						g.Attention(out, q, k, v, c, 1, seq, pos, scale)
					})
				})
		})
	}
}

// TestNormRopeAttentionBitIdentical: NormRopeAttention with norm_rope_attn on (attn_split_norm and the combine, two
// launches a decode step) against it off (rmsnorm_rope_qk, then attn_split_store and the combine), each side on
// its own cache, over foldSteps (prompts take the plain sequence on both sides): every step's output bit for bit,
// then every slot the steps stored (the normalized keys). Qwen3-14B (40/8 × 128), the fixture's heads (4/2 × 64,
// traditional rope), Qwen3.5's partial rotary at 256 and an odd head dim.
func TestNormRopeAttentionBitIdentical(t *testing.T) {
	g, _ := bk(t)
	rng := rand.New(rand.NewPCG(17, 3))
	for _, s := range []struct {
		tag                  string
		heads, kvh, hd, dims int
		traditional          bool
	}{{"qwen3-14b", 40, 8, 128, 128, false}, {"fixture traditional", 4, 2, 64, 64, true},
		{"qwen3.5 partial rotary", 8, 2, 256, 64, false}, {"odd hd 80", 4, 2, 80, 80, false}} {
		t.Run(fmt.Sprintf("%s %d/%d×%d rope %d", s.tag, s.heads, s.kvh, s.hd, s.dims), func(t *testing.T) {
			tab, err := rope.New(s.dims, 1e6, s.traditional, nil, 4096)
			if err != nil {
				t.Fatal(err)
			}
			wq := uploadAs(t, g, backend.F32, gaussian(rng, s.hd, 0.3), 1, s.hd)
			wk := uploadAs(t, g, backend.F32, gaussian(rng, s.hd, 0.3), 1, s.hd)
			scale := float32(1 / math.Sqrt(float64(s.hd)))
			compareFolds(t, g, rng, s.heads, s.kvh, s.hd, 2, 3, 2, "rmsnorm_rope_qk + attn_split_store",
				func(folded bool, out, q, k, v, seq, pos backend.Tensor, c *kvCache) {
					withTune(g, func(tu *tuning) { tu.normRopeAttn, tu.attnStore, tu.normRopeQK = folded, true, true }, func() {
						g.NormRopeAttention(out, q, k, v, c, 1, seq, pos, wq, wk, s.heads, s.kvh, 1e-6, tab, scale)
					})
				})
		})
	}
}

// TestDeltaRuleNormGatedBitIdentical: DeltaRuleNormGated (gated_delta_norm, one launch) against GatedDeltaRule then
// RMSNormGated (gated_delta_prep, gated_delta, rmsnorm_gated) on the same device, each side on its own state: every
// step's output bit for bit, over decode rows in a row (a later step reads the state an earlier one wrote), short
// runs of one sequence, rows of two sequences interleaved and a restart at position 0, at Qwen3.5-27B's geometry
// (16/48 heads × 128) and the fixture's (2/4 × 32) and a padded key dim (48 of 64), f32 and bf16; a chunked prompt
// run (≥ 64 rows) takes the three launches on both sides. Both forms of the one launch: a head in a cluster of
// four blocks (gated_delta_norm_cl, sm_90+, key dims from deltaNormClusterKD: the 27B and padded geometries) and
// in one block.
func TestDeltaRuleNormGatedBitIdentical(t *testing.T) {
	g, _ := bk(t)
	forms := []bool{false}
	if g.info.CCMajor >= 9 {
		forms = append(forms, true)
	}
	defer func(v bool) { g.tune.deltaNormCluster = v }(g.tune.deltaNormCluster)
	type step struct{ seq, pos []int32 }
	runOf := func(seq int32, from, n int) step {
		var s step
		for i := 0; i < n; i++ {
			s.seq, s.pos = append(s.seq, seq), append(s.pos, int32(from+i))
		}
		return s
	}
	steps := []step{runOf(0, 0, 5), runOf(0, 5, 1), runOf(0, 6, 1), runOf(1, 0, 70), {[]int32{0, 1}, []int32{7, 70}},
		{[]int32{1, 0, 1, 0}, []int32{71, 8, 72, 9}}, runOf(0, 10, 1), runOf(1, 0, 3), runOf(1, 3, 1)}
	rng := rand.New(rand.NewPCG(17, 3))
	for _, s := range []struct {
		tag            string
		kh, vh, dk, dv int
	}{{"qwen3.5-27b", 16, 48, 128, 128}, {"fixture tiny-qwen3_5", 2, 4, 32, 32}, {"padded key dim", 1, 3, 48, 96}} {
		for _, dt := range []backend.DType{backend.F32, backend.BF16} {
			for _, cl := range forms {
				t.Run(fmt.Sprintf("%s %d/%d×%d/%d %s cluster=%v", s.tag, s.kh, s.vh, s.dk, s.dv, dt, cl), func(t *testing.T) {
					g.tune.deltaNormCluster = cl
					cfg := backend.RecurrentConfig{Layers: 2, Seqs: 2, ConvDim: 2*s.kh*s.dk + s.vh*s.dv, ConvKernel: 4,
						KeyHeads: s.kh, ValueHeads: s.vh, KeyDim: s.dk, ValueDim: s.dv}
					var sts [2]backend.RecurrentState
					for i := range sts {
						st, err := g.NewRecurrentState(cfg)
						if err != nil {
							t.Fatal(err)
						}
						defer st.Release()
						sts[i] = st
					}
					C, vw := cfg.ConvDim, s.vh*s.dv
					aLog := uploadAs(t, g, backend.F32, gaussian(rng, s.vh, 0.5), 1, s.vh)
					dtBias := uploadAs(t, g, backend.F32, gaussian(rng, s.vh, 0.5), 1, s.vh)
					nw := uploadAs(t, g, backend.F32, gaussian(rng, s.dv, 1), 1, s.dv)
					for si, st := range steps {
						n := len(st.pos)
						seq, pos := alloc(t, g, backend.I32, n), alloc(t, g, backend.I32, n)
						if err := g.WriteInt32(seq, st.seq); err != nil {
							t.Fatal(err)
						}
						if err := g.WriteInt32(pos, st.pos); err != nil {
							t.Fatal(err)
						}
						x := uploadAs(t, g, dt, gaussian(rng, n*C, 1), n, C)
						a := uploadAs(t, g, dt, gaussian(rng, n*s.vh, 1.5), n, s.vh)
						b := uploadAs(t, g, dt, gaussian(rng, n*s.vh, 1.5), n, s.vh)
						z := uploadAs(t, g, dt, gaussian(rng, n*vw, 2), n, vw)
						var outs [2][]float32
						var ls [2]int64
						for side := range outs {
							out := alloc(t, g, dt, n, vw)
							ls[side] = launched(t, g, func() {
								if side == 0 {
									g.GatedDeltaRule(out, x, a, b, aLog, dtBias, sts[side], 1, seq, pos)
									g.RMSNormGated(out, out, z, nw, 1e-6)
									return
								}
								g.DeltaRuleNormGated(out, x, z, a, b, aLog, dtBias, nw, 1e-6, sts[side], 1, seq, pos)
							})
							outs[side] = readAll(t, g, out)
						}
						want := int64(1)
						if n >= g.tune.deltaChunkRows && oneRunHost(st.seq, st.pos) {
							want = 3
						}
						if ls[0] != 3 || ls[1] != want {
							t.Errorf("MISMATCH step %d: %d launches plain, %d fused; want 3 and %d", si, ls[0], ls[1], want)
						}
						if bad := sameBits(outs[0], outs[1]); bad > 0 {
							t.Fatalf("MISMATCH step %d (%d rows): gated_delta_norm differs from the three launches at %d of %d values",
								si, n, bad, len(outs[0]))
						}
					}
				})
			}
		}
	}
}

// oneRunHost reports whether rows are one sequence at consecutive positions (what the host's oneRun checks).
func oneRunHost(seq, pos []int32) bool {
	for r := range seq {
		if seq[r] != seq[0] || pos[r] != pos[0]+int32(r) {
			return false
		}
	}
	return len(seq) > 0
}
