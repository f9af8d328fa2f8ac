// Tests of --L auto (ResolveL): the CPU's search gets L 12; a device search that serves every width of the run at
// L 16 gets L 16 (a fake device here: the CPU's search behind the SpecSearcher answers CUDA gives), which the
// artifact then stores byte for byte as an explicit L 16 run does; a width or a block size the device does not
// serve at L 16 keeps the run at L 12.
package quantize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// fakeGPU is a device search as cuda's answers it (k 2-4, L 12-16, blocks up to maxT positions), searching on the
// CPU; it counts the batches it was handed per L.
type fakeGPU struct {
	maxT    int
	batches map[int]int
}

func (f *fakeGPU) Name() string { return "fakegpu" }

func (f *fakeGPU) SupportsSearch(s trellis.Spec) error {
	if s.K < 2 || s.K > 4 || s.L < 12 || s.L > 16 || s.T > f.maxT {
		return fmt.Errorf("no kernel for k %d, L %d, T %d", s.K, s.L, s.T)
	}
	return nil
}

func (f *fakeGPU) SearchBlocks(s trellis.Spec, x []float32, states []uint32) error {
	if f.batches == nil {
		f.batches = map[int]int{}
	}
	f.batches[s.L]++
	return trellis.CPU.SearchBlocks(s, x, states)
}

func TestResolveL(t *testing.T) {
	gpu := &fakeGPU{maxT: 256}
	for _, c := range []struct {
		name string
		o    Options
		L    int
		why  string
	}{
		{"given", Options{Bits: 3, L: 8, Searcher: gpu}, 8, "given by --L"},
		{"no searcher: the CPU", Options{Bits: 3}, DefaultL, "auto: the trellis search runs on the CPU"},
		{"trellis.CPU", Options{Bits: 3, Searcher: trellis.CPU}, DefaultL, "auto: the trellis search runs on the CPU"},
		{"device", Options{Bits: 3, Searcher: gpu}, DeviceL, "auto: the trellis search runs on fakegpu"},
		{"device, 2 and 4 bits by rule", Options{Bits: 2, Rules: []Rule{{"down_proj", 4}}, Searcher: gpu}, DeviceL, "fakegpu"},
		{"device, a 6-bit rule", Options{Bits: 3, Rules: []Rule{{"layers.0.", 6}}, Searcher: gpu}, DefaultL, "fakegpu does not search 6-bit codes at L 16"},
		{"device, 5 bits", Options{Bits: 5, Searcher: gpu}, DefaultL, "does not search 5-bit codes"},
		{"device, blocks it cannot hold", Options{Bits: 2, GroupSize: 512, Searcher: gpu}, DefaultL, "T 512"},
	} {
		L, why := ResolveL(c.o)
		if L != c.L || !strings.Contains(why, c.why) {
			t.Errorf("%s: L %d (%s), want %d (%s)", c.name, L, why, c.L, c.why)
		}
	}
}

// TestAutoLOnADevice: a run with L 0 and a device search codes at L 16 on it, reports it, records it in the config,
// and writes exactly what an explicit L 16 run on the CPU writes; L 0 without a device is L 12 in the config.
func TestAutoLOnADevice(t *testing.T) {
	in := synth{config: map[string]any{"hidden_size": 64, "num_attention_heads": 1}, tensors: []synthTensor{
		{"model.embed_tokens.weight", backend.BF16, []int{128, 64}},
		{"model.layers.0.self_attn.q_proj.weight", backend.BF16, []int{64, 64}},
	}}.write(t)
	dir := t.TempDir()
	gpu := &fakeGPU{maxT: 256}
	rep, err := Run(in, filepath.Join(dir, "auto"), Options{Bits: 2, GroupSize: 64, Searcher: gpu}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.L != DeviceL || rep.LWhy != "auto: the trellis search runs on fakegpu" || gpu.batches[DeviceL] == 0 || len(gpu.batches) != 1 {
		t.Errorf("report L %d (%s), batches searched per L %v: want all at L %d", rep.L, rep.LWhy, gpu.batches, DeviceL)
	}
	if _, err := Run(in, filepath.Join(dir, "l16"), Options{Bits: 2, L: 16, GroupSize: 64}, nil); err != nil {
		t.Fatal(err)
	}
	got, want := filesSHA(t, filepath.Join(dir, "auto")), filesSHA(t, filepath.Join(dir, "l16"))
	for f, w := range want {
		if got[f] != w {
			t.Errorf("%s: L auto on the device wrote sha256 %s, explicit L 16 %s", f, got[f], w)
		}
	}
	cpu, err := Run(in, filepath.Join(dir, "cpu"), Options{Bits: 2, GroupSize: 64}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, L := range map[string]int{"auto": DeviceL, "cpu": DefaultL} {
		var c struct {
			Quantization struct {
				Trellis struct{ L int } `json:"trellis"`
			} `json:"quantization"`
		}
		b, err := os.ReadFile(filepath.Join(dir, name, "config.json"))
		if err != nil || json.Unmarshal(b, &c) != nil {
			t.Fatalf("%s config: %v", name, err)
		}
		if c.Quantization.Trellis.L != L {
			t.Errorf("%s: config's trellis L %d, want %d", name, c.Quantization.Trellis.L, L)
		}
	}
	if cpu.L != DefaultL || cpu.LWhy != "auto: the trellis search runs on the CPU" {
		t.Errorf("without a device: L %d (%s)", cpu.L, cpu.LWhy)
	}
}
