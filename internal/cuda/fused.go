// The fused ops of the backend contract (internal/backend/fused.go), each as the launch that replaces its plain
// sequence: add_rmsnorm, rmsnorm_rope, rmsnorm_rope_qk (q's and k's at once), one multi-layer GEMV or trellis
// launch for MatMuls on one input, and gate/up with SwiGLU folded into the trellis launch; the residual add folded
// into the epilogue of a quantized projection (MatMulAdd) and the input norm into the one-row trellis launch that
// reads it (NormMatMulGroup, NormGateUpSwiGLU). Where no fused kernel takes the shapes, the op runs its plain
// sequence (said in the debug log), which computes the same.

package cuda

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/rope"
)

var (
	_ backend.AddRMSNormer        = (*Backend)(nil)
	_ backend.NormRoper           = (*Backend)(nil)
	_ backend.NormRopeQKer        = (*Backend)(nil)
	_ backend.MatMulGrouper       = (*Backend)(nil)
	_ backend.GateUpSwiGLUer      = (*Backend)(nil)
	_ backend.MatMulAdder         = (*Backend)(nil)
	_ backend.NormMatMulGrouper   = (*Backend)(nil)
	_ backend.NormGateUpSwiGLUer  = (*Backend)(nil)
	_ backend.NormRopeAttentioner = (*Backend)(nil)
)

// AddRMSNorm: sum = a + c, y = RMSNorm(sum, w, eps) in one add_rmsnorm launch (which also writes y's bf16 copy
// when a prompt GEMM reads y next).
func (b *Backend) AddRMSNorm(sum, y, a, c, w backend.Tensor, eps float32) {
	s, yy, x, z, ws := tensorOf("AddRMSNorm", sum), tensorOf("AddRMSNorm", y), tensorOf("AddRMSNorm", a), tensorOf("AddRMSNorm", c), tensorOf("AddRMSNorm", w)
	_, _, n := b.elementwise3("AddRMSNorm", "add", s, x, z)
	wantDType("AddRMSNorm", "y", yy, s.dt)
	wantDType("AddRMSNorm", "weight", ws, backend.F32)
	g := ws.elems()
	if g == 0 || n%g != 0 || yy.elems() != n {
		backend.ShapeError("AddRMSNorm", "sum, y", []any{s.shape, yy.shape}, fmt.Sprintf("columns a multiple of %d", g))
	}
	if n == 0 {
		return
	}
	sp, ap, bp, yp, wp := s.ptr, x.ptr, z.ptr, yy.ptr, ws.ptr
	groups, threads := n/g, rowThreads(g)
	bytes := float64(4*n*s.dt.Size() + 4*g)
	name := opName("add_rmsnorm", s.dt)
	b.enqueueShadow(yy, func(y16 driver.DevPtr) func() error {
		return func() error {
			args := driver.NewArgs().Ptr(sp).Ptr(yp).Ptr(y16).Ptr(ap).Ptr(bp).Ptr(wp).I32(int32(g)).F32(eps)
			return b.launch(name, driver.Dim3{X: groups}, driver.Dim3{X: threads}, 0, args, bytes)
		}
	})
}

