// This file is the encoder: a tail-biting Viterbi search over the bitshift trellis (QTIP's two-pass scheme) that
// picks each block's state path, the per-row scale, the packing of paths into the stored bitstream, and Quantize,
// which takes a dense linear weight in either orientation to stored codes.
package trellis

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// scaleFactorL12 is the first-pass row scale as a multiple of the row's RMS, per k (index k), at L 12. The search
// runs on the row divided by RMS·factor, then the least-squares refit sets the stored scale. A factor above one
// shrinks the target inside the code's bounded range (|value| ≤ 510/147.8 ≈ 3.45): the more bits, the more the
// clipped tails cost against the rest, so the factor grows with k. Measured as the MSE minimum over factors in
// steps of 0.05 on unit-Gaussian rows, T 256 (BenchmarkScaleFactorSweep; docs/trellis-format.md).
var scaleFactorL12 = [MaxK + 1]float64{1: 0.87, 2: 1.05, 3: 1.10, 4: 1.15, 5: 1.25, 6: 1.35, 7: 1.5, 8: 1.6}

// scaleFactor is scaleFactorL12 moved for L: a longer trellis reaches further into the tails itself, and the best
// factor measured 0.05 lower at L 16 than at L 12 for k 2, 3 and 4.
func scaleFactor(k, L int) float64 {
	return max(0.8, scaleFactorL12[k]-0.0125*float64(L-12))
}

// bigCost marks a state the tail-biting constraint forbids. It is finite, so sums of it stay finite and keep
// ordering as integers in minGroups, and far above any real path cost (T·(max distortion) ≪ 1e30).
const bigCost float32 = 1e30

// viterbi is one worker's scratch for encoding blocks of one spec: every buffer is allocated once and reused for
// each block, so the search allocates nothing per block or per step.
type viterbi struct {
	K, L, T int
	cb      []float32 // 2^L code values Value1MAD(s)
	cost    []float32 // 2^L path costs
	next    []float32
	bp      []uint8 // T × 2^(L−K): for step t and successor group g, the winning predecessor's top K bits
	rolled  []float32
	path    []uint32
	mins    []uint32 // 2^(L−K) best predecessor cost per successor group
}

func newViterbi(spec Spec) *viterbi {
	n, G := 1<<spec.L, 1<<(spec.L-spec.K)
	return &viterbi{
		K: spec.K, L: spec.L, T: spec.T,
		cb:   tablesFor(spec.L).value,
		cost: make([]float32, n), next: make([]float32, n),
		bp:     make([]uint8, spec.T*G),
		rolled: make([]float32, spec.T),
		path:   make([]uint32, spec.T),
		mins:   make([]uint32, G),
	}
}

// search finds the state path s_0..s_{T−1} minimising Σ_t (x_t − c(s_t))² over the bitshift trellis
// (s_{t+1} = (s_t << K | any K bits) mod 2^L) and writes it to states (len T). overlap < 0 leaves both ends free;
// otherwise the path must start in a state whose top L−K bits are overlap and end in one whose low L−K bits are
// overlap, which makes it tail-biting. O(2^L·T) time.
//
// Costs are f32. To pick a successor group's best predecessor (states h·2^(L−K) + g, h = 0..2^K−1) branch-free,
// minGroups compares them as uint32 (for non-negative floats the bit patterns order like the values) with each
// cost's K lowest mantissa bits replaced by its h: one integer min yields both the best cost and which h won. The
// tag perturbs a cost by under 2^(K−23) relative, far below any distortion difference that matters.
func (v *viterbi) search(x []float32, overlap int, states []uint32) {
	K, L, T := v.K, v.L, v.T
	n, G, H := 1<<L, 1<<(L-K), 1<<K
	shift := uint(L - K)
	cb := v.cb[:n]
	cost, next := v.cost[:n], v.next[:n]

	for s := range cost {
		d := x[0] - cb[s]
		cost[s] = d * d
		if overlap >= 0 && s>>K != overlap {
			cost[s] = bigCost
		}
	}
	mins := v.mins[:G]
	for t := 1; t < T; t++ {
		minGroups(mins, cost, H)
		extend(next, cb, mins, v.bp[t*G:(t+1)*G], x[t], K)
		cost, next = next, cost
	}

	best, bestCost := 0, float32(math.Inf(1))
	low := 1<<shift - 1
	for s, c := range cost {
		if overlap >= 0 && s&low != overlap {
			continue
		}
		if c < bestCost {
			best, bestCost = s, c
		}
	}
	states[T-1] = uint32(best)
	for t := T - 1; t > 0; t-- {
		g := states[t] >> uint(K)
		states[t-1] = uint32(v.bp[t*G+int(g)])<<shift | g
	}
}

