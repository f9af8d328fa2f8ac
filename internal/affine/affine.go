// Package affine holds MLX's affine (group-wise scale and bias) quantized weights and their reference decode.
package affine

// Weights is an MLX affine-quantized matrix [Out, In]: In/GroupSize groups per row, each value
// w = scale·q + bias with q a Bits-bit unsigned integer packed little-endian into uint32 words.
type Weights struct {
	Bits, GroupSize int
	Out, In         int
	Packed          []uint32  // [Out, In·Bits/32]
	Scales, Biases  []float32 // [Out, In/GroupSize]
}
