// Tests of the affine decode against a bit-at-a-time reader and MLX's byte-level 3- and 6-bit unpacking, of MatMul
// against Dense plus a naive float64 matmul, of size validation, and of the quantizer's round trip.
package affine

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func randomWeights(t testing.TB, rng *rand.Rand, bits, group, out, in int) *Weights {
	t.Helper()
	packed := make([]uint32, out*in*bits/32)
	for i := range packed {
		packed[i] = rng.Uint32()
	}
	ng := out * in / group
	scales, biases := make([]float32, ng), make([]float32, ng)
	for i := range scales {
		scales[i] = float32(rng.NormFloat64() * 0.01)
		biases[i] = float32(rng.NormFloat64() * 0.1)
	}
	w, err := New(bits, group, out, in, packed, scales, biases)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// plainQ reads q of (o, i) one bit at a time: bit j of q is bit i·bits+j of row o's stream, which is bit
// (i·bits+j)%32 of the row's word (i·bits+j)/32.
func plainQ(w *Weights, o, i int) uint32 {
	row := w.Packed[o*w.In*w.Bits/32:]
	var q uint32
	for j := range w.Bits {
		p := i*w.Bits + j
		q |= (row[p/32] >> (p % 32) & 1) << j
	}
	return q
}

func TestDecodeMatchesPlainReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{2, 3, 4, 5, 6, 8} {
		for _, group := range []int{32, 64, 128} {
			w := randomWeights(t, rng, bits, group, 3, 256)
			row := make([]float32, w.In)
			for o := range w.Out {
				w.DecodeRow(o, row)
				for i, got := range row {
					s, b := w.Scales[o*w.In/group+i/group], w.Biases[o*w.In/group+i/group]
					want := float32(s*float32(plainQ(w, o, i))) + b
					if got != want {
						t.Fatalf("bits %d group %d (%d,%d): %v, want %v", bits, group, o, i, got, want)
					}
				}
			}
		}
	}
}

// bytesOf is a row's words as the little-endian byte stream MLX writes for 3/5/6-bit packs.
func bytesOf(words []uint32) []byte {
	b := make([]byte, 0, 4*len(words))
	for _, w := range words {
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return b
}

func TestMLXBytePacking(t *testing.T) {
	// MLX unpacks 3 bits as 8 values from 3 bytes and 6 bits as 4 values from 3 bytes with these masks; the
	// row-stream reading must give the same q.
	rng := rand.New(rand.NewPCG(3, 4))
	w3 := randomWeights(t, rng, 3, 32, 1, 64)
	b := bytesOf(w3.Packed)
	for p := range 64 / 8 {
		w := b[3*p:]
		mlx := [8]uint32{
			uint32(w[0] & 0x7), uint32(w[0]&0x38) >> 3, uint32(w[0]&0xc0)>>6 | uint32(w[1]&0x1)<<2,
			uint32(w[1]&0xe) >> 1, uint32(w[1]&0x70) >> 4, uint32(w[1]&0x80)>>7 | uint32(w[2]&0x3)<<1,
			uint32(w[2]&0x1c) >> 2, uint32(w[2]&0xe0) >> 5,
		}
		for j, q := range mlx {
			if got := plainQ(w3, 0, 8*p+j); got != q {
				t.Fatalf("3-bit value %d: stream %d, MLX bytes %d", 8*p+j, got, q)
			}
		}
	}
	w6 := randomWeights(t, rng, 6, 32, 1, 64)
	b = bytesOf(w6.Packed)
	for p := range 64 / 4 {
		w := b[3*p:]
		mlx := [4]uint32{
			uint32(w[0] & 0x3f), uint32(w[0]&0xc0)>>6 | uint32(w[1]&0xf)<<2,
			uint32(w[1]&0xf0)>>4 | uint32(w[2]&0x3)<<4, uint32(w[2]&0xfc) >> 2,
		}
		for j, q := range mlx {
			if got := plainQ(w6, 0, 4*p+j); got != q {
				t.Fatalf("6-bit value %d: stream %d, MLX bytes %d", 4*p+j, got, q)
			}
		}
	}
	// 4 bits: value 1 is the high nibble of byte 0.
	w4 := &Weights{Bits: 4, GroupSize: 32, Out: 1, In: 32, Packed: []uint32{0x000000A5, 0, 0, 0}}
	if plainQ(w4, 0, 0) != 5 || plainQ(w4, 0, 1) != 0xA {
		t.Fatal("4-bit nibble order")
	}
}

func TestMatMulMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ bits, group, out, in int }{{4, 64, 37, 128}, {8, 64, 5, 256}, {3, 32, 70, 96}, {2, 128, 9, 384}} {
		w := randomWeights(t, rng, c.bits, c.group, c.out, c.in)
		d := w.Dense()
		for _, n := range []int{0, 1, 4, 9} {
			x := make([]float32, n*c.in)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			y := make([]float32, n*c.out)
			for i := range y {
				y[i] = float32(math.NaN())
			}
			w.MatMul(y, x, n)
			for m := range n {
				for o := range c.out {
					var want, mag float64
					for i := range c.in {
						p := float64(d[o*c.in+i]) * float64(x[m*c.in+i])
						want += p
						mag += math.Abs(p)
					}
					if got := float64(y[m*c.out+o]); math.Abs(got-want) > float64(c.in)*0x1p-23*mag+1e-30 {
						t.Fatalf("%+v n=%d y[%d,%d] = %v, dense reference %v", c, n, m, o, got, want)
					}
				}
			}
		}
	}
}

