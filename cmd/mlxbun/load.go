// Loading a model for the verbs: the one model-directory reader (package modeldir) hands the config and weights
// to the model package, after an optional scan of every floating weight for NaN and Inf (--check-tensors).
package main

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
)

// loadModel binds d's weights onto b. With checkTensors every floating tensor is scanned first and a NaN or Inf
// fails the load naming the tensor.
func loadModel(d *modeldir.Dir, b backend.Backend, checkTensors bool) (*model.Model, error) {
	cfg, err := d.Config()
	if err != nil {
		return nil, err
	}
	arch, err := d.Weights()
	if err != nil {
		return nil, err
	}
	if checkTensors {
		if err := arch.CheckFinite(); err != nil {
			arch.Close()
			return nil, fmt.Errorf("%s: --check-tensors: %w", d.Path(), err)
		}
	}
	m, err := model.LoadFrom(cfg, arch, b) // closes arch on failure
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path(), err)
	}
	return m, nil
}
