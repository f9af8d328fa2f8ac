// Synthetic trellis models for benchmarks: a preset's architecture stored as `mlxbun quantize --bits N` stores it —
// every tensor the family's map marks a projection weight (family.KindWeight) trellis-coded along its Linear's
// axis (down projections along axis 0, with the block interleave at 3 bits), tables, norms and the kept small
// linears bf16 — with random words (every bitstream is a valid code) and fp16 scales of 0.02, so each weight has
// the dense synthetic model's standard deviation (1MAD values have unit variance). The words are made on the
// host and uploaded (Qwen3-14B at 3 bits: 4.95 GB).
package model

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// syntheticTrellisScale is every row's scale: the dense synthetic weights' standard deviation.
const syntheticTrellisScale = 0.02

// syntheticCode is the trellis code of synthetic models at bits: quantize's defaults (L 12, T 256, 1MAD).
func syntheticCode(bits int) trellis.Spec {
	return trellis.Spec{K: bits, L: 12, T: 256, Code: "1mad", Axis: 1}
}

// withTrellis adds to raw the quantization block quantize writes for a checkpoint of cfg's family coded as code:
// the default spec along axis 1, an entry for every coded module along axis 0, false for the tables.
func withTrellis(raw map[string]any, cfg *config.Model, code trellis.Spec) (map[string]any, error) {
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
	for _, n := range src.Names() {
		switch t := src.held[n]; t.Kind {
		case family.KindTable:
			q[t.Path] = false
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

// SyntheticTrellisConfig is a preset's config with a trellis quantization block at bits (L 12, T 256).
func SyntheticTrellisConfig(name string, bits int) (*config.Model, error) {
	cfg, _, err := trellisPreset(name, bits, 0)
	return cfg, err
}

// SyntheticTrellis builds a preset with random trellis codes at bits on b.
func SyntheticTrellis(name string, bits int, seed uint64, b backend.Backend) (*Model, error) {
	cfg, src, err := trellisPreset(name, bits, seed)
	if err != nil {
		return nil, err
	}
	return LoadFrom(cfg, src, b)
}

// trellisPreset is a preset's trellis config and source at bits.
func trellisPreset(name string, bits int, seed uint64) (*config.Model, namedSource, error) {
	p, err := preset(name)
	if err != nil {
		return nil, nil, err
	}
	if bits <= 0 {
		return nil, nil, fmt.Errorf("synthetic %s: trellis bits %d", name, bits)
	}
	cfg, src, err := syntheticSource(p, syntheticCode(bits), seed)
	if err != nil {
		return nil, nil, fmt.Errorf("synthetic %s: %w", name, err)
	}
	return cfg, src, nil
}

// trellisSource answers the coded modules' .weight (U32 words) and .scales (F16), everything else as randomSource.
type trellisSource struct {
	*randomSource
	code  trellis.Spec
	coded map[string]family.Tensor // the coded tensors by module path
}

func newTrellisSource(cfg *config.Model, code trellis.Spec, seed uint64) (*trellisSource, error) {
	r, err := newRandomSource(cfg, seed)
	if err != nil {
		return nil, err
	}
	s := &trellisSource{randomSource: r, code: code, coded: map[string]family.Tensor{}}
	for _, t := range r.held {
		if t.Kind == family.KindWeight {
			s.coded[t.Path] = t
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

func (s *trellisSource) Has(name string) bool {
	if _, ok := s.codedTensor(name); ok {
		return true
	}
	if t, ok := s.held[name]; ok && t.Kind == family.KindWeight { // an expert stack's unquantized name
		return false
	}
	return s.randomSource.Has(name)
}

// Names lists the tensors the source holds, sorted: each coded module as .weight and .scales.
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
	sort.Strings(out)
	return out
}

// Header is a coded tensor's dtype and stored shape (the scales F16 [rows], the words U32 [rows, cols·k/32] or the
// 3-bit axis-0 interleave [cols/512, rows, 48]) as quantize writes them; other tensors are randomSource's.
func (s *trellisSource) Header(name string) (backend.Host, error) {
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

func (s *trellisSource) Tensor(name string) (backend.Host, error) {
	if _, ok := s.codedTensor(name); !ok {
		if !s.Has(name) {
			return backend.Host{}, fmt.Errorf("synthetic model: no tensor %q", name)
		}
		return s.randomSource.Tensor(name)
	}
	h, err := s.Header(name)
	if err != nil {
		return h, err
	}
	if h.DType == backend.F16 {
		rows := h.Shape[0]
		h.Data = make([]byte, 2*rows)
		v := dtype.F32ToF16(syntheticTrellisScale)
		for i := 0; i < rows; i++ {
			binary.LittleEndian.PutUint16(h.Data[2*i:], v)
		}
		return h, nil
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

// SyntheticTrellisQueries lists the matmul queries of SyntheticTrellis(name, bits) (headers only, no codes drawn).
func SyntheticTrellisQueries(name string, bits int) ([]backend.Query, error) {
	cfg, src, err := trellisPreset(name, bits, 0)
	if err != nil {
		return nil, err
	}
	return SourceQueries(cfg, src)
}
