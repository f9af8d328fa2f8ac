// Synthetic trellis models for benchmarks: a preset's architecture stored as `mlxbun quantize --bits N` stores it —
// every tensor the family's map marks a projection weight (family.KindWeight) trellis-coded along its Linear's
// axis (down projections along axis 0, with the block interleave at 3 bits), the output head MLX affine 8-bit in
// groups of 64 (of a tied preset, the shared table; bf16 with SyntheticQuant.BF16Head, as quantize --head bf16),
// the other tables, norms and the kept small linears bf16 — with random words (every bitstream is a valid code)
// and fp16 scales of 0.02, so each weight has the dense synthetic model's standard deviation (1MAD values have
// unit variance); the affine head's scales and biases spread its random bytes over the dense model's uniform
// range. The words are made on the host and uploaded (Qwen3-14B at 3 bits: 4.95 GB, the head 0.80 GB more).
package model

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/mlxbun/mlxbun/internal/affine"
	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// syntheticTrellisScale is every row's scale: the dense synthetic weights' standard deviation.
const syntheticTrellisScale = 0.02

// SyntheticQuant is how a synthetic model is stored. Bits 0: the bf16 model (BF16Head does not apply). Bits > 0:
// its projections random trellis codes at Bits (quantize's defaults: L 12, T 256, 1MAD) and its output head as
// quantize writes it by default, MLX affine (affine.TableBits, affine.TableGroup); with BF16Head the head stays
// bf16 (quantize --head bf16).
type SyntheticQuant struct {
	Bits     int
	BF16Head bool
}

// syntheticHeadSpec is the quantization block's entry of the affine head.
func syntheticHeadSpec() map[string]any {
	return map[string]any{"mode": "affine", "bits": affine.TableBits, "group_size": affine.TableGroup}
}

// syntheticCode is the trellis code of synthetic models at bits: quantize's defaults (L 12, T 256, 1MAD).
func syntheticCode(bits int) trellis.Spec {
	return trellis.Spec{K: bits, L: 12, T: 256, Code: "1mad", Axis: 1}
}

// withTrellis adds to raw the quantization block quantize writes for a checkpoint of cfg's family coded as code:
// the default spec along axis 1, an entry for every coded module along axis 0, the affine spec for the output
// head unless bf16Head, false for the other tables.
func withTrellis(raw map[string]any, cfg *config.Model, code trellis.Spec, bf16Head bool) (map[string]any, error) {
	if err := code.Validate(); err != nil {
		return nil, fmt.Errorf("%d bits: %w", code.K, err)
	}
	src, err := newRandomSource(cfg, 0)
	if err != nil {
		return nil, err
	}
	spec := func(axis int) map[string]any {
		return map[string]any{"mode": "trellis", "bits": code.K, "group_size": code.T,
			"trellis": map[string]any{"L": code.L, "code": code.Code, "axis": axis}}
	}
	q := spec(1)
	head := src.headPath()
	for _, n := range src.Names() {
		switch t := src.held[n]; t.Kind {
		case family.KindTable:
			q[t.Path] = false
			if t.Path == head && !bf16Head {
				q[t.Path] = syntheticHeadSpec()
			}
		case family.KindWeight:
			in := t.Shape[len(t.Shape)-1]
			coded := in
			if t.Axis == 0 {
				coded = t.Shape[0]
			}
			if coded%code.T != 0 {
				return nil, fmt.Errorf("%d bits: tensor %q %v: coded dimension %d is not a multiple of the group size %d",
					code.K, t.Name, t.Shape, coded, code.T)
			}
			if t.Axis != 1 {
				q[t.Path] = spec(t.Axis)
			}
		}
	}
	m := make(map[string]any, len(raw)+1)
	for k, v := range raw {
		m[k] = v
	}
	m["quantization"] = q
	return m, nil
}

// SyntheticTrellisConfig is a preset's config with the quantization block of q (q.Bits > 0).
func SyntheticTrellisConfig(name string, q SyntheticQuant) (*config.Model, error) {
	cfg, _, err := trellisPreset(name, q, 0)
	return cfg, err
}

