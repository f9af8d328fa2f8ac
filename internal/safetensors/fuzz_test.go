// Fuzz target for the header parser: any bytes and any claimed file size must give an error or a header whose
// every promise holds (offsets inside the data section, sizes matching shapes, no overlaps), never a panic.
package safetensors

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

func FuzzParseHeader(f *testing.F) {
	seeds := []string{
		`{}`,
		`{"__metadata__":{"format":"pt"},"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}}`,
		`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}`,
		`{"w":{"dtype":"F64","shape":[4294967296,4294967296,4],"data_offsets":[0,0]}}`,
		`{"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}} {}`,
	}
	for _, s := range seeds {
		b := craft(s, 16)
		f.Add(b, int64(len(b)))
	}
	// A real header as a seed when the fixtures are here; the fuzz target must not skip when they are not.
	if b, err := os.ReadFile(filepath.Join(testutil.Root(f), "..", "shared", "fixtures", "models", "tiny-qwen3", "model.safetensors")); err == nil {
		f.Add(b[:3000], int64(len(b)))
	}
	f.Fuzz(func(t *testing.T, b []byte, fileSize int64) {
		defer limit.Watch(t, limit.FuzzInput)()
		h, err := ParseHeader(b, fileSize)
		if err != nil {
			return
		}
		if h.DataStart+h.DataSize != fileSize || h.DataStart < 8 || h.DataStart > int64(len(b)) || h.DataSize < 0 {
			t.Fatalf("data section [%d,+%d) for file of %d, %d bytes given", h.DataStart, h.DataSize, fileSize, len(b))
		}
		for n, ti := range h.Tensors {
			need, ok := byteSize(ti.DType, ti.Shape)
			if !ok || ti.Begin < 0 || ti.Begin > ti.End || ti.End > h.DataSize || uint64(ti.End-ti.Begin) != need {
				t.Fatalf("%s accepted with %+v in %d data bytes", n, ti, h.DataSize)
			}
			for m, tj := range h.Tensors {
				if n != m && ti.Begin < ti.End && tj.Begin < tj.End && ti.Begin < tj.End && tj.Begin < ti.End {
					t.Fatalf("%s %+v overlaps %s %+v", n, ti, m, tj)
				}
			}
		}
	})
}
