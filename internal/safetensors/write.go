// Writer for .safetensors files in the byte layout HF's safetensors library produces: compact JSON header with
// __metadata__ first, tensors ordered by descending dtype width then by name and packed back to back, header
// padded with spaces to a multiple of 8. The data section is then 8-byte aligned and, because wider dtypes come
// first, every tensor starts at a multiple of its element size (GPU uploads and typed views can rely on it).
package safetensors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// WriteFile writes tensors (in any order) and metadata to path atomically: a temporary file in the same directory is written,
// fsynced and renamed over path, so a reader never sees a half-written file. Each tensor's Data must hold
// exactly product(Shape)·DType.Size() bytes; names must be unique, non-empty and not "__metadata__".
func WriteFile(path string, tensors []backend.Host, metadata map[string]string) error {
	header, sorted, err := encodeHeader(tensors, metadata)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	// Until the rename succeeds the temporary file is ours to remove; after it, Remove fails harmlessly.
	defer os.Remove(tmp.Name())
	if err := writeBody(tmp, header, sorted); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: write %s: %w", path, tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: close %s: %w", path, tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	return nil
}

func writeBody(tmp *os.File, header []byte, sorted []backend.Host) error {
	w := bufio.NewWriterSize(tmp, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	w.Write(n[:])
	w.Write(header)
	for _, t := range sorted {
		w.Write(t.Data)
	}
	if err := w.Flush(); err != nil { // bufio keeps the first write error, so Flush reports it
		return err
	}
	// CreateTemp makes 0600; a model file is meant to be shared like any other.
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	return tmp.Sync()
}

// hfRank is each dtype's position in HF safetensors' Dtype enum (declared in increasing alignment); HF lays
// tensors out by descending rank, then name. Must match safetensors/src/tensor.rs for byte-identical files.
var hfRank = map[backend.DType]int{
	backend.U8: 1, backend.I8: 2, backend.I16: 5, backend.F16: 7, backend.BF16: 8, backend.I32: 9, backend.U32: 10,
	backend.F32: 11, backend.F64: 12, backend.I64: 13,
}

// encodeHeader validates tensors and returns the padded JSON header and the tensors in file order.
func encodeHeader(tensors []backend.Host, metadata map[string]string) ([]byte, []backend.Host, error) {
	sorted := append([]backend.Host(nil), tensors...)
	for _, t := range sorted {
		if err := checkWritable(t); err != nil {
			return nil, nil, err
		}
	}
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if hfRank[a.DType] != hfRank[b.DType] {
			return hfRank[a.DType] > hfRank[b.DType]
		}
		return a.Name < b.Name
	})

	var b bytes.Buffer
	b.WriteByte('{')
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k := range metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(`"` + metadataKey + `":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, k)
			b.WriteByte(':')
			writeJSONString(&b, metadata[k])
		}
		b.WriteByte('}')
	}
	var off uint64
	seen := make(map[string]bool, len(sorted))
	for _, t := range sorted {
		if seen[t.Name] {
			return nil, nil, fmt.Errorf("tensor %q given twice", t.Name)
		}
		seen[t.Name] = true
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeJSONString(&b, t.Name)
		b.WriteString(`:{"dtype":"` + t.DType.String() + `","shape":[`)
		for j, d := range t.Shape {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(d))
		}
		end := off + uint64(len(t.Data))
		fmt.Fprintf(&b, `],"data_offsets":[%d,%d]}`, off, end)
		off = end
	}
	b.WriteByte('}')
	for (8+b.Len())%8 != 0 {
		b.WriteByte(' ')
	}
	return b.Bytes(), sorted, nil
}

// checkWritable rejects a tensor the reader would reject, so WriteFile never produces an invalid file.
func checkWritable(t backend.Host) error {
	switch {
	case t.Name == "":
		return fmt.Errorf("tensor with an empty name")
	case t.Name == metadataKey:
		return fmt.Errorf("tensor named %q, which is reserved for metadata", metadataKey)
	case !utf8.ValidString(t.Name):
		return fmt.Errorf("tensor %q: name is not valid UTF-8", t.Name)
	case !knownDType(t.DType):
		return fmt.Errorf("tensor %q: invalid dtype %d", t.Name, uint8(t.DType))
	}
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("tensor %q: shape %v has a negative dimension", t.Name, t.Shape)
		}
	}
	need, ok := byteSize(t.DType, t.Shape)
	if !ok || need != uint64(len(t.Data)) {
		return fmt.Errorf("tensor %q: %d bytes of data, but %s %v needs %d", t.Name, len(t.Data), t.DType, t.Shape, need)
	}
	return nil
}

// knownDType reports whether d is a dtype safetensors can name. backend.DType.String indexes a table and
// panics past its end, so the probe recovers: a caller's garbage dtype must become an error, not a crash.
func knownDType(d backend.DType) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	back, err := backend.ParseDType(d.String())
	return err == nil && back == d
}

// writeJSONString writes s as a JSON string. encoding/json escapes <, > and & as \u003c etc. by default; HF's
// serde_json does not, so escaping is turned off to keep the bytes identical.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // encoding a string to a bytes.Buffer cannot fail
	b.Truncate(b.Len() - 1) // Encode appends a newline
}
