// A synthetic model written out as an unquantized checkpoint (`bench --synthetic NAME --save DIR`): config.json
// with the preset's fields and the same seeded bf16 weights Synthetic builds, in safetensors shards with an index,
// so the quantizer and the device scripts can read a Qwen3-14B-shape checkpoint no one had to download. The
// directory is built under a temporary name beside DIR and renamed into place when complete.
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// SyntheticShardBytes is the tensor bytes WriteSynthetic puts in one shard (HF's usual 5 GB, a little less).
const SyntheticShardBytes = 4 << 30

// WriteSynthetic writes preset name's bf16 checkpoint (weights of seed) into dir, which must not exist: shards
// of at most shardBytes tensor bytes (one tensor larger than that gets a shard of its own), one shard's tensors
// in memory at a time. It returns the tensor bytes written.
func WriteSynthetic(name string, seed uint64, dir string, shardBytes int64) (int64, error) {
	p, err := preset(name)
	if err != nil {
		return 0, err
	}
	return writeSynthetic(name, p, seed, dir, shardBytes)
}

// writeSynthetic is WriteSynthetic of the config fields p.
func writeSynthetic(name string, p map[string]any, seed uint64, dir string, shardBytes int64) (int64, error) {
	if _, err := os.Stat(dir); err == nil {
		return 0, fmt.Errorf("synthetic model: %s exists; remove it or pick another directory", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("synthetic model: %w", err)
	}
	_, src, err := syntheticSource(p, trellis.Spec{}, false, seed)
	if err != nil {
		return 0, err
	}
	r, ok := src.(*randomSource)
	if !ok {
		return 0, fmt.Errorf("synthetic model %s: its source is %T, not the dense random weights", name, src)
	}
	cfg := map[string]any{"torch_dtype": "bfloat16"}
	for k, v := range p {
		cfg[k] = v
	}
	cj, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return 0, fmt.Errorf("synthetic model %s: config: %w", name, err)
	}
	// Shards by name order, each closed before it would pass shardBytes.
	var shards [][]string
	var cur []string
	var curBytes, total int64
	for _, n := range r.Names() {
		h, err := r.Header(n)
		if err != nil {
			return 0, err
		}
		b := int64(h.Elements()) * int64(h.DType.Size())
		if len(cur) > 0 && curBytes+b > shardBytes {
			shards, cur, curBytes = append(shards, cur), nil, 0
		}
		cur, curBytes, total = append(cur, n), curBytes+b, total+b
	}
	if len(cur) > 0 {
		shards = append(shards, cur)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), "."+filepath.Base(dir)+".tmp*")
	if err != nil {
		return 0, fmt.Errorf("synthetic model: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.WriteFile(filepath.Join(tmp, "config.json"), append(cj, '\n'), 0o644); err != nil {
		return 0, fmt.Errorf("synthetic model: %w", err)
	}
	weightMap := map[string]string{}
	for i, names := range shards {
		file := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(shards))
		tensors := make([]backend.Host, 0, len(names))
		for _, n := range names {
			h, err := r.Tensor(n)
			if err != nil {
				return 0, fmt.Errorf("synthetic model %s: %w", name, err)
			}
			tensors = append(tensors, h)
			weightMap[n] = file
		}
		if err := safetensors.WriteFile(filepath.Join(tmp, file), tensors, map[string]string{"format": "pt"}); err != nil {
			return 0, err
		}
	}
	index := map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": weightMap}
	ij, _ := json.MarshalIndent(index, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "model.safetensors.index.json"), append(ij, '\n'), 0o644); err != nil {
		return 0, fmt.Errorf("synthetic model: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's 0700 is for the temporary name only
		return 0, fmt.Errorf("synthetic model: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return 0, fmt.Errorf("synthetic model: %w", err)
	}
	done = true
	return total, nil
}
