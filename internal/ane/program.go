// One Neural Engine program: what it computes, its tensor shapes and dtypes, the MIL text the private
// AppleNeuralEngine compiler takes, and the content key that deduplicates programs. A program is a function of
// shapes alone: its weights are a runtime input (the GPU writes them, expanded to fp16, into the input surface),
// so the MIL carries no weight blob and a model's programs can be compiled before any weight is downloaded.
package ane

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Kind is what a program computes.
type Kind uint8

const (
	// KindLinear: y [Rows, Out] = x [Rows, In] · Wᵀ, W [Out, In] in its stored (row-major, out-major) layout.
	KindLinear Kind = iota
	// KindGLU: y [Rows, Out] = act(x · Gᵀ) ⊙ (x · Uᵀ) with G and U [Out, In]: an MLP's gate and up projections
	// and their activation (SwiGLU's silu, or GeGLU's tanh-approximated gelu) in one program.
	KindGLU
)

// Act is a gated MLP's activation.
type Act uint8

const (
	ActNone     Act = iota // KindLinear
	ActSiLU                // silu(g) = g·σ(g): SwiGLU (Llama, Qwen, Phi-3, the hybrids)
	ActGELUTanh            // gelu with the tanh approximation: GeGLU (Gemma)
)

// DType is a tensor element type at a program's boundary.
type DType uint8

const (
	F32 DType = iota
	F16
)

// mil is the MIL spelling of a dtype.
func (d DType) mil() string { return [...]string{"fp32", "fp16"}[d] }

func (d DType) String() string { return [...]string{"f32", "f16"}[d] }

// PromptRows is the activation rows every program takes per call. The Neural Engine runs static shapes, so a
// prompt is cut into chunks of this many rows (the last one padded); 256 keeps a chunk's f32 activations of a
// 5120-wide model at 5 MiB while amortizing the ~0.1 ms a request costs.
const PromptRows = 256

// Spec is one program's computation and shapes; equal Specs are the same program.
type Spec struct {
	Kind    Kind
	Act     Act   // KindGLU only
	Rows    int   // activation rows per call
	In, Out int   // per weight: W [Out, In]
	X, Y    DType // activation dtypes at the boundary (the engine's activations are f32)
	W       DType // weight dtype (the GPU expands trellis or affine codes into it)
}

// weights names the program's weight inputs, in MIL parameter order after x.
func (s Spec) weights() []string {
	if s.Kind == KindGLU {
		return []string{"gate", "up"}
	}
	return []string{"w"}
}

// Name is the program kind as --list prints it.
func (s Spec) Name() string {
	switch {
	case s.Kind == KindLinear:
		return "linear"
	case s.Act == ActSiLU:
		return "swiglu"
	case s.Act == ActGELUTanh:
		return "geglu"
	}
	return "glu?"
}

// Shapes is the program's signature in one line: "x f32[256,1024] w f16[2048,1024] -> f32[256,2048]".
func (s Spec) Shapes() string {
	var b strings.Builder
	fmt.Fprintf(&b, "x %s[%d,%d]", s.X, s.Rows, s.In)
	for _, w := range s.weights() {
		fmt.Fprintf(&b, " %s %s[%d,%d]", w, s.W, s.Out, s.In)
	}
	fmt.Fprintf(&b, " -> %s[%d,%d]", s.Y, s.Rows, s.Out)
	return b.String()
}

// Check reports a spec no program can be built from (a programmer error upstream, or a config with zero dims).
func (s Spec) Check() error {
	if s.Rows < 1 || s.In < 1 || s.Out < 1 {
		return fmt.Errorf("ane: %s program with rows %d, in %d, out %d: every dimension must be positive", s.Name(), s.Rows, s.In, s.Out)
	}
	if (s.Kind == KindGLU) != (s.Act != ActNone) {
		return fmt.Errorf("ane: %s program: an activation belongs to a gated program only", s.Name())
	}
	return nil
}