// NormRope: x = RMSNorm(x, w, eps) per head, then Rope(x, pos, heads, table), in one rmsnorm_rope launch for head
// widths up to 256 (the kernel's bound); wider heads run the two plain ops.
func (b *Backend) NormRope(x, pos, w backend.Tensor, heads int, eps float32, table *rope.Table) {
	xs, ps, ws := tensorOf("NormRope", x), tensorOf("NormRope", pos), tensorOf("NormRope", w)
	if !normRopeFits(xs, ws, heads, table) {
		b.logf("NormRope of %d heads × %d: the plain ops", heads, ws.elems())
		b.RMSNorm(x, x, w, eps)
		b.Rope(x, pos, heads, table)
		return
	}
	n := normRopeCheck("NormRope", xs, ps, ws, heads, table)
	if n == 0 {
		return
	}
	freqs, trad, ok := b.normRopeTable(table)
	if !ok {
		return
	}
	g := ws.elems()
	groups := n * heads
	xp, wp, pp, dimsRot, pre := xs.ptr, ws.ptr, ps.ptr, table.Dims, table.PreScale
	bytes := float64(2*xs.elems()*xs.dt.Size() + 4*g)
	name := opName("rmsnorm_rope", xs.dt)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(xp).Ptr(xp).Ptr(wp).Ptr(pp).Ptr(freqs).I32(int32(groups)).I32(int32(heads)).
			I32(int32(g)).I32(int32(dimsRot)).I32(trad).F32(pre).F32(eps)
		return b.launch(name, driver.Dim3{X: (groups + 3) / 4}, driver.Dim3{X: 128}, 0, args, bytes)
	})
}

// NormRopeQK: NormRope of q, then of k, in one rmsnorm_rope_qk launch (tuning.normRopeQK) where both fit
// rmsnorm_rope, share the head width, dtype and rows and do not overlap; otherwise the two NormRopes.
func (b *Backend) NormRopeQK(q, k, pos, wq, wk backend.Tensor, qheads, kheads int, eps float32, table *rope.Table) {
	qs, ks, ps := tensorOf("NormRopeQK", q), tensorOf("NormRopeQK", k), tensorOf("NormRopeQK", pos)
	wqs, wks := tensorOf("NormRopeQK", wq), tensorOf("NormRopeQK", wk)
	nq, _ := dims(qs)
	nk, _ := dims(ks)
	one := b.tune.normRopeQK && normRopeFits(qs, wqs, qheads, table) && normRopeFits(ks, wks, kheads, table) &&
		qs.dt == ks.dt && nq == nk && wqs.elems() == wks.elems() &&
		!overlaps(qs.ptr, qs.elems()*qs.dt.Size(), ks.ptr, ks.elems()*ks.dt.Size())
	if !one {
		b.NormRope(q, pos, wq, qheads, eps, table)
		b.NormRope(k, pos, wk, kheads, eps, table)
		return
	}
	n := normRopeCheck("NormRopeQK q", qs, ps, wqs, qheads, table)
	normRopeCheck("NormRopeQK k", ks, ps, wks, kheads, table)
	if n == 0 {
		return
	}
	freqs, trad, ok := b.normRopeTable(table)
	if !ok {
		return
	}
	g := wqs.elems()
	b.logf("NormRopeQK of %d + %d heads × %d, n=%d: one rmsnorm_rope_qk launch", qheads, kheads, g, n)
	heads := n * (qheads + kheads)
	qp, kp, wqp, wkp, pp, dimsRot, pre := qs.ptr, ks.ptr, wqs.ptr, wks.ptr, ps.ptr, table.Dims, table.PreScale
	bytes := float64(2*(qs.elems()+ks.elems())*qs.dt.Size() + 8*g)
	name := opName("rmsnorm_rope_qk", qs.dt)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(qp).Ptr(kp).Ptr(wqp).Ptr(wkp).Ptr(pp).Ptr(freqs).I32(int32(n)).I32(int32(qheads)).
			I32(int32(kheads)).I32(int32(g)).I32(int32(dimsRot)).I32(trad).F32(pre).F32(eps)
		return b.launch(name, driver.Dim3{X: (heads + 3) / 4}, driver.Dim3{X: 128}, 0, args, bytes)
	})
}

