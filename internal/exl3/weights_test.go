package exl3

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// randomLayer is an EXL3 layer of random codes (codes[kb][nb][t]) and random fp16 sign-and-scale vectors.
func randomLayer(t *testing.T, rng *rand.Rand, in, out, k int, cb Codebook) (*Weights, [][][]uint16) {
	t.Helper()
	g := Geometry{TilesK: Padded(in) / TileSide, TilesN: Padded(out) / TileSide, K: k}
	codes := make([][][]uint16, g.TilesK)
	var tiles []uint16
	for kb := range codes {
		codes[kb] = make([][]uint16, g.TilesN)
		for nb := range codes[kb] {
			c := make([]uint16, TileSize)
			for i := range c {
				c[i] = uint16(rng.IntN(1 << k))
			}
			codes[kb][nb] = c
			tiles = append(tiles, Pack(c, k)...)
		}
	}
	vector := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			x := dtype.RoundF16(float32(math.Exp(rng.NormFloat64()*0.5) * 0.02))
			if rng.IntN(2) == 0 {
				x = -x
			}
			v[i] = x
		}
		return v
	}
	w, err := New(g, cb, in, out, tiles, vector(g.PadIn()), vector(g.PadOut()))
	if err != nil {
		t.Fatal(err)
	}
	return w, codes
}

// sylvester is H_n (entries ±1) built by its recursive definition.
func sylvester(n int) [][]float64 {
	h := [][]float64{{1}}
	for len(h) < n {
		m := len(h)
		g := make([][]float64, 2*m)
		for i := range g {
			g[i] = make([]float64, 2*m)
			for j := range g[i] {
				v := h[i%m][j%m]
				if i >= m && j >= m {
					v = -v
				}
				g[i][j] = v
			}
		}
		h = g
	}
	return h
}

// reference is W [Out, In] = (diag(su)·H·Ŵ·H·diag(sv))ᵀ/128 in float64 with H = blockdiag(H_128) as a matrix,
// Ŵ from the codes through the stream's windows and the quantizer's tile permutation (not through Inner).
func reference(w *Weights, codes [][][]uint16) []float64 {
	pk, pn := w.PadIn(), w.PadOut()
	inner := make([]float64, pk*pn)
	for kb := range w.TilesK {
		for nb := range w.TilesN {
			for p := range TileSize {
				r, c := Position(p)
				inner[(kb*TileSide+r)*pn+nb*TileSide+c] = float64(w.Codebook.Decode(streamState(codes[kb][nb], w.K, p)))
			}
		}
	}
	h := sylvester(Block)
	// a = H·Ŵ (blocks down each column), b = a·H (blocks along each row).
	a := make([]float64, pk*pn)
	for k := range pk {
		base := k / Block * Block
		for o := range pn {
			var s float64
			for i := range Block {
				s += h[k-base][i] * inner[(base+i)*pn+o]
			}
			a[k*pn+o] = s
		}
	}
	out := make([]float64, w.Out*w.In)
	for k := range w.In {
		for o := range w.Out {
			base := o / Block * Block
			var s float64
			for j := range Block {
				s += a[k*pn+base+j] * h[j][o-base]
			}
			out[o*w.In+k] = float64(w.SU[k]) * s / Block * float64(w.SV[o])
		}
	}
	return out
}

func TestInner(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w, codes := randomLayer(t, rng, 256, 128, 3, Mul1)
	inner, pn := w.Inner(), w.PadOut()
	for kb := range w.TilesK {
		for nb := range w.TilesN {
			for p := range TileSize {
				r, c := Position(p)
				want := Mul1.Decode(streamState(codes[kb][nb], 3, p))
				if got := inner[(kb*TileSide+r)*pn+nb*TileSide+c]; got != want {
					t.Fatalf("tile (%d, %d) position %d: %v, want %v", kb, nb, p, got, want)
				}
			}
		}
	}
}

