package backend

// The rotation op of incoherence-processed trellis weights (internal/rht, docs/trellis-format.md section 11): a
// linear whose codes were made from R_out·W·R_inᵀ is applied as x' = R_in·x, y' = x'·W̃ᵀ, y = R_outᵀ·y'. The model
// asks for OpHadamard in Supports when its checkpoint carries sign vectors.

// OpHadamard is Rotator.Hadamard (Query.Name: the first linear whose weights are rotated).
const OpHadamard Op = "hadamard"

// Rotator: per row of x [n, cols], dst = post ⊙ H_b(pre ⊙ x)·f32(1/√b) on each run of b consecutive columns, H_b the
// Sylvester Hadamard matrix (b a power of two dividing cols), pre and post f32 sign vectors [cols] (±1) or nil
// (all +1). The arithmetic is rht.Apply's, bit for bit: f32 butterflies in stage order h = 1, 2, ..., b/2. dst may
// alias x. No unfused form: the Backend has no other way to mix columns.
type Rotator interface {
	Hadamard(dst, x, pre, post Tensor, block int)
}
