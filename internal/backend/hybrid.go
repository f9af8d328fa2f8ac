// Optional ops of the hybrid linear-attention models (Qwen3.5, Qwen3-Next: gated DeltaNet layers beside gated full
// attention) and of sparse mixture-of-experts blocks. A backend serving them implements the interfaces below and
// answers Supports for their Op names; one that does not is passed over by "auto" for such models (the model
// lists one query per op it needs, model.SourceQueries). Each comment gives the arithmetic the CPU reference
// (internal/cpu) implements.
package backend

// Op names of the optional ops, as Queries ask for them.
const (
	OpGatedDeltaNet Op = "gated_deltanet" // the LinearAttention interface
	OpSigmoidGate   Op = "sigmoid_gate"   // the SigmoidGate interface
	OpMoE           Op = "moe"            // the MoE interface
)

// RecurrentConfig sizes the per-sequence state of a model's gated DeltaNet layers.
type RecurrentConfig struct {
	Layers, Seqs int // DeltaNet layers (numbered 0.. among themselves) and sequences
	// Conv state: the last ConvKernel-1 inputs of the short causal convolution, ConvDim channels.
	ConvDim, ConvKernel int
	// Delta-rule state: one [KeyDim, ValueDim] matrix per value head. Key heads serve ValueHeads/KeyHeads
	// consecutive value heads each.
	KeyHeads, ValueHeads, KeyDim, ValueDim int
}

// RecurrentState is what a DeltaNet layer carries from one token to the next, per (layer, sequence): the conv
// state and the delta-rule state matrices, in float32 on the device. A row at position 0 starts its sequence: the
// ops read zero state for it. The rows of one sequence in a call are consecutive positions, in order, continuing
// where the previous call left the state (the model checks this, model.hybridCache).
type RecurrentState interface {
	Config() RecurrentConfig
	// Release frees the state's memory; it must not be used afterwards.
	Release()
}

// LinearAttention is the gated DeltaNet token mixer (Yang et al., "Gated Delta Networks", as transformers'
// modeling_qwen3_next.py computes it). Shapes: n rows; C = 2·KeyHeads·KeyDim + ValueHeads·ValueDim conv channels
// laid out [q | k | v] (heads in order); seq, pos int32 [n] as for Attention.
type LinearAttention interface {
	NewRecurrentState(cfg RecurrentConfig) (RecurrentState, error)

	// CausalConv is the depthwise causal convolution with SiLU over each sequence's inputs: with K = ConvKernel and
	// x_t the row of the sequence at position t (x_t = 0 for t < 0),
	// dst[r][c] = silu(Σ_{j<K} w[c][j]·x_{p-K+1+j}[c]), p = pos[r]; inputs of earlier calls come from the state,
	// which keeps the last K-1 inputs. x, dst [n, C] (dst may alias x); w [C, K] (the checkpoint's [C, 1, K]).
	CausalConv(dst, x, w Tensor, st RecurrentState, layer int, seq, pos Tensor)

	// GatedDeltaRule runs the delta rule for every value head h of every row (key head kh = h/(ValueHeads/KeyHeads)):
	//   q = l2(q_kh)/√KeyDim, k = l2(k_kh), l2(x) = x/√(Σx² + 1e-6); v = v_h (from qkv [n, C], the conv output)
	//   β = sigmoid(b[r][h]), g = −exp(aLog[h])·softplus(a[r][h] + dtBias[h])
	//   S ← exp(g)·S;  S ← S + k ⊗ β(v − Sᵀk);  dst[r][h] = Sᵀq      (S [KeyDim, ValueDim], per sequence)
	// a, b [n, ValueHeads]; aLog, dtBias [ValueHeads]; dst [n, ValueHeads·ValueDim]. This recurrent form is the
	// reference; a backend may compute a run of rows of one sequence in the chunked (WY) form, equal within f32
	// rounding.
	GatedDeltaRule(dst, qkv, a, b, aLog, dtBias Tensor, st RecurrentState, layer int, seq, pos Tensor)

	// RMSNormGated normalizes each group of len(w) columns of x and gates it: dst = x/√(mean(x²)+eps)·w·silu(z).
	// x, z, dst same shape; dst may alias x.
	RMSNormGated(dst, x, z, w Tensor, eps float32)
}

// SigmoidGate: dst = x·sigmoid(g), elementwise; g is x's shape, or [n, 1] (one gate per row). dst may alias x.
// Gated attention's output gate and the shared expert's gate use it.
type SigmoidGate interface {
	SigmoidMul(dst, x, g Tensor)
}

// MoE is a sparse mixture-of-experts block's routing and expert computation (SwiGLU experts).
type MoE interface {
	// Route: p = softmax(logits[r]) over the experts; ids[r] = the k experts of highest p (highest first, the
	// lower id first among equals), weights[r] = their p, divided by their sum when norm.
	// logits [n, experts] f32; ids int32 [n, k]; weights f32 [n, k].
	Route(ids, weights, logits Tensor, k int, norm bool)
	// Experts: dst[r] = Σ_j weights[r][j]·down[e](silu(gate[e](x[r]))·up[e](x[r])), e = ids[r][j], summed in
	// increasing e. x [n, hidden]; dst [n, hidden] must not alias x.
	Experts(dst, x, ids, weights Tensor, gate, up, down []Linear)
}