// MILVersion and MILTarget are the program header: MIL 1.3 for the iOS 17 / macOS 14 opset, the newest the
// in-memory compiler accepts with weights passed as function inputs (maderix/ANE reports stricter checks on
// them under later opsets).
const (
	MILVersion = "1.3"
	MILTarget  = "ios17"
)

// MIL is the program's text as _ANEInMemoryModelDescriptor takes it. Tensors are rank 4, [1, 1, rows, cols],
// the layout the Neural Engine's matmul takes for dynamic operands; x is cast to fp16 inside (the engine
// computes in fp16) and the result cast back to the output dtype. The weight operand is multiplied
// transposed (transpose_y), so the surface holds W exactly as the checkpoint stores it, [Out, In].
func (s Spec) MIL() string {
	t := func(d DType, rows, cols int) string {
		return fmt.Sprintf("tensor<%s, [1, 1, %d, %d]>", d.mil(), rows, cols)
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, "        "+format+"\n", args...) }
	fmt.Fprintf(&b, "program(%s)\n", MILVersion)
	b.WriteString("[buildInfo = dict<string, string>({{\"mlxbun-ane\", \"1\"}})]\n{\n")
	params := []string{fmt.Sprintf("%s x", t(s.X, s.Rows, s.In))}
	for _, w := range s.weights() {
		params = append(params, fmt.Sprintf("%s %s", t(s.W, s.Out, s.In), w))
	}
	fmt.Fprintf(&b, "    func main<%s>(%s) {\n", MILTarget, strings.Join(params, ", "))
	x := "x"
	if s.X != F16 {
		line(`string x_to = const()[name = string("x_to"), val = string("fp16")];`)
		line(`%s x16 = cast(dtype = x_to, x = x)[name = string("x16")];`, t(F16, s.Rows, s.In))
		x = "x16"
	}
	line(`bool tx = const()[name = string("tx"), val = bool(false)];`)
	line(`bool ty = const()[name = string("ty"), val = bool(true)];`)
	weight := func(name string) string { // a weight surface in fp16, cast when it holds another dtype
		if s.W == F16 {
			return name
		}
		line(`string %s_to = const()[name = string("%s_to"), val = string("fp16")];`, name, name)
		line(`%s %s16 = cast(dtype = %s_to, x = %s)[name = string("%s16")];`, t(F16, s.Out, s.In), name, name, name, name)
		return name + "16"
	}
	out := t(F16, s.Rows, s.Out)
	mm := func(dst, w string) {
		line(`%s %s = matmul(transpose_x = tx, transpose_y = ty, x = %s, y = %s)[name = string("%s")];`, out, dst, x, weight(w), dst)
	}
	y := "y16"
	switch s.Kind {
	case KindLinear:
		mm("y16", "w")
	case KindGLU:
		mm("g", "gate")
		mm("u", "up")
		switch s.Act {
		case ActSiLU:
			line(`%s a = silu(x = g)[name = string("a")];`, out)
		case ActGELUTanh:
			line(`string gelu_mode = const()[name = string("gelu_mode"), val = string("TANH_APPROXIMATION")];`)
			line(`%s a = gelu(mode = gelu_mode, x = g)[name = string("a")];`, out)
		}
		line(`%s y16 = mul(x = a, y = u)[name = string("y16")];`, out)
	}
	if s.Y != F16 {
		line(`string y_to = const()[name = string("y_to"), val = string("%s")];`, s.Y.mil())
		line(`%s y = cast(dtype = y_to, x = y16)[name = string("y")];`, t(s.Y, s.Rows, s.Out))
		y = "y"
	}
	fmt.Fprintf(&b, "    } -> (%s);\n}\n", y)
	return b.String()
}

// Key is the program's content key: the first 16 hex digits of SHA-256 over its MIL text and its (empty)
// weight blob. Programs with equal keys are one program and compile once, as the framework's own identifier
// (MIL hash, weights hash, options hash) would also find.
func (s Spec) Key() string {
	h := sha256.New()
	h.Write([]byte(s.MIL()))
	h.Write([]byte{0}) // separator before the weight blob, which dynamic-weight programs do not have
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:8])
}