// SyntheticTrellis builds a preset stored as q (q.Bits > 0) with random codes on b.
func SyntheticTrellis(name string, q SyntheticQuant, seed uint64, b backend.Backend) (*Model, error) {
	cfg, src, err := trellisPreset(name, q, seed)
	if err != nil {
		return nil, err
	}
	return LoadFrom(cfg, src, b)
}

// trellisPreset is a preset's trellis config and source stored as q.
func trellisPreset(name string, q SyntheticQuant, seed uint64) (*config.Model, namedSource, error) {
	p, err := preset(name)
	if err != nil {
		return nil, nil, err
	}
	if q.Bits <= 0 {
		return nil, nil, fmt.Errorf("synthetic %s: trellis bits %d", name, q.Bits)
	}
	cfg, src, err := syntheticSource(p, syntheticCode(q.Bits), q.BF16Head, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("synthetic %s: %w", name, err)
	}
	return cfg, src, nil
}

// trellisSource answers the coded modules' .weight (U32 words) and .scales (F16), the affine head's .weight (U32)
// and .scales/.biases (BF16), everything else as randomSource.
type trellisSource struct {
	*randomSource
	code  trellis.Spec
	coded map[string]family.Tensor // the coded tensors by module path
	head  *family.Tensor           // the output head's table when stored affine
}

func newTrellisSource(cfg *config.Model, code trellis.Spec, bf16Head bool, seed uint64) (*trellisSource, error) {
	r, err := newRandomSource(cfg, seed)
	if err != nil {
		return nil, err
	}
	s := &trellisSource{randomSource: r, code: code, coded: map[string]family.Tensor{}}
	head := r.headPath()
	for _, t := range r.held {
		switch {
		case t.Kind == family.KindWeight:
			s.coded[t.Path] = t
		case t.Kind == family.KindTable && t.Path == head && !bf16Head:
			s.head = &t
		}
	}
	return s, nil
}

// codedTensor returns the coded tensor whose .weight or .scales name is.
func (s *trellisSource) codedTensor(name string) (family.Tensor, bool) {
	for _, suffix := range []string{".weight", ".scales"} {
		if path, ok := strings.CutSuffix(name, suffix); ok {
			t, ok := s.coded[path]
			return t, ok
		}
	}
	return family.Tensor{}, false
}

// headTensor reports whether name is one of the affine head's three tensors.
func (s *trellisSource) headTensor(name string) bool {
	if s.head == nil {
		return false
	}
	path, ok := strings.CutSuffix(name, ".weight")
	for _, suffix := range []string{".scales", ".biases"} {
		if !ok {
			path, ok = strings.CutSuffix(name, suffix)
		}
	}
	return ok && path == s.head.Path
}

func (s *trellisSource) Has(name string) bool {
	if _, ok := s.codedTensor(name); ok || s.headTensor(name) {
		return true
	}
	if t, ok := s.held[name]; ok && t.Kind == family.KindWeight { // an expert stack's unquantized name
		return false
	}
	return s.randomSource.Has(name)
}

// Names lists the tensors the source holds, sorted: each coded module as .weight and .scales, the affine head as
// .weight, .scales and .biases.
func (s *trellisSource) Names() []string {
	var out []string
	for _, n := range s.randomSource.Names() {
		if t := s.held[n]; t.Kind != family.KindWeight {
			out = append(out, n)
		}
	}
	for p := range s.coded {
		out = append(out, p+".weight", p+".scales")
	}
	if s.head != nil {
		out = append(out, s.head.Path+".scales", s.head.Path+".biases")
	}
	sort.Strings(out)
	return out
}

