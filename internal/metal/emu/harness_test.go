// The shared machinery of the emulator tests: one harness built per test binary from the embedded shaders, a
// runner that executes a metal.Plan with buffers bound by role (exactly as the darwin runtime binds them), the
// comparison against the reference, and the record of which kernel functions were verified (TestKernels checks it
// covers every function of every form in metal.Forms).
package emu

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/mlxbun/mlxbun/internal/metal"
	metalshaders "github.com/mlxbun/mlxbun/shaders/metal"
)

var (
	buildOnce sync.Once
	built     *Harness
	buildErr  error
	buildDir  string

	verifiedMu sync.Mutex
	verified   = map[string]bool{} // kernel functions run and compared against the reference
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// harness builds (once) the emulator over every shader file. Without g++ the test fails under CI=true (CI has
// it) and is skipped elsewhere.
func harness(t *testing.T) *Harness {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "mlxbun-metal-emu-")
		if buildErr == nil {
			built, buildErr = Build(context.Background(), buildDir, metalshaders.Sources)
		}
	})
	if errors.Is(buildErr, ErrNotLinux) {
		t.Skip(buildErr)
	}
	if errors.Is(buildErr, ErrNoCompiler) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v", buildErr)
		}
		t.Skip(buildErr)
	}
	if buildErr != nil {
		t.Fatalf("building the Metal emulator: %v", buildErr)
	}
	return built
}

// bufs holds a plan's buffers by role; runPlan updates them in place with what the kernels wrote.
type bufs map[metal.Role][]byte

// runPlan executes every launch of p on h with the role-bound buffers (seed varies the thread order).
func runPlan(h *Harness, p metal.Plan, b bufs, seed uint64) error {
	if p.ScratchBytes > 0 {
		b[metal.RoleScratch] = nanBytes(p.ScratchBytes / 4)
	}
	for _, l := range p.Launches {
		if err := checkSpec(h, l); err != nil {
			return err
		}
		d := Dispatch{Kernel: l.Function, Groups: l.Groups, Threads: l.Threads, Seed: seed}
		for _, a := range l.Args {
			data, ok := b[a.Role]
			if !ok {
				// An unused binding (no bias, a single split's scratch): any buffer, as the runtime binds one.
				data = make([]byte, 16)
			}
			d.Buffers = append(d.Buffers, Buffer{Index: a.Index, Data: data, Out: ok})
		}
		d.Buffers = append(d.Buffers, Buffer{Index: l.ParamIndex, Data: l.Params})
		out, err := h.Run(context.Background(), d)
		if err != nil {
			return err
		}
		for _, a := range l.Args {
			if o, ok := out[a.Index]; ok {
				b[a.Role] = o
			}
		}
	}
	return nil
}

// checkSpec holds a launch of kernels.go to the compiled kernel's signature: every buffer parameter bound, the
// parameter struct at ParamIndex with the compiled size, pointers where Args bind tensors.
func checkSpec(h *Harness, l metal.Launch) error {
	k, ok := h.Kernels[l.Function]
	if !ok {
		return fmt.Errorf("plan launches %s, which the harness does not hold", l.Function)
	}
	bound := map[int]bool{l.ParamIndex: true}
	for _, a := range l.Args {
		bound[a.Index] = true
	}
	for _, p := range k.Params {
		if p.Buffer < 0 {
			continue
		}
		if !bound[p.Buffer] {
			return fmt.Errorf("%s: buffer(%d) (%s) is not bound by the plan", k.Name, p.Buffer, p.Type)
		}
		if p.Size > 0 && (p.Buffer != l.ParamIndex || p.Size != len(l.Params)) {
			return fmt.Errorf("%s: parameter struct %s of %d bytes at buffer(%d); the plan sets %d bytes at %d",
				k.Name, p.Type, p.Size, p.Buffer, len(l.Params), l.ParamIndex)
		}
		if p.Size == 0 && p.Buffer == l.ParamIndex {
			return fmt.Errorf("%s: the plan's parameter bytes go to buffer(%d), a %s", k.Name, p.Buffer, p.Type)
		}
		delete(bound, p.Buffer)
	}
	for i := range bound {
		return fmt.Errorf("%s: the plan binds buffer(%d), which the kernel does not take", k.Name, i)
	}
	return nil
}

