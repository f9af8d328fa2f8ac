// Package cpu is the reference backend: plain float32 math over bf16/f16/f32 weights, parallel over all cores.
// It defines the arithmetic the GPU backends are verified against, so it favours clarity over tricks; the hot
// loops (dot products, attention) are still written to keep a core busy.
package cpu

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/sample"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// Tensor is a CPU tensor: float32 or int32 elements in row-major order.
type Tensor struct {
	shape []int
	dt    backend.DType
	f     []float32 // F32 data (activations, uploaded weights widened to f32)
	i     []int32   // I32 data (ids, positions)
}

func (t *Tensor) Shape() []int         { return t.shape }
func (t *Tensor) DType() backend.DType { return t.dt }

// Float32s exposes the data of an F32 tensor (tests and the CLI read results through it).
func (t *Tensor) Float32s() []float32 { return t.f }

// Backend is the CPU backend. It is safe for one goroutine at a time; ops fan out across the cores.
type Backend struct {
	// ExpandQuantizedBelow: a quantized linear whose float32 expansion takes at most this many bytes is decoded
	// once at load and multiplied by the dense (vector) kernels; larger ones decode on the fly every call. Both
	// use the same decode arithmetic. New leaves it 0 (always on the fly: the reference path).
	ExpandQuantizedBelow int64
	// DeltaChunk: the gated delta rule (deltanet.go) takes a run of at least this many rows of one sequence in
	// its chunked form, this many rows per chunk; 0 means 64, negative always the recurrent form.
	DeltaChunk int
}

// DefaultExpandQuantizedBelow is what the registered "cpu" device uses: small models' layers (pycoder's largest
// is 3 MiB) run at dense speed, a 14B model's (356 MiB each) stay quantized in memory.
const DefaultExpandQuantizedBelow = 32 << 20

// New returns a CPU backend using every core.
func New() *Backend { return &Backend{} }

func (b *Backend) Name() string            { return "cpu" }
func (b *Backend) ActDType() backend.DType { return backend.F32 }
func (b *Backend) Sync() error             { return nil }
func (b *Backend) Close() error            { return nil }
func (b *Backend) Free(backend.Tensor)     {}

// parallel splits [0, n) across the cores.
func (b *Backend) parallel(n int, fn func(lo, hi int)) { vec.ParallelFor(n, 1, fn) }

func (b *Backend) Upload(h backend.Host) (backend.Tensor, error) {
	switch h.DType {
	case backend.I32:
		if len(h.Data) != 4*h.Elements() {
			return nil, fmt.Errorf("upload %s: %d bytes for I32 %v", h.Name, len(h.Data), h.Shape)
		}
		t := &Tensor{shape: append([]int(nil), h.Shape...), dt: backend.I32, i: make([]int32, h.Elements())}
		for k := range t.i {
			t.i[k] = int32(uint32(h.Data[4*k]) | uint32(h.Data[4*k+1])<<8 | uint32(h.Data[4*k+2])<<16 | uint32(h.Data[4*k+3])<<24)
		}
		return t, nil
	}
	f, err := h.Float32s()
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	return &Tensor{shape: append([]int(nil), h.Shape...), dt: backend.F32, f: f}, nil
}

func (b *Backend) Alloc(dt backend.DType, shape ...int) (backend.Tensor, error) {
	n := 1
	for _, s := range shape {
		if s < 0 {
			return nil, fmt.Errorf("alloc: negative dimension in %v", shape)
		}
		n *= s
	}
	t := &Tensor{shape: append([]int(nil), shape...), dt: dt}
	switch dt {
	case backend.F32:
		t.f = make([]float32, n)
	case backend.I32:
		t.i = make([]int32, n)
	default:
		return nil, fmt.Errorf("alloc: dtype %s: %w", dt, backend.ErrUnsupported)
	}
	return t, nil
}

func (b *Backend) Rows(t backend.Tensor, start, n int) backend.Tensor {
	x := t.(*Tensor)
	if len(x.shape) != 2 || start < 0 || n < 0 || start+n > x.shape[0] {
		backend.ShapeError("Rows", fmt.Sprintf("rows [%d,%d) of", start, start+n), x.shape, "2-D with enough rows")
	}
	c := x.shape[1]
	v := &Tensor{shape: []int{n, c}, dt: x.dt}
	if x.f != nil {
		v.f = x.f[start*c : (start+n)*c]
	} else {
		v.i = x.i[start*c : (start+n)*c]
	}
	return v
}

func (b *Backend) WriteInt32(t backend.Tensor, v []int32) error {
	x := t.(*Tensor)
	if x.dt != backend.I32 || len(x.i) != len(v) {
		return fmt.Errorf("WriteInt32: tensor %s %v takes %d values, got %d", x.dt, x.shape, len(x.i), len(v))
	}
	copy(x.i, v)
	return nil
}

func (b *Backend) ReadFloat32(t backend.Tensor, dst []float32) error {
	x := t.(*Tensor)
	if x.dt != backend.F32 || len(x.f) != len(dst) {
		return fmt.Errorf("ReadFloat32: tensor %s %v holds %d values, dst has %d", x.dt, x.shape, len(x.f), len(dst))
	}
	copy(dst, x.f)
	return nil
}

