// Synthetic trellis models for benchmarks: a preset's architecture stored as `mlxbun quantize` stores it —
// q/k/v/o and gate/up trellis-coded along axis 1, down_proj along axis 0 (the block interleave at 3 bits),
// embeddings, norms and lm_head bf16 — with random words (every bitstream is a valid code) and fp16 scales of
// 0.02, so each weight has the dense synthetic model's standard deviation (1MAD values have unit variance).
// The words are made on the host and uploaded (Qwen3-14B at 3 bits: 4.95 GB).
package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// syntheticTrellisScale is every row's scale: the dense synthetic weights' standard deviation.
const syntheticTrellisScale = 0.02

// trellisProjections maps a projection's leaf name to its coded axis (as internal/quantize codes them).
var trellisProjections = map[string]int{"q_proj": 1, "k_proj": 1, "v_proj": 1, "o_proj": 1, "gate_proj": 1, "up_proj": 1, "down_proj": 0}

// SyntheticTrellisConfig is a preset's config with a trellis quantization block at bits (L 12, T 256).
func SyntheticTrellisConfig(name string, bits int) (*config.Model, error) {
	p, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("unknown synthetic model %q (known: %s)", name, strings.Join(Presets(), ", "))
	}
	if err := (trellis.Spec{K: bits, L: 12, T: 256, Code: "1mad", Axis: 1}).Validate(); err != nil {
		return nil, fmt.Errorf("synthetic %s at %d bits: %w", name, bits, err)
	}
	spec := func(axis int) map[string]any {
		return map[string]any{"mode": "trellis", "bits": bits, "group_size": 256,
			"trellis": map[string]any{"L": 12, "code": "1mad", "axis": axis}}
	}
	q := spec(1)
	q["model.embed_tokens"], q["lm_head"] = false, false
	for i := 0; i < int(p["num_hidden_layers"].(int)); i++ {
		q[fmt.Sprintf("model.layers.%d.mlp.down_proj", i)] = spec(0)
	}
	m := make(map[string]any, len(p)+1)
	for k, v := range p {
		m[k] = v
	}
	m["quantization"] = q
	b, _ := json.Marshal(m)
	return config.Parse(b, nil)
}

// SyntheticTrellis builds a preset with random trellis codes at bits on b.
func SyntheticTrellis(name string, bits int, seed uint64, b backend.Backend) (*Model, error) {
	cfg, err := SyntheticTrellisConfig(name, bits)
	if err != nil {
		return nil, err
	}
	return LoadFrom(cfg, &trellisSource{randomSource: randomSource{cfg: cfg, seed: seed}, bits: bits}, b)
}

// trellisSource answers the projections' .weight and .scales as trellis codes, everything else as randomSource.
type trellisSource struct {
	randomSource
	bits int
}

// coded returns the projection path and its axis when name is a coded projection's .weight or .scales.
func (s *trellisSource) coded(name string) (path string, axis int, ok bool) {
	path, suffix, found := strings.Cut(name, ".weight")
	if !found || suffix != "" {
		if path, found = strings.CutSuffix(name, ".scales"); !found {
			return "", 0, false
		}
	}
	if !strings.HasPrefix(path, "model.layers.") {
		return "", 0, false
	}
	axis, ok = trellisProjections[path[strings.LastIndexByte(path, '.')+1:]]
	return path, axis, ok
}

func (s *trellisSource) Has(name string) bool {
	if _, _, ok := s.coded(name); ok {
		return true
	}
	return s.randomSource.Has(name)
}

// Header describes a coded projection's words or scales as Tensor makes them (the loader reads shapes first).
func (s *trellisSource) Header(name string) (backend.Host, error) {
	if h, ok := s.header(name); ok {
		return h, nil
	}
	return s.randomSource.Header(name)
}

// header is the dtype and stored shape of a coded projection's .weight (uint32 words, the 3-bit interleave for
// down_proj) or .scales (f16 [coded rows]).
func (s *trellisSource) header(name string) (backend.Host, bool) {
	path, axis, ok := s.coded(name)
	if !ok {
		return backend.Host{}, false
	}
	dense, _ := s.randomSource.shape(path + ".weight") // [out, in]
	rows, cols := dense[0], dense[1]
	if axis == 0 {
		rows, cols = cols, rows
	}
	if strings.HasSuffix(name, ".scales") {
		return backend.Host{Name: name, DType: backend.F16, Shape: []int{rows}}, true
	}
	shape := []int{rows, cols * s.bits / 32}
	if axis == 0 && s.bits == 3 && cols%trellis.InterleaveCols == 0 {
		shape = []int{cols / trellis.InterleaveCols, rows, trellis.InterleaveWords}
	}
	return backend.Host{Name: name, DType: backend.U32, Shape: shape}, true
}

func (s *trellisSource) Tensor(name string) (backend.Host, error) {
	h, ok := s.header(name)
	if !ok {
		return s.randomSource.Tensor(name)
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
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers/2*2, (w+1)*n/workers/2*2
		if w == workers-1 {
			hi = n
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := lo
			for ; i+2 <= hi; i += 2 {
				binary.LittleEndian.PutUint64(h.Data[4*i:], splitmix(base+uint64(i)))
			}
			for ; i < hi; i++ {
				binary.LittleEndian.PutUint32(h.Data[4*i:], uint32(splitmix(base+uint64(i))))
			}
		}()
	}
	wg.Wait()
	return h, nil
}
