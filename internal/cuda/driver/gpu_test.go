// GPU tests of the runtime: run only with MLXBUN_CUDA=1 (scripts/device/remote.sh sets it on the device machine),
// and then every failure fails. They check the driver wrappers, NVRTC, launches, graphs and cuBLASLt against host
// references on fresh random data. What only measures (copy bandwidth, GEMM rate, launch and host overheads) is in
// bench_gpu_test.go, as benchmarks.

package driver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

var (
	gpuOnce sync.Once
	gpuDev  *Device
	gpuErr  error
	elemMod *Module
)

func TestMain(m *testing.M) {
	code := m.Run()
	if gpuDev != nil {
		gpuDev.Do(func() error { return elemMod.Unload() })
		gpuDev.Close()
	}
	os.Exit(code)
}

// gpu opens device 0 once for all tests and benchmarks, compiling the elementwise kernels with it.
func gpu(tb testing.TB) *Device {
	tb.Helper()
	if os.Getenv("MLXBUN_CUDA") != "1" {
		tb.Skip("GPU test: set MLXBUN_CUDA=1")
	}
	gpuOnce.Do(func() {
		gpuDev, gpuErr = Open(0)
		if gpuErr != nil {
			return
		}
		gpuErr = gpuDev.Do(func() error {
			var err error
			elemMod, err = gpuDev.CompileModule("elementwise.cu", cudashaders.Sources["elementwise.cu"])
			return err
		})
	})
	if gpuErr != nil {
		tb.Fatalf("cuda: %v", gpuErr)
	}
	return gpuDev
}

// do runs f on the device thread and fails the test on error.
func do(tb testing.TB, d *Device, f func() error) {
	tb.Helper()
	if err := d.Do(f); err != nil {
		tb.Fatal(err)
	}
}

func kernel(name string) *Function {
	f, err := elemMod.Function(name)
	if err != nil {
		panic(err)
	}
	return f
}

// launch1D runs a grid-stride kernel over n elements.
func launch1D(s *Stream, f *Function, n int, args *Args) error {
	blocks := min((n+255)/256, 132*8)
	return f.Launch(s, Dim3{X: max(blocks, 1)}, Dim3{X: 256}, 0, args)
}

func newRand(tb testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	tb.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
}

func TestGPUDeviceInfo(t *testing.T) {
	d := gpu(t)
	i := d.Info()
	var free, total uint64
	do(t, d, func() error {
		var err error
		free, total, err = d.MemInfo()
		return err
	})
	if n, err := DeviceCount(); err != nil || n < 1 {
		t.Fatalf("DeviceCount = %d, %v", n, err)
	}
	major, minor, err := NVRTCVersion()
	if err != nil {
		t.Fatal(err)
	}
	if i.SMs <= 0 || i.CCMajor < 5 || total == 0 || free > total || i.Name == "" {
		t.Fatalf("implausible device info %+v free=%d total=%d", i, free, total)
	}
	t.Logf("device      %s, %d SMs, sm_%d%d, %.1f GiB (free %.1f), L2 %d MiB, smem/block opt-in %d KiB, SM clock %d MHz, mem bus %d bit",
		i.Name, i.SMs, i.CCMajor, i.CCMinor, float64(i.TotalMem)/(1<<30), float64(free)/(1<<30), i.L2Bytes>>20,
		i.MaxSharedPerBlock>>10, i.ClockKHz/1000, i.MemBusBits)
	t.Logf("libraries   driver %d (%s), NVRTC %d.%d (%s)", i.DriverVersion, drv.lib.path, major, minor, NVRTCPath())
}

