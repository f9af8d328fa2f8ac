// The layout of a stored .trellis tensor (docs/exl3-format.md sections 2–3): int16 [in/16, out/16, 16·K], one
// tile of 16×16 weights per (input block, output block), each tile a tail-biting bitstream of 256 K-bit codes read
// as 16-bit windows, its positions in the tensor-core order of exllamav3's kernels.
package exl3

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every rejection of a stored EXL3 tensor.
var ErrFormat = errors.New("exl3 format")

// Shape constants of the format.
const (
	TileSide  = 16            // a tile is TileSide input features × TileSide output features
	TileSize  = 256           // positions per tile
	StateBits = 16            // every position's state is a 16-bit window (QTIP's L = 16)
	Block     = 128           // the Hadamard block of both sides; layer dims are padded to multiples of it
	MinK      = 1             // bits per weight
	MaxK      = 8             // exllamav3's kernels are instantiated for K 1..8
	tileWords = TileSize / 32 // uint32 words per tile per bit of K
	maxDim    = 1 << 24       // a bound far above any model, so products of dims cannot overflow
	tilesPerB = Block / TileSide
)

// Geometry is a .trellis tensor's shape: TilesK × TilesN tiles, K bits per weight (K = last dim / 16).
type Geometry struct {
	TilesK, TilesN, K int
}

// NewGeometry derives the geometry of a .trellis tensor of the given shape, rejecting (wrapping ErrFormat) any
// shape exllamav3's loader and kernels do not take: rank other than 3, a last dim that is not 16·K for K in 1..8,
// and padded dims that are not whole Hadamard blocks (exllamav3 pads every EXL3 linear to multiples of 128).
func NewGeometry(shape []int) (Geometry, error) {
	if len(shape) != 3 {
		return Geometry{}, fmt.Errorf("%w: trellis shape %v, want [in/16, out/16, 16·K]", ErrFormat, shape)
	}
	g := Geometry{TilesK: shape[0], TilesN: shape[1], K: shape[2] / TileSide}
	switch {
	case shape[2]%TileSide != 0 || g.K < MinK || g.K > MaxK:
		return g, fmt.Errorf("%w: trellis last dim %d is not 16·K for K in %d..%d", ErrFormat, shape[2], MinK, MaxK)
	case g.TilesK <= 0 || g.TilesN <= 0 || g.TilesK > maxDim/TileSide || g.TilesN > maxDim/TileSide:
		return g, fmt.Errorf("%w: trellis shape %v has an empty or oversized dimension", ErrFormat, shape)
	case g.TilesK%tilesPerB != 0 || g.TilesN%tilesPerB != 0:
		return g, fmt.Errorf("%w: trellis of %d×%d features: both must be multiples of the Hadamard block %d",
			ErrFormat, g.PadIn(), g.PadOut(), Block)
	}
	return g, nil
}

// PadIn and PadOut are the stored (padded) input and output features.
func (g Geometry) PadIn() int  { return g.TilesK * TileSide }
func (g Geometry) PadOut() int { return g.TilesN * TileSide }

// TileLen is the int16 elements of one tile: 256·K bits.
func (g Geometry) TileLen() int { return TileSide * g.K }

// Len is the int16 elements of the whole tensor.
func (g Geometry) Len() int { return g.TilesK * g.TilesN * g.TileLen() }

// Tile is tile (kb, nb)'s elements of the stored tensor: input features kb·16.., output features nb·16...
func (g Geometry) Tile(data []uint16, kb, nb int) []uint16 {
	o := (kb*g.TilesN + nb) * g.TileLen()
	return data[o : o+g.TileLen()]
}

// State is the 16-bit state of position t (0..255) of one tile's packed data (16·K int16 as stored). The tile is
// one bitstream of 256·K bits, most significant bit first within 32-bit words, word m being elements 2m (low
// half) and 2m+1 (high half) read little-endian; position t's own K bits end at stream bit (t+1)·K and its state
// is the 16 bits ending there, wrapping past the stream's start (tail-biting), the earliest bit most significant.
func State(tile []uint16, k, t int) uint16 {
	n := tileWords * k
	word := func(m int) uint64 { m %= n; return uint64(tile[2*m]) | uint64(tile[2*m+1])<<16 }
	b0 := (t+1)*k - StateBits + TileSize*k // first bit of the window, kept non-negative
	b1 := b0 + StateBits                   // one past its last bit
	i0, i1 := b0/32, (b1-1)/32
	merged := word(i0)<<32 | word(i1)
	return uint16(merged >> ((i1+1)*32 - b1))
}

// Position is where tile position t's weight lies in the tile: input feature r and output feature c (both
// 0..15). Positions come eight to a lane of the tensor-core fragment: t = 8·lane + j.
func Position(t int) (r, c int) {
	lane, j := t/8, t%8
	r = lane%4*2 + j&1 + 8*(j>>1&1)
	c = lane/4 + 8*(j>>2)
	return r, c
}

// tileOffsets are where decodeTile puts each position: r·rowStride + c·colStride for its weight (r, c).
func tileOffsets(rowStride, colStride int) *[TileSize]int {
	var off [TileSize]int
	for t := range off {
		r, c := Position(t)
		off[t] = r*rowStride + c*colStride
	}
	return &off
}

// decodeTile writes one tile's 256 weights of the inner matrix into dst at the offsets (tileOffsets), decoded with
// codebook table tab. The states come from reading the stream once: s_t = (s_{t−1}·2^K + v_t) mod 2^16 from
// s_{−1} = s_255 (the tail-biting wrap), which State's windows equal (TestStateAgainstPacker).
func (g Geometry) decodeTile(dst []float32, off *[TileSize]int, tile []uint16, tab []float32) {
	k := g.K
	s := uint32(State(tile, k, TileSize-1))
	var buf uint64
	bits, wi := 0, 0
	mask := uint32(1)<<k - 1
	for _, o := range off {
		if bits < k {
			buf = buf<<32 | uint64(tile[2*wi]) | uint64(tile[2*wi+1])<<16
			wi++
			bits += 32
		}
		bits -= k
		s = (s<<k | uint32(buf>>bits)&mask) & 0xffff
		dst[o] = tab[s]
	}
}

// Pack is the inverse of State: the stored tile (16·K int16) whose position t has code codes[t] (its low K
// bits), the layout exllamav3's converter writes (pack.cu). Tests and tools use it to make tiles from codes.
func Pack(codes []uint16, k int) []uint16 {
	if len(codes) != TileSize || k < MinK || k > MaxK {
		panic(fmt.Sprintf("exl3: Pack of %d codes at K %d", len(codes), k))
	}
	words := make([]uint32, tileWords*k)
	for t, v := range codes {
		for b := range k {
			if v>>(k-1-b)&1 != 0 {
				p := t*k + b
				words[p/32] |= 1 << (31 - p%32)
			}
		}
	}
	tile := make([]uint16, 2*len(words))
	for m, w := range words {
		tile[2*m], tile[2*m+1] = uint16(w), uint16(w>>16)
	}
	return tile
}
