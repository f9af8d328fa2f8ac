// On a Mac with a GPU: the compiled library holds every function of the kernel table (the Apple compiler took
// all of shaders/metal), and a few ops round-trip through the backend against plain Go arithmetic. The kernels
// themselves are checked against the CPU by `mlxbun verify-kernels --device metal`. Skips without a device.

//go:build darwin

package metal

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/metal/mtl"
)

func openOrSkip(t *testing.T) *Backend {
	t.Helper()
	b, err := Open()
	if errors.Is(err, mtl.ErrNoDevice) {
		t.Skipf("no Metal device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

func TestLibraryHoldsEveryForm(t *testing.T) {
	b := openOrSkip(t)
	n := 0
	for _, f := range Forms() {
		for _, fn := range f.Functions {
			n++
			if !b.rt.Has(fn) {
				t.Errorf("form %s: the compiled library has no %s", f.Name, fn)
			} else if _, err := b.pipeline(fn); err != nil {
				t.Errorf("form %s: %v", f.Name, err)
			}
		}
	}
	lib := b.rt.(*mtlRuntime).lib
	t.Logf("%d functions, pipelines %d from the cache, %d compiled", n, lib.Hits, lib.Misses)
}

func f32Host(name string, v []float32) backend.Host {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return backend.Host{Name: name, DType: backend.F32, Shape: []int{len(v)}, Data: b}
}

func TestAddAndSwiGLU(t *testing.T) {
	b := openOrSkip(t)
	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i)*0.5-100, float32(n-i)*0.25
	}
	a, err := b.Upload(f32Host("x", x))
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.Upload(f32Host("y", y))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := b.Alloc(backend.F32, n)
	glu, _ := b.Alloc(backend.F32, n)
	b.Add(sum, a, c)
	b.SwiGLU(glu, a, c)
	got, gotGLU := make([]float32, n), make([]float32, n)
	if err := b.ReadFloat32(sum, got); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadFloat32(glu, gotGLU); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if got[i] != x[i]+y[i] {
			t.Fatalf("add[%d] = %v, want %v", i, got[i], x[i]+y[i])
		}
		want := float64(x[i]) / (1 + math.Exp(-float64(x[i]))) * float64(y[i])
		if math.Abs(float64(gotGLU[i])-want) > 1e-5*math.Max(1, math.Abs(want)) {
			t.Fatalf("swiglu[%d] = %v, want %v", i, gotGLU[i], want)
		}
	}
}

// TestAddRMSNormFusion: Add then a whole-row RMSNorm of its sum go out as one add_rmsnorm launch that still
// writes the sum; the result matches the unfused pair (Add, then RMSNorm of another tensor in between).
func TestAddRMSNormFusion(t *testing.T) {
	b := openOrSkip(t)
	const rows, g = 3, 1536
	x, y, w := make([]float32, rows*g), make([]float32, rows*g), make([]float32, g)
	for i := range x {
		x[i], y[i] = float32(i%97)*0.01-0.4, float32(i%31)*0.02
	}
	for i := range w {
		w[i] = 1 + float32(i%7)*0.1
	}
	up := func(name string, v []float32, shape ...int) backend.Tensor {
		h := f32Host(name, v)
		h.Shape = shape
		tt, err := b.Upload(h)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	wa := up("w", w, g) // a 1-D upload is an f32 vector; the 2-D activations go through Alloc + WriteFloat32
	act := func(v []float32) backend.Tensor {
		tt, _ := b.Alloc(backend.F32, rows, g)
		if err := b.WriteFloat32(tt, v); err != nil {
			t.Fatal(err)
		}
		return tt
	}
	a, c := act(x), act(y)
	sum, dst := act(make([]float32, rows*g)), act(make([]float32, rows*g))
	b.Add(sum, a, c)
	b.RMSNorm(dst, sum, wa, 1e-6)
	gotSum, gotDst := make([]float32, rows*g), make([]float32, rows*g)
	if err := b.ReadFloat32(sum, gotSum); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadFloat32(dst, gotDst); err != nil {
		t.Fatal(err)
	}
	for r := range rows {
		ss := 0.0
		for j := range g {
			v := x[r*g+j] + y[r*g+j]
			if gotSum[r*g+j] != v {
				t.Fatalf("sum[%d,%d] = %v, want %v", r, j, gotSum[r*g+j], v)
			}
			ss += float64(v) * float64(v)
		}
		inv := 1 / math.Sqrt(ss/g+1e-6)
		for j := range g {
			want := float64(x[r*g+j]+y[r*g+j]) * inv * float64(w[j])
			if math.Abs(float64(gotDst[r*g+j])-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Fatalf("norm[%d,%d] = %v, want %v", r, j, gotDst[r*g+j], want)
			}
		}
	}
}