func TestGPUMemory(t *testing.T) {
	d := gpu(t)
	rng := newRand(t)
	const n = 1<<20 + 12 // bytes; not a power of two, multiple of 4
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	do(t, d, func() error {
		a, err := d.Alloc(n)
		if err != nil {
			return err
		}
		defer d.Free(a)
		b, err := d.Alloc(n)
		if err != nil {
			return err
		}
		defer d.Free(b)
		got := make([]byte, n)

		if err := d.MemsetD8(a, 0xab, n); err != nil {
			return err
		}
		if err := CopyFromDevice(d, got, a); err != nil {
			return err
		}
		if i := slices.IndexFunc(got, func(v byte) bool { return v != 0xab }); i >= 0 {
			return fmt.Errorf("MemsetD8: byte %d = %#x", i, got[i])
		}
		if err := d.MemsetD32(a, 0xdeadbeef, n/4); err != nil {
			return err
		}
		words := make([]uint32, n/4)
		if err := CopyFromDevice(d, words, a); err != nil {
			return err
		}
		if i := slices.IndexFunc(words, func(v uint32) bool { return v != 0xdeadbeef }); i >= 0 {
			return fmt.Errorf("MemsetD32: word %d = %#x", i, words[i])
		}
		if err := CopyToDevice(d, a, src); err != nil {
			return err
		}
		if err := d.MemcpyDtoD(b, a, n); err != nil {
			return err
		}
		if err := CopyFromDevice(d, got, b); err != nil {
			return err
		}
		if !slices.Equal(got, src) {
			return errors.New("HtoD -> DtoD -> DtoH round trip differs")
		}

		// The async path through pinned memory, on a stream.
		s, err := d.NewStream()
		if err != nil {
			return err
		}
		defer s.Destroy()
		hin, err := d.AllocHost(n, 0)
		if err != nil {
			return err
		}
		defer d.FreeHost(hin)
		hout, err := d.AllocHost(n, HostAllocPortable)
		if err != nil {
			return err
		}
		defer d.FreeHost(hout)
		copy(hin.Bytes(), src)
		for i := range hout.Bytes() {
			hout.Bytes()[i] = 0x55
		}
		const tail = 4096
		steps := []error{
			s.MemsetD8Async(b, 0, n),
			s.MemcpyHtoDAsync(a, hin.Ptr(), n),
			s.MemcpyDtoDAsync(b, a, n),
			s.MemsetD32Async(b.Add(n-tail), 0x01020304, tail/4),
			s.MemcpyDtoHAsync(hout.Ptr(), b, n),
			s.Sync(),
		}
		if err := errors.Join(steps...); err != nil {
			return err
		}
		want := slices.Clone(src)
		for i := n - tail; i < n; i += 4 {
			want[i], want[i+1], want[i+2], want[i+3] = 4, 3, 2, 1
		}
		if !slices.Equal(hout.Bytes(), want) {
			return errors.New("async pinned round trip differs")
		}
		if u := HostSlice[uint32](hout); len(u) != n/4 || u[len(u)-1] != 0x01020304 {
			return fmt.Errorf("HostSlice view: len %d last %#x", len(u), u[len(u)-1])
		}
		return nil
	})

	// Driver errors name the operation and the driver's code.
	err := d.Do(func() error { _, err := d.Alloc(1 << 50); return err })
	var ce *Error
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.Name, "CUDA_ERROR_") || !strings.Contains(err.Error(), "cuMemAlloc(") {
		t.Fatalf("huge Alloc: %v", err)
	}
	t.Logf("as expected: %v", err)
	// Off the device thread no context is current: the call must fail, and say why.
	_, err = d.Alloc(1024)
	if !errors.As(err, &ce) || (ce.Code == errInvalidContext && !strings.Contains(err.Error(), "Device.Do")) {
		t.Fatalf("Alloc outside Do: %v", err)
	}
	t.Logf("as expected: %v", err)
	// Nested Do runs inline rather than deadlocking.
	do(t, d, func() error { return d.Do(func() error { return nil }) })
}

func TestGPUCompileCache(t *testing.T) {
	d := gpu(t)
	t.Setenv(envCacheDir, t.TempDir())
	src := cudashaders.Sources["elementwise.cu"]
	t0 := time.Now()
	c1, cached1, err := compileCached("elementwise.cu", src, d.Info().Arch(), nil)
	cold := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	c2, cached2, err := compileCached("elementwise.cu", src, d.Info().Arch(), nil)
	warm := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if cached1 || !cached2 || !slices.Equal(c1, c2) || !isELF(c1) {
		t.Fatalf("cache: first cached=%v second cached=%v equal=%v", cached1, cached2, slices.Equal(c1, c2))
	}
	t.Logf("nvrtc       elementwise.cu -> %d-byte CUBIN for %s: compile %.0f ms, cache hit %.2f ms",
		len(c1), d.Info().Arch(), cold.Seconds()*1e3, warm.Seconds()*1e3)

	_, err = Compile("broken.cu", "extern \"C\" __global__ void k(float* p) { p[0] = undefined_thing; }", d.Info().Arch())
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, "undefined_thing") {
		t.Fatalf("broken source: %v", err)
	}
	t.Logf("as expected: %v", err)
	// sm_90a (wgmma, setmaxnreg) is a distinct NVRTC target; its CUBIN must load and run on the device.
	if d.Info().CCMajor == 9 && d.Info().CCMinor == 0 {
		cubin, err := Compile("elementwise.cu", src, "sm_90a")
		if err != nil {
			t.Fatal(err)
		}
		const n = 1000
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i) * 0.5
		}
		got := make([]float32, n)
		do(t, d, func() error {
			m, err := d.LoadModule("elementwise.cu[sm_90a]", cubin)
			if err != nil {
				return err
			}
			defer m.Unload()
			f, err := m.Function("add_f32")
			if err != nil {
				return err
			}
			s, err := d.NewStream()
			if err != nil {
				return err
			}
			defer s.Destroy()
			p, err := d.Alloc(4 * n)
			if err != nil {
				return err
			}
			defer d.Free(p)
			return errors.Join(CopyToDevice(d, p, x), launch1D(s, f, n, NewArgs().Ptr(p).Ptr(p).Ptr(p).U64(n)), s.Sync(), CopyFromDevice(d, got, p))
		})
		for i := range got {
			if got[i] != 2*x[i] {
				t.Fatalf("sm_90a add_f32[%d] = %v, want %v", i, got[i], 2*x[i])
			}
		}
		t.Logf("sm_90a CUBIN (%d bytes) loaded and ran", len(cubin))
	}
	do(t, d, func() error {
		_, err := elemMod.Function("no_such_kernel")
		if err == nil || !strings.Contains(err.Error(), "elementwise.cu.no_such_kernel") {
			return fmt.Errorf("missing kernel: %v", err)
		}
		t.Logf("as expected: %v", err)
		return nil
	})
}

