// The element-wise, norm, rope, attention, argmax and bitmask kernels against the CPU backend (internal/cpu),
// rope.Table.Apply and package sample, at the tiny-qwen3 fixture's shapes (hidden 256, heads 4/2 of 64, vocab
// 2048) and Qwen3-14B slices (hidden 5120, heads 40/8 of 128, vocab 151936).
package emu

import (
	"math"
	"math/rand/v2"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/metal"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/sample"
)

// cpuTensor makes an F32 CPU tensor holding v.
func cpuTensor(t T, b *cpu.Backend, v []float32, shape ...int) backend.Tensor {
	t.Helper()
	x, err := b.Alloc(backend.F32, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteFloat32(x, v); err != nil {
		t.Fatal(err)
	}
	return x
}

func cpuInts(t T, b *cpu.Backend, v []int32) backend.Tensor {
	t.Helper()
	x, err := b.Alloc(backend.I32, len(v))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteInt32(x, v); err != nil {
		t.Fatal(err)
	}
	return x
}

func testEmbed(t T, h *Harness) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ vocab, d int }{{2048, 256}, {4096, 5120}} {
		table := make([]uint16, c.vocab*c.d)
		for i := range table {
			table[i] = dtype.F32ToBF16(float32(r.NormFloat64()))
		}
		ids := []int32{3, 0, int32(c.vocab - 1), -1, int32(c.vocab), 17}
		p := metal.PlanEmbed(len(ids), c.d, c.vocab)
		b := bufs{metal.RoleDst: nanBytes(len(ids) * c.d), metal.RoleTable: u16b(table), metal.RoleIDs: i32b(ids)}
		mustRun(t, h, p, b)
		want := make([]float32, len(ids)*c.d)
		for i, id := range ids {
			if id < 0 || int(id) >= c.vocab {
				continue // the kernel writes zeros for an id outside the vocabulary (the CPU refuses it)
			}
			for j := range c.d {
				want[i*c.d+j] = dtype.BF16ToF32(table[int(id)*c.d+j])
			}
		}
		check(t, "embed", p, bf32(b[metal.RoleDst]), want, 0)
	}
}

func testRMSNorm(t T, h *Harness) {
	r := rand.New(rand.NewPCG(3, 4))
	c := cpu.New()
	for _, k := range []struct{ groups, g int }{{3 * 4, 64}, {2 * 40, 128}, {3, 256}, {2, 5120}} {
		x := randn(r, k.groups*k.g, 2)
		w := randn(r, k.g, 1)
		eps := float32(1e-6)
		p := metal.PlanRMSNorm(k.groups, k.g, eps)
		b := bufs{metal.RoleDst: nanBytes(len(x)), metal.RoleX: f32b(x), metal.RoleNormW: f32b(w)}
		mustRun(t, h, p, b)
		want := cpuTensor(t, c, make([]float32, len(x)), len(x))
		c.RMSNorm(want, cpuTensor(t, c, x, len(x)), cpuTensor(t, c, w, k.g), eps)
		check(t, p.Form, p, bf32(b[metal.RoleDst]), want.(*cpu.Tensor).Float32s(), 1e-5)
	}
	// add + norm: the sum bit-exact, the norm of it as RMSNorm's.
	for _, k := range []struct{ rows, g int }{{3, 256}, {2, 5120}} {
		a, bb := randn(r, k.rows*k.g, 1), randn(r, k.rows*k.g, 1)
		w := randn(r, k.g, 1)
		p := metal.PlanAddRMSNorm(k.rows, k.g, 1e-6)
		b := bufs{metal.RoleSum: nanBytes(len(a)), metal.RoleDst: nanBytes(len(a)), metal.RoleA: f32b(a), metal.RoleB: f32b(bb), metal.RoleNormW: f32b(w)}
		mustRun(t, h, p, b)
		sum := make([]float32, len(a))
		for i := range a {
			sum[i] = a[i] + bb[i]
		}
		if i := sameBits(bf32(b[metal.RoleSum]), sum); i >= 0 {
			t.Fatalf("add_rmsnorm: sum[%d] differs from a + b", i)
		}
		want := cpuTensor(t, c, make([]float32, len(a)), len(a))
		c.RMSNorm(want, cpuTensor(t, c, sum, len(a)), cpuTensor(t, c, w, k.g), 1e-6)
		check(t, "add_rmsnorm", p, bf32(b[metal.RoleDst]), want.(*cpu.Tensor).Float32s(), 1e-5)
	}
}