// minGroups sets mins[g] (len G) to the least tagged cost over the predecessors h·G+g, h = 0..H−1, of each
// successor group g: the cost's f32 bits with the K low bits replaced by h. The minimum then carries the winning h.
// Kept out of search so its loops run in registers.
func minGroups(mins []uint32, cost []float32, H int) {
	G := len(mins)
	keep := ^uint32(H - 1)
	row := func(h int) []float32 { return cost[h*G : (h+1)*G] }
	if H == 2 { // K 1; every other K ≥ 2 has a multiple of four predecessors
		minFirst2(mins, row(0), row(1), keep)
		return
	}
	minFirst4(mins, row(0), row(1), row(2), row(3), keep)
	for h := 4; h < H; h += 4 {
		minNext4(mins, row(h), row(h+1), row(h+2), row(h+3), keep, uint32(h))
	}
}

// minFirst2, minFirst4 and minNext4 are minGroups' passes over two or four predecessor rows (row h
// tagged h), each an out-of-line leaf so its loop keeps everything in registers. Four rows per pass amortise the
// load and store of mins.
//
//go:noinline
func minFirst2(mins []uint32, a, b []float32, keep uint32) {
	a, b = a[:len(mins)], b[:len(mins)]
	for g := range mins {
		mins[g] = min(math.Float32bits(a[g])&keep, math.Float32bits(b[g])&keep|1)
	}
}

//go:noinline
func minFirst4(mins []uint32, a, b, c, d []float32, keep uint32) {
	a, b, c, d = a[:len(mins)], b[:len(mins)], c[:len(mins)], d[:len(mins)]
	for g := range mins {
		mins[g] = min(math.Float32bits(a[g])&keep, math.Float32bits(b[g])&keep|1,
			math.Float32bits(c[g])&keep|2, math.Float32bits(d[g])&keep|3)
	}
}

//go:noinline
func minNext4(mins []uint32, a, b, c, d []float32, keep, h uint32) {
	a, b, c, d = a[:len(mins)], b[:len(mins)], c[:len(mins)], d[:len(mins)]
	h1, h2, h3 := h+1, h+2, h+3
	for g, m := range mins {
		mins[g] = min(m, math.Float32bits(a[g])&keep|h, math.Float32bits(b[g])&keep|h1,
			math.Float32bits(c[g])&keep|h2, math.Float32bits(d[g])&keep|h3)
	}
}

// extend writes every successor s = g·2^K + b its group's best cost mins[g] (tag bits and all: they perturb it by
// under 2^(K−23) relative) plus its distortion (x − cb[s])², and records each group's winning predecessor in bp.
// extendByK holds versions with the group size a constant for the common widths.
func extend(next, cb []float32, mins []uint32, bp []uint8, x float32, K int) {
	if K < len(extendByK) && extendByK[K] != nil {
		extendByK[K](next, cb, mins, bp, x)
		return
	}
	extendAny(next, cb, mins, bp, x, K)
}

var extendByK = [...]func(next, cb []float32, mins []uint32, bp []uint8, x float32){
	1: extend1, 2: extend2, 3: extend3, 4: extend4,
}

//go:noinline
func extendAny(next, cb []float32, mins []uint32, bp []uint8, x float32, K int) {
	k := uint(K) & 31
	hmask := uint32(1)<<k - 1
	next = next[:len(cb)]
	for s, c := range cb {
		d := x - c
		next[s] = math.Float32frombits(mins[s>>k]) + float32(d*d)
	}
	bp = bp[:len(mins)]
	for g, m := range mins {
		bp[g] = uint8(m & hmask)
	}
}

// The squared errors are converted to float32 before they are added: Go may fuse a*b+c into one rounding on
// some targets (arm64, amd64 v3), and an explicit conversion forbids it, so every platform finds the same codes.
//
//go:noinline
func extend1(next, cb []float32, mins []uint32, bp []uint8, x float32) {
	cg, ng := groupsOf[[2]float32](cb)[:len(mins)], groupsOf[[2]float32](next)[:len(mins)]
	bp = bp[:len(mins)]
	for g, m := range mins {
		bp[g] = uint8(m & 1)
		mf := math.Float32frombits(m)
		c, n := &cg[g], &ng[g]
		d0, d1 := x-c[0], x-c[1]
		n[0], n[1] = mf+float32(d0*d0), mf+float32(d1*d1)
	}
}

