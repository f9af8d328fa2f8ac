// The sparse MoE block of the hybrid and MoE models (Qwen3-Next, Qwen3-30B-A3B; backend.MoE) on the CUDA
// backend: Route and Experts (kernels in shaders/cuda/moe.cu; the routed quantized GEMV, moe_qgemv, in quant.cuh).
// The CPU backend (internal/cpu/moe.go) is the reference. No op reads device data back to the host: the kernels
// read the routed ids on the device, so a decode step records into one CUDA graph.

package cuda

import (
	"encoding/binary"
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

var _ backend.MoE = (*Backend)(nil)

// maxRouteExperts bounds moe_route's shared memory (E floats).
const maxRouteExperts = 8192

// Route (backend.MoE): moe_route, one block per row.
func (b *Backend) Route(ids, weights, logits backend.Tensor, k int, norm bool) {
	const op = "Route"
	is, ws, ls := tensorOf(op, ids), tensorOf(op, weights), tensorOf(op, logits)
	wantDType(op, "logits", ls, backend.F32)
	wantDType(op, "ids", is, backend.I32)
	wantDType(op, "weights", ws, backend.F32)
	n, e := dims(ls)
	if k < 1 || k > e || is.elems() != n*k || ws.elems() != n*k {
		backend.ShapeError(op, "ids, weights", []any{is.shape, ws.shape}, []int{n, k})
	}
	if e > maxRouteExperts {
		b.fail(fmt.Errorf("cuda backend: Route over %d experts (at most %d): %w", e, maxRouteExperts, backend.ErrUnsupported))
		return
	}
	is.shadow = nil // written on the device from here on
	if n == 0 {
		return
	}
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(is.ptr).Ptr(ws.ptr).Ptr(ls.ptr).I32(int32(e)).I32(int32(k)).I32(int32(boolInt(norm)))
		return b.launch("moe_route", driver.Dim3{X: n}, driver.Dim3{X: 128}, 4*e, args, float64(4*n*e+8*n*k))
	})
}

// moeScratch is the per-expert intermediates of Experts for one (rows, width, hidden, dtype): kept for the
// backend's life, since a recorded graph holds their addresses.
type moeScratch struct{ g, u, y *Tensor }

type moeKey struct {
	n, inter, hidden int
	dt               backend.DType
}

func (b *Backend) moeScratchFor(k moeKey) (*moeScratch, error) {
	if s, ok := b.moe[k]; ok {
		return s, nil
	}
	alloc := func(shape ...int) (*Tensor, error) {
		t, err := b.Alloc(k.dt, shape...)
		if err != nil {
			return nil, err
		}
		return t.(*Tensor), nil
	}
	var s moeScratch
	var err error
	if s.g, err = alloc(k.n, k.inter); err == nil {
		if s.u, err = alloc(k.n, k.inter); err == nil {
			s.y, err = alloc(k.n, k.hidden)
		}
	}
	if err != nil {
		for _, t := range []*Tensor{s.g, s.u} {
			if t != nil {
				b.Free(t)
			}
		}
		return nil, err
	}
	if b.moe == nil {
		b.moe = map[moeKey]*moeScratch{}
	}
	b.moe[k] = &s
	return &s, nil
}

// moeMaxK is the most routed experts per row the routed form takes (MOE_MAX_K in moe.cu).
const moeMaxK = 64

// routedExperts returns the device table [gate E | up E | down E] of the experts' bf16 weight pointers when the
// routed form can serve them (dense bf16 experts without bias, one intermediate width), else 0.
func (b *Backend) routedExperts(gate, up, down []backend.Linear) driver.DevPtr {
	if b.tune.moeDense { // the dense form at every row count: the comparison (tuning key moe_dense)
		return 0
	}
	inter := gate[0].Out()
	buf := make([]byte, 1, 1+8*3*len(gate))
	buf[0] = 'b'
	for si, set := range [][]backend.Linear{gate, up, down} {
		for _, l := range set {
			d, ok := l.(*linear)
			if !ok || d.bias != 0 || (si < 2 && d.out != inter) || (si == 2 && d.in != inter) {
				return 0
			}
			buf = binary.LittleEndian.AppendUint64(buf, uint64(d.w))
		}
	}
	return b.moeTable(buf)
}

// moeTable uploads a table of device pointers (buf: a kind byte, then the little-endian pointers) once. Tables
// are kept by their content (the pointers themselves), so a table always names the weights it was made for.
func (b *Backend) moeTable(buf []byte) driver.DevPtr {
	if p, ok := b.moeTables[string(buf)]; ok {
		return p
	}
	body := buf[1:]
	p, err := b.allocExact(len(body))
	if err == nil {
		err = b.uploadBytes(p, len(body), func(dst []byte, off int) { copy(dst, body[off:]) })
	}
	if err != nil {
		b.logf("Experts: no routed table (%v): the dense form", err)
		return 0
	}
	if b.moeTables == nil {
		b.moeTables = map[string]driver.DevPtr{}
	}
	b.moeTables[string(buf)] = p
	return p
}