// NormRopeAttention: NormRopeQK of q and k, then Attention, with the norms folded into the decode split form
// (attn_split_norm, tuning.normRopeAttn) where attnNormFold takes the shapes; otherwise the two ops. Either way
// the cache holds the normalized keys; q and k are left as they are when folded (the contract leaves them
// unspecified).
func (b *Backend) NormRopeAttention(dst, q, k, v backend.Tensor, cache backend.KVCache, layer int, seq, pos, wq, wk backend.Tensor, qheads, kheads int, eps float32, table *rope.Table, scale float32) {
	nr := &normRopeReq{wq: wq, wk: wk, qheads: qheads, kheads: kheads, eps: eps, table: table}
	b.attention(dst, q, k, v, cache, layer, seq, pos, backend.AttnOptions{Scale: scale}, nr)
}

// normRopeReq is NormRopeAttention's norm half, handed to attention.
type normRopeReq struct {
	wq, wk         backend.Tensor
	qheads, kheads int
	eps            float32
	table          *rope.Table
}

// attnNormFold is the split form's head norms for attention case a over cache layer g, or nil where
// attn_split_norm does not serve them: the store folded (attendPlain's conditions: f32 activations, a decode
// step, a plain layer), heads of at most 256 that rmsnorm_rope takes, with q's and k's heads those of the cache.
func (b *Backend) attnNormFold(a attnCase, g kvGeom, o backend.AttnOptions, qs, ks, pt *Tensor, nr *normRopeReq) *attnNorm {
	wqs, wks := tensorOf("NormRopeAttention", nr.wq), tensorOf("NormRopeAttention", nr.wk)
	fits := b.tune.normRopeAttn && b.tune.attnStore && a.act == backend.F32 && a.n <= backend.MaxDecodeRows &&
		!g.ring && o.Window <= 0 && o.Softcap <= 0 && attnFormOf(a) == "split" && attnEPT(a.hd) <= attnNormEPTMax &&
		nr.qheads == a.heads && nr.kheads == a.kvHeads && wqs.elems() == a.hd && wks.elems() == a.hd &&
		normRopeFits(qs, wqs, nr.qheads, nr.table) && normRopeFits(ks, wks, nr.kheads, nr.table)
	if !fits {
		b.logf("NormRopeAttention n=%d heads=%d/%d hd=%d: NormRopeQK, then Attention", a.n, a.heads, a.kvHeads, a.hd)
		return nil
	}
	normRopeCheck("NormRopeAttention q", qs, pt, wqs, nr.qheads, nr.table)
	normRopeCheck("NormRopeAttention k", ks, pt, wks, nr.kheads, nr.table)
	freqs, trad, ok := b.normRopeTable(nr.table)
	if !ok {
		return nil
	}
	return &attnNorm{wq: wqs.ptr, wk: wks.ptr, freqs: freqs, dims: int32(nr.table.Dims), trad: trad, prescale: nr.table.PreScale, eps: nr.eps}
}

// normRopeFits reports whether rmsnorm_rope takes x [n, heads·hd] with weight w [hd]: a table, hd ≤ 256.
func normRopeFits(x, w *Tensor, heads int, table *rope.Table) bool {
	_, cols := dims(x)
	g := w.elems()
	return table != nil && heads > 0 && cols%heads == 0 && cols/heads == g && g <= 256
}

// normRopeCheck checks the dtypes and the rows of one rmsnorm_rope operand (op names it in the panic) and returns
// its rows.
func normRopeCheck(op string, x, pos, w *Tensor, heads int, table *rope.Table) int {
	n, _ := dims(x)
	wantDType(op, "x", x, backend.F32, backend.BF16)
	wantDType(op, "weight", w, backend.F32)
	wantDType(op, "pos", pos, backend.I32)
	if g := w.elems(); pos.elems() != n || table.Dims > g || table.Dims%2 != 0 {
		backend.ShapeError(op, "x, pos", []any{x.shape, pos.shape}, fmt.Sprintf("[%d, heads(%d)·headDim ≥ %d]", pos.elems(), heads, table.Dims))
	}
	return n
}