//go:noinline
func extend2(next, cb []float32, mins []uint32, bp []uint8, x float32) {
	cg, ng := groupsOf[[4]float32](cb)[:len(mins)], groupsOf[[4]float32](next)[:len(mins)]
	bp = bp[:len(mins)]
	for g, m := range mins {
		bp[g] = uint8(m & 3)
		mf := math.Float32frombits(m)
		c, n := &cg[g], &ng[g]
		d0, d1, d2, d3 := x-c[0], x-c[1], x-c[2], x-c[3]
		n[0], n[1], n[2], n[3] = mf+float32(d0*d0), mf+float32(d1*d1), mf+float32(d2*d2), mf+float32(d3*d3)
	}
}

//go:noinline
func extend3(next, cb []float32, mins []uint32, bp []uint8, x float32) {
	cg, ng := groupsOf[[8]float32](cb)[:len(mins)], groupsOf[[8]float32](next)[:len(mins)]
	bp = bp[:len(mins)]
	for g, m := range mins {
		bp[g] = uint8(m & 7)
		mf := math.Float32frombits(m)
		c, n := &cg[g], &ng[g]
		d0, d1, d2, d3 := x-c[0], x-c[1], x-c[2], x-c[3]
		n[0], n[1], n[2], n[3] = mf+float32(d0*d0), mf+float32(d1*d1), mf+float32(d2*d2), mf+float32(d3*d3)
		d4, d5, d6, d7 := x-c[4], x-c[5], x-c[6], x-c[7]
		n[4], n[5], n[6], n[7] = mf+float32(d4*d4), mf+float32(d5*d5), mf+float32(d6*d6), mf+float32(d7*d7)
	}
}

//go:noinline
func extend4(next, cb []float32, mins []uint32, bp []uint8, x float32) {
	cg, ng := groupsOf[[16]float32](cb)[:len(mins)], groupsOf[[16]float32](next)[:len(mins)]
	bp = bp[:len(mins)]
	for g, m := range mins {
		bp[g] = uint8(m & 15)
		mf := math.Float32frombits(m)
		c, n := &cg[g], &ng[g]
		d0, d1, d2, d3 := x-c[0], x-c[1], x-c[2], x-c[3]
		n[0], n[1], n[2], n[3] = mf+float32(d0*d0), mf+float32(d1*d1), mf+float32(d2*d2), mf+float32(d3*d3)
		d4, d5, d6, d7 := x-c[4], x-c[5], x-c[6], x-c[7]
		n[4], n[5], n[6], n[7] = mf+float32(d4*d4), mf+float32(d5*d5), mf+float32(d6*d6), mf+float32(d7*d7)
		d8, d9, d10, d11 := x-c[8], x-c[9], x-c[10], x-c[11]
		n[8], n[9], n[10], n[11] = mf+float32(d8*d8), mf+float32(d9*d9), mf+float32(d10*d10), mf+float32(d11*d11)
		d12, d13, d14, d15 := x-c[12], x-c[13], x-c[14], x-c[15]
		n[12], n[13], n[14], n[15] = mf+float32(d12*d12), mf+float32(d13*d13), mf+float32(d14*d14), mf+float32(d15*d15)
	}
}

// groupsOf views a []float32 as consecutive fixed-size groups (A is [H]float32), so the extend loops index a
// group with one bounds check the compiler can drop, instead of re-slicing per group. The view shares s's memory
// and covers len(s)/H whole groups; [H]float32 has float32's alignment.
func groupsOf[A any](s []float32) []A {
	var a A
	n := int(unsafe.Sizeof(a) / unsafe.Sizeof(float32(0)))
	if len(s) < n {
		return nil
	}
	return unsafe.Slice((*A)(unsafe.Pointer(unsafe.SliceData(s))), len(s)/n)
}

// encodeBlock chooses the tail-biting path for one block of normalised weights x (len T), QTIP's way: search the
// block rotated by T/2 with free ends, take the top L−K bits of the state it picked for position 0 as the overlap,
// then search the block itself constrained to start and end on that overlap. Writes the path to states.
func (v *viterbi) encodeBlock(x []float32, states []uint32) {
	T := v.T
	half := T / 2 // T is even: T·K is a multiple of 32 with K ≤ 8
	for i := range v.rolled {
		v.rolled[i] = x[(i+half)%T]
	}
	v.search(v.rolled, -1, v.path)
	overlap := int(v.path[half] >> uint(v.K))
	v.search(x, overlap, states)
}