// moeQSmemMax bounds moe_qgemv's dynamic shared memory (the padded x row): the default 48 KiB, so no
// attribute is raised; in ≤ 11,915 (Qwen3-30B-A3B's widest is 2,048).
const moeQSmemMax = 48 << 10

// moe_qgemv's launch shape: 256 threads, 8 warps of two output rows (the kernel's contract in quant.cuh).
const moeQThreads, moeQRows = 256, 16

// quantRouted is what the routed quantized form needs of a set of experts: the pointer table, the kernel and
// the codec every expert shares.
type quantRouted struct {
	table       driver.DevPtr // per projection (gate, up, down): [words E | scales E | biases E] (trellis: biases 0)
	kernel      string        // moe_trellis1_k{K}_{rcp|fac} or moe_affine_b{B}
	k, shift, L int           // bits, log2 of the trellis block or affine group, trellis state bits (affine 0)
	what        string        // for the debug log
}

// routedQuant returns the routed form's table when every expert is a quantized layer the routed kernels serve
// — trellis coded along axis 1 (the quantizer codes stacked experts so: family's experts.gate_up_proj and
// down_proj) of one K, L, T and decode variant, or MLX affine of one width and group — without bias, of one
// intermediate width, and the widest input fits moe_qgemv's shared memory; else ok false. Axis-0 trellis experts
// (quantize codes none; hand-built layers may) stay on the dense form.
func (b *Backend) routedQuant(gate, up, down []backend.Linear) (quantRouted, bool) {
	if b.tune.moeDense {
		return quantRouted{}, false
	}
	r, buf, ok := quantTable(gate, up, down)
	if !ok {
		return r, false
	}
	r.table = b.moeTable(buf)
	return r, r.table != 0
}

// quantTable is routedQuant's test of the experts and its table's content: a kind byte, then the pointers
// in quantRouted.table's order.
func quantTable(gate, up, down []backend.Linear) (quantRouted, []byte, bool) {
	var r quantRouted
	g0, ok := gate[0].(*qlinear)
	if !ok {
		return r, nil, false
	}
	f := g0.w.Format
	switch {
	case f == backend.FormatTrellis && g0.w.Axis == 1:
		r.kernel, r.what = moeTrellis1Name(g0.w.Bits, g0.variant), fmt.Sprintf("trellis k%d %s", g0.w.Bits, g0.variant)
		r.L = g0.L
	case f == backend.FormatAffine:
		r.kernel, r.what = moeAffineName(g0.w.Bits), fmt.Sprintf("affine %d-bit g%d", g0.w.Bits, g0.w.Group)
	default:
		return r, nil, false
	}
	r.k, r.shift = g0.w.Bits, g0.shift
	inter := g0.out
	if 4*(max(g0.in, inter)+max(g0.in, inter)/32) > moeQSmemMax {
		return r, nil, false
	}
	buf := make([]byte, 1, 1+8*9*len(gate))
	buf[0] = 'q'
	for si, set := range [][]backend.Linear{gate, up, down} {
		for field := range 3 {
			for _, l := range set {
				q, ok := l.(*qlinear)
				if !ok || q.w.Format != f || q.w.Axis != g0.w.Axis || q.bias != 0 || q.w.Bits != r.k || q.shift != r.shift ||
					q.L != g0.L || q.variant != g0.variant || (si < 2 && q.out != inter) || (si == 2 && q.in != inter) {
					return r, nil, false
				}
				p := [3]driver.DevPtr{q.words, q.scales, q.biases}[field]
				if f == backend.FormatTrellis {
					p = [3]driver.DevPtr{q.words, q.scales, 0}[field] // biases are affine's
				}
				buf = binary.LittleEndian.AppendUint64(buf, uint64(p))
			}
		}
	}
	return r, buf, true
}

// proj is where projection si (0 gate, 1 up, 2 down) of E experts finds its moe_qgemv tables Wt, St and Bt.
func (r quantRouted) proj(si, E int) (words, scales, biases driver.DevPtr) {
	w := r.table.Add(24 * E * si)
	return w, w.Add(8 * E), w.Add(16 * E)
}