func TestValidateRejects(t *testing.T) {
	good := func() *Weights {
		return &Weights{Bits: 4, GroupSize: 64, Out: 2, In: 128, Packed: make([]uint32, 2*16),
			Scales: make([]float32, 4), Biases: make([]float32, 4)}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(*Weights)
		want string
	}{
		{"7 bits", func(w *Weights) { w.Bits = 7 }, "7 bits"},
		{"1 bit", func(w *Weights) { w.Bits = 1 }, "1 bits"},
		{"group 16", func(w *Weights) { w.GroupSize = 16 }, "group size 16"},
		{"partial group", func(w *Weights) { w.In = 96 }, "not a multiple of group size"},
		{"empty", func(w *Weights) { w.Out = 0 }, "matrix 0×128"},
		{"words", func(w *Weights) { w.Packed = w.Packed[1:] }, "31 packed words"},
		{"scales", func(w *Weights) { w.Scales = w.Scales[1:] }, "3 scales"},
		{"biases", func(w *Weights) { w.Biases = nil }, "0 biases"},
	} {
		w := good()
		c.edit(w)
		err := w.Validate()
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an ErrFormat saying %q", c.name, err, c.want)
		}
		if _, err := New(w.Bits, w.GroupSize, w.Out, w.In, w.Packed, w.Scales, w.Biases); err == nil {
			t.Errorf("%s: New accepted", c.name)
		}
	}
}

func TestQuantizeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	out, in := 8, 256
	dense := make([]float32, out*in)
	for i := range dense {
		dense[i] = float32(rng.NormFloat64())
	}
	for _, bits := range []int{2, 3, 4, 5, 6, 8} {
		for _, group := range []int{32, 64, 128} {
			w, err := Quantize(dense, out, in, bits, group)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			d := w.Dense()
			for i := range d {
				g := (i/in)*(in/group) + (i%in)/group
				// Each weight decodes to the nearest point of its group's grid bias + q·scale, q = 0..2^bits−1
				// (the grid ends at the edge exactly; the far end may fall short of the group's other extreme).
				s, b := float64(w.Scales[g]), float64(w.Biases[g])
				lo, hi := b, b+s*float64(int(1)<<bits-1)
				if lo > hi {
					lo, hi = hi, lo
				}
				v := math.Min(math.Max(float64(dense[i]), lo), hi)
				if e := math.Abs(float64(d[i]) - v); e > math.Abs(s)*0.5001+1e-6 {
					t.Fatalf("bits %d group %d weight %d: %v → %v (grid %v + q·%v)", bits, group, i, dense[i], d[i], b, s)
				}
			}
		}
	}
	if _, err := Quantize(dense, out, in, 7, 64); err == nil {
		t.Error("Quantize accepted 7 bits")
	}
	dense[3] = float32(math.Inf(1))
	if _, err := Quantize(dense, out, in, 4, 64); err == nil {
		t.Error("Quantize accepted an infinite weight")
	}
}

func BenchmarkMatMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	w := randomWeights(b, rng, 4, 64, 4096, 4096)
	x, y := make([]float32, 4096), make([]float32, 4096)
	for b.Loop() {
		w.MatMul(y, x, 1)
	}
	b.ReportMetric(float64(4096*4096)*float64(b.N)/b.Elapsed().Seconds(), "weights/s")
}

// TestOutputRows: a block of output rows decodes to those rows of the whole.
func TestOutputRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := randomWeights(t, rng, 3, 32, 6, 64)
	part, err := w.OutputRows(4, 2)
	if err != nil {
		t.Fatal(err)
	}
	whole, got := make([]float32, w.In), make([]float32, w.In)
	for r := range 2 {
		w.DecodeRow(4+r, whole)
		part.DecodeRow(r, got)
		for c := range got {
			if got[c] != whole[c] {
				t.Fatalf("part row %d col %d = %g, the whole's row %d has %g", r, c, got[c], 4+r, whole[c])
			}
		}
	}
	if _, err := w.OutputRows(5, 2); !errors.Is(err, ErrFormat) {
		t.Errorf("rows past the end: %v", err)
	}
}
