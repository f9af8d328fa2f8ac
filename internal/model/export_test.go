package model

import (
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// FullKV makes m's caches keep every position of its sliding-window layers (attention still masked by the
// window): the reference the ring caches are checked against.
func FullKV(m *Model) { m.fullKV = true }

// NamedSource is a synthetic source: a Source that lists its tensors and describes them without their data.
type NamedSource = namedSource

// SmallSynthetic is preset name scaled down for CPU tests (scaledDown), coded as code when code.K > 0 with its
// output head affine unless bf16Head: its config and source.
func SmallSynthetic(name string, code trellis.Spec, bf16Head bool, seed uint64) (*config.Model, NamedSource, error) {
	p, err := scaledDown(name)
	if err != nil {
		return nil, nil, err
	}
	return syntheticSource(p, code, bf16Head, seed)
}

// PresetSource is a full preset's config and source stored as q (q.Bits 0: bf16), for its headers.
func PresetSource(name string, q SyntheticQuant) (*config.Model, NamedSource, error) {
	p, err := preset(name)
	if err != nil {
		return nil, nil, err
	}
	code := trellis.Spec{}
	if q.Bits > 0 {
		code = syntheticCode(q.Bits)
	}
	return syntheticSource(p, code, q.BF16Head, 0)
}

// SourceSize is Size for config cfg stored in src, counted without loading it: from src's names and headers.
func SourceSize(cfg *config.Model, src Source) (SyntheticSize, error) {
	fam, err := family.For(cfg)
	if err != nil {
		return SyntheticSize{}, err
	}
	return sourceSize(cfg, fam, src)
}
