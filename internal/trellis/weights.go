// Package trellis holds the QTIP trellis-code weight format: its spec and geometry, the packed bitstream, the 1MAD
// code, the reference decode arithmetic every kernel is verified against, and the Viterbi encoder.
//
// This file is the format's shape: the spec a config names, the geometry a stored tensor implies (derived and
// rejected exactly where the reference loader does, plus the limits this package's decoder and encoder have), and
// where each coded block's words lie in the stored bitstream. docs/trellis-format.md is the prose version.
package trellis

import (
	"errors"
	"fmt"
	"math"
)

// ErrFormat is wrapped by every rejection of a spec, a stored shape or a word/scale count.
var ErrFormat = errors.New("trellis format")

// Limits of the format as this package decodes and encodes it.
const (
	MaxL = 16 // state bits: the encoder's tables are 2^L entries and every window fits one 64-bit read
	MinK = 1  // bits per weight
	MaxK = 8  // the encoder's backpointers are one byte (2^K predecessors)

	// The 3-bit axis-0 block interleave: stored [Cols/512, Rows, 48]; each 48-word row segment holds two consecutive
	// 256-position blocks of one coded row, block 2g in words [0, 24) and block 2g+1 in words [24, 48).
	InterleaveCols  = 512
	InterleaveWords = 48
)

// Spec is one tensor's quantization parameters as the config's quantization block gives them.
type Spec struct {
	K    int    // bits per weight
	L    int    // trellis state bits (window length)
	T    int    // positions per coded block (the config's group_size)
	Code string // "1mad"
	Axis int    // 1: coded along the input dim (stored [out, in·k/32]); 0: along the output dim (stored Wᵀ)
}

// Geometry is a spec bound to a matrix: Rows coded rows of Cols positions each.
// Axis 1: Rows = out features, Cols = in features. Axis 0: Rows = in features, Cols = out features.
type Geometry struct {
	Spec
	Rows, Cols  int
	Interleaved bool // 3-bit axis-0 block interleave [Cols/512, Rows, 48]
}

// Weights is a trellis-coded matrix in host memory.
type Weights struct {
	Geometry
	Words  []uint32  // the bitstream as stored
	Scales []float32 // per-row scales (fp16 in files, widened exactly)
}

// codes lists the code names this package decodes; the value is the code's documentation name.
var codes = map[string]string{"1mad": "QTIP 1MAD computed code"}

// Validate reports whether the spec is one this package can decode and encode: a known code, 1 ≤ K ≤ 8,
// K ≤ L ≤ 16, axis 0 or 1, and blocks of a whole number of 32-bit words (T·K % 32 == 0).
func (s Spec) Validate() error {
	if _, ok := codes[s.Code]; !ok {
		return fmt.Errorf("%w: unknown code %q (known: 1mad)", ErrFormat, s.Code)
	}
	if s.K < MinK || s.K > MaxK {
		return fmt.Errorf("%w: bits k=%d outside %d..%d", ErrFormat, s.K, MinK, MaxK)
	}
	if s.L > MaxL {
		return fmt.Errorf("%w: L=%d > %d state bits", ErrFormat, s.L, MaxL)
	}
	if s.L < s.K {
		return fmt.Errorf("%w: L=%d < k=%d (a state must hold the bits it shifts in)", ErrFormat, s.L, s.K)
	}
	if s.Axis != 0 && s.Axis != 1 {
		return fmt.Errorf("%w: axis %d (want 0 or 1)", ErrFormat, s.Axis)
	}
	if s.T < 1 {
		return fmt.Errorf("%w: block T=%d", ErrFormat, s.T)
	}
	// T ≤ 2^24 keeps every bit offset of a block inside an int32 and T·K far from overflow.
	if s.T > 1<<24 {
		return fmt.Errorf("%w: block T=%d too large", ErrFormat, s.T)
	}
	if s.T*s.K%32 != 0 {
		return fmt.Errorf("%w: T·k = %d·%d = %d not a multiple of 32", ErrFormat, s.T, s.K, s.T*s.K)
	}
	return nil
}

// WordsPerBlock is T·K/32, the uint32 words of one coded block.
func (s Spec) WordsPerBlock() int { return s.T * s.K / 32 }