// Header is a coded tensor's dtype and stored shape (the scales F16 [rows], the words U32 [rows, cols·k/32] or the
// 3-bit axis-0 interleave [cols/512, rows, 48]) and the affine head's (U32 [vocab, hidden·8/32], the scales and
// biases BF16 [vocab, hidden/64]) as quantize writes them; other tensors are randomSource's.
func (s *trellisSource) Header(name string) (backend.Host, error) {
	if s.headTensor(name) {
		rows, in := s.head.Shape[0], s.head.Shape[1]
		if strings.HasSuffix(name, ".weight") {
			return backend.Host{Name: name, DType: backend.U32, Shape: []int{rows, in * affine.TableBits / 32}}, nil
		}
		return backend.Host{Name: name, DType: backend.BF16, Shape: []int{rows, in / affine.TableGroup}}, nil
	}
	t, ok := s.codedTensor(name)
	if !ok {
		if s.Has(name) {
			return s.randomSource.Header(name)
		}
		return backend.Host{}, fmt.Errorf("synthetic model: no tensor %q", name)
	}
	in := t.Shape[len(t.Shape)-1]
	rows, cols := 1, in // an expert stack [experts, out, in] is coded as one [experts·out, in]
	for _, d := range t.Shape[:len(t.Shape)-1] {
		rows *= d
	}
	if t.Axis == 0 {
		rows, cols = cols, rows
	}
	if strings.HasSuffix(name, ".scales") {
		return backend.Host{Name: name, DType: backend.F16, Shape: []int{rows}}, nil
	}
	shape := []int{rows, cols * s.code.K / 32}
	// quantize's rule (checkCoded): 3-bit axis-0 codes at T 256, L 12 interleave blocks when they can
	if c := s.code; t.Axis == 0 && c.K == 3 && c.T == 256 && c.L == 12 && cols%trellis.InterleaveCols == 0 {
		shape = []int{cols / trellis.InterleaveCols, rows, trellis.InterleaveWords}
	}
	return backend.Host{Name: name, DType: backend.U32, Shape: shape}, nil
}

// Tensor makes a tensor's data: random words for codes and the affine head (every word is a valid code), the
// trellis scales 0.02; the head's scales 2a/255 and biases −a, so its bytes q = 0..255 decode to a uniform grid
// on [−a, a], the dense synthetic weights' range.
func (s *trellisSource) Tensor(name string) (backend.Host, error) {
	_, coded := s.codedTensor(name)
	if !coded && !s.headTensor(name) {
		if !s.Has(name) {
			return backend.Host{}, fmt.Errorf("synthetic model: no tensor %q", name)
		}
		return s.randomSource.Tensor(name)
	}
	h, err := s.Header(name)
	if err != nil {
		return h, err
	}
	switch {
	case h.DType == backend.F16:
		return constant(h, dtype.F32ToF16(syntheticTrellisScale)), nil
	case strings.HasSuffix(name, ".scales"):
		return constant(h, backend.F32ToBF16(float32(2*syntheticHalfWidth/(1<<affine.TableBits-1)))), nil
	case strings.HasSuffix(name, ".biases"):
		return constant(h, backend.F32ToBF16(float32(-syntheticHalfWidth))), nil
	}
	n := h.Elements()
	h.Data = make([]byte, 4*n)
	base := s.seed ^ hashString(name)
	parallel(n, 2, func(lo, hi int) {
		i := lo
		for ; i+2 <= hi; i += 2 {
			binary.LittleEndian.PutUint64(h.Data[4*i:], splitmix(base+uint64(i)))
		}
		for ; i < hi; i++ {
			binary.LittleEndian.PutUint32(h.Data[4*i:], uint32(splitmix(base+uint64(i))))
		}
	})
	return h, nil
}

// constant fills a 16-bit tensor's data with v.
func constant(h backend.Host, v uint16) backend.Host {
	n := h.Elements()
	h.Data = make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(h.Data[2*i:], v)
	}
	return h
}

// SyntheticTrellisQueries lists the matmul queries of SyntheticTrellis(name, q) (headers only, no codes drawn).
func SyntheticTrellisQueries(name string, q SyntheticQuant) ([]backend.Query, error) {
	cfg, src, err := trellisPreset(name, q, 0)
	if err != nil {
		return nil, err
	}
	return SourceQueries(cfg, src)
}
