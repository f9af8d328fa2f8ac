// Tests of the CPU forward: MatMul against Dense plus a naive float64 matmul, for both axes, the interleave, every
// variant and several row counts, and its independence of the number of goroutines.
package trellis

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// naiveMatMul is y[n, out] = x[n, in]·Wᵀ with W [out, in], summed in float64.
func naiveMatMul(wd, x []float32, n, out, in int) []float64 {
	y := make([]float64, n*out)
	for m := range n {
		for o := range out {
			var s float64
			for i := range in {
				s += float64(wd[o*in+i]) * float64(x[m*in+i])
			}
			y[m*out+o] = s
		}
	}
	return y
}

// closeEnough compares an f32 sum of `terms` products against its float64 reference: f32 accumulation may err by
// about terms·2^−24 of the sum of the products' magnitudes; abs carries that magnitude.
func closeEnough(got float32, want, abs float64, terms int) bool {
	return math.Abs(float64(got)-want) <= float64(terms)*0x1p-23*abs+1e-30
}

func TestMatMulMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		name  string
		spec  Spec
		shape []int
	}{
		{"axis1 k3", k3Axis1, []int{37, 96}},
		{"axis0 k3", k3Axis0, []int{37, 96}},
		{"axis0 k3 interleaved", k3Axis0, []int{2, 37, 48}},
		{"axis1 k2 L16", Spec{K: 2, L: 16, T: 128, Code: "1mad", Axis: 1}, []int{19, 32}},
		{"axis0 k4 T64", Spec{K: 4, L: 12, T: 64, Code: "1mad", Axis: 0}, []int{70, 40}},
	} {
		w := randomWeights(t, rng, c.spec, c.shape)
		in, out := w.InFeatures(), w.OutFeatures()
		for _, n := range []int{0, 1, 3, 17} {
			x := make([]float32, n*in)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			for v := range numVariants {
				y := make([]float32, n*out)
				for i := range y {
					y[i] = float32(math.NaN()) // every output must be written
				}
				w.MatMul(y, x, n, v)
				dense := w.Dense(v)
				want := naiveMatMul(dense, x, n, out, in)
				absW := make([]float32, len(dense))
				absX := make([]float32, len(x))
				for i, d := range dense {
					absW[i] = float32(math.Abs(float64(d)))
				}
				for i, d := range x {
					absX[i] = float32(math.Abs(float64(d)))
				}
				mag := naiveMatMul(absW, absX, n, out, in)
				for i := range want {
					if !closeEnough(y[i], want[i], mag[i], in+2) {
						t.Fatalf("%s n=%d %v: y[%d] = %v, dense reference %v", c.name, n, v, i, y[i], want[i])
					}
				}
			}
		}
	}
}

func TestFactoredMatMulDefinition(t *testing.T) {
	// Factored's defining arithmetic, written out: axis 1 scales the code sum once per output; axis 0 prescales each
	// input by scale·rcp. Summed in float64 here from the integer codes of the plain reader.
	rng := rand.New(rand.NewPCG(23, 24))
	for _, spec := range []Spec{k3Axis1, k3Axis0} {
		w := randomWeights(t, rng, spec, []int{33, 96})
		in, out := w.InFeatures(), w.OutFeatures()
		n := 2
		x := make([]float32, n*in)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		y := make([]float32, n*out)
		w.MatMul(y, x, n, Factored)
		rcp := float64(float32(1 / 147.800537109375))
		for m := range n {
			want := make([]float64, out)
			for r := range w.Rows {
				for c, s := range specRowStates(w.Words, w.Geometry, r) {
					code := float64(refCode(s))
					if spec.Axis == 1 {
						want[r] += code * float64(x[m*in+c])
					} else {
						want[c] += code * float64(x[m*in+r]) * float64(w.Scales[r]) * rcp
					}
				}
			}
			for o := range out {
				if spec.Axis == 1 {
					want[o] *= float64(w.Scales[o]) * rcp
				}
				if math.Abs(float64(y[m*out+o])-want[o]) > 1e-4*(1+math.Abs(want[o])) {
					t.Fatalf("axis %d y[%d,%d] = %v, factored definition %v", spec.Axis, m, o, y[m*out+o], want[o])
				}
			}
		}
	}
}

func TestMatMulIndependentOfWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, spec := range []Spec{k3Axis1, k3Axis0} {
		w := randomWeights(t, rng, spec, []int{300, 192})
		in, out, n := w.InFeatures(), w.OutFeatures(), 5
		x := make([]float32, n*in)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		results := make([][]float32, 0, 2)
		for _, procs := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			y := make([]float32, n*out)
			w.MatMul(y, x, n, Reciprocal)
			runtime.GOMAXPROCS(old)
			results = append(results, y)
		}
		for i := range results[0] {
			if math.Float32bits(results[0][i]) != math.Float32bits(results[1][i]) {
				t.Fatalf("axis %d: output %d is %v on one goroutine, %v on three", spec.Axis, i, results[0][i], results[1][i])
			}
		}
	}
}

func BenchmarkMatMul(b *testing.B) {
	// One activation row through a 3-bit 4096×4096 projection, both axes (weights/s is the figure to compare).
	rng := rand.New(rand.NewPCG(27, 28))
	for _, spec := range []Spec{k3Axis1, k3Axis0} {
		w := randomWeights(b, rng, spec, []int{4096, 4096 * 3 / 32})
		for _, n := range []int{1, 8} {
			x := make([]float32, n*4096)
			y := make([]float32, n*4096)
			b.Run(map[int]string{0: "axis0", 1: "axis1"}[spec.Axis]+"/n"+string(rune('0'+n)), func(b *testing.B) {
				for b.Loop() {
					w.MatMul(y, x, n, Reciprocal)
				}
				b.ReportMetric(float64(4096*4096)*float64(b.N)/b.Elapsed().Seconds(), "weights/s")
			})
		}
	}
}
