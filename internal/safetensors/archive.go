// A model directory's weights seen as one name → tensor table, whichever way the exporter laid them out:
// a single model.safetensors, shards listed by model.safetensors.index.json, or loose *.safetensors files.
package safetensors

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// ErrNotFound is wrapped by Archive.Tensor when a tensor is absent.
var ErrNotFound = errors.New("tensor not found")

const (
	singleName = "model.safetensors"
	indexName  = "model.safetensors.index.json"
)

// Archive is every tensor of one model directory. Tensor data aliases the files' mappings until Close.
type Archive struct {
	dir   string
	files []*File          // each opened once, in the order opened
	where map[string]*File // tensor name → file holding it
	names []string         // sorted
	// After Rename: each tensor's name in its file, and the names left out (sorted); nil before.
	stored  map[string]string
	leftOut []string
}

// OpenDir opens dir's weights. Precedence follows transformers: model.safetensors, else the shard index,
// else every *.safetensors file (what mlx-lm exports sometimes leave). Errors name the directory and the file.
func OpenDir(dir string) (*Archive, error) {
	a := &Archive{dir: dir, where: map[string]*File{}}
	var err error
	switch {
	case exists(filepath.Join(dir, singleName)):
		err = a.addWhole(filepath.Join(dir, singleName))
	case exists(filepath.Join(dir, indexName)):
		err = a.addIndexed(filepath.Join(dir, indexName))
	default:
		err = a.addGlob()
	}
	if err != nil {
		a.Close()
		return nil, err
	}
	a.names = make([]string, 0, len(a.where))
	for n := range a.where {
		a.names = append(a.names, n)
	}
	sort.Strings(a.names)
	return a, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// addWhole adds every tensor of one file; a name already held by another file is an error naming both.
func (a *Archive) addWhole(path string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	a.files = append(a.files, f)
	for _, n := range f.names {
		if prev, dup := a.where[n]; dup {
			return fmt.Errorf("%s: tensor %q is in both %s and %s", a.dir, n, filepath.Base(prev.path), filepath.Base(path))
		}
		a.where[n] = f
	}
	return nil
}

// addGlob adds every *.safetensors file in the directory, sorted by name.
func (a *Archive) addGlob() error {
	paths, err := filepath.Glob(filepath.Join(a.dir, "*.safetensors"))
	if err != nil {
		return fmt.Errorf("%s: %w", a.dir, err)
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s: no %s, %s or *.safetensors files", a.dir, singleName, indexName)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := a.addWhole(p); err != nil {
			return err
		}
	}
	return nil
}

// addIndexed opens the shards an index's weight_map names and binds exactly the tensors it lists (as
// transformers does); each listed tensor must exist in the shard the index names.
func (a *Archive) addIndexed(indexPath string) error {
	raw, err := userfile.Read(indexPath, userfile.JSON)
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		return fmt.Errorf("%s: %w", indexPath, err)
	}
	if len(idx.WeightMap) == 0 {
		return fmt.Errorf("%s: weight_map is missing or empty", indexPath)
	}
	shards := map[string]*File{}
	names := make([]string, 0, len(idx.WeightMap))
	for n := range idx.WeightMap {
		names = append(names, n)
	}
	sort.Strings(names) // deterministic: the first failing tensor is the same every run
	for _, n := range names {
		shard := idx.WeightMap[n]
		if !filepath.IsLocal(shard) {
			return fmt.Errorf("%s: tensor %q maps to %q, which is not a file inside %s", indexPath, n, shard, a.dir)
		}
		f, ok := shards[shard]
		if !ok {
			p := filepath.Join(a.dir, shard)
			if !exists(p) {
				return fmt.Errorf("%s: shard %s (holding tensor %q) is missing", indexPath, p, n)
			}
			if f, err = Open(p); err != nil {
				return err
			}
			shards[shard] = f
			a.files = append(a.files, f)
		}
		if _, ok := f.header.Tensors[n]; !ok {
			return fmt.Errorf("%s: tensor %q should be in %s, which does not hold it", indexPath, n, f.path)
		}
		a.where[n] = f
	}
	return nil
}

// Rename names the archive's tensors as fn names them and leaves out those fn refuses (false): the view of a
// wrapped multimodal checkpoint that holds its language model's tensors under the text model's names
// (config.Model.TextName). Two tensors given one name is an error naming both. It is called once, before use.
func (a *Archive) Rename(fn func(name string) (string, bool)) error {
	where, stored := map[string]*File{}, map[string]string{}
	var left []string
	for _, n := range a.names {
		to, ok := fn(n)
		if !ok {
			left = append(left, n)
			continue
		}
		if prev, dup := stored[to]; dup {
			return fmt.Errorf("%s: tensors %q and %q are both %q", a.dir, prev, n, to)
		}
		where[to], stored[to] = a.where[n], n
	}
	a.where, a.stored, a.leftOut = where, stored, left
	a.names = make([]string, 0, len(where))
	for n := range where {
		a.names = append(a.names, n)
	}
	sort.Strings(a.names)
	return nil
}

// LeftOut lists the tensors Rename left out, by their names in the files, sorted. The slice is the caller's.
func (a *Archive) LeftOut() []string { return append([]string(nil), a.leftOut...) }

// file is the file holding name and the tensor's name there.
func (a *Archive) file(name string) (*File, string, bool) {
	f, ok := a.where[name]
	if s, renamed := a.stored[name]; renamed {
		return f, s, ok
	}
	return f, name, ok
}

// Dir is the directory given to OpenDir.
func (a *Archive) Dir() string { return a.dir }

// Names lists every tensor name, sorted. The slice is the caller's.
func (a *Archive) Names() []string { return append([]string(nil), a.names...) }

// Has reports whether the archive holds name.
func (a *Archive) Has(name string) bool {
	_, ok := a.where[name]
	return ok
}

// Tensor returns the named tensor (Data aliases the mapping), named as asked. A missing tensor's error wraps
// ErrNotFound and names the tensor and the directory.
func (a *Archive) Tensor(name string) (backend.Host, error) {
	f, in, ok := a.file(name)
	if !ok {
		return backend.Host{}, fmt.Errorf("%w: %q in %s", ErrNotFound, name, a.dir)
	}
	t, ok := f.Tensor(in)
	if !ok {
		return backend.Host{}, fmt.Errorf("%s: tensor %q: archive is closed", a.dir, name)
	}
	t.Name = name
	return t, nil
}

// MetadataOf is the value under key in the __metadata__ of the file holding tensor; ok is false when the archive
// has no such tensor or its file no such key.
func (a *Archive) MetadataOf(tensor, key string) (string, bool) {
	f, ok := a.where[tensor]
	if !ok {
		return "", false
	}
	v, ok := f.header.Metadata[key]
	return v, ok
}

// Close unmaps every file; it reports the first failure but closes them all.
func (a *Archive) Close() error {
	var first error
	for _, f := range a.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
