// Writing an adapter directory in either layout, as PEFT's save_pretrained and mlx-lm's lora.py write them (the
// files Open reads). Tests build adapters with known matrices through it; each file is written to a temporary
// name and renamed.
package lora

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// Write stores targets in dir (created if needed) in the given layout. Every target must have the same rank and
// scale, which the config states once (PEFT: r and lora_alpha = scale·r; mlx-lm: lora_parameters). A and B are
// given in the [out, in] orientation and written in the layout's (mlx-lm's transposed).
func Write(dir string, layout Layout, targets []Target) error {
	if len(targets) == 0 {
		return fmt.Errorf("lora: writing %s: no targets", dir)
	}
	r, scale := targets[0].Rank(), targets[0].Scale
	var hosts []backend.Host
	var mods []string
	for _, t := range targets {
		if t.Rank() != r || t.Scale != scale {
			return fmt.Errorf("lora: writing %s: %s has rank %d, scale %g; the first target %d, %g", dir, t.Module, t.Rank(), t.Scale, r, scale)
		}
		a, b := t.A, t.B
		switch layout {
		case PEFT:
			a.Name, b.Name = peftPrefix+t.Module+".lora_A.weight", peftPrefix+t.Module+".lora_B.weight"
		case MLXLM:
			var err error
			if a, err = transpose(t.A, t.Module+".lora_a"); err != nil {
				return err
			}
			if b, err = transpose(t.B, t.Module+".lora_b"); err != nil {
				return err
			}
		default:
			return fmt.Errorf("lora: unknown layout %q", layout)
		}
		hosts = append(hosts, a, b)
		leaf := t.Module[strings.LastIndex(t.Module, ".")+1:]
		if !slices.Contains(mods, leaf) {
			mods = append(mods, leaf)
		}
	}
	var cfg any
	weights := PEFTWeights
	if layout == PEFT {
		cfg = map[string]any{"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": r, "lora_alpha": scale * float64(r),
			"target_modules": mods, "lora_dropout": 0.0, "bias": "none", "use_rslora": false, "use_dora": false,
			"fan_in_fan_out": false, "rank_pattern": map[string]any{}, "alpha_pattern": map[string]any{}}
	} else {
		weights = MLXWeights
		cfg = map[string]any{"fine_tune_type": "lora", "num_layers": -1,
			"lora_parameters": map[string]any{"rank": r, "scale": scale, "dropout": 0.0}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("lora: %w", err)
	}
	if err := safetensors.WriteFile(filepath.Join(dir, weights), hosts, nil); err != nil {
		return fmt.Errorf("lora: %w", err)
	}
	raw, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("lora: %w", err)
	}
	return writeAtomic(filepath.Join(dir, ConfigFile), append(raw, '\n'))
}

// writeAtomic writes data to a temporary file beside path and renames it over path.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("lora: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("lora: %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("lora: %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("lora: %w", err)
	}
	return nil
}