// markVerified records the functions of p as verified against the reference.
func markVerified(p metal.Plan) {
	verifiedMu.Lock()
	defer verifiedMu.Unlock()
	for _, l := range p.Launches {
		verified[l.Function] = true
	}
}

func f32b(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func i32b(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func u32b(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func u16b(v []uint16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

func bf32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func bi32(b []byte) []int32 {
	v := make([]int32, len(b)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func bu16(b []byte) []uint16 {
	v := make([]uint16, len(b)/2)
	for i := range v {
		v[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return v
}

// nanBytes is n f32 NaNs: outputs start poisoned, so an element a kernel fails to write cannot pass.
func nanBytes(n int) []byte {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.NaN())
	}
	return f32b(v)
}

func randn(r *rand.Rand, n int, scale float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64()) * scale
	}
	return v
}

// relErr is max|got − want| / max|want|; a NaN anywhere in got (or a length mismatch) is +Inf.
func relErr(got, want []float32) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var num, den float64
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) || math.IsInf(g, 0) && !math.IsInf(w, 0) {
			return math.Inf(1)
		}
		if math.IsInf(w, 0) {
			if g != w {
				return math.Inf(1)
			}
			continue
		}
		num = math.Max(num, math.Abs(g-w))
		den = math.Max(den, math.Abs(w))
	}
	if den == 0 {
		return num
	}
	return num / den
}

// sameBits reports the first index where got and want differ bit for bit, or −1.
func sameBits(got, want []float32) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i
		}
	}
	return -1
}

// check compares got with want under tol (0: bit-exact) and records the plan as verified when it passes.
func check(t T, name string, p metal.Plan, got, want []float32, tol float64) {
	t.Helper()
	if tol == 0 {
		if i := sameBits(got, want); i >= 0 {
			if len(got) != len(want) {
				t.Fatalf("%s (%s): %d values, want %d", name, fnames(p), len(got), len(want))
			}
			t.Fatalf("%s (%s): not bit-exact: [%d] = %v, want %v", name, fnames(p), i, got[i], want[i])
		}
		t.Logf("%s (%s): bit-exact over %d values", name, fnames(p), len(want))
	} else {
		e := relErr(got, want)
		if !(e <= tol) {
			t.Fatalf("%s (%s): max|err|/max|ref| = %.3g > %.0e", name, fnames(p), e, tol)
		}
		t.Logf("%s (%s): max|err|/max|ref| = %.3g (bound %.0e)", name, fnames(p), e, tol)
	}
	if _, real := t.(*testing.T); real {
		markVerified(p)
	}
}

func fnames(p metal.Plan) string {
	s := ""
	for i, l := range p.Launches {
		if i > 0 {
			s += "+"
		}
		s += l.Function
	}
	return s
}

func mustRun(t T, h *Harness, p metal.Plan, b bufs) {
	t.Helper()
	if err := runPlan(h, p, b, 0x9e3779b97f4a7c15); err != nil {
		t.Fatalf("%s: %v", fnames(p), err)
	}
}

func must[V any](v V, err error) func(t T) V {
	return func(t T) V {
		t.Helper()
		if err != nil {
			t.Fatalf("%v", err)
		}
		return v
	}
}

// T is what the kernel tests need of *testing.T; the mutation test runs them on a recorder instead.
type T interface {
	Helper()
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

// recorder is a T whose Fatal stops the test body by a panic that runExpectingFailure recovers.
type recorder struct{ msg string }

type stop struct{}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Fatal(args ...any)   { r.msg = fmt.Sprint(args...); panic(stop{}) }
func (r *recorder) Fatalf(f string, a ...any) {
	r.msg = fmt.Sprintf(f, a...)
	panic(stop{})
}

// runExpectingFailure runs body on a recorder and reports whether it failed, and how.
func runExpectingFailure(body func(T, *Harness), h *Harness) (failed bool, msg string) {
	r := &recorder{}
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(stop); !ok {
				panic(e)
			}
			failed, msg = true, r.msg
		}
	}()
	body(r, h)
	return false, ""
}
