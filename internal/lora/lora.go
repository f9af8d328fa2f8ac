// Package lora reads LoRA adapters in the two layouts users bring them in — PEFT's (adapter_config.json +
// adapter_model.safetensors) and mlx-lm's (adapter_config.json + adapters.safetensors) — into one form: for each
// adapted linear module, A [r, in] and B [out, r] in the [out, in] orientation of the module's weight and the
// scale s, so that the module computes y = W·x + s·B(A·x). It knows no model: whether the modules and shapes fit
// one is internal/model's check (lora.go), which names the tensor that does not.
package lora

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// The files of an adapter directory.
const (
	ConfigFile  = "adapter_config.json"
	PEFTWeights = "adapter_model.safetensors" // PEFT's save_pretrained
	MLXWeights  = "adapters.safetensors"      // mlx-lm's lora.py
)

// Layout is how an adapter directory stores its matrices.
type Layout string

const (
	PEFT  Layout = "peft"   // <prefix><module>.lora_A.weight [r, in], .lora_B.weight [out, r]; scale lora_alpha / r
	MLXLM Layout = "mlx-lm" // <module>.lora_a [in, r], .lora_b [r, out]; scale lora_parameters.scale
)

// ErrAdapter is wrapped by every error about an adapter's files or contents.
var ErrAdapter = errors.New("adapter")

// Target is one adapted linear module.
type Target struct {
	Module string       // the module's path in the model, "model.layers.0.self_attn.q_proj"
	A      backend.Host // [r, in]: the down projection (mlx-lm's lora_a transposed on read)
	B      backend.Host // [out, r]: the up projection (mlx-lm's lora_b transposed on read)
	// ATensor and BTensor are the tensors' names in the adapter file, for messages.
	ATensor, BTensor string
	Scale            float64 // s: the adapter's own scale for this module times the caller's multiplier
}

// Rank is r, the rows of A.
func (t Target) Rank() int { return t.A.Shape[0] }

// Adapter is one adapter directory, read whole (adapters are small: a few MB for a 7B model at r = 8).
type Adapter struct {
	Dir     string
	Layout  Layout
	Targets []Target // sorted by module
}

// Open reads the adapter in dir; multiplier scales the adapter's own scale (--adapter-scale: 1 keeps it). A
// missing or malformed file, a tensor that is not a LoRA matrix, or matrices of mismatched rank are one error
// naming the file or tensor.
func Open(dir string, multiplier float64) (*Adapter, error) {
	if math.IsNaN(multiplier) || math.IsInf(multiplier, 0) {
		return nil, fmt.Errorf("%w %s: scale %v is not a finite number", ErrAdapter, dir, multiplier)
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w directory %s does not exist", ErrAdapter, dir)
	case err != nil:
		return nil, fmt.Errorf("%w directory: %w", ErrAdapter, err)
	case !st.IsDir():
		return nil, fmt.Errorf("%w %s is not a directory (give the folder holding %s)", ErrAdapter, dir, ConfigFile)
	}
	raw, err := userfile.Read(filepath.Join(dir, ConfigFile), userfile.JSON)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrAdapter, dir, err)
	}
	var layout Layout
	var weights string
	for _, l := range []struct {
		layout Layout
		file   string
	}{{PEFT, PEFTWeights}, {MLXLM, MLXWeights}} {
		if _, err := os.Stat(filepath.Join(dir, l.file)); err == nil {
			if layout != "" {
				return nil, fmt.Errorf("%w %s: holds both %s and %s; keep one", ErrAdapter, dir, PEFTWeights, MLXWeights)
			}
			layout, weights = l.layout, filepath.Join(dir, l.file)
		}
	}
	if layout == "" {
		return nil, fmt.Errorf("%w %s: no %s (PEFT) or %s (mlx-lm)", ErrAdapter, dir, PEFTWeights, MLXWeights)
	}
	// The matrices are copied into memory, so the file's size is capped like any file read whole.
	if _, err := userfile.Stat(weights, userfile.Adapter); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAdapter, err)
	}
	f, err := safetensors.Open(weights)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAdapter, err)
	}
	defer f.Close()
	a := &Adapter{Dir: dir, Layout: layout}
	if layout == PEFT {
		err = a.readPEFT(raw, f)
	} else {
		err = a.readMLX(raw, f)
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrAdapter, dir, err)
	}
	if len(a.Targets) == 0 {
		return nil, fmt.Errorf("%w %s: %s holds no LoRA matrices", ErrAdapter, dir, filepath.Base(weights))
	}
	for i := range a.Targets {
		a.Targets[i].Scale *= multiplier
	}
	slices.SortFunc(a.Targets, func(x, y Target) int { return strings.Compare(x.Module, y.Module) })
	return a, nil
}

// pair collects one module's two matrices as the file names them.
type pair struct {
	a, b         backend.Host
	aName, bName string
}

// collect groups the file's tensors by module: split returns a tensor's module and whether it is the A (true) or
// B matrix, or ok false for a tensor that is neither.
func collect(f *safetensors.File, split func(name string) (module string, isA, ok bool), what string) (map[string]*pair, []string, error) {
	mods := map[string]*pair{}
	var order []string
	for _, name := range f.Names() {
		mod, isA, ok := split(name)
		if !ok {
			return nil, nil, fmt.Errorf("tensor %q in %s is not a LoRA matrix (%s); DoRA magnitudes, embedding adapters, "+
				"quantized adapters and fully trained modules are not supported", name, filepath.Base(f.Path()), what)
		}
		h, _ := f.Tensor(name)
		h.Data = slices.Clone(h.Data) // the file is unmapped when Open returns
		p := mods[mod]
		if p == nil {
			p = &pair{}
			mods[mod] = p
			order = append(order, mod)
		}
		if isA {
			p.a, p.aName = h, name
		} else {
			p.b, p.bName = h, name
		}
	}
	for _, mod := range order {
		p := mods[mod]
		for _, h := range []backend.Host{p.a, p.b} {
			if h.Name == "" {
				continue
			}
			if len(h.Shape) != 2 {
				return nil, nil, fmt.Errorf("tensor %q has shape %v, want a matrix", h.Name, h.Shape)
			}
			switch h.DType {
			case backend.F32, backend.F16, backend.BF16:
			default:
				return nil, nil, fmt.Errorf("tensor %q has dtype %s, want BF16, F16 or F32", h.Name, h.DType)
			}
		}
		if p.aName == "" || p.bName == "" {
			have, miss := p.aName+p.bName, "A"
			if p.aName != "" {
				miss = "B"
			}
			return nil, nil, fmt.Errorf("tensor %q has no %s matrix beside it", have, miss)
		}
	}
	return mods, order, nil
}

// transpose is h [rows, cols] as float32 [cols, rows], named name.
func transpose(h backend.Host, name string) (backend.Host, error) {
	v, err := h.Float32s()
	if err != nil {
		return h, fmt.Errorf("tensor %q: %w", h.Name, err)
	}
	rows, cols := h.Shape[0], h.Shape[1]
	t := make([]float32, len(v))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = v[r*cols+c]
		}
	}
	return backend.HostF32(name, t, cols, rows), nil
}