// Experts (backend.MoE). Decode batches (n ≤ MaxDecodeRows) of dense bf16 experts take the routed form: one
// moe_gemv launch per projection computes, for each of the n·k (row, choice) slots, its routed expert's product,
// the expert's weights found through a device table of pointers (gate, up, then swiglu over all slots, down), and
// moe_combine sums each row's slots weighted, in increasing expert id: k experts' weights read per row, four
// launches plus the swiglu whatever E. Decode batches of axis-1 trellis or affine experts take a routed form over
// their codes (expertsQuantRouted, moe_qgemv: three launches). Otherwise (prompts, axis-0 trellis experts) the
// dense form: every expert runs over all n rows through the Linear kernels and moe_accum adds its output,
// weighted, into the rows routed to it, experts in increasing order; its cost is that of a dense block of E
// experts (docs/kernels.md). None reads the routed ids on the host, so the step records into a graph.
func (b *Backend) Experts(dst, x, ids, weights backend.Tensor, gate, up, down []backend.Linear) {
	const op = "Experts"
	d, xs, is, ws := tensorOf(op, dst), tensorOf(op, x), tensorOf(op, ids), tensorOf(op, weights)
	wantDType(op, "x", xs, backend.F32, backend.BF16)
	wantDType(op, "dst", d, xs.dt)
	wantDType(op, "ids", is, backend.I32)
	wantDType(op, "weights", ws, backend.F32)
	n, hidden := dims(xs)
	_, k := dims(is)
	if d.elems() != n*hidden || is.elems() != n*k || ws.elems() != n*k || len(up) != len(gate) || len(down) != len(gate) || len(gate) == 0 {
		backend.ShapeError(op, "x, ids, experts", []any{xs.shape, is.shape, len(gate), len(up), len(down)}, "matching")
	}
	if d.ptr == xs.ptr {
		panic("backend: Experts: dst aliases x")
	}
	for r, e := range is.shadow {
		if e < 0 || int(e) >= len(gate) {
			panic(fmt.Sprintf("backend: Experts: row %d routed to expert %d of %d", r/k, e, len(gate)))
		}
	}
	if n == 0 {
		return
	}
	inter := 0
	for e := range gate {
		if gate[e].In() != hidden || up[e].In() != hidden || up[e].Out() != gate[e].Out() || down[e].In() != gate[e].Out() || down[e].Out() != hidden {
			backend.ShapeError(op, fmt.Sprintf("expert %d", e), []any{gate[e].In(), gate[e].Out(), up[e].Out(), down[e].In(), down[e].Out()},
				fmt.Sprintf("gate/up %d→I, down I→%d", hidden, hidden))
		}
		inter = max(inter, gate[e].Out())
	}
	if n <= backend.MaxDecodeRows && k <= moeMaxK && xs.ptr%16 == 0 {
		if table := b.routedExperts(gate, up, down); table != 0 {
			b.expertsRouted(d, xs, is, ws, table, len(gate), k, inter)
			return
		}
	}
	if n <= backend.MaxDecodeRows && k <= moeMaxK && xs.dt == backend.F32 {
		if rt, ok := b.routedQuant(gate, up, down); ok {
			b.expertsQuantRouted(d, xs, is, ws, rt, len(gate), k, inter)
			return
		}
	}
	sc, err := b.moeScratchFor(moeKey{n, inter, hidden, xs.dt})
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: Experts scratch: %w", err))
		return
	}
	name := opName("moe_accum", xs.dt)
	for e := range gate {
		I := gate[e].Out()
		g, u := sc.g, sc.u
		if I != inter { // a narrower expert: views of the scratch's leading elements
			g = &Tensor{ptr: sc.g.ptr, shape: []int{n, I}, dt: xs.dt, kind: kindView}
			u = &Tensor{ptr: sc.u.ptr, shape: []int{n, I}, dt: xs.dt, kind: kindView}
		}
		b.MatMul(g, xs, gate[e])
		b.MatMul(u, xs, up[e])
		b.SwiGLU(g, g, u)
		b.MatMul(sc.y, g, down[e])
		first := int32(boolInt(e == 0))
		y := sc.y
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(d.ptr).Ptr(y.ptr).Ptr(is.ptr).Ptr(ws.ptr).I32(int32(hidden)).I32(int32(k)).
				I32(int32(e)).I32(first)
			return b.launch(name, driver.Dim3{X: n}, driver.Dim3{X: 128}, 0, args, float64(3*n*hidden*xs.dt.Size()+8*n*k))
		})
	}
}

