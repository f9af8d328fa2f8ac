package lora

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// TestCheckFinite: a clean adapter passes; a NaN in A (row 1, column 4 of [2, 6]) is named with the element
// counted in the file's layout: row-major [2, 6] in PEFT's, its transpose [6, 2] in mlx-lm's.
func TestCheckFinite(t *testing.T) {
	for _, c := range []struct {
		layout Layout
		file   string
		aElem  int // element (1, 4) of A [2, 6] in the file's layout
		aName  string
	}{
		{PEFT, PEFTWeights, 1*6 + 4, "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"},
		{MLXLM, MLXWeights, 4*2 + 1, "model.layers.0.self_attn.q_proj.lora_a"},
	} {
		t.Run(string(c.layout), func(t *testing.T) {
			clean := t.TempDir()
			if err := Write(clean, c.layout, targets(1)); err != nil {
				t.Fatal(err)
			}
			a, err := Open(clean, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.CheckFinite(); err != nil {
				t.Fatalf("clean adapter: %v", err)
			}
			ts := targets(1)
			v, _ := ts[0].A.Float32s()
			v[1*6+4] = float32(math.NaN())
			ts[0].A = backend.HostF32("", v, 2, 6)
			dir := t.TempDir()
			if err := Write(dir, c.layout, ts); err != nil {
				t.Fatal(err)
			}
			if a, err = Open(dir, 1); err != nil {
				t.Fatal(err)
			}
			err = a.CheckFinite()
			want := c.file + ": tensor " + c.aName + " holds NaN at element " + strconv.Itoa(c.aElem)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "adapter "+dir) {
				t.Errorf("got %v, want it to name %q", err, want)
			}
		})
	}
}
