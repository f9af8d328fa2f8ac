// Checkpoint tensors the model would never read. A config.json that describes fewer layers than the weights hold,
// or another family's layout, would otherwise run on part of the weights and answer wrongly without a word
// (transformers warns about unused weights; this loader refuses them, naming the first): tensors of layers at or
// past num_hidden_layers are refused before anything is read, any other tensor the binding passed over after it.
package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
)

// namer is a Source that lists its tensors (a safetensors archive, the synthetic sources); one that does not is
// not checked.
type namer interface{ Names() []string }

// layerIndex is N of a "model.layers.N." tensor name, -1 for other names.
func layerIndex(name string) int {
	rest, ok := strings.CutPrefix(name, "model.layers.")
	if !ok {
		return -1
	}
	digits, _, ok := strings.Cut(rest, ".")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 0 {
		return -1
	}
	return n
}

// extraLayers fails when src holds tensors of layers at or past cfg.NumLayers.
func extraLayers(cfg *config.Model, src Source) error {
	ns, ok := src.(namer)
	if !ok {
		return nil
	}
	var extra []string
	deepest := -1
	for _, n := range ns.Names() {
		if i := layerIndex(n); i >= cfg.NumLayers {
			extra = append(extra, n)
			deepest = max(deepest, i)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	return fmt.Errorf("%s: num_hidden_layers is %d, but the weights hold layers up to %d (%s): the model would run without them; "+
		"set num_hidden_layers to the checkpoint's layer count", config.ConfigFile, cfg.NumLayers, deepest, listSome(extra))
}

// readSet is a Source that records the tensors read through it.
type readSet struct {
	Source
	read map[string]bool
}

func (r *readSet) Tensor(name string) (backend.Host, error) {
	r.read[name] = true
	return r.Source.Tensor(name)
}

// MetadataOf passes the wrapped archive's geometry records through (quant.go), which embedding Source would hide.
func (r *readSet) MetadataOf(tensor, key string) (string, bool) {
	if rs, ok := r.Source.(recordSource); ok {
		return rs.MetadataOf(tensor, key)
	}
	return "", false
}

// unread fails when src holds a tensor that the binding did not read and that no loader reads (family.Map.Dropped).
func unread(cfg *config.Model, fam family.Family, src Source, read map[string]bool) error {
	ns, ok := src.(namer)
	if !ok {
		return nil
	}
	tm := fam.Tensors(cfg)
	var left []string
	for _, n := range ns.Names() {
		if !read[n] && !tm.Dropped(n) {
			left = append(left, n)
		}
	}
	if len(left) == 0 {
		return nil
	}
	slices.Sort(left)
	return fmt.Errorf("the weights hold %s that a %s model with this %s never reads: the config does not describe this checkpoint",
		listSome(left), cfg.ModelType, config.ConfigFile)
}

// listSome names the first few of names and counts the rest: "a.weight, b.weight and 7 more tensors".
func listSome(names []string) string {
	const show = 3
	if len(names) == 1 {
		return "tensor " + names[0]
	}
	if len(names) <= show {
		return "tensors " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("tensors %s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}
