// Tests of the decode: a deliberately plain bit reader written from the format text (docs/trellis-format.md), one
// bit at a time, against the package's window reads, de-interleaving and each variant's arithmetic.
package trellis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// specBit is bit i of a block held in words: word i/32, bit i%32 counted from the least significant.
func specBit(block []uint32, i int) uint32 {
	return block[i/32] >> (i % 32) & 1
}

// specState is state_t by the format text: the L-bit window starting at bit p = (T−1−t)·k of the block, its bit j
// being bit (p+j) mod T·k of the block.
func specState(block []uint32, t, T, k, L int) uint32 {
	p := (T - 1 - t) * k
	var s uint32
	for j := range L {
		s |= specBit(block, (p+j)%(T*k)) << j
	}
	return s
}

// specBlockWords is where the format text puts block b of coded row r in the stored words: row-major
// [rows, cols·k/32], or for the interleave [cols/512, rows, 48] with block b in group b/2, half b%2.
func specBlockWords(words []uint32, g Geometry, r, b int) []uint32 {
	wpb := g.T * g.K / 32
	if g.Interleaved {
		start := (b/2)*g.Rows*48 + r*48 + (b%2)*24
		return words[start : start+24]
	}
	start := r*(g.Cols*g.K/32) + b*wpb
	return words[start : start+wpb]
}

// specRowStates decodes all states of coded row r with the plain reader.
func specRowStates(words []uint32, g Geometry, r int) []uint32 {
	out := make([]uint32, 0, g.Cols)
	for b := range g.Cols / g.T {
		blk := specBlockWords(words, g, r, b)
		for t := range g.T {
			out = append(out, specState(blk, t, g.T, g.K, g.L))
		}
	}
	return out
}

func randomWeights(t testing.TB, rng *rand.Rand, spec Spec, shape []int) *Weights {
	t.Helper()
	g, err := NewGeometry(spec, shape)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint32, g.Words())
	for i := range words {
		words[i] = rng.Uint32()
	}
	scales := make([]float32, g.Rows)
	for i := range scales {
		scales[i] = dtype.RoundF16(float32(0.01 + 0.05*rng.Float64()))
	}
	w, err := NewWeights(g, words, scales)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestStatesMatchPlainReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var specs []Spec
	for k := 1; k <= 8; k++ {
		for _, L := range []int{k, (k + 16) / 2, 16} {
			T := 32 // T·k is a multiple of 32 for every k
			if k%4 == 0 {
				T = 64 / k * 4
			}
			specs = append(specs, Spec{K: k, L: L, T: T, Code: "1mad", Axis: 1})
		}
	}
	specs = append(specs, k3Axis1, Spec{K: 2, L: 12, T: 256, Code: "1mad", Axis: 0}, Spec{K: 4, L: 16, T: 128, Code: "1mad", Axis: 1})
	for _, spec := range specs {
		w := randomWeights(t, rng, spec, []int{3, 2 * spec.T * spec.K / 32})
		got := make([]uint32, w.Cols)
		for r := range w.Rows {
			w.RowStates(r, got)
			want := specRowStates(w.Words, w.Geometry, r)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%+v row %d position %d: state %#x, plain reader %#x", spec, r, i, got[i], want[i])
				}
			}
		}
	}
}

func TestInterleavedStatesMatchPlainReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	w := randomWeights(t, rng, k3Axis0, []int{3, 5, 48})
	got := make([]uint32, w.Cols)
	for r := range w.Rows {
		w.RowStates(r, got)
		want := specRowStates(w.Words, w.Geometry, r)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("row %d position %d: state %#x, plain reader %#x", r, i, got[i], want[i])
			}
		}
	}
}

// specWeight is one weight under a variant, from the variant's definition (refValue is math/big's).
func specWeight(s uint32, scale float32, v Variant) float32 {
	y := refCode(s)
	switch v {
	case Exact:
		return refValue(y) * scale
	case BF16:
		return refBF16(refValue(y) * scale)
	case Reciprocal:
		return float32(y) * float32(1/147.800537109375) * scale
	case Factored:
		return float32(y) * (scale * float32(1/147.800537109375))
	}
	panic("variant")
}

func TestDecodeRowVariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		spec  Spec
		shape []int
	}{
		{k3Axis1, []int{4, 96}},
		{k3Axis0, []int{2, 3, 48}},
		{Spec{K: 2, L: 16, T: 256, Code: "1mad", Axis: 0}, []int{3, 32}},
		{Spec{K: 4, L: 12, T: 64, Code: "1mad", Axis: 1}, []int{5, 24}},
	} {
		w := randomWeights(t, rng, c.spec, c.shape)
		w.Scales[0] = -w.Scales[0] // a negative scale decodes as well
		row := make([]float32, w.Cols)
		for v := range numVariants {
			for r := range w.Rows {
				w.DecodeRow(r, v, row)
				states := specRowStates(w.Words, w.Geometry, r)
				for i, s := range states {
					if want := specWeight(s, w.Scales[r], v); row[i] != want {
						t.Fatalf("%+v %v row %d pos %d (state %#x): %v, want %v", c.spec, v, r, i, s, row[i], want)
					}
				}
			}
		}
	}
}

func TestDenseOrientation(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		spec  Spec
		shape []int
	}{{k3Axis1, []int{3, 192}}, {k3Axis0, []int{3, 192}}, {k3Axis0, []int{1, 3, 48}}} {
		w := randomWeights(t, rng, c.spec, c.shape)
		d := w.Dense(Exact)
		in, out := w.InFeatures(), w.OutFeatures()
		if len(d) != in*out {
			t.Fatalf("Dense has %d values, want %d×%d", len(d), out, in)
		}
		row := make([]float32, w.Cols)
		for r := range w.Rows {
			w.DecodeRow(r, Exact, row)
			for c2, x := range row {
				o, i := r, c2 // axis 1: coded row = output
				if w.Axis == 0 {
					o, i = c2, r
				}
				if d[o*in+i] != x {
					t.Fatalf("%+v: Dense[%d,%d] = %v, coded (%d,%d) = %v", c.spec, o, i, d[o*in+i], r, c2, x)
				}
			}
		}
	}
}

func TestVariantNames(t *testing.T) {
	for v := range numVariants {
		back, err := ParseVariant(v.String())
		if err != nil || back != v {
			t.Errorf("ParseVariant(%q) = %v, %v", v.String(), back, err)
		}
	}
	if _, err := ParseVariant("13"); err == nil {
		t.Error("ParseVariant accepted a seed number")
	}
	if Variant(9).String() != "Variant(9)" {
		t.Error("unknown variant String")
	}
}

func TestDecodePanicsNameTheProblem(t *testing.T) {
	w := randomWeights(t, rand.New(rand.NewPCG(1, 1)), k3Axis1, []int{2, 96})
	for name, f := range map[string]func(){
		"row":     func() { w.DecodeRow(2, Exact, make([]float32, 1024)) },
		"short":   func() { w.DecodeRow(0, Exact, make([]float32, 1023)) },
		"variant": func() { w.DecodeRow(0, Variant(7), make([]float32, 1024)) },
		"matmul":  func() { w.MatMul(make([]float32, 2), make([]float32, 1023), 1, Exact) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				} else if s, ok := r.(string); !ok || len(s) < 10 {
					t.Errorf("%s: panic value %v says nothing", name, r)
				}
			}()
			f()
		}()
	}
}

func TestBF16VariantIsRoundedExact(t *testing.T) {
	// Every BF16 weight is Exact's weight rounded, and is a bf16 value.
	w := randomWeights(t, rand.New(rand.NewPCG(2, 2)), k3Axis1, []int{4, 96})
	e, b := w.Dense(Exact), w.Dense(BF16)
	for i := range e {
		if b[i] != dtype.RoundBF16(e[i]) || math.Float32bits(b[i])&0xFFFF != 0 {
			t.Fatalf("weight %d: bf16 %v, exact %v", i, b[i], e[i])
		}
	}
}