// randF32 returns n values in [-4, 4) plus the special values conversion must handle.
func randF32(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.Float64()*8 - 4)
	}
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1.00390625, 1.01171875}
	copy(x, special)
	return x
}

func sameF32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

func TestGPUElementwise(t *testing.T) {
	d := gpu(t)
	rng := newRand(t)
	const n = 1<<20 + 3
	x, y := randF32(rng, n), randF32(rng, n)
	xb := make([]uint16, n)
	yb := make([]uint16, n)
	for i := range x {
		xb[i], yb[i] = backend.F32ToBF16(x[i]), backend.F32ToBF16(y[i])
	}
	do(t, d, func() error {
		s, err := d.NewStream()
		if err != nil {
			return err
		}
		defer s.Destroy()
		var bufs [6]DevPtr
		for i := range bufs {
			if bufs[i], err = d.Alloc(4 * n); err != nil {
				return err
			}
			defer d.Free(bufs[i])
		}
		px, py, pout, pxb, pyb, pbout := bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5]
		if err := errors.Join(CopyToDevice(d, px, x), CopyToDevice(d, py, y), CopyToDevice(d, pxb, xb), CopyToDevice(d, pyb, yb)); err != nil {
			return err
		}
		poison := func(p DevPtr) error { return s.MemsetD8Async(p, 0xff, 4*n) }
		gotF := make([]float32, n)
		gotB := make([]uint16, n)
		readF := func(p DevPtr) error { return errors.Join(s.Sync(), CopyFromDevice(d, gotF, p)) }
		readB := func(p DevPtr) error { return errors.Join(s.Sync(), CopyFromDevice(d, gotB, p)) }

		// add_f32
		if err := errors.Join(poison(pout), launch1D(s, kernel("add_f32"), n, NewArgs().Ptr(pout).Ptr(px).Ptr(py).U64(n)), readF(pout)); err != nil {
			return err
		}
		for i := range gotF {
			if !sameF32(gotF[i], x[i]+y[i]) {
				return fmt.Errorf("add_f32[%d] = %v, want %v", i, gotF[i], x[i]+y[i])
			}
		}
		// axpy_f32 (a float argument): pout = 0.75*x + y
		if err := errors.Join(s.MemcpyDtoDAsync(pout, py, 4*n), launch1D(s, kernel("axpy_f32"), n, NewArgs().Ptr(pout).Ptr(px).F32(0.75).U64(n)), readF(pout)); err != nil {
			return err
		}
		for i := range gotF {
			want := float32(math.FMA(0.75, float64(x[i]), float64(y[i])))
			if !sameF32(gotF[i], want) && math.Abs(float64(gotF[i]-want)) > 1e-6*math.Abs(float64(want)) {
				return fmt.Errorf("axpy_f32[%d] = %v, want %v", i, gotF[i], want)
			}
		}
		// f32_to_bf16, bit-exact round to nearest even
		if err := errors.Join(poison(pbout), launch1D(s, kernel("f32_to_bf16"), n, NewArgs().Ptr(pbout).Ptr(px).U64(n)), readB(pbout)); err != nil {
			return err
		}
		for i := range gotB {
			if gotB[i] != xb[i] {
				return fmt.Errorf("f32_to_bf16(%v) = %#04x, want %#04x", x[i], gotB[i], xb[i])
			}
		}
		// bf16_to_f32
		if err := errors.Join(poison(pout), launch1D(s, kernel("bf16_to_f32"), n, NewArgs().Ptr(pout).Ptr(pxb).U64(n)), readF(pout)); err != nil {
			return err
		}
		for i := range gotF {
			if !sameF32(gotF[i], backend.BF16ToF32(xb[i])) {
				return fmt.Errorf("bf16_to_f32[%d] = %v, want %v", i, gotF[i], backend.BF16ToF32(xb[i]))
			}
		}
		// add_bf16
		if err := errors.Join(poison(pbout), launch1D(s, kernel("add_bf16"), n, NewArgs().Ptr(pbout).Ptr(pxb).Ptr(pyb).U64(n)), readB(pbout)); err != nil {
			return err
		}
		for i := range gotB {
			want := backend.F32ToBF16(backend.BF16ToF32(xb[i]) + backend.BF16ToF32(yb[i]))
			if gotB[i] != want && !(math.IsNaN(float64(backend.BF16ToF32(want))) && math.IsNaN(float64(backend.BF16ToF32(gotB[i])))) {
				return fmt.Errorf("add_bf16[%d] = %#04x, want %#04x", i, gotB[i], want)
			}
		}
		// fill_uniform_f32: in range, not constant, deterministic per seed
		if err := errors.Join(poison(pout), launch1D(s, kernel("fill_uniform_f32"), n, NewArgs().Ptr(pout).U64(n).U64(42).F32(-1).F32(1)), readF(pout)); err != nil {
			return err
		}
		var sum float64
		for i, v := range gotF {
			if !(v >= -1 && v < 1) {
				return fmt.Errorf("fill_uniform_f32[%d] = %v outside [-1,1)", i, v)
			}
			sum += float64(v)
		}
		if mean := sum / n; math.Abs(mean) > 0.01 {
			return fmt.Errorf("fill_uniform_f32 mean %v", mean)
		}
		return nil
	})
}