// normRopeTable is the device's inverse-frequency row of table and the traditional flag as the kernels take it;
// false (the backend failed) when the row cannot be made.
func (b *Backend) normRopeTable(table *rope.Table) (driver.DevPtr, int32, bool) {
	freqs, err := b.ropeFreqs(table)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: rope table: %w", err))
		return 0, 0, false
	}
	if table.Traditional {
		return freqs, 1, true
	}
	return freqs, 0, true
}

// MatMulGroup: ys[i] = x·ws[i]ᵀ in one launch where the layers' forms share one — the multi-segment dense GEMV
// for decode rows, trellis_gemvg (one row) or trellis_mma (batches) for int8-activation trellis layers of one
// input geometry; otherwise one MatMul each.
func (b *Backend) MatMulGroup(ys []backend.Tensor, x backend.Tensor, ws []backend.Linear) {
	if len(ys) != len(ws) {
		panic(fmt.Sprintf("backend: MatMulGroup: %d outputs for %d linears", len(ys), len(ws)))
	}
	if !b.groupDense(ys, x, ws) && !b.groupQuant(ys, x, ws, nil, gemvgFold{}) {
		for i, w := range ws {
			b.MatMul(ys[i], x, w)
		}
	}
}

// GateUpSwiGLU: gate = x·wgᵀ, up = x·wuᵀ, h = silu(gate)·up in one trellis launch where the layers are
// int8-activation trellis layers that one launch takes (trellis_gemvg: one width; trellis_mma: mixed widths for one
// row too); otherwise MatMulGroup of the two and a swiglu launch.
func (b *Backend) GateUpSwiGLU(h, gate, up, x backend.Tensor, wg, wu backend.Linear) {
	ht := tensorOf("GateUpSwiGLU", h)
	if swigluFolds("GateUpSwiGLU", ht, gate, up) && b.groupQuant([]backend.Tensor{gate, up}, x, []backend.Linear{wg, wu}, ht, gemvgFold{}) {
		return
	}
	b.MatMulGroup([]backend.Tensor{gate, up}, x, []backend.Linear{wg, wu})
	b.SwiGLU(h, gate, up)
}

// groupDense queues dense decode MatMuls on x as one multi-segment GEMV launch when every layer is dense, the rows
// are a decode batch of the vector form and no output overlaps x or another output; false queues nothing.
func (b *Backend) groupDense(ys []backend.Tensor, x backend.Tensor, ws []backend.Linear) bool {
	xs := tensorOf("MatMulGroup", x)
	n, in := dims(xs)
	var segs []gemvSeg
	var c matmulCase
	for i, w := range ws {
		l, ok := w.(*linear)
		d := tensorOf("MatMulGroup", ys[i])
		if !ok || in != l.in || d.elems() != n*l.out {
			return false
		}
		c = matmulCase{n: n, in: in, out: l.out, x: xs.dt, dst: d.dt, splitMax: b.tune.splitGemmMax}
		if formOf(c) != "gemv" || (i > 0 && d.dt != tensorOf("MatMulGroup", ys[0]).dt) ||
			overlaps(d.ptr, n*l.out*d.dt.Size(), xs.ptr, n*in*xs.dt.Size()) {
			return false
		}
		for j, s := range segs {
			if overlaps(d.ptr, n*l.out*d.dt.Size(), s.Y, n*int(s.Out)*tensorOf("MatMulGroup", ys[j]).dt.Size()) {
				return false
			}
		}
		segs = append(segs, gemvSeg{W: l.w, Y: d.ptr, Bias: l.bias, Out: int32(l.out)})
	}
	b.logf("MatMulGroup of %d dense layers n=%d: one GEMV launch", len(ws), n)
	g := &gemvGroup{c: c, x: xs.ptr, segs: segs}
	b.enqueue(g.launch(b))
	return true
}

// formOf is the dense MatMul form selection picks for c.
func formOf(c matmulCase) string {
	for _, f := range matmulForms {
		if f.supports(c) {
			return f.name
		}
	}
	return ""
}

