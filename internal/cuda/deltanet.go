// The gated DeltaNet layers of the hybrid linear-attention models (Qwen3.5, Qwen3-Next; backend/hybrid.go) on
// the CUDA backend: their recurrent state on the device, CausalConv, GatedDeltaRule, RMSNormGated and SigmoidMul
// (kernels in shaders/cuda/deltanet.cu; the sparse MoE block is moe.go). The CPU backend
// (internal/cpu/deltanet.go) is the reference of every one. No op reads device data back to the host: the
// kernels read seq and pos on the device, and their grids depend on the row count and the state's geometry
// only, so a decode step records into one CUDA graph.

package cuda

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

var (
	_ backend.LinearAttention = (*Backend)(nil)
	_ backend.SigmoidGate     = (*Backend)(nil)
)

// hybridOps are the hybrid models' ops Supports answers yes for (this file's and moe.go's). Served by default since the H200 ran them
// (2026-12-01: TestBackendModels passed for tiny-qwen3_5 and tiny-qwen3-next-moe with them served, and the hidden
// Qwen3.5 variant decoded its 16 greedy tokens exactly); before, only with an environment switch.
var hybridOps = map[backend.Op]bool{backend.OpGatedDeltaNet: true, backend.OpSigmoidGate: true, backend.OpMoE: true}

// convKMax is the largest conv kernel causal_conv holds in registers (CONV_KMAX in deltanet.cu).
const convKMax = 8

// deltaKDs are the key-dim bounds the delta rule is instantiated for: a thread holds a column of KD state values
// in registers, rows ≥ KeyDim zero (deltaName picks the smallest bound ≥ KeyDim).
var deltaKDs = []int{32, 64, 128, 256}

// deltaCols is the value columns one delta-rule block takes and deltaLanes the lanes sharing each (DELTA_COLS,
// DELTA_LANES in deltanet.cu): a lane holds KD/deltaLanes of its column's state rows, so a head's dv columns
// spread over dv/deltaCols blocks (Qwen3.5's 48 value heads of 128: 192 blocks, not 48) and each dot product over
// the key dim is deltaLanes partial sums.
const (
	deltaCols  = 32
	deltaLanes = 4
)

func deltaName(kd int, x backend.DType) string {
	return fmt.Sprintf("gated_delta_%s_k%d", dtName(x), kd)
}

// The chunked form of the delta rule (gated_delta_chunk_*: a prompt run of one sequence, deltaChunk rows at a
// time): deltaChunk and deltaChunkThreads are DELTA_CHUNK and DELTA_CHUNK_THREADS in deltanet.cu, deltaChunkKDs
// its instantiated key-dim bounds (S of a block's deltaCols columns, the chunk's k and q and its T×T products stay
// under 48 KiB of static shared memory up to 128: 39 KiB; a larger key dim keeps the recurrent form).
const (
	deltaChunk        = 16
	deltaChunkThreads = 256
)

var deltaChunkKDs = []int{32, 64, 128}

// deltaHeadCols is DELTA_HEAD_COLS in deltanet.cu: the value columns of a value head (its gated norm's group) that
// gated_delta_norm serves, at deltaLanes lanes a column, in one block of 512 threads or (gated_delta_norm_cl,
// sm_90+) a cluster of deltaHeadCols/deltaCols blocks of 128; its key-dim bounds are deltaChunkKDs' (a lane's
// KD/deltaLanes state rows in registers).
const deltaHeadCols = 128

// deltaNormClusterKD is the smallest key-dim bound gated_delta_norm_cl is instantiated for: a head's state of
// 32 rows is a quarter of the traffic the cluster spreads, and CUDA 13's ptxas spilled 24 bytes of its f32 form
// there (H200, 2026-12-04); such heads keep the one-block form.
const deltaNormClusterKD = 64

func deltaNormName(kd int, x backend.DType, cluster bool) string {
	if cluster {
		return fmt.Sprintf("gated_delta_norm_cl_%s_k%d", dtName(x), kd)
	}
	return fmt.Sprintf("gated_delta_norm_%s_k%d", dtName(x), kd)
}

func deltaChunkName(kd int, x backend.DType) string {
	return fmt.Sprintf("gated_delta_chunk_%s_k%d", dtName(x), kd)
}

