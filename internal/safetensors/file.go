// One .safetensors file held in memory: memory-mapped where the OS allows (mmap_unix.go), read whole otherwise
// (mmap_other.go). Tensors handed out alias that memory, so loading a model costs no copy until a backend
// uploads or converts the bytes.
package safetensors

import (
	"fmt"
	"sort"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// File is one opened .safetensors file. Its tensors' Data slices alias a read-only mapping: writing to them
// faults, and using them after Close is invalid.
type File struct {
	path   string
	data   []byte             // the whole file
	unmap  func([]byte) error // releases data; nil once closed
	header Header
	names  []string // sorted
}

// Open maps path and validates its header. Every error names path.
func Open(path string) (*File, error) {
	f, st, err := userfile.Open(path, userfile.Weights) // a named pipe or a device is refused, never waited on
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	defer f.Close()
	size := st.Size()
	if size < 8 {
		// mmap of an empty file fails with an unhelpful EINVAL; say what is actually wrong.
		_, err := ParseHeader(nil, size)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, unmap, err := mapFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: map %d bytes: %w", path, size, err)
	}
	h, err := ParseHeader(data, size)
	if err != nil {
		_ = unmap(data) // the header error is the one worth reporting
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	names := make([]string, 0, len(h.Tensors))
	for n := range h.Tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	return &File{path: path, data: data, unmap: unmap, header: h, names: names}, nil
}

// Path is the file name given to Open.
func (f *File) Path() string { return f.path }

// Names lists the tensor names, sorted. The slice is the caller's.
func (f *File) Names() []string { return append([]string(nil), f.names...) }

// Header is the validated header (offsets, dtypes, shapes) without touching tensor data.
func (f *File) Header() Header { return f.header }

// Tensor returns the named tensor with Data aliasing the mapping (capacity clipped so an append cannot spill
// into the next tensor). Shape is a fresh copy. ok is false when the file has no such tensor or is closed.
func (f *File) Tensor(name string) (backend.Host, bool) {
	t, ok := f.header.Tensors[name]
	if !ok || f.unmap == nil {
		return backend.Host{}, false
	}
	lo, hi := f.header.DataStart+t.Begin, f.header.DataStart+t.End
	return backend.Host{
		Name:  name,
		DType: t.DType,
		Shape: append([]int{}, t.Shape...),
		Data:  f.data[lo:hi:hi],
	}, true
}

// Metadata is the header's __metadata__ map (a copy; nil when absent).
func (f *File) Metadata() map[string]string {
	if f.header.Metadata == nil {
		return nil
	}
	m := make(map[string]string, len(f.header.Metadata))
	for k, v := range f.header.Metadata {
		m[k] = v
	}
	return m
}

// Close releases the mapping. Data slices from Tensor must not be used afterwards. Closing twice is harmless.
func (f *File) Close() error {
	if f.unmap == nil {
		return nil
	}
	err := f.unmap(f.data)
	f.unmap, f.data = nil, nil
	if err != nil {
		return fmt.Errorf("%s: unmap: %w", f.path, err)
	}
	return nil
}