func f32(t backend.Tensor) []float32 { return t.(*Tensor).f }
func i32(t backend.Tensor) []int32   { return t.(*Tensor).i }

// dims returns rows and columns of a 2-D tensor (a 1-D tensor is one row).
func dims(t backend.Tensor) (int, int) {
	s := t.Shape()
	if len(s) == 1 {
		return 1, s[0]
	}
	return s[0], s[1]
}

func (b *Backend) Embed(dst, table, ids backend.Tensor) {
	_, d := dims(table)
	tab, out, idx := f32(table), f32(dst), i32(ids)
	if len(out) != len(idx)*d {
		backend.ShapeError("Embed", "dst", dst.Shape(), []int{len(idx), d})
	}
	vocab := len(tab) / d
	for r, id := range idx {
		if id < 0 || int(id) >= vocab {
			panic(fmt.Sprintf("backend: Embed: token id %d outside vocabulary of %d", id, vocab))
		}
		copy(out[r*d:(r+1)*d], tab[int(id)*d:(int(id)+1)*d])
	}
}

func (b *Backend) RMSNorm(dst, x, w backend.Tensor, eps float32) {
	xs, ys, ws := f32(x), f32(dst), f32(w)
	g := len(ws)
	if g == 0 || len(xs)%g != 0 || len(ys) != len(xs) {
		backend.ShapeError("RMSNorm", "x", x.Shape(), fmt.Sprintf("columns a multiple of %d", g))
	}
	groups := len(xs) / g
	b.parallel(groups, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			v := xs[k*g : (k+1)*g]
			var ss float64
			for _, e := range v {
				ss += float64(e) * float64(e)
			}
			inv := float32(1 / math.Sqrt(ss/float64(g)+float64(eps)))
			o := ys[k*g : (k+1)*g]
			for j, e := range v {
				o[j] = e * inv * ws[j]
			}
		}
	})
}

func (b *Backend) Add(dst, a, c backend.Tensor) {
	as, cs, ds := f32(a), f32(c), f32(dst)
	if len(as) != len(cs) || len(ds) != len(as) {
		backend.ShapeError("Add", "a, b", a.Shape(), c.Shape())
	}
	for k := range ds {
		ds[k] = as[k] + cs[k]
	}
}

func (b *Backend) SwiGLU(dst, gate, up backend.Tensor) {
	gs, us, ds := f32(gate), f32(up), f32(dst)
	if len(gs) != len(us) || len(ds) != len(gs) {
		backend.ShapeError("SwiGLU", "gate, up", gate.Shape(), up.Shape())
	}
	b.parallel(len(ds), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			g := gs[k]
			ds[k] = g / (1 + float32(math.Exp(float64(-g)))) * us[k]
		}
	})
}

func (b *Backend) Rope(x, pos backend.Tensor, heads int, table *rope.Table) {
	xs, ps := f32(x), i32(pos)
	n, c := dims(x)
	if len(ps) != n || c%heads != 0 {
		backend.ShapeError("Rope", "x", x.Shape(), fmt.Sprintf("[%d, heads(%d)·headDim]", len(ps), heads))
	}
	hd := c / heads
	b.parallel(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for h := 0; h < heads; h++ {
				table.Apply(xs[r*c+h*hd:r*c+(h+1)*hd], int(ps[r]))
			}
		}
	})
}

func init() {
	backend.Register(backend.Device{Name: "cpu", Rank: 0, Open: func() (backend.Backend, error) {
		b := New()
		b.ExpandQuantizedBelow = DefaultExpandQuantizedBelow
		return b, nil
	}})
}

// WriteFloat32 fills an F32 tensor.
func (b *Backend) WriteFloat32(t backend.Tensor, v []float32) error {
	x := t.(*Tensor)
	if x.dt != backend.F32 || len(x.f) != len(v) {
		return fmt.Errorf("WriteFloat32: tensor %s %v takes %d values, got %d", x.dt, x.shape, len(x.f), len(v))
	}
	copy(x.f, v)
	return nil
}

// Argmax picks each row's greedy token with the normalized-argmax semantics (the reference for device argmax).
func (b *Backend) Argmax(dst, logits backend.Tensor) {
	rows, v := dims(logits)
	ls, ids := f32(logits), i32(dst)
	if len(ids) != rows {
		backend.ShapeError("Argmax", "dst", dst.Shape(), []int{rows})
	}
	for r := 0; r < rows; r++ {
		ids[r] = int32(sample.GreedyNormalizedArgmax(ls[r*v:(r+1)*v], sample.F32))
	}
}

// ReadInt32 copies an I32 tensor out.
func (b *Backend) ReadInt32(t backend.Tensor, dst []int32) error {
	x := t.(*Tensor)
	if x.dt != backend.I32 || len(x.i) != len(dst) {
		return fmt.Errorf("ReadInt32: tensor %s %v holds %d values, dst has %d", x.dt, x.shape, len(x.i), len(dst))
	}
	copy(dst, x.i)
	return nil
}