// deltaInstantiations are deltanet.cu's instantiation lines (kernels.go).
func deltaInstantiations() []string {
	var out []string
	for _, x := range actTypes {
		for _, kd := range deltaKDs {
			out = append(out, fmt.Sprintf("GATED_DELTA(%s, %d, %s)", deltaName(kd, x), kd, outType(x)))
		}
		for _, kd := range deltaChunkKDs {
			out = append(out, fmt.Sprintf("GATED_DELTA_CHUNK(%s, %d, %s)", deltaChunkName(kd, x), kd, outType(x)),
				fmt.Sprintf("GATED_DELTA_NORM(%s, %d, %s)", deltaNormName(kd, x, false), kd, outType(x)))
			if kd >= deltaNormClusterKD {
				out = append(out, fmt.Sprintf("GATED_DELTA_NORM_CL(%s, %d, %s)", deltaNormName(kd, x, true), kd, outType(x)))
			}
		}
	}
	return out
}

// recurrentState is the DeltaNet layers' state on the device, f32: conv [layers, seqs, K-1, convDim] and the
// delta-rule matrices S [layers, seqs, valueHeads, keyDim, valueDim], laid out as the CPU's.
type recurrentState struct {
	b       *Backend
	cfg     backend.RecurrentConfig
	conv, s driver.DevPtr
}

func (st *recurrentState) Config() backend.RecurrentConfig { return st.cfg }

// convBytes and sBytes are one layer's share of each buffer.
func (st *recurrentState) convBytes() int {
	c := st.cfg
	return 4 * c.Seqs * (c.ConvKernel - 1) * c.ConvDim
}

func (st *recurrentState) sBytes() int {
	c := st.cfg
	return 4 * c.Seqs * c.ValueHeads * c.KeyDim * c.ValueDim
}

func (st *recurrentState) Release() {
	b := st.b
	if st.conv == 0 && st.s == 0 {
		return
	}
	if err := b.syncFlush(); err == nil {
		b.fail(b.dev.Do(func() error { return firstErr(b.mem.release(st.conv), b.mem.release(st.s)) }))
	}
	st.conv, st.s = 0, 0
}

