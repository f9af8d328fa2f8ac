// Validating parser for the safetensors header: the 8-byte length, the JSON table of tensors and __metadata__.
// It checks everything a loader later relies on (dtype, shape, offsets inside the data section, sizes, no
// overlaps) so that slicing the mapping afterwards cannot go out of bounds. It does no I/O; Open feeds it bytes.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"unicode/utf8"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// MaxHeaderSize caps the JSON header. HF's reference reader uses the same 100 MB limit; a larger length is a
// corrupt or hostile file, not a model.
const MaxHeaderSize = 100 << 20

// metadataKey is the reserved header key holding a string→string map rather than a tensor.
const metadataKey = "__metadata__"

// ErrFormat is wrapped by every error that says a file is not valid safetensors.
var ErrFormat = errors.New("invalid safetensors")

// HeaderError is one violation found in a header. Tensor is empty when the problem is not about one tensor.
// Its text is a single line; callers prefix the file name.
type HeaderError struct {
	Tensor string
	Reason string
}

func (e *HeaderError) Error() string {
	if e.Tensor == "" {
		return e.Reason
	}
	return fmt.Sprintf("tensor %q: %s", e.Tensor, e.Reason)
}

// Unwrap lets errors.Is(err, ErrFormat) recognise every header error without printing it.
func (e *HeaderError) Unwrap() error { return ErrFormat }

func headerErr(tensor, format string, args ...any) error {
	return &HeaderError{Tensor: tensor, Reason: fmt.Sprintf(format, args...)}
}

// TensorInfo is one validated header entry. Begin and End are byte offsets into the data section, which
// starts at Header.DataStart in the file.
type TensorInfo struct {
	Name       string
	DType      backend.DType
	Shape      []int
	Begin, End int64
}

// Header is a parsed, validated safetensors header.
type Header struct {
	Tensors   map[string]TensorInfo
	Metadata  map[string]string // nil when the file has no __metadata__
	DataStart int64             // 8 + header length: file offset of data offset 0
	DataSize  int64             // fileSize − DataStart
}

// rawEntry is a tensor entry as JSON spells it; pointers tell a missing key from an empty value.
type rawEntry struct {
	DType   *string  `json:"dtype"`
	Shape   *[]int64 `json:"shape"`
	Offsets *[]int64 `json:"data_offsets"`
}

// ParseHeader validates the header at the start of b, a prefix of a file of fileSize bytes that holds at least
// the 8-byte length and the JSON it announces. It never panics on any input (FuzzParseHeader holds it to that).
func ParseHeader(b []byte, fileSize int64) (Header, error) {
	if fileSize < 8 || len(b) < 8 {
		return Header{}, headerErr("", "file is %d bytes, too short for the 8-byte header length (truncated?)", fileSize)
	}
	n := binary.LittleEndian.Uint64(b[:8])
	if n > MaxHeaderSize {
		return Header{}, headerErr("", "header length %d exceeds the %d-byte limit", n, MaxHeaderSize)
	}
	if int64(n) > fileSize-8 {
		return Header{}, headerErr("", "header length %d runs past the end of the %d-byte file (truncated?)", n, fileSize)
	}
	if uint64(len(b)-8) < n {
		return Header{}, headerErr("", "header length %d, but only %d header bytes were read (truncated?)", n, len(b)-8)
	}
	h := Header{DataStart: 8 + int64(n), DataSize: fileSize - 8 - int64(n), Tensors: map[string]TensorInfo{}}
	js := b[8 : 8+n]
	if !utf8.Valid(js) {
		// encoding/json would quietly turn bad bytes into U+FFFD and so rename tensors; refuse, as HF does.
		return Header{}, headerErr("", "header is not valid UTF-8")
	}
	if len(bytes.TrimLeft(js, " \t\r\n")) == 0 || bytes.TrimLeft(js, " \t\r\n")[0] != '{' {
		return Header{}, headerErr("", "header is not a JSON object")
	}

	// Stream the top level by hand: encoding/json into a map would silently keep the last of two
	// entries with one name, and a duplicate name is a corrupt file.
	dec := json.NewDecoder(bytes.NewReader(js))
	if _, err := dec.Token(); err != nil {
		return Header{}, headerErr("", "header JSON: %v", err)
	}
	seenMeta := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Header{}, headerErr("", "header JSON: %v", err)
		}
		name, ok := tok.(string)
		if !ok {
			return Header{}, headerErr("", "header JSON: key %v is not a string", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Header{}, headerErr(name, "header JSON: %v", err)
		}
		if name == metadataKey {
			if seenMeta {
				return Header{}, headerErr("", "%s appears twice", metadataKey)
			}
			seenMeta = true
			if string(raw) == "null" { // what some writers emit for "no metadata"
				continue
			}
			if err := json.Unmarshal(raw, &h.Metadata); err != nil || h.Metadata == nil {
				return Header{}, headerErr("", "%s must be an object of strings: %s", metadataKey, clip(raw))
			}
			continue
		}
		if _, dup := h.Tensors[name]; dup {
			return Header{}, headerErr(name, "appears twice in the header")
		}
		info, err := parseEntry(name, raw, h.DataSize)
		if err != nil {
			return Header{}, err
		}
		h.Tensors[name] = info
	}
	if _, err := dec.Token(); err != nil {
		return Header{}, headerErr("", "header JSON: %v", err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		return Header{}, headerErr("", "header JSON: trailing data after the object (%v)", tok)
	}
	if err := checkOverlaps(h.Tensors); err != nil {
		return Header{}, err
	}
	return h, nil
}

