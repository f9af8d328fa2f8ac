// What a backend serves, asked before any weight is read: a model lists one Query per linear layer (from the
// config and the checkpoint's tensor headers alone) and a device that cannot serve one of them is passed over by
// "auto", or fails a forced choice naming the layer, instead of failing half-way through an upload.
package backend

import "fmt"

// MaxDecodeRows is the most activation rows a decode step carries (sequences decoding together, or the verify
// width of speculative decoding). Backends instantiate their decode forms (GEMV, split-K attention) up to it and
// the model keeps (and a Recorder records) decode workspaces up to it; more rows are a prompt.
const MaxDecodeRows = 8

// Format is how a linear layer's weights are stored.
type Format uint8

const (
	FormatDense   Format = iota // bf16/f16/f32 [out, in]
	FormatTrellis               // QTIP trellis codes (docs/trellis-format.md)
	FormatAffine                // MLX affine quantization (bits, group)
	FormatEXL3                  // exllamav3's EXL3 codes (docs/exl3-format.md): K bits, codebook
)

func (f Format) String() string {
	switch f {
	case FormatDense:
		return "dense"
	case FormatTrellis:
		return "trellis"
	case FormatAffine:
		return "affine"
	case FormatEXL3:
		return "exl3"
	}
	return fmt.Sprintf("format(%d)", uint8(f))
}

// Weight describes a linear layer's stored weights without their data.
type Weight struct {
	Format Format
	DType  DType  // FormatDense: the stored dtype
	Bits   int    // FormatTrellis, FormatEXL3: k bits per weight; FormatAffine: bits per code
	Group  int    // FormatTrellis: block length T; FormatAffine: group size
	Code   string // FormatTrellis: the code ("1mad"); FormatEXL3: the codebook ("mul1", "mcg", "3inst")
	// FormatTrellis only.
	L           int
	Axis        int  // 1: coded along the input dimension; 0: along the output dimension (stored transposed)
	Interleaved bool // the 3-bit axis-0 block interleave [cols/512, rows, 48]
}

func (w Weight) String() string {
	switch w.Format {
	case FormatDense:
		return "dense " + w.DType.String()
	case FormatTrellis:
		s := fmt.Sprintf("trellis %d-bit L%d T%d %s axis %d", w.Bits, w.L, w.Group, w.Code, w.Axis)
		if w.Interleaved {
			s += " interleaved"
		}
		return s
	case FormatAffine:
		return fmt.Sprintf("affine %d-bit group %d", w.Bits, w.Group)
	case FormatEXL3:
		return fmt.Sprintf("exl3 %d-bit %s", w.Bits, w.Code)
	}
	return w.Format.String()
}

// Describe is the Weight of a spec whose weights are in host memory.
func (s LinearSpec) Describe() Weight {
	switch {
	case s.Trellis != nil:
		g := s.Trellis.Geometry
		return Weight{Format: FormatTrellis, Bits: g.K, Group: g.T, L: g.L, Code: g.Code, Axis: g.Axis, Interleaved: g.Interleaved}
	case s.Affine != nil:
		return Weight{Format: FormatAffine, Bits: s.Affine.Bits, Group: s.Affine.GroupSize}
	case s.EXL3 != nil:
		return Weight{Format: FormatEXL3, Bits: s.EXL3.K, Code: s.EXL3.Codebook.String()}
	case s.Dense != nil:
		return Weight{Format: FormatDense, DType: s.Dense.DType}
	}
	return Weight{}
}

// Op names an operation a Query asks about.
type Op string

// OpMatMul is Backend.MatMul over a linear layer.
const OpMatMul Op = "matmul"

// Query asks whether a backend serves one op over one linear layer's weights at a row count. An op other than
// OpMatMul (pointwise.go, windowed.go) names only the first layer or tensor that needs it.
type Query struct {
	Op      Op
	Name    string // the layer, for messages
	Weight  Weight
	Out, In int
	Rows    int       // activation rows per call; 0 means any count (prompts and decode alike)
	Attn    AttnShape // OpAttention: the shape of the layers it stands for
}

// OpAttention is Attention (or AttentionWith) over one kind of attention layer: a Query per distinct AttnShape,
// named after the first layer of that shape, Rows 0 (the model runs prompts and decode steps). A backend whose
// kernels stop at some head dim answers no here, before loading, rather than mid-forward.
const OpAttention Op = "attention"

// AttnShape is what a backend's attention kernels see of a kind of layer.
type AttnShape struct {
	Heads, KVHeads, HeadDim int
	Window                  bool // a sliding window (AttnOptions.Window > 0)
	Softcap                 bool // a score softcap (AttnOptions.Softcap > 0)
}

func (s AttnShape) String() string {
	out := fmt.Sprintf("%d/%d heads of %d", s.Heads, s.KVHeads, s.HeadDim)
	if s.Window {
		out += ", windowed"
	}
	if s.Softcap {
		out += ", softcapped"
	}
	return out
}

func (q Query) String() string {
	if q.Op == OpAttention {
		return fmt.Sprintf("%s %s (%s)", q.Op, q.Name, q.Attn)
	}
	if q.Weight == (Weight{}) && q.Op != OpMatMul { // an op over activations (the hybrids', the Gemmas')
		return fmt.Sprintf("%s %s", q.Op, q.Name)
	}
	return fmt.Sprintf("%s %s (%s, %d→%d)", q.Op, q.Name, q.Weight, q.In, q.Out)
}

// UnsupportedError says which query a backend cannot serve and why; it wraps ErrUnsupported.
type UnsupportedError struct {
	Backend string
	Query   Query
	Why     string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s cannot serve %s: %s", e.Backend, e.Query, e.Why)
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// SupportsAll asks b about every query and returns the first it cannot serve (nil when it serves them all).
func SupportsAll(b Backend, qs []Query) error {
	for _, q := range qs {
		if err := b.Supports(q); err != nil {
			return err
		}
	}
	return nil
}