func (b *Backend) NewRecurrentState(cfg backend.RecurrentConfig) (backend.RecurrentState, error) {
	c := cfg
	if c.Layers <= 0 || c.Seqs <= 0 || c.ConvDim <= 0 || c.ConvKernel <= 0 || c.KeyHeads <= 0 || c.ValueHeads <= 0 ||
		c.KeyDim <= 0 || c.ValueDim <= 0 || c.ValueHeads%c.KeyHeads != 0 {
		return nil, fmt.Errorf("cuda: recurrent state: every dimension must be positive and value heads a multiple of key heads, got %+v", c)
	}
	if c.ConvKernel > convKMax || c.KeyDim > deltaKDs[len(deltaKDs)-1] || c.Seqs > 65535 || c.ValueHeads > 65535 {
		return nil, fmt.Errorf("cuda: recurrent state: conv kernel %d (at most %d), key dim %d (at most %d), %d sequences and %d value heads (at most 65535): %w",
			c.ConvKernel, convKMax, c.KeyDim, deltaKDs[len(deltaKDs)-1], c.Seqs, c.ValueHeads, backend.ErrUnsupported)
	}
	st := &recurrentState{b: b, cfg: c}
	convAll, sAll := c.Layers*st.convBytes(), c.Layers*st.sBytes()
	var err error
	if st.conv, err = b.allocExact(max(convAll, 4)); err == nil {
		if st.s, err = b.allocExact(sAll); err != nil {
			b.fail(b.dev.Do(func() error { return b.mem.release(st.conv) }))
			st.conv = 0
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cuda: recurrent state of %d sequences (%.1f MiB): %w", c.Seqs, float64(convAll+sAll)/(1<<20), err)
	}
	// zero state: what a row at position 0 reads, and what a sequence that never restarted holds (as the CPU's)
	conv, s := st.conv, st.s
	b.enqueue(func() error {
		if err := b.stream.MemsetD32Async(conv, 0, max(convAll, 4)/4); err != nil {
			return err
		}
		return b.stream.MemsetD32Async(s, 0, sAll/4)
	})
	return st, nil
}

func stateOf(op string, st backend.RecurrentState, layer int) *recurrentState {
	s, ok := st.(*recurrentState)
	if !ok {
		panic(fmt.Sprintf("backend: %s: state of type %T is not a CUDA recurrent state", op, st))
	}
	if s.s == 0 {
		panic(fmt.Sprintf("backend: %s: recurrent state used after Release", op))
	}
	if layer < 0 || layer >= s.cfg.Layers {
		panic(fmt.Sprintf("backend: %s: layer %d outside the state's %d", op, layer, s.cfg.Layers))
	}
	return s
}

// rowsOf checks seq and pos (int32 [n]) and, where the host knows the sequence ids (shadow), that each is one
// of the state's, as the CPU panics otherwise.
func rowsOf(op string, seq, pos *Tensor, n, seqs int) {
	wantDType(op, "seq", seq, backend.I32)
	wantDType(op, "pos", pos, backend.I32)
	if seq.elems() != n || pos.elems() != n {
		backend.ShapeError(op, "seq, pos", []any{seq.shape, pos.shape}, n)
	}
	for r, q := range seq.shadow {
		if q < 0 || int(q) >= seqs {
			panic(fmt.Sprintf("backend: %s: row %d in sequence %d of %d", op, r, q, seqs))
		}
	}
}

// CausalConv (backend.LinearAttention): causal_conv over each sequence's rows, the conv tail kept in the state.
func (b *Backend) CausalConv(dst, x, w backend.Tensor, st backend.RecurrentState, layer int, seq, pos backend.Tensor) {
	s := stateOf("CausalConv", st, layer)
	c := s.cfg
	d, xs, ws := tensorOf("CausalConv", dst), tensorOf("CausalConv", x), tensorOf("CausalConv", w)
	sq, ps := tensorOf("CausalConv", seq), tensorOf("CausalConv", pos)
	wantDType("CausalConv", "x", xs, backend.F32, backend.BF16)
	wantDType("CausalConv", "dst", d, xs.dt)
	wantDType("CausalConv", "w", ws, backend.F32, backend.BF16)
	n, C := dims(xs)
	K := c.ConvKernel
	if C != c.ConvDim || d.elems() != xs.elems() || ws.elems() != C*K {
		backend.ShapeError("CausalConv", "x, w", []any{xs.shape, ws.shape}, fmt.Sprintf("[n, %d], [%d, %d]", c.ConvDim, c.ConvDim, K))
	}
	rowsOf("CausalConv", sq, ps, n, c.Seqs)
	if n == 0 {
		return
	}
	name := fmt.Sprintf("causal_conv_%s_w%s", dtName(xs.dt), dtName(ws.dt))
	conv := s.conv.Add(layer * s.convBytes())
	grid := driver.Dim3{X: (C + 127) / 128, Y: c.Seqs}
	bytes := float64(2*n*C*xs.dt.Size() + C*K*ws.dt.Size() + 2*s.convBytes() + 8*n*c.Seqs)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(d.ptr).Ptr(xs.ptr).Ptr(ws.ptr).Ptr(conv).Ptr(sq.ptr).Ptr(ps.ptr).
			I32(int32(n)).I32(int32(C)).I32(int32(K))
		return b.launch(name, grid, driver.Dim3{X: 128}, 0, args, bytes)
	})
}

// deltaCall is one GatedDeltaRule's checked operands and the form it takes.
type deltaCall struct {
	s                *recurrentState
	d, x, a, b       *Tensor // dst, qkv, a, b
	al, db, seq, pos *Tensor // aLog, dtBias
	n, kd            int     // rows; the instantiated key-dim bound
	chunked          bool    // gated_delta_chunk (a prompt run) rather than the recurrent form
}

