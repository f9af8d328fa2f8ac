// Tests of the quantizer's LDLQ options on the tiny qwen3 model (RHT, axis 0, 2 bits, L 8, T 64, random
// calibration ids): sequential Hessians (plain and asymmetric) leave layer 0's codes as they are (its inputs come from the unquantized
// embeddings either way) and change a later layer's (its inputs now pass through quantized layers), and the
// artifact still scores near the unquantized model; the scale refit keeps every code, changes scales, and lowers
// the mean proxy loss.
package quantize_test

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

func TestSequentialAndRefit(t *testing.T) {
	b := cpu.New()
	defer b.Close()
	v := variant.For(t, "qwen3")
	g, _ := testutil.ReadGolden(t, v.Fixture)
	ref, _ := run(t, b, v.Dir, g.PromptIDs)
	ids := make([]int, 256)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range ids {
		ids[i] = rng.IntN(cfgOf(t, v.Dir).VocabSize)
	}
	base := quantize.Options{Bits: 2, L: 8, GroupSize: 64, RHT: true, Axis0: true, CalibIDs: ids, CalibTokens: 256, CalibCtx: 64, Damp: 0.1}
	quant := func(name string, change func(*quantize.Options)) (string, *quantize.Report) {
		o := base
		change(&o)
		out := filepath.Join(t.TempDir(), name)
		rep, err := quantize.Run(v.Dir, out, o, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out, rep
	}
	plainDir, plain := quant("ldlq", func(*quantize.Options) {})
	seqDir, _ := quant("seq", func(o *quantize.Options) { o.Sequential = true })
	refitDir, refit := quant("refit", func(o *quantize.Options) { o.RefitScales = true })
	asymDir, _ := quant("asym", func(o *quantize.Options) { o.Sequential, o.Asymmetric = true, true })

	tensors := func(dir string) map[string][]byte {
		a, err := safetensors.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		m := map[string][]byte{}
		for _, n := range a.Names() {
			h, err := a.Tensor(n)
			if err != nil {
				t.Fatal(err)
			}
			m[n] = h.Data
		}
		return m
	}
	pt, st, rt, at := tensors(plainDir), tensors(seqDir), tensors(refitDir), tensors(asymDir)

	sameL0, diffLater, scalesMoved := 0, 0, 0
	for n, data := range pt {
		if !strings.HasSuffix(n, ".weight") && !strings.HasSuffix(n, ".scales") || !strings.Contains(n, "_proj") {
			continue
		}
		layer0 := strings.HasPrefix(n, "model.layers.0.")
		switch eq := bytes.Equal(data, st[n]); {
		case layer0 && !eq:
			t.Errorf("sequential: %s differs in layer 0, whose Hessians are the unquantized model's either way", n)
		case layer0:
			sameL0++
		case !eq:
			diffLater++
		}
		switch eq := bytes.Equal(data, at[n]); {
		case layer0 && !eq:
			t.Errorf("asymmetric: %s differs in layer 0 (no earlier layer to undo)", n)
		case !layer0 && bytes.Equal(st[n], at[n]):
			t.Errorf("asymmetric: %s is the plain sequential one's", n)
		}
		if strings.HasSuffix(n, ".weight") && !bytes.Equal(data, rt[n]) {
			t.Errorf("refit: %s codes changed", n)
		}
		if strings.HasSuffix(n, ".scales") && !bytes.Equal(data, rt[n]) {
			scalesMoved++
		}
	}
	t.Logf("sequential: %d layer-0 tensors equal, %d later ones changed; refit: %d scale vectors moved, mean proxy %.5g → %.5g",
		sameL0, diffLater, scalesMoved, plain.MeanProxyRel, refit.MeanProxyRel)
	if sameL0 == 0 || diffLater == 0 {
		t.Errorf("sequential: %d equal layer-0 tensors, %d changed later ones; want both > 0", sameL0, diffLater)
	}
	if scalesMoved == 0 || !(refit.MeanProxyRel < plain.MeanProxyRel) {
		t.Errorf("refit: %d scale vectors moved, mean proxy loss %.5g vs %.5g without", scalesMoved, refit.MeanProxyRel, plain.MeanProxyRel)
	}
	for name, dir := range map[string]string{"sequential": seqDir, "asymmetric": asymDir} {
		got, _ := run(t, b, dir, g.PromptIDs)
		rel, agree := compare(ref, got, len(g.PromptIDs))
		t.Logf("%s 2-bit: logits relative RMS error %.3f, top-1 %d/%d", name, rel, agree, len(g.PromptIDs))
		if rel > roundTripBounds[2] {
			t.Errorf("%s: relative RMS error %.3f above the 2-bit bound %.2f", name, rel, roundTripBounds[2])
		}
	}
}

// TestLDLQOptionErrors: the LDLQ options without what they need are one error line each, before any work.
func TestLDLQOptionErrors(t *testing.T) {
	v := variant.For(t, "qwen3")
	ids := []int{1, 2, 3, 4}
	for _, c := range []struct {
		o    quantize.Options
		want string
	}{
		{quantize.Options{Bits: 2, Sequential: true}, "need --calib"},
		{quantize.Options{Bits: 2, RefitScales: true}, "need --calib"},
		{quantize.Options{Bits: 2, Hessians: "h.bin"}, "need --calib"},
		{quantize.Options{Bits: 2, CalibIDs: ids, Asymmetric: true}, "--asymmetric needs --sequential"},
		{quantize.Options{Bits: 2, CalibIDs: ids, Sequential: true, Hessians: "h.bin"}, "--hessians caches"},
		{quantize.Options{Bits: 2, CalibIDs: ids, LDLQRows: -1}, "--ldlq-rows -1"},
	} {
		_, err := quantize.Run(v.Dir, filepath.Join(t.TempDir(), "q"), c.o, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want one line with %q", c.o, err, c.want)
		}
	}
}
