// Opening a model for the verbs: a --model value is a local directory or, failing that, a Hugging Face name
// org/name[@revision] resolved in the hub cache (resolveModel); the one model-directory reader (package modeldir)
// hands the config and the weight archive over once; the model's linear layers are listed from them (model.SourceQueries, headers only), the
// registry picks a device that serves them all (or fails a named one that cannot) before any weight is read, then
// an optional scan of every floating weight, the adapters' included, for NaN and Inf (--check-tensors) and the
// binding; LoRA adapters, when given, are checked against the model and asked of the device with its layers, and
// attached after the binding.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/hub"
	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
)

// resolveModel turns a --model value into a directory: an existing path wins; otherwise a Hugging Face name
// org/name[@revision] is found in the hub cache, its missing files fetched unless HF_HUB_OFFLINE is set. Any
// other value is returned as it is, for modeldir to report.
func resolveModel(spec string) (string, error) {
	_, statErr := os.Stat(spec)
	if statErr == nil || !hub.IsRef(spec) {
		if statErr == nil {
			log.Info().Str("model", spec).Msg("model found in a local directory")
		}
		return spec, nil
	}
	ref, err := hub.ParseRef(spec)
	if err != nil {
		return "", err
	}
	snap, err := fetchModel(context.Background(), ref, nil, os.Stderr, false)
	if err != nil {
		return "", fmt.Errorf("--model %s: no such directory, and %w", spec, err)
	}
	return snap.Dir, nil
}

// openModelDir reads the model directory a --model value names (see resolveModel).
func openModelDir(spec string) (*modeldir.Dir, error) {
	dir, err := resolveModel(spec)
	if err != nil {
		return nil, err
	}
	return modeldir.Open(dir)
}

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
	if left := arch.LeftOut(); len(left) > 0 {
		log.Debug().Str("model", d.Path()).Int("tensors", len(left)).Str("modules", moduleCounts(left)).
			Msg("not the language model's: left out")
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

// moduleCounts sums tensor names by their top module, the components up to the first that is not "model"
// ("model.vision_tower", "multi_modal_projector", "mtp"): "model.vision_tower 439, mtp 15".
func moduleCounts(names []string) string {
	counts := map[string]int{}
	var order []string
	for _, n := range names {
		parts := strings.Split(n, ".")
		k := 0
		for k < len(parts)-1 && parts[k] == "model" {
			k++
		}
		top := strings.Join(parts[:k+1], ".")
		if counts[top] == 0 {
			order = append(order, top)
		}
		counts[top]++
	}
	out := make([]string, len(order))
	for i, top := range order {
		out[i] = fmt.Sprintf("%s %d", top, counts[top])
	}
	return strings.Join(out, ", ")
}
