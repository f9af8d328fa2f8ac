// GPU benchmarks of the runtime (MLXBUN_CUDA=1, `-test.bench`): copy bandwidth, cuBLASLt GEMM rate, kernel
// launch cost plain and from a graph, and the host floors (one purego call, one Device.Do round trip). Besides
// the wall-clock ns/op each reports the device time between two events around the b.N calls; MEASUREMENTS.md
// holds what they measured on the H200.

package driver

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// deviceSeconds runs op b.N times on s (after one warm-up call) inside one Device.Do and returns the device time
// per call between two events. The benchmark's timer covers the b.N calls alone.
func deviceSeconds(b *testing.B, d *Device, s *Stream, op func() error) float64 {
	b.Helper()
	var sec float64
	do(b, d, func() error {
		e0, err := d.NewEvent(true)
		if err != nil {
			return err
		}
		defer e0.Destroy()
		e1, err := d.NewEvent(true)
		if err != nil {
			return err
		}
		defer e1.Destroy()
		if err := errors.Join(op(), s.Sync()); err != nil {
			return err
		}
		b.ResetTimer()
		if err := e0.Record(s); err != nil {
			return err
		}
		for range b.N {
			if err := op(); err != nil {
				return err
			}
		}
		if err := errors.Join(e1.Record(s), e1.Sync()); err != nil {
			return err
		}
		b.StopTimer()
		ms, err := ElapsedMs(e0, e1)
		sec = float64(ms) / 1e3 / float64(b.N)
		return err
	})
	return sec
}

// stream makes a stream for one benchmark, destroyed at its end.
func stream(b *testing.B, d *Device) *Stream {
	var s *Stream
	do(b, d, func() error {
		var err error
		s, err = d.NewStream()
		return err
	})
	b.Cleanup(func() { d.Do(s.Destroy) })
	return s
}

// devAlloc allocates device memory for one benchmark, freed at its end.
func devAlloc(b *testing.B, d *Device, bytes int) DevPtr {
	var p DevPtr
	do(b, d, func() error {
		var err error
		p, err = d.Alloc(bytes)
		return err
	})
	b.Cleanup(func() { d.Do(func() error { return d.Free(p) }) })
	return p
}

// BenchmarkCopy: a 2 GiB device-to-device copy (GB/s read + written) and 1 GiB host-to-device uploads from
// pinned memory and from an ordinary Go slice.
func BenchmarkCopy(b *testing.B) {
	d := gpu(b)
	s := stream(b, d)
	b.Run("DtoD-2GiB", func(b *testing.B) {
		const bytes = 2 << 30
		src, dst := devAlloc(b, d, bytes), devAlloc(b, d, bytes)
		do(b, d, func() error {
			return launch1D(s, kernel("fill_uniform_f32"), bytes/4, NewArgs().Ptr(src).U64(bytes/4).U64(7).F32(-1).F32(1))
		})
		sec := deviceSeconds(b, d, s, func() error { return s.MemcpyDtoDAsync(dst, src, bytes) })
		// The copy really happened: the tails agree.
		var x, y [1024]float32
		do(b, d, func() error {
			return errors.Join(CopyFromDevice(d, x[:], src.Add(bytes-4096)), CopyFromDevice(d, y[:], dst.Add(bytes-4096)))
		})
		if x != y {
			b.Fatal("DtoD copy tail differs")
		}
		b.ReportMetric(2*bytes/sec/1e9, "GB/s-rw")
	})
	const up = 1 << 30
	dst := devAlloc(b, d, up)
	b.Run("HtoD-pinned-1GiB", func(b *testing.B) {
		var h *HostMem
		do(b, d, func() error {
			var err error
			h, err = d.AllocHost(up, 0)
			return err
		})
		defer d.Do(func() error { return d.FreeHost(h) })
		sec := deviceSeconds(b, d, s, func() error { return s.MemcpyHtoDAsync(dst, h.Ptr(), up) })
		b.ReportMetric(up/sec/1e9, "GB/s")
	})
	b.Run("HtoD-pageable-1GiB", func(b *testing.B) {
		g := make([]byte, up)
		for i := 0; i < up; i += 4096 {
			g[i] = byte(i >> 12)
		}
		sec := deviceSeconds(b, d, s, func() error { return s.MemcpyHtoDAsync(dst, unsafe.Pointer(&g[0]), up) })
		b.ReportMetric(up/sec/1e9, "GB/s")
	})
}

