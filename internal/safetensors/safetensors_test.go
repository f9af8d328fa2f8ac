// Tests for the reader, archive and writer: the shared fixtures (HF-written) are read, checked against
// shapes and values taken independently from their config and a Python reading, and rewritten byte-for-byte.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// fixtureCase lists what each fixture must hold. Shapes follow from the fixture's config.json; the first bytes
// were read with Python's struct module straight from the file (an independent reader).
type fixtureCase struct {
	dir     string
	tensors int
	shapes  map[string][]int
	first8  map[string]string // hex of a tensor's first 8 bytes
}

var fixtureCases = []fixtureCase{
	{
		dir: "models/tiny-llama3", tensors: 21,
		shapes: map[string][]int{
			"lm_head.weight":                         {2048, 256},
			"model.embed_tokens.weight":              {2048, 256},
			"model.layers.0.self_attn.q_proj.weight": {256, 256}, // 8 heads · head_dim 32
			"model.layers.0.self_attn.k_proj.weight": {64, 256},  // 2 kv heads · 32
			"model.layers.1.mlp.down_proj.weight":    {256, 768},
			"model.norm.weight":                      {256},
		},
	},
	{
		dir: "models/tiny-qwen2-yarn", tensors: 26,
		shapes: map[string][]int{
			"model.layers.0.self_attn.q_proj.bias":   {256},
			"model.layers.1.self_attn.k_proj.bias":   {128},
			"model.layers.0.self_attn.v_proj.weight": {128, 256},
			"model.layers.0.mlp.gate_proj.weight":    {768, 256},
		},
	},
	{
		dir: "models/tiny-qwen3", tensors: 24,
		shapes: map[string][]int{
			"model.embed_tokens.weight":              {2048, 256},
			"model.layers.0.self_attn.q_norm.weight": {64},
			"model.layers.1.self_attn.k_proj.weight": {128, 256},
		},
		first8: map[string]string{
			"model.embed_tokens.weight":              "c3bd40bd27bdcebd",
			"model.norm.weight":                      "973f613f643f583f",
			"model.layers.1.self_attn.k_proj.weight": "b33df63c01bdf23d",
		},
	},
	{
		dir: "trained/pycoder-12m", tensors: 46,
		shapes: map[string][]int{
			"model.embed_tokens.weight":              {384, 512},
			"model.layers.3.mlp.up_proj.weight":      {1536, 512},
			"model.layers.2.self_attn.k_norm.weight": {64},
		},
		first8: map[string]string{
			"model.embed_tokens.weight":              "98bc153e13bea2bd",
			"model.norm.weight":                      "483f4b3f413f513f",
			"model.layers.1.self_attn.k_proj.weight": "bfbc78bd923c3dbb",
		},
	},
}

func TestFixtures(t *testing.T) {
	for _, c := range fixtureCases {
		t.Run(c.dir, func(t *testing.T) {
			path := testutil.Fixture(t, c.dir+"/model.safetensors")
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			names := f.Names()
			if len(names) != c.tensors {
				t.Fatalf("%d tensors, want %d", len(names), c.tensors)
			}
			if got := f.Metadata(); !reflect.DeepEqual(got, map[string]string{"format": "pt"}) {
				t.Errorf("metadata %v", got)
			}
			var total int64
			for i, n := range names {
				if i > 0 && names[i-1] >= n {
					t.Fatalf("names not sorted: %q before %q", names[i-1], n)
				}
				h, ok := f.Tensor(n)
				if !ok || h.DType != backend.BF16 || len(h.Data) != h.Elements()*2 {
					t.Fatalf("%s: ok=%v %s %v with %d bytes", n, ok, h.DType, h.Shape, len(h.Data))
				}
				total += int64(len(h.Data))
			}
			// HF packs tensors back to back, so they must tile the data section exactly.
			if hd := f.Header(); total != hd.DataSize {
				t.Errorf("tensors hold %d bytes, data section is %d", total, hd.DataSize)
			}
			for n, want := range c.shapes {
				h, ok := f.Tensor(n)
				if !ok || !reflect.DeepEqual(h.Shape, want) {
					t.Errorf("%s: ok=%v shape %v, want %v", n, ok, h.Shape, want)
				}
			}
			for n, want := range c.first8 {
				h, _ := f.Tensor(n)
				if got := hex.EncodeToString(h.Data[:8]); got != want {
					t.Errorf("%s: first bytes %s, want %s", n, got, want)
				}
			}
			if _, ok := f.Tensor("no.such.tensor"); ok {
				t.Error("Tensor found a name the file does not hold")
			}
		})
	}
}

