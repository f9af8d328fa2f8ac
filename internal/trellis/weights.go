// Package trellis holds the QTIP trellis-code weight format: its spec and geometry, the packed bitstream, the 1MAD
// code, the reference decode arithmetic every kernel is verified against, and the Viterbi encoder.
package trellis

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
