// A test of the NaN/Inf scan over a checkpoint's floating tensors.
package safetensors

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// TestCheckFinite: integer tensors are skipped whatever their bits, finite floats pass, and the first poisoned
// floating tensor is named with its file, element and value.
func TestCheckFinite(t *testing.T) {
	dir := t.TempDir()
	ones := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	finite := []backend.Host{
		{Name: "codes", DType: backend.U32, Shape: []int{2}, Data: ones},
		{Name: "a.weight", DType: backend.BF16, Shape: []int{2}, Data: []byte{0x80, 0x3f, 0x00, 0xc0}},
		backend.HostF32("b.weight", []float32{1, -2}, 2),
	}
	if err := WriteFile(filepath.Join(dir, "model.safetensors"), finite, nil); err != nil {
		t.Fatal(err)
	}
	a, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CheckFinite(); err != nil {
		t.Fatalf("finite checkpoint: %v", err)
	}
	a.Close()

	poisoned := append(finite,
		backend.Host{Name: "c.scales", DType: backend.F16, Shape: []int{3}, Data: []byte{0x00, 0x3c, 0x00, 0x7c, 0x00, 0x7e}},
		backend.Host{Name: "d.weight", DType: backend.BF16, Shape: []int{1}, Data: []byte{0xc0, 0x7f}})
	if err := WriteFile(filepath.Join(dir, "model.safetensors"), poisoned, nil); err != nil {
		t.Fatal(err)
	}
	if a, err = OpenDir(dir); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	err = a.CheckFinite()
	if !errors.Is(err, ErrNonFinite) || err.Error() != "model.safetensors: tensor c.scales (F16) holds +Inf at element 1" {
		t.Fatalf("err = %v", err)
	}
}