// TestGPUGraph captures a chain of launches into a graph and replays it on new inputs each time.
func TestGPUGraph(t *testing.T) {
	d := gpu(t)
	rng := newRand(t)
	const n = 100003
	do(t, d, func() error {
		s, err := d.NewStream()
		if err != nil {
			return err
		}
		defer s.Destroy()
		var px, pyb, pz, pw DevPtr
		for _, p := range []*DevPtr{&px, &pyb, &pz, &pw} {
			if *p, err = d.Alloc(4 * n); err != nil {
				return err
			}
			defer d.Free(*p)
		}
		// w = f32(bf16(x)) + x + 2x
		exec, err := s.Capture(CaptureThreadLocal, func() error {
			return errors.Join(
				launch1D(s, kernel("f32_to_bf16"), n, NewArgs().Ptr(pyb).Ptr(px).U64(n)),
				launch1D(s, kernel("bf16_to_f32"), n, NewArgs().Ptr(pz).Ptr(pyb).U64(n)),
				launch1D(s, kernel("add_f32"), n, NewArgs().Ptr(pw).Ptr(pz).Ptr(px).U64(n)),
				launch1D(s, kernel("axpy_f32"), n, NewArgs().Ptr(pw).Ptr(px).F32(2).U64(n)),
			)
		})
		if err != nil {
			return err
		}
		defer exec.Destroy()
		got := make([]float32, n)
		for replay := range 4 {
			x := randF32(rng, n)[16:] // finite values only
			x = append(x, make([]float32, 16)...)
			if err := errors.Join(
				s.MemsetD8Async(pw, 0xff, 4*n),
				s.MemcpyHtoDAsync(px, unsafe.Pointer(&x[0]), 4*n),
				exec.Launch(s),
				s.MemcpyDtoHAsync(unsafe.Pointer(&got[0]), pw, 4*n),
				s.Sync(),
			); err != nil {
				return err
			}
			for i := range got {
				z := backend.BF16ToF32(backend.F32ToBF16(x[i]))
				want := (z + x[i]) + 2*x[i]
				if !sameF32(got[i], want) {
					return fmt.Errorf("replay %d: w[%d] = %v, want %v", replay, i, got[i], want)
				}
			}
		}
		return nil
	})
}

