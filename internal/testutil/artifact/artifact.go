// Package artifact compares model artifacts in tests by what their tensors hold.
package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// TensorsSHA hashes every tensor of the model directory dir in name order — name, dtype, shape and bytes — so two
// artifacts compare by what they hold, whatever their files' __metadata__ (the geometry records) say.
func TensorsSHA(tb testing.TB, dir string) string {
	tb.Helper()
	a, err := safetensors.OpenDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	names := a.Names()
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		x, err := a.Tensor(n)
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(h, "%s %v %v %d\n", n, x.DType, x.Shape, len(x.Data))
		h.Write(x.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}
