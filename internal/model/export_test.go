package model

import (
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// FullKV makes m's caches keep every position of its sliding-window layers (attention still masked by the
// window): the reference the ring caches are checked against.
func FullKV(m *Model) { m.fullKV = true }

// NamedSource is a synthetic source: a Source that lists its tensors and describes them without their data.
type NamedSource = namedSource

// SmallSynthetic is preset name scaled down for CPU tests (scaledDown), coded as code when code.K > 0: its
// config and source.
func SmallSynthetic(name string, code trellis.Spec, seed uint64) (*config.Model, NamedSource, error) {
	p, err := scaledDown(name)
	if err != nil {
		return nil, nil, err
	}
	return syntheticSource(p, code, seed)
}

// PresetSource is a full preset's config and source at bits (0: bf16), for its headers.
func PresetSource(name string, bits int) (*config.Model, NamedSource, error) {
	p, err := preset(name)
	if err != nil {
		return nil, nil, err
	}
	code := trellis.Spec{}
	if bits > 0 {
		code = syntheticCode(bits)
	}
	return syntheticSource(p, code, 0)
}
