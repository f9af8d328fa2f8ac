// Package rope builds rotary position embedding tables the way mlx-lm's initialize_rope does.
package rope

// Table is one rope instance: the rotation applied to the first Dims dimensions of every head.
// Angle of pair i at position p is p·InvFreq[i] (computed in float32).
type Table struct {
	Dims        int       // rotated dims per head (≤ head dim; partial rotary leaves the rest)
	Traditional bool      // rotate interleaved pairs (x0,x1),(x2,x3)… instead of halves (x_i, x_{i+Dims/2})
	InvFreq     []float32 // [Dims/2]
	PreScale    float32   // multiply x[:Dims] by this before rotating (yarn mscale, su scale); 1 = none
}