// interleavable reports whether the spec is the one the block interleave exists for (the seeds accept no other).
func (s Spec) interleavable() bool {
	return s.Axis == 0 && s.K == 3 && s.T == 256 && s.L == 12 && s.Code == "1mad"
}

// NewGeometry derives Rows and Cols from the stored shape of `<path>.weight`:
//   - 2-D [rows, words]: cols = words·32/k, which must be whole and a multiple of T;
//   - 3-D [groups, rows, 48]: the block interleave, accepted only for axis 0, k 3, T 256, L 12, code 1mad;
//     cols = groups·512.
//
// Every other shape is an error, as is any spec Validate rejects.
func NewGeometry(spec Spec, wordsShape []int) (Geometry, error) {
	if err := spec.Validate(); err != nil {
		return Geometry{}, err
	}
	for _, d := range wordsShape {
		if d < 1 {
			return Geometry{}, fmt.Errorf("%w: stored shape %v has an empty or negative dimension", ErrFormat, wordsShape)
		}
	}
	switch len(wordsShape) {
	case 3:
		groups, rows, words := wordsShape[0], wordsShape[1], wordsShape[2]
		if !spec.interleavable() || words != InterleaveWords {
			return Geometry{}, fmt.Errorf("%w: interleaved shape %v needs axis 0, k 3, T 256, L 12, 1mad and 48 words"+
				" (have axis %d, k %d, T %d, L %d, %s)", ErrFormat, wordsShape, spec.Axis, spec.K, spec.T, spec.L, spec.Code)
		}
		if groups > math.MaxInt32/InterleaveCols || rows > math.MaxInt32 {
			return Geometry{}, fmt.Errorf("%w: interleaved shape %v too large", ErrFormat, wordsShape)
		}
		g := Geometry{Spec: spec, Rows: rows, Cols: groups * InterleaveCols, Interleaved: true}
		return g, g.checkSize()
	case 2:
		rows, words := wordsShape[0], wordsShape[1]
		if words > math.MaxInt32/32 {
			return Geometry{}, fmt.Errorf("%w: %d words per row too large", ErrFormat, words)
		}
		if words*32%spec.K != 0 {
			return Geometry{}, fmt.Errorf("%w: %d words not a whole number of %d-bit symbols", ErrFormat, words, spec.K)
		}
		cols := words * 32 / spec.K
		if cols%spec.T != 0 {
			return Geometry{}, fmt.Errorf("%w: %d coded columns not a multiple of block %d", ErrFormat, cols, spec.T)
		}
		g := Geometry{Spec: spec, Rows: rows, Cols: cols}
		return g, g.checkSize()
	default:
		return Geometry{}, fmt.Errorf("%w: stored shape %v: expected 2-D [rows, words] or interleaved 3-D [groups, rows, 48]",
			ErrFormat, wordsShape)
	}
}

// checkSize rejects a geometry whose word count would overflow an int.
func (g Geometry) checkSize() error {
	if g.Rows > math.MaxInt/2/max(1, g.WordsPerRow()) {
		return fmt.Errorf("%w: %d rows × %d words per row overflows", ErrFormat, g.Rows, g.WordsPerRow())
	}
	return nil
}

// Validate checks a geometry built by hand (not by NewGeometry) the way NewGeometry would have.
func (g Geometry) Validate() error {
	if g.Rows < 1 || g.Cols < 1 {
		return fmt.Errorf("%w: geometry %d×%d is empty", ErrFormat, g.Rows, g.Cols)
	}
	if g.Cols > math.MaxInt32 {
		return fmt.Errorf("%w: %d coded columns too large", ErrFormat, g.Cols)
	}
	shape, err := g.storedShape()
	if err != nil {
		return err
	}
	back, err := NewGeometry(g.Spec, shape)
	if err != nil {
		return err
	}
	if back != g {
		return fmt.Errorf("%w: geometry %+v is not the one its stored shape %v implies", ErrFormat, g, shape)
	}
	return nil
}

// storedShape is the `.weight` tensor shape the geometry is stored as.
func (g Geometry) storedShape() ([]int, error) {
	if g.Interleaved {
		if g.Cols%InterleaveCols != 0 {
			return nil, fmt.Errorf("%w: interleaved geometry with %d columns (not a multiple of %d)", ErrFormat, g.Cols, InterleaveCols)
		}
		return []int{g.Cols / InterleaveCols, g.Rows, InterleaveWords}, nil
	}
	if g.Cols%g.T != 0 || g.T*g.K%32 != 0 {
		return nil, fmt.Errorf("%w: %d columns are not whole blocks of %d", ErrFormat, g.Cols, g.T)
	}
	return []int{g.Rows, g.WordsPerRow()}, nil
}

