// Opening a model for the verbs: the one model-directory reader (package modeldir) hands the config and the weight
// archive over once; the model's linear layers are listed from them (model.SourceQueries, headers only), the
// registry picks a device that serves them all (or fails a named one that cannot) before any weight is read, then
// an optional scan of every floating weight, the adapters' included, for NaN and Inf (--check-tensors) and the
// binding; LoRA adapters, when given, are checked against the model and asked of the device with its layers, and
// attached after the binding.
package main

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
)

// openModel opens device ("auto" or a registered name) for the model in d and binds its weights there. The caller
// closes the model, then the backend.
func openModel(device string, d *modeldir.Dir, checkTensors bool, adapters ...*lora.Adapter) (backend.Backend, *model.Model, error) {
	cfg, err := d.Config()
	if err != nil {
		return nil, nil, err
	}
	arch, err := d.Weights()
	if err != nil {
		return nil, nil, err
	}
	qs, err := model.SourceQueries(cfg, arch)
	if err != nil {
		arch.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Path(), err)
	}
	aqs, err := model.AdapterQueries(cfg, adapters)
	if err != nil {
		arch.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Path(), err)
	}
	qs = append(qs, aqs...)
	b, err := openFor(device, qs)
	if err != nil {
		arch.Close()
		return nil, nil, err
	}
	if checkTensors {
		if err := arch.CheckFinite(); err != nil {
			arch.Close()
			b.Close()
			return nil, nil, fmt.Errorf("%s: --check-tensors: %w", d.Path(), err)
		}
		for _, a := range adapters {
			if err := a.CheckFinite(); err != nil {
				arch.Close()
				b.Close()
				return nil, nil, fmt.Errorf("--check-tensors: %w", err)
			}
		}
	}
	log.Info().Str("device", b.Name()).Str("model", d.Path()).Msg("loading")
	m, err := model.LoadFrom(cfg, arch, b) // closes arch on failure
	if err != nil {
		b.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Path(), err)
	}
	if err := m.AttachAdapters(adapters); err != nil {
		m.Close()
		b.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Path(), err)
	}
	return b, m, nil
}
