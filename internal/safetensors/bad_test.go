// One test per malformed input: each file is crafted byte by byte and must be refused with one line naming the
// file, the tensor where there is one, and what is wrong. Also the directory-level failures of OpenDir.
package safetensors

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// craft lays out an 8-byte length, the header text and dataLen bytes of data, as a safetensors file would.
func craft(header string, dataLen int) []byte {
	b := make([]byte, 8, 8+len(header)+dataLen)
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, dataLen)...)
}

// withLength is a file whose length field says n whatever follows it.
func withLength(n uint64, rest string) []byte {
	b := make([]byte, 8, 8+len(rest))
	binary.LittleEndian.PutUint64(b, n)
	return append(b, rest...)
}

func TestOpenRejects(t *testing.T) {
	cases := []struct {
		name string
		file []byte
		want string // the whole message after "<path>: "
	}{
		{"empty file", nil, "file is 0 bytes, too short for the 8-byte header length (truncated?)"},
		{"five bytes", []byte{1, 2, 3, 4, 5}, "file is 5 bytes, too short for the 8-byte header length (truncated?)"},
		{"header over cap", withLength(1<<40, "{}"), "header length 1099511627776 exceeds the 104857600-byte limit"},
		{"header past eof", withLength(100, "{}"), "header length 100 runs past the end of the 10-byte file (truncated?)"},
		{"not an object", craft(`[1,2]`, 0), "header is not a JSON object"},
		{"bad utf-8", craft("{\"w\xff\":{}}", 0), "header is not valid UTF-8"},
		{"blank header", craft(`    `, 0), "header is not a JSON object"},
		{"cut json", craft(`{"a":{"dtype":`, 0), `tensor "a": header JSON: unexpected EOF`},
		{"trailing data", craft(`{} {}`, 0), "header JSON: trailing data after the object ({)"},
		{"unknown dtype", craft(`{"w":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}}`, 1), `tensor "w": unknown dtype "Q4"`},
		{"no dtype", craft(`{"w":{"shape":[1],"data_offsets":[0,1]}}`, 1), `tensor "w": entry has no dtype`},
		{"no shape", craft(`{"w":{"dtype":"U8","data_offsets":[0,1]}}`, 1), `tensor "w": entry has no shape`},
		{"no offsets", craft(`{"w":{"dtype":"U8","shape":[1]}}`, 1), `tensor "w": entry has no data_offsets`},
		{"entry not object", craft(`{"w":7}`, 0), `tensor "w": malformed entry 7: json: cannot unmarshal number into Go value of type safetensors.rawEntry`},
		{"negative dim", craft(`{"w":{"dtype":"U8","shape":[2,-1],"data_offsets":[0,0]}}`, 0), `tensor "w": shape [2 -1] has a negative or unaddressable dimension -1`},
		{"fractional dim", craft(`{"w":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}}`, 1), `tensor "w": malformed entry {"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}: json: cannot unmarshal number 1.5 into Go struct field rawEntry.shape of type int64`},
		{"three offsets", craft(`{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}}`, 2), `tensor "w": data_offsets [0 1 2] must be [begin,end]`},
		{"begin after end", craft(`{"w":{"dtype":"U8","shape":[1],"data_offsets":[2,1]}}`, 2), `tensor "w": data_offsets [2,1] are not 0 ≤ begin ≤ end`},
		{"negative begin", craft(`{"w":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}}`, 2), `tensor "w": data_offsets [-1,0] are not 0 ≤ begin ≤ end`},
		{"end past data", craft(`{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, 12), `tensor "w": data_offsets [0,16] end past the 12-byte data section (truncated?)`},
		{"size mismatch", craft(`{"model.embed_tokens.weight":{"dtype":"BF16","shape":[2048,256],"data_offsets":[0,100]}}`, 100),
			`tensor "model.embed_tokens.weight": data_offsets [0,100] hold 100 bytes, but BF16 [2048 256] needs 1048576`},
		{"size overflow", craft(`{"w":{"dtype":"F64","shape":[4294967296,4294967296,4],"data_offsets":[0,0]}}`, 0),
			`tensor "w": F64 [4294967296 4294967296 4] is too large to address`},
		{"overlap", craft(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}`, 6),
			`tensor "b": data_offsets [2,6] overlap tensor "a" at [0,4]`},
		{"duplicate name", craft(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, 2),
			`tensor "a": appears twice in the header`},
		{"entry key twice", craft(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"dtype":"I32"}}`, 8), `tensor "w": entry gives dtype twice`},
		{"metadata not strings", craft(`{"__metadata__":{"format":1}}`, 0), `__metadata__ must be an object of strings: {"format":1}`},
		{"metadata twice", craft(`{"__metadata__":{},"__metadata__":{}}`, 0), `__metadata__ appears twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "model.safetensors")
			if err := os.WriteFile(path, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err == nil {
				f.Close()
				t.Fatalf("accepted; want %q", c.want)
			}
			if got, want := err.Error(), path+": "+c.want; got != want {
				t.Fatalf("error\n got %s\nwant %s", got, want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error does not wrap ErrFormat")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines")
			}
		})
	}
}