// TestDense: the reconstruction against the matrix formula in float64, for every codebook, several K and a
// layer whose dims are padded (200 → 256 inputs, 130 → 256 outputs).
func TestDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		in, out, k int
		cb         Codebook
	}{{128, 256, 2, Mul1}, {256, 128, 5, ThreeInst}, {200, 130, 8, MCG}, {384, 128, 1, Mul1}} {
		w, codes := randomLayer(t, rng, c.in, c.out, c.k, c.cb)
		want := reference(w, codes)
		got := w.Dense()
		if len(got) != len(want) {
			t.Fatalf("%d weights, want %d", len(got), len(want))
		}
		var maxRef, maxErr float64
		for i := range want {
			maxRef = max(maxRef, math.Abs(want[i]))
			maxErr = max(maxErr, math.Abs(float64(got[i])-want[i]))
		}
		t.Logf("%d→%d K %d %v: max|err| %.3g of max|W| %.3g", c.in, c.out, c.k, c.cb, maxErr, maxRef)
		if maxErr > 1e-6*maxRef {
			t.Errorf("%d→%d K %d %v: max|err| %.3g > 1e-6·%.3g", c.in, c.out, c.k, c.cb, maxErr, maxRef)
		}
	}
}

// TestMatMul: the forward in the rotated basis against x·Wᵀ in float64 with W the reference, at 1, 3 and 9 rows.
func TestMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	w, codes := randomLayer(t, rng, 200, 130, 4, Mul1)
	ref := reference(w, codes)
	for _, n := range []int{1, 3, 9} {
		x := make([]float32, n*w.In)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		y := make([]float32, n*w.Out)
		w.MatMul(y, x, n)
		var maxRef, maxErr float64
		for m := range n {
			for o := range w.Out {
				var s float64
				for k := range w.In {
					s += float64(x[m*w.In+k]) * ref[o*w.In+k]
				}
				maxRef = max(maxRef, math.Abs(s))
				maxErr = max(maxErr, math.Abs(float64(y[m*w.Out+o])-s))
			}
		}
		t.Logf("%d rows: max|err| %.3g of max|y| %.3g", n, maxErr, maxRef)
		if maxErr > 1e-5*maxRef {
			t.Errorf("%d rows: max|err| %.3g > 1e-5·%.3g", n, maxErr, maxRef)
		}
	}
}

func TestNewRejects(t *testing.T) {
	g := Geometry{TilesK: 8, TilesN: 16, K: 2}
	tiles := make([]uint16, g.Len())
	su, sv := make([]float32, 128), make([]float32, 256)
	if _, err := New(g, Mul1, 128, 256, tiles, su, sv); err != nil {
		t.Fatal(err)
	}
	if _, err := New(g, Mul1, 100, 250, tiles, su, sv); err != nil {
		t.Errorf("padded dims: %v", err)
	}
	for name, f := range map[string]func() error{
		"a block of padding": func() error { _, err := New(g, Mul1, 128, 128, tiles, su, sv); return err },
		"no inputs":          func() error { _, err := New(g, Mul1, 0, 256, tiles, su, sv); return err },
		"out too large":      func() error { _, err := New(g, Mul1, 128, 257, tiles, su, sv); return err },
		"short tiles":        func() error { _, err := New(g, Mul1, 128, 256, tiles[1:], su, sv); return err },
		"short su":           func() error { _, err := New(g, Mul1, 128, 256, tiles, su[1:], sv); return err },
		"long sv":            func() error { _, err := New(g, Mul1, 128, 256, tiles, su, append(sv, 0)); return err },
		"codebook":           func() error { _, err := New(g, Codebook(7), 128, 256, tiles, su, sv); return err },
		"K 9": func() error {
			_, err := New(Geometry{TilesK: 8, TilesN: 16, K: 9}, Mul1, 128, 256, tiles, su, sv)
			return err
		},
	} {
		if err := f(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCodebookOf(t *testing.T) {
	mcg, mul1, bad := MCGMult, Mul1Mult, uint32(12345)
	for _, c := range []struct {
		mcg, mul1 *uint32
		want      Codebook
		ok        bool
	}{{nil, nil, ThreeInst, true}, {&mcg, nil, MCG, true}, {nil, &mul1, Mul1, true}, {&mcg, &mul1, 0, false}, {&bad, nil, 0, false}, {nil, &mcg, 0, false}} {
		got, err := CodebookOf(c.mcg, c.mul1)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("CodebookOf(%v, %v) = %v, %v", c.mcg, c.mul1, got, err)
		}
	}
}

func TestUnpackSigns(t *testing.T) {
	s := UnpackSigns([]uint16{0b101, 0x8000})
	for i, want := range map[int]float32{0: -1, 1: 1, 2: -1, 3: 1, 15: 1, 16: 1, 31: -1} {
		if s[i] != want {
			t.Errorf("sign %d = %v, want %v", i, s[i], want)
		}
	}
}