// expertsRouted queues the routed form: slots = n·k, table [gate E | up E | down E] of bf16 weight pointers.
func (b *Backend) expertsRouted(d, xs, is, ws *Tensor, table driver.DevPtr, E, k, inter int) {
	n, hidden := dims(xs)
	slots := n * k
	sc, err := b.moeScratchFor(moeKey{slots, inter, hidden, xs.dt})
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: Experts scratch: %w", err))
		return
	}
	b.logf("Experts n=%d k=%d of %d experts %d→%d→%d: routed", n, k, E, hidden, inter, hidden)
	gemv, combine := opName("moe_gemv", xs.dt), opName("moe_combine", xs.dt)
	proj := func(y, x driver.DevPtr, tab driver.DevPtr, in, out int, xslot int32) {
		bytes := float64(slots * (2*out*in + xs.dt.Size()*(in+out)))
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(y).Ptr(x).Ptr(is.ptr).Ptr(tab).I32(int32(in)).I32(int32(out)).I32(int32(k)).I32(xslot)
			return b.launch(gemv, driver.Dim3{X: (out + 3) / 4, Y: slots}, driver.Dim3{X: 128}, 0, args, bytes)
		})
	}
	proj(sc.g.ptr, xs.ptr, table, hidden, inter, 0)
	proj(sc.u.ptr, xs.ptr, table.Add(8*E), hidden, inter, 0)
	b.SwiGLU(sc.g, sc.g, sc.u)
	proj(sc.y.ptr, sc.g.ptr, table.Add(16*E), inter, hidden, 1)
	y := sc.y
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(d.ptr).Ptr(y.ptr).Ptr(is.ptr).Ptr(ws.ptr).I32(int32(hidden)).I32(int32(k))
		return b.launch(combine, driver.Dim3{X: n}, driver.Dim3{X: 128}, 0, args, float64((slots+n)*hidden*xs.dt.Size()+8*slots))
	})
}

// expertsQuantRouted queues the routed form over quantized experts (axis-1 trellis or affine): moe_qgemv
// (moe_trellis1_*, moe_affine_*) for gate and up with SwiGLU on the store (slot s reads x row s/k), again for down
// (each slot its own row), moe_combine — three launches whatever E, the codes of the k routed experts read per
// row and nothing else of the E.
//
// Why a routed GEMV (the brief's form b) and not a per-slot bf16 expansion feeding moe_gemv (form a): the
// expansion writes and reads back 2 bytes a weight per slot (Qwen3-30B-A3B: 9.4 MB a slot, 75 MB a layer at
// n = 1, 3.6 GB a token) against K/8 byte a weight of codes read here; and the decode GEMV's per-lane run decode
// (TrellisRow, the same arithmetic as trellis_gemv1) keeps the MatMul/trellis decode promise (f32 weights, f32
// sums), tighter than the expansion's bf16 rounding.
func (b *Backend) expertsQuantRouted(d, xs, is, ws *Tensor, rt quantRouted, E, k, inter int) {
	n, hidden := dims(xs)
	slots := n * k
	sc, err := b.moeScratchFor(moeKey{slots, inter, hidden, xs.dt})
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: Experts scratch: %w", err))
		return
	}
	b.logf("Experts n=%d k=%d of %d experts (%s) %d→%d→%d: routed", n, k, E, rt.what, hidden, inter, hidden)
	name := rt.kernel
	proj := func(y, x driver.DevPtr, si, in, out int, glu bool, xslot int32) {
		mats := 1
		var wt2, st2, bt2 driver.DevPtr
		if glu {
			mats = 2
			wt2, st2, bt2 = rt.proj(si+1, E)
		}
		bytes := float64(slots) * (float64(mats*out)*float64(in)*float64(rt.k)/8 + float64(4*(in+out)))
		smem := 4 * (in + in/32)
		wt, st, bt := rt.proj(si, E)
		b.enqueue(func() error {
			args := driver.NewArgs().Ptr(y).Ptr(x).Ptr(is.ptr).Ptr(wt).Ptr(st).Ptr(bt).Ptr(wt2).Ptr(st2).Ptr(bt2).I32(int32(in)).I32(int32(out)).
				I32(int32(k)).I32(xslot).I32(int32(rt.shift)).I32(int32(rt.L))
			return b.launch(name, driver.Dim3{X: (out + moeQRows - 1) / moeQRows, Y: slots}, driver.Dim3{X: moeQThreads}, smem, args, bytes)
		})
	}
	proj(sc.g.ptr, xs.ptr, 0, hidden, inter, true, 0) // gate and up, SwiGLU on the store
	proj(sc.y.ptr, sc.g.ptr, 2, inter, hidden, false, 1)
	y := sc.y
	combine := opName("moe_combine", xs.dt)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(d.ptr).Ptr(y.ptr).Ptr(is.ptr).Ptr(ws.ptr).I32(int32(hidden)).I32(int32(k))
		return b.launch(combine, driver.Dim3{X: n}, driver.Dim3{X: 128}, 0, args, float64((slots+n)*hidden*xs.dt.Size()+8*slots))
	})
}