// deltaOperands checks a GatedDeltaRule's operands (op names the caller in its panics) and picks its form; nil
// when there are no rows.
func (b *Backend) deltaOperands(op string, dst, qkv, a, bt, aLog, dtBias backend.Tensor, st backend.RecurrentState, layer int, seq, pos backend.Tensor) *deltaCall {
	s := stateOf(op, st, layer)
	c := s.cfg
	dc := &deltaCall{s: s, d: tensorOf(op, dst), x: tensorOf(op, qkv), a: tensorOf(op, a), b: tensorOf(op, bt),
		al: tensorOf(op, aLog), db: tensorOf(op, dtBias), seq: tensorOf(op, seq), pos: tensorOf(op, pos)}
	d, xs, as, bs, al, db := dc.d, dc.x, dc.a, dc.b, dc.al, dc.db
	wantDType(op, "qkv", xs, backend.F32, backend.BF16)
	for _, t := range []*Tensor{d, as, bs} {
		wantDType(op, "activation", t, xs.dt)
	}
	wantDType(op, "aLog", al, backend.F32)
	wantDType(op, "dtBias", db, backend.F32)
	n, C := dims(xs)
	kw, vw := c.KeyHeads*c.KeyDim, c.ValueHeads*c.ValueDim
	if C != 2*kw+vw || as.elems() != n*c.ValueHeads || bs.elems() != n*c.ValueHeads || al.elems() != c.ValueHeads ||
		db.elems() != c.ValueHeads || d.elems() != n*vw {
		backend.ShapeError(op, "qkv, a, b, dst", []any{xs.shape, as.shape, bs.shape, d.shape},
			fmt.Sprintf("[n, %d], [n, %d] ×2, [n, %d]", 2*kw+vw, c.ValueHeads, vw))
	}
	if d.ptr == xs.ptr {
		panic("backend: " + op + ": dst aliases qkv")
	}
	rowsOf(op, dc.seq, dc.pos, n, c.Seqs)
	if n == 0 {
		return nil
	}
	dc.n, dc.kd = n, deltaKDs[len(deltaKDs)-1]
	for _, v := range deltaKDs {
		if v >= c.KeyDim {
			dc.kd = v
			break
		}
	}
	dc.chunked = b.tune.deltaChunkRows > 0 && n >= b.tune.deltaChunkRows && dc.kd <= deltaChunkKDs[len(deltaChunkKDs)-1] && oneRun(dc.seq, dc.pos, n)
	return dc
}

// scale is the query scale 1/√KeyDim in f32.
func (dc *deltaCall) scale() float32 { return float32(1 / math.Sqrt(float64(dc.s.cfg.KeyDim))) }