// StoredShape is the `.weight` tensor shape ([Rows, Cols·K/32], or [Cols/512, Rows, 48] when interleaved).
func (g Geometry) StoredShape() []int {
	s, err := g.storedShape()
	if err != nil {
		panic(fmt.Sprintf("trellis: StoredShape of an invalid geometry: %v", err))
	}
	return s
}

// InFeatures is the linear layer's input width (Cols on axis 1, Rows on axis 0).
func (g Geometry) InFeatures() int {
	if g.Axis == 1 {
		return g.Cols
	}
	return g.Rows
}

// OutFeatures is the linear layer's output width (Rows on axis 1, Cols on axis 0).
func (g Geometry) OutFeatures() int {
	if g.Axis == 1 {
		return g.Rows
	}
	return g.Cols
}

// WordsPerRow is Cols·K/32: the words one coded row owns, in either layout (interleaved rows own them in
// 48-word segments spread across the groups).
func (g Geometry) WordsPerRow() int { return g.Cols * g.K / 32 }

// Blocks is the number of coded blocks in one row (Cols/T).
func (g Geometry) Blocks() int { return g.Cols / g.T }

// Words is the total stored word count, Rows·WordsPerRow.
func (g Geometry) Words() int { return g.Rows * g.WordsPerRow() }

// blockOffset is the index in the stored words of the first word of block b of coded row r; the block's
// WordsPerBlock words follow contiguously in both layouts.
func (g Geometry) blockOffset(r, b int) int {
	wpb := g.WordsPerBlock()
	if g.Interleaved {
		return ((b/2)*g.Rows+r)*InterleaveWords + (b%2)*wpb
	}
	return r*g.WordsPerRow() + b*wpb
}

// NewWeights binds a geometry to its stored words (len Rows·WordsPerRow, in the stored layout) and scales
// (len Rows, one per coded row). The slices are kept, not copied.
func NewWeights(g Geometry, words []uint32, scales []float32) (*Weights, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if len(words) != g.Words() {
		return nil, fmt.Errorf("%w: %d words for %v (want %d)", ErrFormat, len(words), g.StoredShape(), g.Words())
	}
	if len(scales) != g.Rows {
		return nil, fmt.Errorf("%w: %d scales for %d coded rows (one per stored row)", ErrFormat, len(scales), g.Rows)
	}
	return &Weights{Geometry: g, Words: words, Scales: scales}, nil
}

// Block returns the WordsPerBlock words of block b of coded row r (a view of w.Words).
func (w *Weights) Block(r, b int) []uint32 {
	if r < 0 || r >= w.Rows || b < 0 || b >= w.Blocks() {
		panic(fmt.Sprintf("trellis: block (%d, %d) outside %d rows × %d blocks", r, b, w.Rows, w.Blocks()))
	}
	off := w.blockOffset(r, b)
	return w.Words[off : off+w.WordsPerBlock()]
}

// OutputRows is the linear layer of output features [start, start+n) alone: for a fused projection (Phi-3's
// qkv_proj, gate_up_proj) split into its parts. On axis 1 a coded row is one output feature and rows are coded
// independently, so the part is a row block of the words and of the scales (views of w's, not copies). Axis 0
// codes along the outputs; splitting it would cut coded rows, which is refused.
func (w *Weights) OutputRows(start, n int) (*Weights, error) {
	if w.Axis != 1 {
		return nil, fmt.Errorf("%w: output rows of a matrix coded along axis %d (only axis 1 splits by rows)", ErrFormat, w.Axis)
	}
	if start < 0 || n < 1 || start+n > w.Rows {
		return nil, fmt.Errorf("%w: output rows [%d, %d) outside %d", ErrFormat, start, start+n, w.Rows)
	}
	g := w.Geometry
	g.Rows = n
	wpr := w.WordsPerRow()
	return NewWeights(g, w.Words[start*wpr:(start+n)*wpr], w.Scales[start:start+n])
}