// ropeScalings holds one rope_scaling per rope_type internal/rope knows (testRope fails when a type is missing).
var ropeScalings = map[string]map[string]any{
	"default":        nil,
	"linear":         {"rope_type": "linear", "factor": 4.0},
	"llama3":         {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192.0},
	"yarn":           {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096.0},
	"deepseek_yarn":  {"rope_type": "deepseek_yarn", "factor": 40.0, "original_max_position_embeddings": 4096.0, "mscale": 0.707, "mscale_all_dim": 0.5},
	"telechat3-yarn": {"rope_type": "telechat3-yarn", "factor": 2.0, "original_max_position_embeddings": 4096.0},
	"longrope":       {"rope_type": "longrope", "original_max_position_embeddings": 4096.0, "short_factor": 1.0, "long_factor": 4.0},
	"su":             {"type": "su", "original_max_position_embeddings": 4096.0, "short_factor": 1.0, "long_factor": 2.5},
	"proportional":   {"rope_type": "proportional", "partial_rotary_factor": 0.5, "factor": 2.0},
	"mrope":          {"rope_type": "mrope", "mrope_section": []any{16.0, 8.0, 8.0}},
}

func testRope(t T, h *Harness) {
	r := rand.New(rand.NewPCG(5, 6))
	type ropeCase struct {
		name         string
		n, heads, hd int
		dims         int
		theta        float64
		traditional  bool
		scaling      map[string]any
	}
	cases := []ropeCase{
		{"fixture default", 3, 4, 64, 64, 1e6, false, nil},
		{"traditional partial", 2, 2, 64, 32, 1e4, true, nil},
		{"14B", 2, 40, 128, 128, 1e6, false, nil},
	}
	for _, typ := range rope.KnownTypes() {
		sc, ok := ropeScalings[typ]
		if !ok {
			t.Fatalf("rope type %s has no case here", typ)
		}
		cases = append(cases, ropeCase{typ, 3, 4, 64, 64, 1e4, typ == "llama3", sc})
	}
	prescaled := 0
	for _, c := range cases {
		tab, err := rope.New(c.dims, c.theta, c.traditional, c.scaling, 131072)
		if err != nil {
			t.Fatalf("rope %s: %v", c.name, err)
		}
		if tab.PreScale != 1 {
			prescaled++
		}
		x := randn(r, c.n*c.heads*c.hd, 1)
		pos := make([]int32, c.n)
		for i := range pos {
			pos[i] = int32(r.IntN(30000))
		}
		p := must(metal.PlanRope(c.n, c.heads, c.hd, tab))(t)
		b := bufs{metal.RoleX: f32b(x), metal.RoleCosSin: f32b(metal.RopeCosSin(tab, pos))}
		mustRun(t, h, p, b)
		want := append([]float32(nil), x...)
		for i := range c.n {
			for hh := range c.heads {
				tab.Apply(want[(i*c.heads+hh)*c.hd:(i*c.heads+hh+1)*c.hd], int(pos[i]))
			}
		}
		check(t, "rope "+c.name, p, bf32(b[metal.RoleX]), want, 0)
	}
	if prescaled == 0 {
		t.Fatalf("no rope case has a prescale")
	}
}