// TestRewriteFixturesByteIdentical reads every tensor of an HF-written file and writes them back: the output must
// equal the original byte for byte, which pins both the reader's offsets and the writer's header format to HF's.
func TestRewriteFixturesByteIdentical(t *testing.T) {
	for _, c := range fixtureCases {
		t.Run(c.dir, func(t *testing.T) {
			path := testutil.Fixture(t, c.dir+"/model.safetensors")
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var ts []backend.Host
			for _, n := range f.Names() {
				h, _ := f.Tensor(n)
				ts = append(ts, h)
			}
			out := filepath.Join(t.TempDir(), "model.safetensors")
			if err := WriteFile(out, ts, f.Metadata()); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(path)
			got, _ := os.ReadFile(out)
			if !bytes.Equal(got, want) {
				t.Fatalf("rewrite differs: %d bytes vs %d; header %q vs %q", len(got), len(want), clip(got[8:]), clip(want[8:]))
			}
		})
	}
}

func TestArchiveFixtureDir(t *testing.T) {
	dir := filepath.Dir(testutil.Fixture(t, "models/tiny-qwen3/model.safetensors"))
	a, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.Names()) != 24 || !a.Has("model.norm.weight") || a.Has("lm_head.weight") {
		t.Fatalf("names %d, has norm %v, has lm_head %v", len(a.Names()), a.Has("model.norm.weight"), a.Has("lm_head.weight"))
	}
	_, err = a.Tensor("lm_head.weight")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"lm_head.weight"`) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("missing tensor error %v", err)
	}
}

// sample builds tensors of several dtypes with distinct contents.
func sample() []backend.Host {
	mk := func(name string, dt backend.DType, shape ...int) backend.Host {
		h := backend.Host{Name: name, DType: dt, Shape: shape}
		h.Data = make([]byte, h.Elements()*dt.Size())
		for i := range h.Data {
			h.Data[i] = byte(len(name)*31 + i*7)
		}
		return h
	}
	return []backend.Host{
		mk("z.weight", backend.BF16, 3, 5),
		mk("a.scales", backend.F16, 7),
		mk("m.codes", backend.U32, 2, 2, 3),
		mk("scalar", backend.F32),
		mk("empty", backend.I8, 4, 0),
		mk("f64", backend.F64, 2),
		mk("i64<&>", backend.I64, 1),
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	in := sample()
	meta := map[string]string{"format": "mlx", "note": `quotes " and <tags> & ünïcode`}
	path := filepath.Join(t.TempDir(), "rt.safetensors")
	if err := WriteFile(path, in, meta); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if hdr := int(raw[0]) | int(raw[1])<<8; (8+hdr)%8 != 0 || !bytes.Contains(raw[:8+hdr], []byte("<tags> & ")) {
		t.Errorf("header length %d not aligned or HTML-escaped: %q", hdr, raw[8:8+hdr])
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !reflect.DeepEqual(f.Metadata(), meta) {
		t.Errorf("metadata %v, want %v", f.Metadata(), meta)
	}
	want := []string{"a.scales", "empty", "f64", "i64<&>", "m.codes", "scalar", "z.weight"}
	if !reflect.DeepEqual(f.Names(), want) {
		t.Fatalf("names %v, want %v", f.Names(), want)
	}
	for _, h := range in {
		got, ok := f.Tensor(h.Name)
		if !ok || got.DType != h.DType || !reflect.DeepEqual(got.Shape, append([]int{}, h.Shape...)) || !bytes.Equal(got.Data, h.Data) {
			t.Errorf("%s: got %v %v %d bytes, want %v %v %d bytes", h.Name, got.DType, got.Shape, len(got.Data), h.DType, h.Shape, len(h.Data))
		}
	}
	// Layout follows HF: descending dtype width (its enum order), then name; each tensor aligned to its element.
	hd := f.Header()
	order := []string{"i64<&>", "f64", "scalar", "m.codes", "z.weight", "a.scales", "empty"}
	var off int64
	for _, n := range order {
		ti := hd.Tensors[n]
		if ti.Begin != off || ti.Begin%int64(ti.DType.Size()) != 0 {
			t.Errorf("%s at [%d,%d), want it at %d (aligned to %d)", n, ti.Begin, ti.End, off, ti.DType.Size())
		}
		off = ti.End
	}
	// No temporary file is left beside the output.
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the output", len(ents))
	}
}