// BenchmarkGemm: cuBLASLt bf16 GEMMs at a square and a Qwen3-14B prompt shape, TFLOP/s, with 64 sampled outputs
// checked against float64 dot products of the same inputs.
func BenchmarkGemm(b *testing.B) {
	d := gpu(b)
	rng := newRand(b)
	s := stream(b, d)
	for _, sh := range []struct{ m, n, k int }{{4096, 4096, 4096}, {512, 17408, 5120}} {
		for _, out := range []DataType{BFloat16, Float32} {
			b.Run(fmt.Sprintf("m%d-n%d-k%d-%s", sh.m, sh.n, sh.k, out), func(b *testing.B) {
				pa, pw := devAlloc(b, d, 2*sh.m*sh.k), devAlloc(b, d, 2*sh.n*sh.k)
				pc := devAlloc(b, d, out.Size()*sh.m*sh.n)
				var blas *BlasLt
				seed := rng.Uint64()
				do(b, d, func() error {
					var err error
					if blas, err = d.BlasLt(); err != nil {
						return err
					}
					fill := kernel("fill_uniform_bf16")
					return errors.Join(
						launch1D(s, fill, sh.m*sh.k, NewArgs().Ptr(pa).U64(uint64(sh.m*sh.k)).U64(seed).F32(-1).F32(1)),
						launch1D(s, fill, sh.n*sh.k, NewArgs().Ptr(pw).U64(uint64(sh.n*sh.k)).U64(seed+1).F32(-0.05).F32(0.05)),
					)
				})
				sec := deviceSeconds(b, d, s, func() error { return blas.GemmBF16(s, pc, out, pa, pw, sh.m, sh.n, sh.k) })
				a := make([]uint16, sh.m*sh.k)
				w := make([]uint16, sh.n*sh.k)
				var c []float64
				do(b, d, func() error {
					err := errors.Join(s.Sync(), CopyFromDevice(d, a, pa), CopyFromDevice(d, w, pw))
					c = readOut(d, pc, out, sh.m*sh.n)
					return err
				})
				var got, ref []float64
				for range 64 {
					i, j := rng.IntN(sh.m), rng.IntN(sh.n)
					var sum float64
					for p := range sh.k {
						sum += float64(backend.BF16ToF32(a[i*sh.k+p])) * float64(backend.BF16ToF32(w[j*sh.k+p]))
					}
					got, ref = append(got, c[i*sh.n+j]), append(ref, sum)
				}
				tol := 1e-4
				if out == BFloat16 {
					tol = 8e-3
				}
				if e := relErr(got, ref); !(e < tol) {
					b.Fatalf("sampled rel err %.3e > %.0e", e, tol)
				}
				b.ReportMetric(2*float64(sh.m)*float64(sh.n)*float64(sh.k)/sec/1e12, "TFLOP/s")
			})
		}
	}
}

// BenchmarkLaunch: one tiny kernel launched plainly (host-bound: the device waits on cuLaunchKernel) against the
// same kernel replayed from a graph of 2000 launches, in device µs per kernel.
func BenchmarkLaunch(b *testing.B) {
	d := gpu(b)
	s := stream(b, d)
	const n, nodes = 256, 2000
	pa := devAlloc(b, d, 4*n)
	do(b, d, func() error { return d.MemsetD32(pa, math.Float32bits(1), n) })
	add := kernel("add_f32")
	args := NewArgs().Ptr(pa).Ptr(pa).Ptr(pa).U64(n) // a = a + a: doubles each time
	one := func() error { return add.Launch(s, Dim3{X: 1}, Dim3{X: n}, 0, args) }
	b.Run("plain", func(b *testing.B) {
		sec := deviceSeconds(b, d, s, one)
		b.ReportMetric(sec*1e6, "µs/kernel")
	})
	b.Run("graph", func(b *testing.B) {
		var exec *GraphExec
		do(b, d, func() error {
			var err error
			exec, err = s.Capture(CaptureThreadLocal, func() error {
				for range nodes {
					if err := one(); err != nil {
						return err
					}
				}
				return nil
			})
			return err
		})
		defer d.Do(exec.Destroy)
		sec := deviceSeconds(b, d, s, func() error { return exec.Launch(s) })
		b.ReportMetric(sec*1e6/nodes, "µs/kernel")
	})
}

// BenchmarkDriverCall is one driver call through purego (cuDriverGetVersion) on the device thread: the floor
// under every call this package makes.
func BenchmarkDriverCall(b *testing.B) {
	d := gpu(b)
	do(b, d, func() error {
		var v int32
		b.ResetTimer()
		for range b.N {
			if r := call(drv.cuDriverGetVersion, uintptr(unsafe.Pointer(&v))); r != 0 {
				return newError(r, "cuDriverGetVersion")
			}
		}
		b.StopTimer()
		return nil
	})
}

// BenchmarkDo is one Device.Do round trip from another goroutine (two thread wake-ups).
func BenchmarkDo(b *testing.B) {
	d := gpu(b)
	nop := func() error { return nil }
	for b.Loop() {
		do(b, d, nop)
	}
}