func testEltwise(t T, h *Harness) {
	r := rand.New(rand.NewPCG(7, 8))
	c := cpu.New()
	for _, n := range []int{3 * 768, 17408 + 5} {
		a, bb := randn(r, n, 3), randn(r, n, 1)
		p := metal.PlanAdd(n)
		b := bufs{metal.RoleDst: nanBytes(n), metal.RoleA: f32b(a), metal.RoleB: f32b(bb)}
		mustRun(t, h, p, b)
		want := make([]float32, n)
		for i := range a {
			want[i] = a[i] + bb[i]
		}
		check(t, "add", p, bf32(b[metal.RoleDst]), want, 0)

		p = metal.PlanSwiGLU(n)
		b = bufs{metal.RoleDst: nanBytes(n), metal.RoleA: f32b(a), metal.RoleB: f32b(bb)}
		mustRun(t, h, p, b)
		ref := cpuTensor(t, c, make([]float32, n), n)
		c.SwiGLU(ref, cpuTensor(t, c, a, n), cpuTensor(t, c, bb, n))
		check(t, "swiglu", p, bf32(b[metal.RoleDst]), ref.(*cpu.Tensor).Float32s(), 1e-6)
	}
}

// testAttention stores every row of two sequences through kv_store, then attends the decode rows (the last of
// each sequence, n ≤ 8: split + combine) and all rows (the rows form), against the CPU's Attention over the same
// rows (which stores, then attends).
func testAttention(t T, h *Harness) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		name               string
		heads, kvHeads, hd int
		lens               []int
	}{
		{"fixture", 4, 2, 64, []int{30, 17}},
		{"14B", 40, 8, 128, []int{70, 9}},
	} {
		var seq, pos []int32
		for s, l := range c.lens {
			for p := range l {
				seq, pos = append(seq, int32(s)), append(pos, int32(p))
			}
		}
		n := len(seq)
		kvw, qw := c.kvHeads*c.hd, c.heads*c.hd
		q, k, v := randn(r, n*qw, 1), randn(r, n*kvw, 1), randn(r, n*kvw, 1)
		kv := metal.KVGeometry{Layers: 2, Seqs: len(c.lens), MaxLen: 128, KVHeads: c.kvHeads, HeadDim: c.hd}
		scale := float32(1 / math.Sqrt(float64(c.hd)))
		// Reference: the CPU over all rows.
		cb := cpu.New()
		cache, err := cb.NewKVCache(backend.KVConfig{Layers: kv.Layers, Seqs: kv.Seqs, MaxLen: kv.MaxLen, KVHeads: c.kvHeads, HeadDim: c.hd})
		if err != nil {
			t.Fatal(err)
		}
		ref := cpuTensor(t, cb, make([]float32, n*qw), n, qw)
		cb.Attention(ref, cpuTensor(t, cb, q, n, qw), cpuTensor(t, cb, k, n, kvw), cpuTensor(t, cb, v, n, kvw), cache, 1,
			cpuInts(t, cb, seq), cpuInts(t, cb, pos), scale)
		want := ref.(*cpu.Tensor).Float32s()

		cacheFloats := kv.Layers * kv.Seqs * kv.MaxLen * kvw
		b := bufs{metal.RoleKCache: nanBytes(cacheFloats), metal.RoleVCache: nanBytes(cacheFloats), metal.RoleK: f32b(k),
			metal.RoleV: f32b(v), metal.RoleSeq: i32b(seq), metal.RolePos: i32b(pos)}
		st := metal.PlanKVStore(n, kv, 1)
		mustRun(t, h, st, b)

		// Prompt: every row.
		pr := must(metal.PlanAttention(metal.M1, metal.AttnCase{N: n, Heads: c.heads, KV: kv, Layer: 1, Scale: scale}))(t)
		b[metal.RoleQ], b[metal.RoleDst] = f32b(q), nanBytes(n*qw)
		mustRun(t, h, pr, b)
		check(t, "attention rows "+c.name, pr, bf32(b[metal.RoleDst]), want, 1e-5)

		// Decode: the last row of each sequence (and one earlier row).
		pick := []int{c.lens[0] - 1, n - 1, 5}
		var dq []float32
		var ds, dp []int32
		var dwant []float32
		for _, i := range pick {
			dq = append(dq, q[i*qw:(i+1)*qw]...)
			ds, dp = append(ds, seq[i]), append(dp, pos[i])
			dwant = append(dwant, want[i*qw:(i+1)*qw]...)
		}
		dec := must(metal.PlanAttention(metal.M1, metal.AttnCase{N: len(pick), Heads: c.heads, KV: kv, Layer: 1, Scale: scale}))(t)
		if dec.Form != "attn_decode" {
			t.Fatalf("decode rows planned as %s", dec.Form)
		}
		b[metal.RoleQ], b[metal.RoleDst], b[metal.RoleSeq], b[metal.RolePos] = f32b(dq), nanBytes(len(dwant)), i32b(ds), i32b(dp)
		mustRun(t, h, dec, b)
		check(t, "attention decode "+c.name, dec, bf32(b[metal.RoleDst]), dwant, 1e-5)
		markVerified(st)
	}
}