// groupQuant queues quantized MatMuls on x as one trellis_gemvg or trellis_mma launch (with h, gate and up with
// SwiGLU folded in) when groupable says one launch takes them; false queues nothing. A fold (an input norm) needs
// trellis_gemvg, which then takes a single layer too.
func (b *Backend) groupQuant(ys []backend.Tensor, x backend.Tensor, ws []backend.Linear, h *Tensor, fold gemvgFold) bool {
	xs := tensorOf("MatMulGroup", x)
	if xs.dt != backend.F32 {
		return false
	}
	n, in := dims(xs)
	var ls []*qlinear
	var cs []quantCase
	var forms []string
	var yp []driver.DevPtr
	for i, w := range ws {
		l, ok := w.(*qlinear)
		d := tensorOf("MatMulGroup", ys[i])
		if !ok || in != l.in || d.dt != backend.F32 || d.elems() != n*l.out {
			return false
		}
		c := b.quantCaseOf(l, n)
		ls, cs, yp = append(ls, l), append(cs, c), append(yp, d.ptr)
		forms = append(forms, quantFormOf(c))
	}
	gemvg, ok := groupable(ls, cs, forms, xs.ptr, yp)
	if fold.normw != 0 {
		if len(ls) == 1 && forms[0] == "trellis_gemvg" {
			gemvg, ok = true, true
		}
		for i, l := range ls {
			ok = ok && gemvg && b.gemvgFolds(l) && !overlaps(yp[i], 4*n*l.out, fold.xn, 4*n*in)
		}
	}
	if !ok {
		return false
	}
	g := &qmmaGroup{n: n, x: xs.ptr, segs: ls, ys: yp, gemvg: gemvg, fold: fold}
	if h != nil {
		k0, k1 := ls[0].w.Bits, ls[1].w.Bits
		if len(ls) != 2 || ls[0].out != ls[1].out || (k0 != k1 && (gemvg || !qmmaMixed(qmmaInst(n)))) {
			return false
		}
		g.h = h.ptr
	} else if !g.sameBits() {
		return false // layers of different widths take a launch each
	}
	b.logf("%d layers %s n=%d: one %s launch, SwiGLU folded %v, norm folded %v", len(ls), ls[0].name, n, g.form(), h != nil, fold.normw != 0)
	b.enqueue(g.launch(b))
	return true
}

// quantFormOf is the quantized MatMul form selection picks for c.
func quantFormOf(c quantCase) string {
	for _, f := range quantForms {
		if f.supports(c) {
			return f.name
		}
	}
	return ""
}

// MatMulAddFuses: the layer is quantized and the form selection picks for it at rows rows adds a residual in its
// launch (residualForms; trellis_gemvg's lab kernels do not), with the tuning table's fold_residual on.
func (b *Backend) MatMulAddFuses(w backend.Linear, rows int) bool {
	l, ok := w.(*qlinear)
	if !ok || rows < 1 || !b.tune.foldResidual {
		return false
	}
	f := quantFormOf(b.quantCaseOf(l, rows))
	return slices.Contains(residualForms, f) && (f != "trellis_gemvg" || b.gemvgFolds(l))
}

// MatMulAdd: y = r + x·wᵀ in the projection's launch where MatMulAddFuses (y may be r, every f32, y apart from x);
// otherwise MatMul into t and an add launch.
func (b *Backend) MatMulAdd(y, t, x backend.Tensor, w backend.Linear, r backend.Tensor) {
	const op = "MatMulAdd"
	ys, xs, rs := tensorOf(op, y), tensorOf(op, x), tensorOf(op, r)
	n, _ := dims(xs)
	if l, ok := w.(*qlinear); ok && ys.dt == backend.F32 && rs.dt == backend.F32 && xs.dt == backend.F32 &&
		rs.elems() == ys.elems() && (ys.ptr == rs.ptr || !overlaps(ys.ptr, 4*ys.elems(), rs.ptr, 4*rs.elems())) &&
		!overlaps(ys.ptr, 4*ys.elems(), xs.ptr, 4*xs.elems()) && b.MatMulAddFuses(w, n) {
		b.matmulQuantRes(ys, xs, l, rs.ptr)
		return
	}
	b.logf("MatMulAdd n=%d: the plain ops", n)
	b.MatMul(t, x, w)
	b.Add(y, r, t)
}

