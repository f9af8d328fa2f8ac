// The EXL3 kernels (exl3.metal) against internal/exl3's CPU forward on random codes (every bitstream is a valid
// code): every K, codebook and GEMV row count on a small layer, a prompt run in chunks of 8 rows, a layer padded on
// both sides, a bias; and the sides alone bit-exact to rht.Apply.
package emu

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/metal"
	"github.com/mlxbun/mlxbun/internal/rht"
)

// randEXL3 is a layer of random tiles with fp16 sign-and-scale vectors.
func randEXL3(t T, r *rand.Rand, in, out, k int, cb exl3.Codebook) *exl3.Weights {
	t.Helper()
	g := exl3.Geometry{TilesK: exl3.Padded(in) / exl3.TileSide, TilesN: exl3.Padded(out) / exl3.TileSide, K: k}
	tiles := make([]uint16, g.Len())
	for i := range tiles {
		tiles[i] = uint16(r.Uint32())
	}
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = dtype.RoundF16(float32((0.1 + 0.2*r.Float64()) * float64(1-2*r.IntN(2))))
		}
		return v
	}
	w, err := exl3.New(g, cb, in, out, tiles, vec(g.PadIn()), vec(g.PadOut()))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runEXL3 plans and runs y = x·Wᵀ (+ bias) and compares with exl3.Weights.MatMul.
func runEXL3(t T, h *Harness, name string, w *exl3.Weights, n int, bias bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), uint64(w.In*w.Out+w.K)))
	p := must(metal.PlanEXL3(metal.M1, w.Geometry, w.Codebook, w.In, w.Out, n, bias))(t)
	x := randn(r, n*w.In, 1)
	words := make([]uint32, len(w.Tiles)/2)
	for i := range words {
		words[i] = uint32(w.Tiles[2*i]) | uint32(w.Tiles[2*i+1])<<16
	}
	b := bufs{metal.RoleDst: nanBytes(n * w.Out), metal.RoleX: f32b(x), metal.RoleWords: u32b(words),
		metal.RolePre: f32b(w.SU), metal.RolePost: f32b(w.SV)}
	var bv []float32
	if bias {
		bv = randn(r, w.Out, 0.1)
		b[metal.RoleBias] = f32b(bv)
	}
	mustRun(t, h, p, b)
	want := make([]float32, n*w.Out)
	w.MatMul(want, x, n)
	for i := range want {
		if bias {
			want[i] += bv[i%w.Out]
		}
	}
	check(t, name, p, bf32(b[metal.RoleDst]), want, 1e-5)
}

func testEXL3(t T, h *Harness) {
	r := rand.New(rand.NewPCG(41, 42))
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		for _, cb := range []exl3.Codebook{exl3.ThreeInst, exl3.MCG, exl3.Mul1} {
			w := randEXL3(t, r, 256, 128, k, cb)
			for _, n := range []int{1, 2, 3, 8} { // 3 runs the 4-row instantiation
				runEXL3(t, h, fmt.Sprintf("exl3 k%d %v 256→128 n=%d", k, cb, n), w, n, n == 2)
			}
		}
	}
	runEXL3(t, h, "exl3 prompt in chunks", randEXL3(t, r, 384, 256, 3, exl3.Mul1), 20, true)
	runEXL3(t, h, "exl3 padded 200→130", randEXL3(t, r, 200, 130, 5, exl3.ThreeInst), 5, true)

	// The sides alone: the input side of a padded layer, bit for bit the CPU's rotation.
	w := randEXL3(t, r, 200, 130, 2, exl3.MCG)
	p := must(metal.PlanEXL3(metal.M1, w.Geometry, w.Codebook, w.In, w.Out, 3, false))(t)
	side := metal.Plan{Form: p.Form, Launches: p.Launches[:1], ScratchBytes: p.ScratchBytes}
	x := randn(r, 3*w.In, 1)
	b := bufs{metal.RoleX: f32b(x), metal.RolePre: f32b(w.SU), metal.RolePost: f32b(w.SV)}
	mustRun(t, h, side, b)
	got := bf32(b[metal.RoleScratch])[:3*w.PadIn()]
	want := make([]float32, 3*w.PadIn())
	for m := range 3 {
		row := want[m*w.PadIn() : (m+1)*w.PadIn()]
		copy(row, x[m*w.In:(m+1)*w.In])
		rht.Apply(row, row, w.SU, nil, exl3.Block)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("exl3_had_f32 input side: [%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
