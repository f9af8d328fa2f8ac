// Tests of the emulator itself (testdata/checks.metal): collectives and the simdgroup matrix against known
// answers, a missing barrier showing up, and the rule breaks the runtime must report with a clear message.
package emu

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

func checksHarness(t *testing.T) *Harness {
	t.Helper()
	harness(t) // skips or fails on a missing compiler the same way
	src, err := os.ReadFile("testdata/checks.metal")
	if err != nil {
		t.Fatal(err)
	}
	h, err := Build(context.Background(), t.TempDir(), map[string]string{"checks.metal": string(src)})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRuntime(t *testing.T) {
	h := checksHarness(t)
	ctx := context.Background()
	run := func(kernel string, threads int, bufs ...Buffer) (map[int][]byte, error) {
		return h.Run(ctx, Dispatch{Kernel: kernel, Groups: [3]int{1, 1, 1}, Threads: [3]int{threads, 1, 1}, Buffers: bufs, Seed: 7})
	}
	t.Run("collectives", func(t *testing.T) {
		out, err := run("collectives", 64, Buffer{Index: 0, Data: make([]byte, 64*5*4), Out: true})
		if err != nil {
			t.Fatal(err)
		}
		got := bi32(out[0])
		for tt := range 64 {
			base, lane := tt&^31, tt&31
			down := tt + 3
			if lane+3 >= 32 {
				down = tt
			}
			sum := 0
			for l := range 32 {
				sum += base + l
			}
			want := []int{tt ^ 1, base + 5, down, sum, base + 31}
			for k, w := range want {
				if int(got[tt*5+k]) != w {
					t.Fatalf("thread %d, collective %d: %d, want %d", tt, k, got[tt*5+k], w)
				}
			}
		}
	})
	t.Run("simdgroup matrix", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 1))
		a, b := randn(r, 64, 1), randn(r, 64, 1)
		out, err := run("mma8", 32, Buffer{Index: 0, Data: nanBytes(64), Out: true}, Buffer{Index: 1, Data: f32b(a)}, Buffer{Index: 2, Data: f32b(b)})
		if err != nil {
			t.Fatal(err)
		}
		c := bf32(out[0])
		want := make([]float32, 64)
		for i := range 8 {
			for j := range 8 {
				var s float64
				for k := range 8 {
					s += float64(a[i*8+k]) * float64(b[k*8+j])
				}
				want[i*8+j] = float32(s)
			}
		}
		if e := relErr(c, want); e > 1e-6 {
			t.Fatalf("8x8 product: relative error %.3g", e)
		}
	})
	t.Run("missing barrier", func(t *testing.T) {
		for _, withBarrier := range []uint32{1, 0} {
			out, err := run("neighbour", 256, Buffer{Index: 0, Data: make([]byte, 1024), Out: true}, Buffer{Index: 1, Data: u32b([]uint32{withBarrier})})
			if err != nil {
				t.Fatal(err)
			}
			wrong := 0
			for tt, v := range bi32(out[0]) {
				if uint32(v) != uint32((tt+1)%256*7) {
					wrong++
				}
			}
			if (wrong == 0) != (withBarrier == 1) {
				t.Fatalf("barrier %d: %d of 256 threads read a wrong value", withBarrier, wrong)
			}
			t.Logf("barrier %d: %d of 256 threads read a value not yet written", withBarrier, wrong)
		}
	})
	for _, c := range []struct{ kernel, want string }{
		{"barrier_after_return", "reached after 64 threads of the threadgroup returned"},
		{"divergent_collective", "wait at different collectives"},
		{"read_past_end", "segmentation fault"},
	} {
		t.Run(c.kernel, func(t *testing.T) {
			_, err := run(c.kernel, 128, Buffer{Index: 0, Data: make([]byte, 512), Out: true}, Buffer{Index: 1, Data: make([]byte, 512)},
				Buffer{Index: 2, Data: u32b([]uint32{128})})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.kernel) {
				t.Fatalf("want an error naming %s and saying %q, got %v", c.kernel, c.want, err)
			}
			t.Logf("%v", err)
		})
	}
}
