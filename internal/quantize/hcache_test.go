// Tests of the Hessian cache file: what is saved reads back bit for bit, a file from another calibration is
// ignored (recollected), and a truncated file is an error naming it.
package quantize

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/family"
)

func TestHessianCacheRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	hs := map[site]*hessian{}
	for _, k := range []site{{0, family.Q}, {0, family.Down}, {3, family.O}} {
		n := 8 + int(k.slot)
		h := newHessian(n)
		h.tokens = 1000 + int64(k.layer)
		for i := range h.h {
			h.h[i] = r.NormFloat64()
		}
		hs[k] = h
	}
	file := filepath.Join(t.TempDir(), "h.bin")
	key := hcacheHeader{Format: hcacheFormat, Model: "m [1 2]", Calib: "c.txt", CalibSize: 5, CalibTokens: 4096, CalibCtx: 512}
	if err := saveHessians(file, key, hs); err != nil {
		t.Fatal(err)
	}
	got, ok, err := loadHessians(file, key)
	if err != nil || !ok {
		t.Fatalf("load: ok %v, %v", ok, err)
	}
	if len(got) != len(hs) {
		t.Fatalf("%d sites read back, %d saved", len(got), len(hs))
	}
	for k, h := range hs {
		g := got[k]
		if g == nil || g.n != h.n || g.tokens != h.tokens {
			t.Fatalf("site %v: read back %+v", k, g)
		}
		for i := range h.h {
			if g.h[i] != h.h[i] {
				t.Fatalf("site %v entry %d: %g, saved %g", k, i, g.h[i], h.h[i])
			}
		}
	}
	other := key
	other.CalibTokens = 8192
	if _, ok, err := loadHessians(file, other); ok || err != nil {
		t.Errorf("a cache of another token count: ok %v, %v; want ignored", ok, err)
	}
	if _, ok, err := loadHessians(filepath.Join(t.TempDir(), "none"), key); ok || err != nil {
		t.Errorf("a missing cache: ok %v, %v", ok, err)
	}
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, data[:len(data)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadHessians(file, key); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a truncated cache: %v; want an error naming the file", err)
	}
}