// TestOpenAcceptsEdgeCases pins what is valid though unusual: null metadata, empty and scalar tensors,
// empty tensors sharing an offset, gaps between tensors, padding spaces.
func TestOpenAcceptsEdgeCases(t *testing.T) {
	hdr := `{"__metadata__":null,"s":{"dtype":"F32","shape":[],"data_offsets":[8,12]},` +
		`"e1":{"dtype":"U8","shape":[0,3],"data_offsets":[4,4]},"e2":{"dtype":"F16","shape":[0],"data_offsets":[4,4]}}   `
	path := filepath.Join(t.TempDir(), "x.safetensors")
	os.WriteFile(path, craft(hdr, 12), 0o644)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, ok := f.Tensor("s")
	if !ok || s.Elements() != 1 || len(s.Data) != 4 || f.Metadata() != nil || len(f.Names()) != 3 {
		t.Fatalf("scalar %v %v, metadata %v, names %v", ok, s, f.Metadata(), f.Names())
	}
}

// TestTruncatedFile cuts a valid file short: the error must say which tensor no longer fits.
func TestTruncatedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.safetensors")
	if err := WriteFile(path, sample(), nil); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if err := os.Truncate(path, st.Size()-3); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), `tensor "a.scales": data_offsets [106,120] end past the 117-byte data section`) || !strings.Contains(err.Error(), "(truncated?)") {
		t.Fatalf("error %v", err)
	}
}

func TestOpenMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.safetensors")
	if _, err := Open(path); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v", err)
	}
}

func TestClosedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.safetensors")
	WriteFile(path, sample(), nil)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, ok := f.Tensor("z.weight"); ok {
		t.Fatal("Tensor served data after Close")
	}
}

// writeDir writes each named file (tensor lists or raw text) into a fresh directory.
func writeDir(t *testing.T, files map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range files {
		p := filepath.Join(dir, name)
		var err error
		switch v := v.(type) {
		case []backend.Host:
			err = WriteFile(p, v, nil)
		case string:
			err = os.WriteFile(p, []byte(v), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func u8(name string, vals ...byte) backend.Host {
	return backend.Host{Name: name, DType: backend.U8, Shape: []int{len(vals)}, Data: vals}
}

func TestOpenDirSharded(t *testing.T) {
	dir := writeDir(t, map[string]any{
		"model-00001-of-00002.safetensors": []backend.Host{u8("a", 1, 2), u8("b", 3)},
		"model-00002-of-00002.safetensors": []backend.Host{u8("c", 4, 5, 6), u8("unlisted", 9)},
		"model.safetensors.index.json": `{"metadata":{"total_size":6},"weight_map":{` +
			`"a":"model-00001-of-00002.safetensors","b":"model-00001-of-00002.safetensors","c":"model-00002-of-00002.safetensors"}}`,
	})
	a, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := strings.Join(a.Names(), ","); got != "a,b,c" {
		t.Fatalf("names %s, want a,b,c (only what weight_map lists)", got)
	}
	for name, want := range map[string]string{"a": "\x01\x02", "b": "\x03", "c": "\x04\x05\x06"} {
		h, err := a.Tensor(name)
		if err != nil || string(h.Data) != want {
			t.Errorf("%s: %v %q, want %q", name, err, h.Data, want)
		}
	}
	if a.Has("unlisted") {
		t.Error("a tensor the index does not list is visible")
	}
}

func TestOpenDirGlobAndPrecedence(t *testing.T) {
	dir := writeDir(t, map[string]any{
		"x.safetensors": []backend.Host{u8("a", 1)},
		"y.safetensors": []backend.Host{u8("b", 2)},
	})
	a, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Names(), ","); got != "a,b" {
		t.Errorf("glob names %s", got)
	}
	a.Close()

	// model.safetensors wins over a (here broken) index, as in transformers.
	dir = writeDir(t, map[string]any{
		"model.safetensors":            []backend.Host{u8("w", 1)},
		"model.safetensors.index.json": `not json`,
	})
	a, err = OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Names(), ","); got != "w" {
		t.Errorf("names %s", got)
	}
	a.Close()
}

func TestOpenDirRejects(t *testing.T) {
	shard := []backend.Host{u8("a", 1)}
	cases := []struct {
		name  string
		files map[string]any
		want  []string // fragments the error must contain, besides the directory
	}{
		{"empty dir", map[string]any{}, []string{"no model.safetensors, model.safetensors.index.json or *.safetensors files"}},
		{"missing shard", map[string]any{
			"s1.safetensors":               shard,
			"model.safetensors.index.json": `{"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}}`,
		}, []string{"model.safetensors.index.json: shard ", "s2.safetensors", `is missing`, `"b"`}},
		{"tensor not in shard", map[string]any{
			"s1.safetensors":               shard,
			"model.safetensors.index.json": `{"weight_map":{"a":"s1.safetensors","z":"s1.safetensors"}}`,
		}, []string{`model.safetensors.index.json: tensor "z" should be in `, "s1.safetensors"}},
		{"escaping shard path", map[string]any{
			"model.safetensors.index.json": `{"weight_map":{"a":"../s1.safetensors"}}`,
		}, []string{`tensor "a" maps to "../s1.safetensors", which is not a file inside`}},
		{"bad index json", map[string]any{
			"model.safetensors.index.json": `{"weight_map":`,
		}, []string{"model.safetensors.index.json: unexpected end of JSON input"}},
		{"empty weight_map", map[string]any{
			"model.safetensors.index.json": `{"metadata":{}}`,
		}, []string{"model.safetensors.index.json: weight_map is missing or empty"}},
		{"duplicate across files", map[string]any{
			"x.safetensors": shard, "y.safetensors": shard,
		}, []string{`tensor "a" is in both x.safetensors and y.safetensors`}},
		{"bad shard", map[string]any{
			"x.safetensors": `12345`,
		}, []string{"x.safetensors: file is 5 bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDir(t, c.files)
			a, err := OpenDir(dir)
			if err == nil {
				a.Close()
				t.Fatal("accepted")
			}
			for _, w := range append(c.want, dir) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
