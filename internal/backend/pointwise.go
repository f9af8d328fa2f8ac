package backend

// Elementwise ops some families need beside the Backend's (Gemma: embedding and residual scales, GeGLU MLPs,
// logit softcaps). Each is its own small interface found by type assertion; the model asks for the op in
// Supports before loading. Arithmetic is float32 per element, transcendental functions evaluated in float64
// and rounded once (the CPU reference). dst may alias an input.

// Pointwise ops a model asks about (Query.Name is the first tensor that needs the op).
const (
	OpScale   Op = "scale"
	OpSoftcap Op = "softcap"
	OpGeGLU   Op = "geglu"
)

// Scaler: dst = x·s elementwise (s a float32). No unfused form: the Backend has no multiply by a constant.
type Scaler interface {
	Scale(dst, x Tensor, s float32)
}

// Softcapper: dst = tanh(x/c)·c elementwise, for c > 0 (Gemma's final logit softcap): x/c, tanh and ·c each
// rounded to float32.
type Softcapper interface {
	Softcap(dst, x Tensor, c float32)
}

// GeGLUer: dst = gelu_tanh(gate)·up elementwise, gelu_tanh(x) = ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (PyTorch's
// gelu(approximate="tanh"), HF's gelu_pytorch_tanh) evaluated in float64 and rounded, then multiplied by up in
// float32. The SwiGLU op's counterpart for Gemma's MLPs.
type GeGLUer interface {
	GeGLU(dst, gate, up Tensor)
}