// gemmRef is C = A·Wᵀ in float64 over bf16 inputs.
func gemmRef(a, w []uint16, m, n, k int) []float64 {
	af := make([]float64, len(a))
	wf := make([]float64, len(w))
	for i, v := range a {
		af[i] = float64(backend.BF16ToF32(v))
	}
	for i, v := range w {
		wf[i] = float64(backend.BF16ToF32(v))
	}
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			ar, wr := af[i*k:(i+1)*k], wf[j*k:(j+1)*k]
			for p := range k {
				s += ar[p] * wr[p]
			}
			c[i*n+j] = s
		}
	}
	return c
}

func relErr(got, ref []float64) float64 {
	var num, den float64
	for i := range ref {
		if math.IsNaN(got[i]) {
			return math.Inf(1)
		}
		num += (got[i] - ref[i]) * (got[i] - ref[i])
		den += ref[i] * ref[i]
	}
	return math.Sqrt(num / den)
}

func TestGPUGemmCorrect(t *testing.T) {
	d := gpu(t)
	rng := newRand(t)
	for _, sh := range []struct{ m, n, k int }{{37, 200, 320}, {128, 512, 1024}, {1, 4096, 2048}} {
		a := make([]uint16, sh.m*sh.k)
		w := make([]uint16, sh.n*sh.k)
		for i := range a {
			a[i] = backend.F32ToBF16(float32(rng.NormFloat64()))
		}
		for i := range w {
			w[i] = backend.F32ToBF16(float32(rng.NormFloat64() * 0.05))
		}
		ref := gemmRef(a, w, sh.m, sh.n, sh.k)
		for _, out := range []DataType{BFloat16, Float32} {
			var got []float64
			do(t, d, func() error {
				b, err := d.BlasLt()
				if err != nil {
					return err
				}
				s, err := d.NewStream()
				if err != nil {
					return err
				}
				defer s.Destroy()
				pa, err := d.Alloc(2 * len(a))
				if err != nil {
					return err
				}
				defer d.Free(pa)
				pw, err := d.Alloc(2 * len(w))
				if err != nil {
					return err
				}
				defer d.Free(pw)
				pc, err := d.Alloc(4 * sh.m * sh.n)
				if err != nil {
					return err
				}
				defer d.Free(pc)
				if err := errors.Join(CopyToDevice(d, pa, a), CopyToDevice(d, pw, w), d.MemsetD8(pc, 0xff, 4*sh.m*sh.n)); err != nil {
					return err
				}
				if err := errors.Join(b.GemmBF16(s, pc, out, pa, pw, sh.m, sh.n, sh.k), s.Sync()); err != nil {
					return err
				}
				got = readOut(d, pc, out, sh.m*sh.n)
				// The same GEMM captured in a graph must give the identical bits.
				direct := slices.Clone(got)
				exec, err := s.Capture(CaptureThreadLocal, func() error { return b.GemmBF16(s, pc, out, pa, pw, sh.m, sh.n, sh.k) })
				if err != nil {
					return err
				}
				defer exec.Destroy()
				if err := errors.Join(d.MemsetD8(pc, 0xff, 4*sh.m*sh.n), exec.Launch(s), s.Sync()); err != nil {
					return err
				}
				if g := readOut(d, pc, out, sh.m*sh.n); !slices.Equal(g, direct) {
					return errors.New("graph-replayed GEMM differs from the direct one")
				}
				return nil
			})
			if b := d.blas; b != nil && sh.m == 37 && out == BFloat16 {
				t.Logf("libraries   cuBLASLt %d (%s)", b.Version(), b.LibraryPath())
			}
			e := relErr(got, ref)
			tol := 1e-5
			if out == BFloat16 {
				tol = 8e-3
			}
			t.Logf("GEMM m=%d n=%d k=%d out=%s: rel err %.2e (tol %.0e)", sh.m, sh.n, sh.k, out, e, tol)
			if !(e < tol) {
				t.Errorf("GEMM m=%d n=%d k=%d out=%s: rel err %.3e > %.0e", sh.m, sh.n, sh.k, out, e, tol)
			}
		}
	}
}

func readOut(d *Device, p DevPtr, t DataType, n int) []float64 {
	out := make([]float64, n)
	if t == Float32 {
		v := make([]float32, n)
		if err := CopyFromDevice(d, v, p); err != nil {
			panic(err)
		}
		for i := range v {
			out[i] = float64(v[i])
		}
		return out
	}
	v := make([]uint16, n)
	if err := CopyFromDevice(d, v, p); err != nil {
		panic(err)
	}
	for i := range v {
		out[i] = float64(backend.BF16ToF32(v[i]))
	}
	return out
}
