// Windowed attention (backend.WindowedAttention) against the CPU's AttentionWith: a layer's own slots, ring layers
// (window = slots, the call's rows read before they are stored), a window over a full cache, score softcaps, a
// deferred store (Gemma 4's shared keys and values) and two interleaved sequences, step after step over the same
// slots, in both the decode (split + combine) and the rows form.
package emu

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/metal"
)

type winStep struct {
	seq, pos []int32
	deferred bool
}

// run of n rows of one sequence from position p0.
func winRun(seq int32, p0, n int) winStep {
	s := winStep{}
	for i := range n {
		s.seq, s.pos = append(s.seq, seq), append(s.pos, int32(p0+i))
	}
	return s
}

func testWindowed(t T, h *Harness) {
	r := rand.New(rand.NewPCG(25, 26))
	two := winRun(0, 17, 1)
	two.seq, two.pos = append(two.seq, 1, 1, 1, 1, 1), append(two.pos, 0, 1, 2, 3, 4)
	deferred := winRun(0, 13, 1)
	deferred.deferred = true
	forms := map[string]bool{}
	for _, c := range []struct {
		name                string
		heads, kvHeads, hd  int
		maxLen, layerWindow int // the cache's MaxLen and the layer's ring (0: none)
		window              int
		softcap             float32
		steps               []winStep
	}{
		{"gemma2 sliding ring", 4, 2, 64, 64, 8, 8, 50, []winStep{winRun(0, 0, 13), deferred, winRun(0, 13, 1), winRun(0, 14, 3), two, winRun(0, 18, 12)}},
		{"window over a full cache", 16, 2, 128, 64, 0, 8, 0, []winStep{winRun(0, 0, 21), winRun(0, 21, 1), winRun(0, 22, 9)}},
		{"global softcap", 4, 2, 80, 64, 0, 0, 20, []winStep{winRun(0, 0, 12), winRun(0, 12, 2)}},
		{"gemma3 hd 256 ring", 8, 4, 256, 64, 16, 16, 0, []winStep{winRun(0, 0, 20), winRun(0, 20, 1)}},
	} {
		cb := cpu.New()
		layer := backend.KVLayer{KVHeads: c.kvHeads, HeadDim: c.hd, Window: c.layerWindow}
		cache, err := cb.NewKVCache(backend.KVConfig{Layers: 1, Seqs: 2, MaxLen: c.maxLen, PerLayer: []backend.KVLayer{layer}})
		if err != nil {
			t.Fatal(err)
		}
		slots := layer.Slots(c.maxLen)
		kvw, qw := c.kvHeads*c.hd, c.heads*c.hd
		scale := float32(1 / math.Sqrt(float64(c.hd)))
		b := bufs{metal.RoleKCache: nanBytes(2 * slots * kvw), metal.RoleVCache: nanBytes(2 * slots * kvw)}
		for i, st := range c.steps {
			n := len(st.seq)
			q, k, v := randn(r, n*qw, 1), randn(r, n*kvw, 1), randn(r, n*kvw, 1)
			ref := cpuTensor(t, cb, make([]float32, n*qw), n, qw)
			cb.AttentionWith(ref, cpuTensor(t, cb, q, n, qw), cpuTensor(t, cb, k, n, kvw), cpuTensor(t, cb, v, n, kvw), cache, 0,
				cpuInts(t, cb, st.seq), cpuInts(t, cb, st.pos), backend.AttnOptions{Scale: scale, Softcap: c.softcap, Window: c.window, DeferStore: st.deferred})
			p := must(metal.PlanWinAttention(metal.M1, metal.WinCase{N: n, Heads: c.heads, KVHeads: c.kvHeads, HeadDim: c.hd, Seqs: 2, Slots: slots,
				Ring: slots < c.maxLen, Window: c.window, Scale: scale, Softcap: c.softcap, Store: !st.deferred}))(t)
			forms[p.Form] = true
			b[metal.RoleQ], b[metal.RoleK], b[metal.RoleV] = f32b(q), f32b(k), f32b(v)
			b[metal.RoleSeq], b[metal.RolePos], b[metal.RoleDst] = i32b(st.seq), i32b(st.pos), nanBytes(n*qw)
			mustRun(t, h, p, b)
			check(t, fmt.Sprintf("%s step %d (%d rows)", c.name, i+1, n), p, bf32(b[metal.RoleDst]), ref.(*cpu.Tensor).Float32s(), 1e-5)
		}
	}
	if !forms["attn_win_decode"] || !forms["attn_win_rows"] {
		t.Fatalf("forms run: %v", forms)
	}
	if _, err := metal.PlanWinAttention(metal.M1, metal.WinCase{N: 1, Heads: 4, KVHeads: 2, HeadDim: 64, Seqs: 1, Slots: 8, Ring: true, Window: 16}); err == nil {
		t.Fatal("a window wider than the ring was planned")
	}
}
