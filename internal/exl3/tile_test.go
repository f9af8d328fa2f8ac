package exl3

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// packTile is the converter's packing (pack.cu's pack_trellis) done bit by bit: the 256 codes' K bits each, in
// order, most significant first, form one stream; its 16-bit halves are stored with each pair swapped (SWAP16 of
// every 32-bit word).
func packTile(codes []uint16, k int) []uint16 {
	bits := make([]bool, 0, TileSize*k)
	for _, v := range codes {
		for b := k - 1; b >= 0; b-- {
			bits = append(bits, v>>b&1 != 0)
		}
	}
	halves := make([]uint16, len(bits)/16)
	for i, set := range bits {
		if set {
			halves[i/16] |= 1 << (15 - i%16)
		}
	}
	stored := make([]uint16, len(halves))
	for m := 0; m < len(halves); m += 2 {
		stored[m], stored[m+1] = halves[m+1], halves[m]
	}
	return stored
}

// streamState is position t's 16-bit window read bit by bit from the codes: the 16 stream bits ending at
// (t+1)·K, wrapping, the earliest most significant.
func streamState(codes []uint16, k, t int) uint16 {
	n := TileSize * k
	bit := func(p int) uint16 {
		p = (p%n + n) % n
		return codes[p/k] >> (k - 1 - p%k) & 1
	}
	var s uint16
	for p := (t+1)*k - StateBits; p < (t+1)*k; p++ {
		s = s<<1 | bit(p)
	}
	return s
}

func TestStateHandCase(t *testing.T) {
	// K 2: only the stream's first bit set. Stored element 1 is the first 16-bit half (the pair is swapped),
	// its top bit stream bit 0, so code 0 is 0b10.
	tile := make([]uint16, 16*2)
	tile[1] = 0x8000
	for _, c := range []struct {
		t    int
		want uint16
	}{{0, 0b10}, {1, 0b1000}, {7, 0x8000}, {8, 0}, {255, 0}} {
		if got := State(tile, 2, c.t); got != c.want {
			t.Errorf("state %d = %#x, want %#x", c.t, got, c.want)
		}
	}
}

// TestStateAgainstPacker: for every K, random codes packed as the converter packs them read back as the
// windows of the code stream; each state's low K bits are its own code and the states form the shift register
// s_t = (s_{t−1}·2^K + v_t) mod 2^16, wrapping at the tile's end (tail-biting).
func TestStateAgainstPacker(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := MinK; k <= MaxK; k++ {
		for range 20 {
			codes := make([]uint16, TileSize)
			for i := range codes {
				codes[i] = uint16(rng.IntN(1 << k))
			}
			tile := packTile(codes, k)
			if got := Pack(codes, k); !slices.Equal(got, tile) {
				t.Fatalf("K %d: Pack differs from the converter's packing", k)
			}
			for pos := range TileSize {
				got := State(tile, k, pos)
				if want := streamState(codes, k, pos); got != want {
					t.Fatalf("K %d position %d: state %#x, want %#x", k, pos, got, want)
				}
				if got&(1<<k-1) != codes[pos] {
					t.Fatalf("K %d position %d: low bits %#x, code %#x", k, pos, got&(1<<k-1), codes[pos])
				}
				prev := State(tile, k, (pos+TileSize-1)%TileSize)
				if want := uint16(uint32(prev)<<k | uint32(codes[pos])); got != want {
					t.Fatalf("K %d position %d: state %#x does not follow %#x", k, pos, got, prev)
				}
			}
		}
	}
}

func TestPosition(t *testing.T) {
	for _, c := range []struct{ t, r, c int }{
		{0, 0, 0}, {1, 1, 0}, {2, 8, 0}, {3, 9, 0}, {4, 0, 8}, {7, 9, 8}, {8, 2, 0}, {31, 15, 8}, {32, 0, 1}, {255, 15, 15},
	} {
		if r, col := Position(c.t); r != c.r || col != c.c {
			t.Errorf("Position(%d) = (%d, %d), want (%d, %d)", c.t, r, col, c.r, c.c)
		}
	}
	seen := map[[2]int]bool{}
	for p := range TileSize {
		r, c := Position(p)
		seen[[2]int{r, c}] = true
	}
	if len(seen) != TileSize {
		t.Errorf("positions cover %d of the tile's 256 weights", len(seen))
	}
	// The quantizer's tensor_core_perm (quantize.py) written out: lane l holds rows 2(l%4), +1, +8, +9 of
	// columns l/4 and l/4+8.
	for l := range 32 {
		r0, c0 := l%4*2, l/4
		want := [8][2]int{{r0, c0}, {r0 + 1, c0}, {r0 + 8, c0}, {r0 + 9, c0}, {r0, c0 + 8}, {r0 + 1, c0 + 8}, {r0 + 8, c0 + 8}, {r0 + 9, c0 + 8}}
		for j, w := range want {
			if r, c := Position(8*l + j); r != w[0] || c != w[1] {
				t.Errorf("Position(%d) = (%d, %d), want %v", 8*l+j, r, c, w)
			}
		}
	}
}

func TestGeometry(t *testing.T) {
	g, err := NewGeometry([]int{32, 96, 48})
	if err != nil || g != (Geometry{TilesK: 32, TilesN: 96, K: 3}) || g.PadIn() != 512 || g.PadOut() != 1536 || g.TileLen() != 48 {
		t.Errorf("geometry %+v, %v", g, err)
	}
	for _, shape := range [][]int{{32, 96}, {32, 96, 40}, {32, 96, 0}, {32, 96, 144}, {0, 8, 32}, {12, 8, 32}, {8, 4, 32}, {8, -8, 32}} {
		if _, err := NewGeometry(shape); err == nil {
			t.Errorf("shape %v accepted", shape)
		}
	}
}