// parseEntry validates one tensor entry against a data section of dataSize bytes.
func parseEntry(name string, raw json.RawMessage, dataSize int64) (TensorInfo, error) {
	var e rawEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return TensorInfo{}, headerErr(name, "malformed entry %s: %v", clip(raw), err)
	}
	if k, dup := repeatedKey(raw); dup {
		// encoding/json keeps the last of the two; HF's reader (serde) refuses the entry.
		return TensorInfo{}, headerErr(name, "entry gives %s twice", k)
	}
	switch {
	case e.DType == nil:
		return TensorInfo{}, headerErr(name, "entry has no dtype")
	case e.Shape == nil:
		return TensorInfo{}, headerErr(name, "entry has no shape")
	case e.Offsets == nil:
		return TensorInfo{}, headerErr(name, "entry has no data_offsets")
	}
	dt, err := backend.ParseDType(*e.DType)
	if err != nil {
		return TensorInfo{}, headerErr(name, "%v", err)
	}
	shape := make([]int, len(*e.Shape))
	for i, d := range *e.Shape {
		if d < 0 || int64(int(d)) != d {
			return TensorInfo{}, headerErr(name, "shape %v has a negative or unaddressable dimension %d", *e.Shape, d)
		}
		shape[i] = int(d)
	}
	offs := *e.Offsets
	if len(offs) != 2 {
		return TensorInfo{}, headerErr(name, "data_offsets %v must be [begin,end]", offs)
	}
	begin, end := offs[0], offs[1]
	if begin < 0 || begin > end {
		return TensorInfo{}, headerErr(name, "data_offsets [%d,%d] are not 0 ≤ begin ≤ end", begin, end)
	}
	if end > dataSize {
		return TensorInfo{}, headerErr(name, "data_offsets [%d,%d] end past the %d-byte data section (truncated?)", begin, end, dataSize)
	}
	need, ok := byteSize(dt, shape)
	if !ok {
		return TensorInfo{}, headerErr(name, "%s %v is too large to address", dt, shape)
	}
	if uint64(end-begin) != need {
		return TensorInfo{}, headerErr(name, "data_offsets [%d,%d] hold %d bytes, but %s %v needs %d", begin, end, end-begin, dt, shape, need)
	}
	return TensorInfo{Name: name, DType: dt, Shape: shape, Begin: begin, End: end}, nil
}

// repeatedKey reports the first key that appears twice at the top of the JSON object raw (already decoded once).
func repeatedKey(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := tok.(string)
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// byteSize is product(shape)·dtype size, reporting false when it does not fit in an int64.
func byteSize(dt backend.DType, shape []int) (uint64, bool) {
	n := uint64(dt.Size())
	for _, d := range shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

// checkOverlaps rejects two non-empty tensors sharing bytes; gaps are tolerated (some writers align data).
func checkOverlaps(ts map[string]TensorInfo) error {
	spans := make([]TensorInfo, 0, len(ts))
	for _, t := range ts {
		if t.End > t.Begin {
			spans = append(spans, t)
		}
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].Begin != spans[j].Begin {
			return spans[i].Begin < spans[j].Begin
		}
		return spans[i].Name < spans[j].Name
	})
	for i := 1; i < len(spans); i++ {
		a, b := spans[i-1], spans[i]
		if b.Begin < a.End {
			return headerErr(b.Name, "data_offsets [%d,%d] overlap tensor %q at [%d,%d]", b.Begin, b.End, a.Name, a.Begin, a.End)
		}
	}
	return nil
}

// clip shortens raw JSON for an error message so a hostile header cannot produce a megabyte-long line.
func clip(raw []byte) string {
	const max = 80
	if len(raw) <= max {
		return string(raw)
	}
	return string(raw[:max]) + "…"
}