// GatedDeltaRule (backend.LinearAttention): gated_delta_prep normalizes every row's q and k and forms its gates
// in parallel, then gated_delta runs the recurrent form over each sequence's rows in order, its dot products
// split over deltaLanes lanes (decode steps, batches of several sequences, short runs); a run of one sequence at
// consecutive positions of at least tuning.deltaChunkRows rows (a prompt chunk; key dim ≤ 128) takes gated_delta_chunk,
// the chunked form, whose rows go deltaChunk at a time as a few small matrix products and one short substitution
// instead of n dependent steps. The pre-pass's output lives in the split
// attention's scratch (ensureScratch), which the stream's order keeps apart from attention's use of it.
func (b *Backend) GatedDeltaRule(dst, qkv, a, bt, aLog, dtBias backend.Tensor, st backend.RecurrentState, layer int, seq, pos backend.Tensor) {
	const op = "GatedDeltaRule"
	dc := b.deltaOperands(op, dst, qkv, a, bt, aLog, dtBias, st, layer, seq, pos)
	if dc == nil {
		return
	}
	s, c, n, kd := dc.s, dc.s.cfg, dc.n, dc.kd
	d, xs, as, bs, al, db, sq, ps := dc.d, dc.x, dc.a, dc.b, dc.al, dc.db, dc.seq, dc.pos
	C, kw, vw := dc.x.shape[len(dc.x.shape)-1], c.KeyHeads*c.KeyDim, c.ValueHeads*c.ValueDim
	name, prep := deltaName(kd, xs.dt), opName("gated_delta_prep", xs.dt)
	if dc.chunked {
		name = deltaChunkName(kd, xs.dt)
	}
	// the pre-pass's output: every row's normalized q and k per key head, then β and the decay per value head
	qkBytes := 4 * n * c.KeyHeads * 2 * c.KeyDim
	scr, err := b.ensureScratch(qkBytes + 4*n*c.ValueHeads*2)
	if err != nil {
		b.fail(fmt.Errorf("cuda backend: %s scratch: %w", op, err))
		return
	}
	coef := scr.Add(qkBytes)
	S := s.s.Add(layer * s.sBytes())
	grid := driver.Dim3{X: (c.ValueDim + deltaCols - 1) / deltaCols, Y: c.ValueHeads, Z: c.Seqs}
	scale := dc.scale()
	bytes := float64(n*(C+2*c.ValueHeads+vw)*xs.dt.Size() + 2*s.sBytes())
	prepBytes := float64(n*(2*kw+2*c.ValueHeads)*xs.dt.Size() + 4*n*(2*kw+2*c.ValueHeads))
	b.logf("GatedDeltaRule n=%d heads=%d/%d dk=%d dv=%d seqs=%d: %s", n, c.KeyHeads, c.ValueHeads, c.KeyDim, c.ValueDim, c.Seqs, name)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(scr).Ptr(coef).Ptr(xs.ptr).Ptr(as.ptr).Ptr(bs.ptr).Ptr(al.ptr).Ptr(db.ptr).
			I32(int32(c.KeyHeads)).I32(int32(c.ValueHeads)).I32(int32(c.KeyDim)).I32(int32(c.ValueDim)).F32(scale)
		if err := b.launch(prep, driver.Dim3{X: n, Y: c.KeyHeads}, driver.Dim3{X: 128}, 0, args, prepBytes); err != nil {
			return err
		}
		if dc.chunked {
			args = driver.NewArgs().Ptr(d.ptr).Ptr(xs.ptr).Ptr(scr).Ptr(coef).Ptr(as.ptr).Ptr(al.ptr).Ptr(db.ptr).Ptr(S).
				Ptr(sq.ptr).Ptr(ps.ptr).I32(int32(n)).I32(int32(c.Seqs)).I32(int32(c.KeyHeads)).I32(int32(c.ValueHeads)).
				I32(int32(c.KeyDim)).I32(int32(c.ValueDim))
			return b.launch(name, driver.Dim3{X: grid.X, Y: grid.Y}, driver.Dim3{X: deltaChunkThreads}, 0, args, bytes)
		}
		args = driver.NewArgs().Ptr(d.ptr).Ptr(xs.ptr).Ptr(scr).Ptr(coef).Ptr(S).Ptr(sq.ptr).Ptr(ps.ptr).
			I32(int32(n)).I32(int32(c.KeyHeads)).I32(int32(c.ValueHeads)).I32(int32(c.KeyDim)).I32(int32(c.ValueDim))
		return b.launch(name, grid, driver.Dim3{X: deltaCols * deltaLanes}, 0, args, bytes)
	})
}

// DeltaRuleNormGated (backend.DeltaRuleNormGateder): GatedDeltaRule, then RMSNormGated(dst, dst, z, nw, eps), as
// the one launch gated_delta_norm where the recurrent form runs (not a chunked prompt run), the key dim is at most
// 128 and the norm's group is one value head of at most deltaHeadCols columns; elsewhere the two ops in turn.
// Bit-identical either way (deltanet.cu). Qwen3.5-27B's decode step: prep, delta and norm launches → one, of 192
// blocks of 128 threads in clusters of four on sm_90+ (tuning.deltaNormCluster), 48 of 512 elsewhere.
func (b *Backend) DeltaRuleNormGated(dst, qkv, z, a, bt, aLog, dtBias, nw backend.Tensor, eps float32, st backend.RecurrentState, layer int, seq, pos backend.Tensor) {
	const op = "DeltaRuleNormGated"
	dc := b.deltaOperands(op, dst, qkv, a, bt, aLog, dtBias, st, layer, seq, pos)
	if dc == nil {
		return
	}
	c := dc.s.cfg
	zs, ws := tensorOf(op, z), tensorOf(op, nw)
	if dc.chunked || dc.kd > deltaChunkKDs[len(deltaChunkKDs)-1] || c.ValueDim > deltaHeadCols || ws.elems() != c.ValueDim ||
		ws.dt != backend.F32 || zs.dt != dc.x.dt || zs.elems() != dc.d.elems() {
		b.GatedDeltaRule(dst, qkv, a, bt, aLog, dtBias, st, layer, seq, pos)
		b.RMSNormGated(dst, dst, z, nw, eps)
		return
	}
	s, n := dc.s, dc.n
	cl := b.tune.deltaNormCluster && b.info.CCMajor >= 9 && dc.kd >= deltaNormClusterKD
	name := deltaNormName(dc.kd, dc.x.dt, cl)
	grid, block := driver.Dim3{X: c.ValueHeads, Y: c.Seqs}, driver.Dim3{X: deltaHeadCols * deltaLanes}
	if cl {
		grid.X, block.X = c.ValueHeads*(deltaHeadCols/deltaCols), deltaCols*deltaLanes
	}
	S := s.s.Add(layer * s.sBytes())
	C, vw := dc.x.shape[len(dc.x.shape)-1], c.ValueHeads*c.ValueDim
	bytes := float64(n*(C+2*c.ValueHeads+2*vw)*dc.x.dt.Size() + 2*s.sBytes())
	b.logf("DeltaRuleNormGated n=%d heads=%d/%d dk=%d dv=%d seqs=%d: %s", n, c.KeyHeads, c.ValueHeads, c.KeyDim, c.ValueDim, c.Seqs, name)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(dc.d.ptr).Ptr(dc.x.ptr).Ptr(zs.ptr).Ptr(dc.a.ptr).Ptr(dc.b.ptr).Ptr(dc.al.ptr).
			Ptr(dc.db.ptr).Ptr(ws.ptr).Ptr(S).Ptr(dc.seq.ptr).Ptr(dc.pos.ptr).I32(int32(n)).I32(int32(c.KeyHeads)).
			I32(int32(c.ValueHeads)).I32(int32(c.KeyDim)).I32(int32(c.ValueDim)).F32(dc.scale()).F32(eps)
		return b.launch(name, grid, block, 0, args, bytes)
	})
}