func testArgmax(t T, h *Harness) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, vocab := range []int{2048, 151936} {
		rows := 6
		x := randn(r, rows*vocab, 4)
		row := func(i int) []float32 { return x[i*vocab : (i+1)*vocab] }
		// Row 1: an exact tie of the maximum (the lower id wins). Row 2: a NaN. Row 3: all −Inf.
		// Row 4: the top two an ulp apart. Row 5: random.
		copy(row(1), row(0))
		m1 := row(1)
		m1[100], m1[vocab-3] = 50, 50
		row(2)[vocab/2] = float32(math.NaN())
		for i := range row(3) {
			row(3)[i] = float32(math.Inf(-1))
		}
		row(4)[7] = 30
		row(4)[9] = math.Nextafter32(30, 100)
		p := metal.PlanArgmax(rows, vocab)
		b := bufs{metal.RoleDst: i32b(make([]int32, rows)), metal.RoleX: f32b(x)}
		mustRun(t, h, p, b)
		got := bi32(b[metal.RoleDst])
		for i := range rows {
			if want := int32(sample.GreedyNormalizedArgmax(row(i), sample.F32)); got[i] != want {
				t.Fatalf("argmax vocab %d row %d: %d, want %d", vocab, i, got[i], want)
			}
		}
		t.Logf("argmax (%s): %d rows of %d equal the reference (tie, NaN, all −Inf, ulp-apart, random)", fnames(p), rows, vocab)
		markVerified(p)
	}
}

func testBitmask(t T, h *Harness) {
	r := rand.New(rand.NewPCG(13, 14))
	rows, vocab := 3, 2048+7
	full := (vocab + 31) / 32
	words := full - 2 // the last two words are missing: their tokens are rejected
	x := randn(r, rows*vocab, 1)
	mask := make([]int32, rows*words)
	for i := range mask {
		mask[i] = int32(r.Uint32())
	}
	mask[0] = -1
	p := metal.PlanBitmask(rows, vocab, words)
	b := bufs{metal.RoleX: f32b(x), metal.RoleMask: i32b(mask)}
	mustRun(t, h, p, b)
	want := append([]float32(nil), x...)
	for i := range rows {
		sample.ApplyBitmask(want[i*vocab:(i+1)*vocab], mask[i*words:(i+1)*words])
	}
	check(t, "bitmask", p, bf32(b[metal.RoleX]), want, 0)
}