// packBlock writes a tail-biting path into a block's words (len T·K/32): the low K bits of s_t go to bits
// [(T−1−t)·K, (T−t)·K). The higher L−K bits of each state are the low bits of its predecessors, so the windows
// stateAt reads back are exactly the path (the tail-biting constraint covers the wrap).
func packBlock(words []uint32, states []uint32, K int) {
	clear(words)
	T := len(states)
	kmask := uint32(1)<<uint(K) - 1
	for t, s := range states {
		p := (T - 1 - t) * K
		bits := s & kmask
		wi, off := p>>5, uint(p&31)
		words[wi] |= bits << off
		if off+uint(K) > 32 {
			words[wi+1] |= bits >> (32 - off)
		}
	}
}

// Encode codes a matrix w [rows, cols] (row-major, already in coded orientation: the caller transposes an axis-0
// weight) into row-major trellis words with one scale per row, searching on the CPU (EncodeWith CPU). Each row's
// scale: the Viterbi search runs on the row divided by RMS·scaleFactor(K, L); then the scale is refit by least
// squares to the chosen values (Σw·c / Σc²) and rounded to fp16, the precision files store.
func Encode(w []float32, rows, cols int, spec Spec) (*Weights, error) {
	return encode(w, rows, cols, spec, nil, nil)
}

// EncodeWith is Encode with the block searches done by s (nil: CPU). The Weights depend only on the paths s
// returns, so a Searcher that returns encodeBlock's paths gives Encode's result.
func EncodeWith(w []float32, rows, cols int, spec Spec, s Searcher) (*Weights, error) {
	return encode(w, rows, cols, spec, nil, s)
}

// encodeChunk bounds the weights handed to the Searcher at once: their normalised copy and their states (8 bytes a
// weight) are the memory encode holds beyond the words, 64 MiB however large the matrix.
const encodeChunk = 1 << 23

// encode is EncodeWith that also copies the chosen states into keep ([rows, cols] row-major) unless keep is nil,
// for tests that check the packing.
func encode(w []float32, rows, cols int, spec Spec, keep []uint32, s Searcher) (*Weights, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("trellis encode: %w", err)
	}
	if rows < 1 || cols < 1 || cols%spec.T != 0 {
		return nil, fmt.Errorf("trellis encode: %w: %d×%d matrix is not whole blocks of %d", ErrFormat, rows, cols, spec.T)
	}
	if rows > math.MaxInt/cols || len(w) != rows*cols {
		return nil, fmt.Errorf("trellis encode: %d values for a %d×%d matrix", len(w), rows, cols)
	}
	g := Geometry{Spec: spec, Rows: rows, Cols: cols}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("trellis encode: %w", err)
	}

	// First-pass scales and the normalised rows the search runs on.
	inv := make([]float32, rows)
	for r := range rows {
		var ss float64
		for _, x := range w[r*cols : (r+1)*cols] {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("trellis encode: row %d holds a non-finite weight", r)
			}
			ss += float64(x) * float64(x)
		}
		if rms := math.Sqrt(ss / float64(cols)); rms > 0 {
			inv[r] = float32(1 / (rms * scaleFactor(spec.K, spec.L)))
		}
	}

	words := make([]uint32, g.Words())
	blocks := g.Blocks()
	T, wpb := spec.T, spec.WordsPerBlock()
	cb := tablesFor(spec.L).value
	// fit[j] holds block j's least-squares sums (Σ w·c, Σ c²); rows add their blocks' in order, so the scales do
	// not depend on how the blocks were batched or which goroutine packed them.
	fit := make([][2]float64, rows*blocks)
	s = searcherOr(s)
	per := max(1, min(rows, encodeChunk/cols)) // rows per search call
	x := make([]float32, per*cols)
	st := make([]uint32, per*cols)
	for r0 := 0; r0 < rows; r0 += per {
		nr := min(per, rows-r0)
		n := nr * cols
		vec.ParallelFor(nr, 1, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				f, dst := inv[r0+r], x[r*cols:(r+1)*cols]
				for i, v := range w[(r0+r)*cols : (r0+r+1)*cols] {
					dst[i] = v * f
				}
			}
		})
		if err := s.SearchBlocks(spec, x[:n], st[:n]); err != nil {
			return nil, fmt.Errorf("trellis encode: rows %d..%d: %w", r0, r0+nr-1, err)
		}
		if err := checkStates(st[:n], spec.L); err != nil {
			return nil, fmt.Errorf("trellis encode: rows %d..%d: %w", r0, r0+nr-1, err)
		}
		vec.ParallelFor(nr*blocks, 16, func(lo, hi int) {
			for j := lo; j < hi; j++ { // block j of the chunk: its row r0 + j/blocks, block j%blocks of that row
				r, b := r0+j/blocks, j%blocks
				row, path := w[r*cols+b*T:][:T], st[j*T:(j+1)*T]
				packBlock(words[g.blockOffset(r, b):][:wpb], path, spec.K)
				var wc, cc float64
				for i, s := range path {
					c := float64(cb[s])
					wc += float64(row[i]) * c
					cc += c * c
				}
				fit[r*blocks+b] = [2]float64{wc, cc}
			}
		})
		if keep != nil {
			copy(keep[r0*cols:], st[:n])
		}
	}

	scales := make([]float32, rows)
	for r := range rows {
		var wc, cc float64
		for _, f := range fit[r*blocks : (r+1)*blocks] {
			wc += f[0]
			cc += f[1]
		}
		if cc == 0 || wc <= 0 {
			continue // an all-zero row (or a path that explains nothing) decodes to zeros
		}
		s := dtype.RoundF16(float32(wc / cc))
		if math.IsInf(float64(s), 0) {
			return nil, fmt.Errorf("trellis encode: row %d scale %g overflows fp16", r, wc/cc)
		}
		scales[r] = s
	}
	wt, err := NewWeights(g, words, scales)
	if err != nil {
		return nil, fmt.Errorf("trellis encode: %w", err)
	}
	return wt, nil
}