// RMSNormGated (backend.LinearAttention): rmsnorm_gated, one block per group of len(w) columns.
func (b *Backend) RMSNormGated(dst, x, z, w backend.Tensor, eps float32) {
	const op = "RMSNormGated"
	d, xs, zs, ws := tensorOf(op, dst), tensorOf(op, x), tensorOf(op, z), tensorOf(op, w)
	wantDType(op, "x", xs, backend.F32, backend.BF16)
	wantDType(op, "z", zs, xs.dt)
	wantDType(op, "dst", d, xs.dt)
	wantDType(op, "w", ws, backend.F32)
	g, total := ws.elems(), xs.elems()
	if g == 0 || total%g != 0 || zs.elems() != total || d.elems() != total {
		backend.ShapeError(op, "x, z", []any{xs.shape, zs.shape}, fmt.Sprintf("equal, columns a multiple of %d", g))
	}
	if total == 0 {
		return
	}
	groups := total / g
	name := opName("rmsnorm_gated", xs.dt)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(d.ptr).Ptr(xs.ptr).Ptr(zs.ptr).Ptr(ws.ptr).I32(int32(g)).F32(eps)
		return b.launch(name, driver.Dim3{X: groups}, driver.Dim3{X: 128}, 0, args, float64(3*total*xs.dt.Size()+4*g))
	})
}

// SigmoidMul (backend.SigmoidGate): dst = x·sigmoid(g), g elementwise or one gate per row.
func (b *Backend) SigmoidMul(dst, x, g backend.Tensor) {
	const op = "SigmoidMul"
	d, xs, gs := tensorOf(op, dst), tensorOf(op, x), tensorOf(op, g)
	wantDType(op, "x", xs, backend.F32, backend.BF16)
	wantDType(op, "g", gs, xs.dt)
	wantDType(op, "dst", d, xs.dt)
	n, c := dims(xs)
	total := xs.elems()
	if d.elems() != total || (gs.elems() != total && gs.elems() != n) {
		backend.ShapeError(op, "x, g", []any{xs.shape, gs.shape}, "equal, or g one column")
	}
	if total == 0 {
		return
	}
	perRow := int32(boolInt(gs.elems() != total))
	name, grid := opName("sigmoid_mul", xs.dt), b.grid1D(int64(total), 256)
	b.enqueue(func() error {
		args := driver.NewArgs().Ptr(d.ptr).Ptr(xs.ptr).Ptr(gs.ptr).I64(int64(total)).I32(int32(c)).I32(perRow)
		return b.launch(name, grid, driver.Dim3{X: 256}, 0, args, float64((2*total+gs.elems())*xs.dt.Size()))
	})
}