func TestWriteFileRejects(t *testing.T) {
	ok := backend.Host{Name: "w", DType: backend.F32, Shape: []int{2}, Data: make([]byte, 8)}
	cases := []struct {
		name string
		ts   []backend.Host
		want string
	}{
		{"short data", []backend.Host{{Name: "w", DType: backend.F32, Shape: []int{3}, Data: make([]byte, 8)}}, `tensor "w": 8 bytes of data, but F32 [3] needs 12`},
		{"duplicate", []backend.Host{ok, ok}, `tensor "w" given twice`},
		{"invalid dtype", []backend.Host{{Name: "w", DType: backend.Invalid}}, `tensor "w": invalid dtype 0`},
		{"dtype past table", []backend.Host{{Name: "w", DType: 200}}, `tensor "w": invalid dtype 200`},
		{"negative dim", []backend.Host{{Name: "w", DType: backend.U8, Shape: []int{-1}}}, `negative dimension`},
		{"reserved name", []backend.Host{{Name: "__metadata__", DType: backend.U8}}, `reserved for metadata`},
		{"empty name", []backend.Host{{DType: backend.U8}}, `empty name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.safetensors")
			err := WriteFile(path, c.ts, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err %v, want it to name %s and say %q", err, path, c.want)
			}
			if _, statErr := os.Stat(path); statErr == nil {
				t.Error("a rejected write left a file")
			}
		})
	}
}

// TestWriteMatchesHFVectors checks the writer against byte vectors from HF safetensors' own serializer tests
// (safetensors/src/tensor.rs: test_serialization, test_serialization_forced_alignement, test_empty).
func TestWriteMatchesHFVectors(t *testing.T) {
	f32s := make([]byte, 0, 24)
	for _, v := range []float32{0, 1, 2, 3, 4, 5} {
		f32s = binary.LittleEndian.AppendUint32(f32s, math.Float32bits(v))
	}
	cases := []struct {
		name    string
		tensors []backend.Host
		meta    map[string]string
		header  string // after the 8-byte length; the data follows it
	}{
		{"attn.0", []backend.Host{{Name: "attn.0", DType: backend.F32, Shape: []int{1, 2, 3}, Data: f32s}}, nil,
			`{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}`},
		{"forced alignment", []backend.Host{{Name: "attn0", DType: backend.F32, Shape: []int{1, 1, 2, 3}, Data: f32s}}, nil,
			`{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       `},
		{"empty", nil, nil, `{}      `},
		{"empty with metadata", nil, map[string]string{"framework": "pt"}, `{"__metadata__":{"framework":"pt"}}     `},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.safetensors")
			if err := WriteFile(path, c.tensors, c.meta); err != nil {
				t.Fatal(err)
			}
			want := binary.LittleEndian.AppendUint64(nil, uint64(len(c.header)))
			want = append(want, c.header...)
			for _, h := range c.tensors {
				want = append(want, h.Data...)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
				t.Fatalf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// TestEveryDTypeHasHFRank guards the writer's layout table against a dtype added to backend later.
func TestEveryDTypeHasHFRank(t *testing.T) {
	for d := 0; d < 256; d++ {
		if knownDType(backend.DType(d)) && hfRank[backend.DType(d)] == 0 {
			t.Errorf("dtype %s has no HF layout rank", backend.DType(d))
		}
	}
}

// TestArchiveRename: a renamed archive answers by the new names (data and shapes those of the stored tensors,
// across shards), leaves out and lists the refused ones, and a name given twice is an error naming both; a
// poisoned tensor is named as stored in its file.
func TestArchiveRename(t *testing.T) {
	dir := t.TempDir()
	ts := sample()
	if err := WriteFile(filepath.Join(dir, "model-00001-of-00002.safetensors"), ts[:2], nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "model-00002-of-00002.safetensors"), ts[2:], nil); err != nil {
		t.Fatal(err)
	}
	open := func() *Archive {
		a, err := OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a
	}
	a := open()
	err := a.Rename(func(n string) (string, bool) {
		if n == "scalar" {
			return "", false
		}
		return "text." + n, true
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.LeftOut(); !slices.Equal(got, []string{"scalar"}) {
		t.Errorf("left out %v", got)
	}
	if a.Has("z.weight") || !a.Has("text.z.weight") || a.Has("text.scalar") || len(a.Names()) != len(ts)-1 {
		t.Errorf("names %v", a.Names())
	}
	for _, h := range ts {
		if h.Name == "scalar" {
			continue
		}
		got, err := a.Tensor("text." + h.Name)
		if err != nil || got.Name != "text."+h.Name || got.DType != h.DType || !slices.Equal(got.Shape, h.Shape) || string(got.Data) != string(h.Data) {
			t.Errorf("%s: %v %+v", h.Name, err, got)
		}
	}
	if err := open().Rename(func(string) (string, bool) { return "one", true }); err == nil || !strings.Contains(err.Error(), `"a.scales" and "empty" are both "one"`) {
		t.Errorf("duplicate: %v", err)
	}
	bad := sample()[:1]
	bad[0].Data[1] = 0x7f // bf16 0x7f.. with exponent all ones: NaN or Inf
	bad[0].Data[0] = 0x80
	nan := t.TempDir()
	if err := WriteFile(filepath.Join(nan, "model.safetensors"), bad, nil); err != nil {
		t.Fatal(err)
	}
	b, err := OpenDir(nan)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Rename(func(n string) (string, bool) { return "text." + n, true }); err != nil {
		t.Fatal(err)
	}
	if err := b.CheckFinite(); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "tensor z.weight") {
		t.Errorf("CheckFinite: %v", err)
	}
}