// checkStates rejects a Searcher's answer holding a state of more than L bits (a device fault would otherwise
// index past the code table).
func checkStates(st []uint32, L int) error {
	for i, s := range st {
		if s>>uint(L) != 0 {
			return fmt.Errorf("the search returned state %#x at position %d, beyond %d state bits", s, i, L)
		}
	}
	return nil
}

// Quantize codes a linear weight W [out, in] (row-major, the linear layer's orientation) per spec.Axis: axis 1
// codes its rows; axis 0 codes the rows of Wᵀ. interleave asks for the 3-bit axis-0 block interleave (k 3, T 256,
// L 12, out a multiple of 512) and is an error for any other spec.
func Quantize(dense []float32, out, in int, spec Spec, interleave bool) (*Weights, error) {
	return QuantizeWith(dense, out, in, spec, interleave, nil)
}

// QuantizeWith is Quantize with the block searches done by s (nil: CPU).
func QuantizeWith(dense []float32, out, in int, spec Spec, interleave bool, s Searcher) (*Weights, error) {
	if out < 1 || in < 1 || out > math.MaxInt/in || len(dense) != out*in {
		return nil, fmt.Errorf("trellis quantize: %d values for a %d×%d weight", len(dense), out, in)
	}
	if interleave && (!spec.interleavable() || out%InterleaveCols != 0) {
		return nil, fmt.Errorf("trellis quantize: %w: the block interleave needs axis 0, k 3, T 256, L 12, 1mad and out %% 512 == 0"+
			" (have axis %d, k %d, T %d, L %d, %s, out %d)", ErrFormat, spec.Axis, spec.K, spec.T, spec.L, spec.Code, out)
	}
	if spec.Axis == 1 {
		return EncodeWith(dense, out, in, spec, s)
	}
	t := make([]float32, len(dense))
	for o := range out {
		for i, x := range dense[o*in : (o+1)*in] {
			t[i*out+o] = x
		}
	}
	wt, err := EncodeWith(t, in, out, spec, s)
	if err != nil || !interleave {
		return wt, err
	}
	return wt.interleave(), nil
}

// interleave re-lays row-major words of an interleavable geometry as [Cols/512, Rows, 48].
func (w *Weights) interleave() *Weights {
	g := w.Geometry
	g.Interleaved = true
	words := make([]uint32, len(w.Words))
	wpb := w.WordsPerBlock()
	for r := range w.Rows {
		for b := range w.Blocks() {
			copy(words[g.blockOffset(r, b):][:wpb], w.Block(r, b))
		}
	}
	return &Weights{Geometry: g, Words: words, Scales: w.Scales}
}