// normFold is the input-norm fold of xn = RMSNorm(x, nw, eps) for one trellis_gemvg launch: one f32 row, nw f32
// [in], xn apart from x (block 0 writes it while the others read x); false where the launch cannot fold it.
func normFold(op string, xn, x, nw backend.Tensor, eps float32) (gemvgFold, bool) {
	xns, xs, ws := tensorOf(op, xn), tensorOf(op, x), tensorOf(op, nw)
	n, in := dims(xs)
	if n != 1 || xs.dt != backend.F32 || xns.dt != backend.F32 || ws.dt != backend.F32 || ws.elems() != in || xns.elems() != in ||
		overlaps(xns.ptr, 4*in, xs.ptr, 4*in) {
		return gemvgFold{}, false
	}
	return gemvgFold{normw: ws.ptr, xn: xns.ptr, eps: eps}, true
}

// NormMatMulGroup: xn = RMSNorm(x, nw, eps) and ys[i] = xn·ws[i]ᵀ in one trellis_gemvg launch that normalizes x
// before quantizing it (one row of quantized layers the launch takes, tuning fold_residual); otherwise RMSNorm and
// MatMulGroup.
func (b *Backend) NormMatMulGroup(ys []backend.Tensor, xn, x, nw backend.Tensor, eps float32, ws []backend.Linear) {
	if f, ok := normFold("NormMatMulGroup", xn, x, nw, eps); ok && b.tune.foldResidual && b.groupQuant(ys, x, ws, nil, f) {
		return
	}
	b.RMSNorm(xn, x, nw, eps)
	b.MatMulGroup(ys, xn, ws)
}

// NormGateUpSwiGLU: xn = RMSNorm(x, nw, eps), then GateUpSwiGLU on xn, in one trellis_gemvg launch where it folds
// (as NormMatMulGroup); otherwise RMSNorm and GateUpSwiGLU.
func (b *Backend) NormGateUpSwiGLU(h, gate, up, xn, x, nw backend.Tensor, eps float32, wg, wu backend.Linear) {
	ht := tensorOf("NormGateUpSwiGLU", h)
	if f, ok := normFold("NormGateUpSwiGLU", xn, x, nw, eps); ok && swigluFolds("NormGateUpSwiGLU", ht, gate, up) && b.tune.foldResidual &&
		!overlaps(ht.ptr, 4*ht.elems(), f.xn, 4*tensorOf("NormGateUpSwiGLU", xn).elems()) &&
		b.groupQuant([]backend.Tensor{gate, up}, x, []backend.Linear{wg, wu}, ht, f) {
		return
	}
	b.RMSNorm(xn, x, nw, eps)
	b.GateUpSwiGLU(h, gate, up, xn, wg, wu)
}

// swigluFolds reports whether SwiGLU's output h folds into the trellis launch of gate and up (op names the caller in
// panics): all f32 of one length, h either gate itself or apart from it, and apart from up.
func swigluFolds(op string, h *Tensor, gate, up backend.Tensor) bool {
	gt, ut := tensorOf(op, gate), tensorOf(op, up)
	n := gt.elems()
	return h.dt == backend.F32 && gt.dt == backend.F32 && ut.dt == backend.F32 && h.elems() == n && ut.elems() == n &&
		(h.ptr == gt.ptr || !overlaps(h.ptr, 4*n, gt.ptr, 4*n)) && !overlaps(h.ptr, 4*n, ut.ptr, 4*n)
}