// testDense compares the bf16 GEMV and GEMM with the CPU backend's MatMul over the same bf16 weights: fixture q/o
// (256 → 256) and gate (256 → 768), the tied lm_head (256 → 2048), an odd width, a 14B slice (8 rows of 5120).
func testDense(t T, h *Harness) {
	r := rand.New(rand.NewPCG(15, 16))
	c := cpu.New()
	for _, k := range []struct{ out, in, n int }{
		{256, 256, 1}, {768, 256, 2}, {2048, 256, 3}, {256, 100, 4}, {8, 5120, 8}, {768, 256, 40}, {130, 100, 33},
	} {
		w16 := make([]uint16, k.out*k.in)
		for i := range w16 {
			w16[i] = dtype.F32ToBF16(float32(r.NormFloat64() * 0.05))
		}
		bias := randn(r, k.out, 0.1)
		hasBias := k.n%2 == 1
		lin, err := c.LoadLinear(backend.LinearSpec{Name: "dense", Out: k.out, In: k.in,
			Dense: &backend.Host{Name: "w", DType: backend.BF16, Shape: []int{k.out, k.in}, Data: u16b(w16)},
			Bias:  map[bool]*backend.Host{true: {Name: "b", DType: backend.F32, Shape: []int{k.out}, Data: f32b(bias)}}[hasBias]})
		if err != nil {
			t.Fatal(err)
		}
		x := randn(r, k.n*k.in, 1)
		ref := cpuTensor(t, c, make([]float32, k.n*k.out), k.n, k.out)
		c.MatMul(ref, cpuTensor(t, c, x, k.n, k.in), lin)
		p := metal.PlanDense(metal.M1, k.out, k.in, k.n, hasBias)
		b := bufs{metal.RoleDst: nanBytes(k.n * k.out), metal.RoleX: f32b(x), metal.RoleDenseW: u16b(w16)}
		if hasBias {
			b[metal.RoleBias] = f32b(bias)
		}
		mustRun(t, h, p, b)
		check(t, p.Form, p, bf32(b[metal.RoleDst]), ref.(*cpu.Tensor).Float32s(), 1e-5)
	}
}

// testRMSNormRope checks the fused head norm + rope bit for bit against rmsnorm_simd then rope, and against the
// CPU's RMSNorm then rope.Table.Apply.
func testRMSNormRope(t T, h *Harness) {
	r := rand.New(rand.NewPCG(17, 18))
	c := cpu.New()
	yarn := ropeScalings["deepseek_yarn"]
	for _, k := range []struct {
		n, heads, hd, dims int
		trad               bool
		scaling            map[string]any
	}{{3, 4, 64, 64, false, nil}, {2, 40, 128, 128, false, nil}, {2, 2, 64, 32, true, nil}, {3, 4, 64, 64, false, yarn}} {
		tab, err := rope.New(k.dims, 1e6, k.trad, k.scaling, 131072)
		if err != nil {
			t.Fatal(err)
		}
		x, w := randn(r, k.n*k.heads*k.hd, 2), randn(r, k.hd, 1)
		pos := make([]int32, k.n)
		for i := range pos {
			pos[i] = int32(r.IntN(30000))
		}
		cs := f32b(metal.RopeCosSin(tab, pos))
		p := must(metal.PlanRMSNormRope(k.n, k.heads, k.hd, 1e-6, tab))(t)
		b := bufs{metal.RoleDst: nanBytes(len(x)), metal.RoleX: f32b(x), metal.RoleNormW: f32b(w), metal.RoleCosSin: cs}
		mustRun(t, h, p, b)
		got := bf32(b[metal.RoleDst])
		// The two launches it fuses.
		two := bufs{metal.RoleDst: nanBytes(len(x)), metal.RoleX: f32b(x), metal.RoleNormW: f32b(w)}
		mustRun(t, h, metal.PlanRMSNorm(k.n*k.heads, k.hd, 1e-6), two)
		rp := must(metal.PlanRope(k.n, k.heads, k.hd, tab))(t)
		b2 := bufs{metal.RoleX: two[metal.RoleDst], metal.RoleCosSin: cs}
		mustRun(t, h, rp, b2)
		if i := sameBits(got, bf32(b2[metal.RoleX])); i >= 0 {
			t.Fatalf("rmsnorm_rope_f32: [%d] differs from rmsnorm_simd then rope", i)
		}
		ref := cpuTensor(t, c, make([]float32, len(x)), len(x))
		c.RMSNorm(ref, cpuTensor(t, c, x, len(x)), cpuTensor(t, c, w, k.hd), 1e-6)
		want := ref.(*cpu.Tensor).Float32s()
		for i := range k.n {
			for hh := range k.heads {
				tab.Apply(want[(i*k.heads+hh)*k.hd:(i*k.heads+hh+1)*k.hd], int(pos[i]))
			}
		}
		check(t, "rmsnorm_rope", p, got, want, 1e-5)
	}
}
