// This file is the Metal backend's kernel table, platform-neutral (no build tag) so that Linux builds, the
// emulator tests (internal/metal/emu) and the darwin runtime share it: every kernel form with the functions it
// instantiates and its numerical promise (Forms), the selection per Apple GPU family (Table), and for each op a
// Plan: the launches — function, buffer bindings by role, the parameter struct's bytes, threadgroups and threads
// — as a function of the shape. The runtime binds its buffers to the roles and dispatches the launches in order;
// it computes no grid of its own, so what the emulator verified is what a Mac runs.
//
// API for the runtime (kept stable): PlanEmbed, PlanRMSNorm, PlanAddRMSNorm, PlanRMSNormRope, PlanRope (with
// RopeCosSin), PlanAdd, PlanSwiGLU, PlanKVStore, PlanAttention, PlanArgmax, PlanBitmask, PlanDense, PlanTrellis,
// PlanGateUp, PlanAffine, PlanExpand, PlanEXL3; the types Plan, Launch, Arg, Role, Family; Forms, Table, CompileFastMath.
// Parameter structs are written little-endian, field for field as common.metal declares them (all 4-byte fields);
// the emulator test compares their sizes with the compiled structs. A role a launch binds but the case does not
// use (no bias, a single split's scratch) still needs some buffer bound at its index.
package metal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// CompileFastMath is the MTLCompileOptions fastMathEnabled the library must be compiled with: off, so precise
// divides and square roots are IEEE and the promises below (bit-exact rope, embed, expand) hold.
const CompileFastMath = false

// Family is a row of the selection table: an Apple GPU generation.
type Family int

const (
	M1 Family = iota // MTLGPUFamilyApple7
	M2               // MTLGPUFamilyApple8
	M3               // MTLGPUFamilyApple9
	M4               // MTLGPUFamilyApple9 (M4 reports Apple9 as well)
	numFamilies
)

var familyInfo = [numFamilies]struct{ name, gpu, status string }{
	M1: {"M1", "MTLGPUFamilyApple7", "forms chosen after the seeds' M1 Max measurements of the analogous kernels (one-row gate/up from a threadgroup codebook, reduce ≤ 4 rows, MMA to 8, tiled prefill beyond); these kernels are unmeasured on any Mac"},
	M2: {"M2", "MTLGPUFamilyApple8", "unmeasured: uses the M1 choice"},
	M3: {"M3", "MTLGPUFamilyApple9", "unmeasured: uses the M1 choice"},
	M4: {"M4", "MTLGPUFamilyApple9", "unmeasured: uses the M1 choice"},
}

func (f Family) String() string {
	if f < 0 || f >= numFamilies {
		return fmt.Sprintf("Family(%d)", int(f))
	}
	return familyInfo[f].name
}

// GPUFamily is the MTLGPUFamily the runtime matches (supportsFamily:) to pick the row.
func (f Family) GPUFamily() string { return familyInfo[f].gpu }

// Families lists the table's rows.
func Families() []Family { return []Family{M1, M2, M3, M4} }

// Role names what a buffer argument holds; the runtime binds its tensors to roles.
type Role string

const (
	RoleDst      Role = "dst"     // output activations
	RoleX        Role = "x"       // input activations
	RoleA        Role = "a"       // first operand of add / add+norm, or the gate of swiglu
	RoleB        Role = "b"       // second operand of add / add+norm, or the up of swiglu
	RoleSum      Role = "sum"     // add+norm's stored sum
	RoleNormW    Role = "norm_w"  // RMSNorm weight f32 [g]
	RoleTable    Role = "table"   // embedding table bf16 bits
	RoleIDs      Role = "ids"     // token ids int32
	RoleCosSin   Role = "cos_sin" // RopeCosSin's f32 [n, dims/2, 2], written by the host before the launch
	RoleQ        Role = "q"       // attention queries
	RoleK        Role = "k"       // new keys [n, kvHeads·hd]
	RoleV        Role = "v"       // new values
	RoleKCache   Role = "k_cache" // f32 [layers, seqs, maxLen, kvHeads·hd]
	RoleVCache   Role = "v_cache" // same
	RoleSeq      Role = "seq"     // int32 [n]
	RolePos      Role = "pos"     // int32 [n]
	RoleMask     Role = "mask"    // token bitmask int32 [rows, words]
	RoleScratch  Role = "scratch" // f32 scratch of Plan.ScratchBytes (split-K partials, attention splits)
	RoleWords    Role = "words"   // trellis words / affine packed words, as stored
	RoleScales   Role = "scales"  // f32 per coded row (trellis) or per group (affine)
	RoleBiases   Role = "biases"  // affine f32 per group
	RoleBias     Role = "bias"    // the layer's f32 [out] bias (bound even when absent: any buffer)
	RoleGateW    Role = "gate_words"
	RoleGateS    Role = "gate_scales"
	RoleUpW      Role = "up_words"
	RoleUpS      Role = "up_scales"
	RoleGate     Role = "gate"     // fused gate/up: the gate projection's f32 output [n, rows] (beside dst = SwiGLU)
	RoleUp       Role = "up"       // fused gate/up: the up projection's f32 output
	RoleExpanded Role = "expanded" // expand's 16-bit [out, in]
	RoleDenseW   Role = "dense_w"  // a dense layer's bf16 weights [out, in]
	RolePre      Role = "pre"      // Hadamard input signs f32 [cols] (bound even when absent: any buffer)
	RolePost     Role = "post"     // Hadamard output signs f32 [cols] (likewise)
)

// Arg binds buffer index Index of a launch to the tensor playing Role.
type Arg struct {
	Index int
	Role  Role
}

// Launch is one dispatchThreadgroups:threadsPerThreadgroup: call (both MTLSize passed by value).
type Launch struct {
	Function   string
	Args       []Arg
	ParamIndex int    // buffer index of the parameter struct (setBytes:length:atIndex:)
	Params     []byte // its bytes
	Groups     [3]int // threadgroups per grid
	Threads    [3]int // threads per threadgroup
}

// Plan is the launches of one op, in order, and the scratch they share.
type Plan struct {
	Form         string
	Launches     []Launch
	ScratchBytes int
}

// Form is one kernel family of the table.
type Form struct {
	Name      string
	Op        string
	Functions []string // every kernel function the form may launch
	Promise   string
}

// Choice is one row of a family's selection: for Op, Form serves the cases When describes (first match wins).
type Choice struct{ Op, Form, When string }

// ---- parameter structs: common.metal's, field for field ----

type EmbedParams struct{ N, D, Vocab uint32 }
type NormParams struct {
	Groups, G uint32
	Eps       float32
}
type RopeParams struct {
	N, Heads, HD, Dims, Traditional uint32
	PreScale                        float32
}
type NormRopeParams struct {
	RopeParams
	Eps float32
}
type EltParams struct{ N uint32 }
type ArgmaxParams struct{ Rows, Vocab uint32 }
type BitmaskParams struct{ Rows, Vocab, Words uint32 }
type KVStoreParams struct{ N, Width, Seqs, MaxLen, Layer uint32 }
type AttnParams struct {
	N, Heads, KVHeads, HD uint32
	Seqs, MaxLen, Layer   uint32
	Splits                uint32
	Scale                 float32
}
type TrellisParams struct {
	Rows, Cols, N, T, L            uint32
	Interleaved, Factored, HasBias uint32
	Splits, RowsPerSplit           uint32
}
type GateUpParams struct{ Rows, Cols, N, T, L uint32 }
type AffineParams struct{ Out, In, N, Group, HasBias uint32 }
type SplitReduceParams struct{ N, Out, Splits, HasBias uint32 }
type ExpandParams struct{ Rows, Cols, T, L, Interleaved, Axis uint32 }
type DenseParams struct{ Out, In, N, HasBias uint32 }
type WinAttnParams struct {
	AttnParams
	Ring, Window uint32
	Softcap      float32
}
type ScaleParams struct {
	N uint32
	S float32
}
type HadamardParams struct {
	Rows, Cols, B, Threads uint32
	HasPre, HasPost        uint32
	Scale                  float32
}
type EXL3HadParams struct {
	Rows, XCols, Cols, DCols uint32
	XOff, DstOff             uint32
	HasPre, HasPost, HasBias uint32
	Scale                    float32
}
type EXL3GemvParams struct{ TK, TN, N, XOff, YOff uint32 }

// ParamTypes maps each MSL parameter struct name to a zero value of its Go mirror (the layout test's list).
var ParamTypes = map[string]any{
	"EmbedParams": EmbedParams{}, "NormParams": NormParams{}, "RopeParams": RopeParams{}, "EltParams": EltParams{},
	"ArgmaxParams": ArgmaxParams{}, "BitmaskParams": BitmaskParams{}, "KVStoreParams": KVStoreParams{},
	"AttnParams": AttnParams{}, "TrellisParams": TrellisParams{}, "GateUpParams": GateUpParams{},
	"AffineParams": AffineParams{}, "SplitReduceParams": SplitReduceParams{}, "ExpandParams": ExpandParams{},
	"DenseParams": DenseParams{}, "NormRopeParams": NormRopeParams{}, "ScaleParams": ScaleParams{},
	"HadamardParams": HadamardParams{}, "WinAttnParams": WinAttnParams{},
	"EXL3HadParams": EXL3HadParams{}, "EXL3GemvParams": EXL3GemvParams{},
}

func encode(p any) []byte {
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, p); err != nil {
		panic(fmt.Sprintf("metal: parameter struct %T: %v", p, err)) // fixed-size structs: cannot fail
	}
	return b.Bytes()
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func args(roles ...Role) []Arg {
	a := make([]Arg, len(roles))
	for i, r := range roles {
		a[i] = Arg{Index: i, Role: r}
	}
	return a
}

func launch(fn string, groups, threads [3]int, params any, roles ...Role) Launch {
	return Launch{Function: fn, Args: args(roles...), ParamIndex: len(roles), Params: encode(params), Groups: groups, Threads: threads}
}

// ---- element-wise and row ops ----

// PlanEmbed: dst f32 [n, d] = table bf16 [vocab, d] rows ids[r].
func PlanEmbed(n, d, vocab int) Plan {
	return Plan{Form: "embed", Launches: []Launch{launch("embed_f32", [3]int{n, 1, 1}, [3]int{256, 1, 1},
		EmbedParams{uint32(n), uint32(d), uint32(vocab)}, RoleDst, RoleTable, RoleIDs)}}
}

// rmsnormSimdMax is the group width below which a SIMD group per group serves (head norms).
const rmsnormSimdMax = 1024

// PlanRMSNorm normalizes groups of g values (dst may be x).
func PlanRMSNorm(groups, g int, eps float32) Plan {
	p := NormParams{uint32(groups), uint32(g), eps}
	if g < rmsnormSimdMax {
		return Plan{Form: "rmsnorm_simd", Launches: []Launch{launch("rmsnorm_simd_f32", [3]int{ceilDiv(groups, 4), 1, 1},
			[3]int{128, 1, 1}, p, RoleDst, RoleX, RoleNormW)}}
	}
	return Plan{Form: "rmsnorm_row", Launches: []Launch{launch("rmsnorm_row_f32", [3]int{groups, 1, 1}, [3]int{256, 1, 1},
		p, RoleDst, RoleX, RoleNormW)}}
}

// PlanAddRMSNorm: sum = a + b, dst = RMSNorm(sum) per row of g.
func PlanAddRMSNorm(rows, g int, eps float32) Plan {
	return Plan{Form: "add_rmsnorm", Launches: []Launch{launch("add_rmsnorm_f32", [3]int{rows, 1, 1}, [3]int{256, 1, 1},
		NormParams{uint32(rows), uint32(g), eps}, RoleSum, RoleDst, RoleA, RoleB, RoleNormW)}}
}

// PlanRope rotates x [n, heads·hd] in place; the host writes RopeCosSin(t, pos) to RoleCosSin first.
func PlanRope(n, heads, hd int, t *rope.Table) (Plan, error) {
	if t == nil {
		return Plan{Form: "rope"}, nil // NoPE: nothing to launch
	}
	if t.Dims > hd || t.Dims%2 != 0 {
		return Plan{}, fmt.Errorf("metal: rope rotates %d dims of a %d-wide head", t.Dims, hd)
	}
	return Plan{Form: "rope", Launches: []Launch{launch("rope_f32", [3]int{n * heads, 1, 1}, [3]int{64, 1, 1},
		RopeParams{uint32(n), uint32(heads), uint32(hd), uint32(t.Dims), b2u(t.Traditional), t.PreScale}, RoleX, RoleCosSin)}}, nil
}

// PlanRMSNormRope is the fusion of RMSNorm over each head of x [n, heads·hd] (weight [hd]) then Rope (dst may be
// x): one launch, bit-identical to PlanRMSNorm then PlanRope. A nil table (NoPE) is plain RMSNorm.
func PlanRMSNormRope(n, heads, hd int, eps float32, t *rope.Table) (Plan, error) {
	if t == nil {
		return PlanRMSNorm(n*heads, hd, eps), nil
	}
	if hd > attnMaxHD || t.Dims > hd || t.Dims%2 != 0 {
		return Plan{}, fmt.Errorf("metal: norm+rope of %d-wide heads rotating %d dims (heads up to %d)", hd, t.Dims, attnMaxHD)
	}
	return Plan{Form: "rmsnorm_rope", Launches: []Launch{launch("rmsnorm_rope_f32", [3]int{ceilDiv(n*heads, 4), 1, 1}, [3]int{128, 1, 1},
		NormRopeParams{RopeParams{uint32(n), uint32(heads), uint32(hd), uint32(t.Dims), b2u(t.Traditional), t.PreScale}, eps},
		RoleDst, RoleX, RoleNormW, RoleCosSin)}}, nil
}

// RopeCosSin is the RoleCosSin buffer of PlanRope: per row, rope.Table.CosSin at pos[r], interleaved (cos, sin).
func RopeCosSin(t *rope.Table, pos []int32) []float32 {
	half := t.Dims / 2
	out := make([]float32, len(pos)*t.Dims)
	c, s := make([]float32, half), make([]float32, half)
	for r, p := range pos {
		t.CosSin(int(p), c, s)
		for i := range half {
			out[r*t.Dims+2*i], out[r*t.Dims+2*i+1] = c[i], s[i]
		}
	}
	return out
}

// PlanAdd: dst = a + b over n values. PlanSwiGLU: dst = silu(a)·b.
func PlanAdd(n int) Plan    { return eltPlan("add", "add_f32", n) }
func PlanSwiGLU(n int) Plan { return eltPlan("swiglu", "swiglu_f32", n) }

func eltPlan(form, fn string, n int) Plan {
	return Plan{Form: form, Launches: []Launch{launch(fn, [3]int{ceilDiv(n, 256), 1, 1}, [3]int{256, 1, 1},
		EltParams{uint32(n)}, RoleDst, RoleA, RoleB)}}
}

// PlanAddScaled: dst = a + f32(s·b) over n values (LoRA). PlanScale: dst = f32(x·s) (RoleX). PlanSoftcap: dst =
// tanh(x/c)·c. PlanGeGLU: dst = gelu_tanh(a)·b.
func PlanAddScaled(n int, s float32) Plan {
	return scalePlan("add_scaled", "add_scaled_f32", n, s, RoleDst, RoleA, RoleB)
}
func PlanScale(n int, s float32) Plan { return scalePlan("scale", "scale_f32", n, s, RoleDst, RoleX) }
func PlanSoftcap(n int, c float32) Plan {
	return scalePlan("softcap", "softcap_f32", n, c, RoleDst, RoleX)
}
func PlanGeGLU(n int) Plan { return eltPlan("geglu", "geglu_f32", n) }

func scalePlan(form, fn string, n int, s float32, roles ...Role) Plan {
	return Plan{Form: form, Launches: []Launch{launch(fn, [3]int{ceilDiv(n, 256), 1, 1}, [3]int{256, 1, 1},
		ScaleParams{uint32(n), s}, roles...)}}
}

// hadamardMaxBlock is the largest run the rotation holds in threadgroup memory (8192 f32 = 32 KiB, rht.MaxBlock).
const hadamardMaxBlock = 8192

// PlanHadamard rotates x [rows, cols] into dst in runs of block columns (rht.Apply), with input and output signs
// when hasPre / hasPost (RolePre, RolePost; bound to any buffer otherwise).
func PlanHadamard(rows, cols, block int, hasPre, hasPost bool) (Plan, error) {
	if block < 2 || block&(block-1) != 0 || block > hadamardMaxBlock || cols%block != 0 || rows < 0 {
		return Plan{}, fmt.Errorf("metal: Hadamard of %d columns in blocks of %d: the block must be a power of two from 2 to %d dividing the row", cols, block, hadamardMaxBlock)
	}
	threads := min(block/2, 512)
	p := HadamardParams{uint32(rows), uint32(cols), uint32(block), uint32(threads), b2u(hasPre), b2u(hasPost), rht.Scale(block)}
	return Plan{Form: "hadamard", Launches: []Launch{launch("hadamard_f32", [3]int{rows * (cols / block), 1, 1}, [3]int{threads, 1, 1},
		p, RoleDst, RoleX, RolePre, RolePost)}}, nil
}

// KVGeometry is the f32 cache [layers, seqs, maxLen, kvHeads·hd] the attention kernels read.
type KVGeometry struct{ Layers, Seqs, MaxLen, KVHeads, HeadDim int }

// PlanKVStore writes rows k, v [n, kvHeads·hd] into the cache slots (layer, seq[r], pos[r]).
func PlanKVStore(n int, kv KVGeometry, layer int) Plan {
	return Plan{Form: "kv_store", Launches: []Launch{launch("kv_store_f32", [3]int{n, 1, 1}, [3]int{128, 1, 1},
		KVStoreParams{uint32(n), uint32(kv.KVHeads * kv.HeadDim), uint32(kv.Seqs), uint32(kv.MaxLen), uint32(layer)},
		RoleKCache, RoleVCache, RoleK, RoleV, RoleSeq, RolePos)}}
}

// AttnCase is one attention call after the KV store: n query rows of heads·hd, causal over 0..pos[r].
type AttnCase struct {
	N, Heads int
	KV       KVGeometry
	Layer    int
	Scale    float32
}

// attnSplits is the decode split count: enough threadgroups to fill an M1 Max (32 cores) at one row.
const attnSplits = 16

// attnMaxHD is the widest head the attention kernels take (8 dims per lane).
const attnMaxHD = 256

// PlanAttention: decode (n ≤ 8) splits the positions over attnSplits threadgroups per (head, row) and combines;
// more rows take the rows form, one threadgroup per (head, row) over all its positions.
func PlanAttention(f Family, c AttnCase) (Plan, error) {
	if c.KV.HeadDim > attnMaxHD || c.KV.HeadDim < 1 || c.KV.KVHeads < 1 || c.Heads%c.KV.KVHeads != 0 {
		return Plan{}, fmt.Errorf("metal: attention with head dim %d, %d heads over %d kv heads", c.KV.HeadDim, c.Heads, c.KV.KVHeads)
	}
	p := AttnParams{N: uint32(c.N), Heads: uint32(c.Heads), KVHeads: uint32(c.KV.KVHeads), HD: uint32(c.KV.HeadDim),
		Seqs: uint32(c.KV.Seqs), MaxLen: uint32(c.KV.MaxLen), Layer: uint32(c.Layer), Splits: 1, Scale: c.Scale}
	if selectForm(f, "attention", c.N) == "attn_decode" {
		p.Splits = attnSplits
		scratch := c.N * c.Heads * attnSplits * (c.KV.HeadDim + 2) * 4
		return Plan{Form: "attn_decode", ScratchBytes: scratch, Launches: []Launch{
			launch("attn_split_f32", [3]int{attnSplits, c.Heads, c.N}, [3]int{128, 1, 1}, p,
				RoleScratch, RoleQ, RoleKCache, RoleVCache, RoleSeq, RolePos),
			launch("attn_combine_f32", [3]int{c.Heads, c.N, 1}, [3]int{32, 1, 1}, p, RoleDst, RoleScratch),
		}}, nil
	}
	return Plan{Form: "attn_rows", Launches: []Launch{launch("attn_rows_f32", [3]int{1, c.Heads, c.N}, [3]int{128, 1, 1}, p,
		RoleDst, RoleQ, RoleKCache, RoleVCache, RoleSeq, RolePos)}}, nil
}

// WinCase is one windowed attention call (backend.WindowedAttention) over one layer's own slots [seqs, slots,
// kvHeads·hd]: a ring layer (position t in slot t mod slots) or not (slot t), a window (0: none), a score softcap
// (0: none), and whether this call stores its rows (a ring layer's DeferStore leaves them to a later call).
type WinCase struct {
	N, Heads, KVHeads, HeadDim int
	Seqs, Slots                int
	Ring                       bool
	Window                     int
	Scale, Softcap             float32
	Store                      bool
}

// PlanWinAttention is the whole op: a layer without a ring stores the call's rows first (kv_store_f32, as
// Attention does); then the decode split + combine (n ≤ 8) or the rows form; a ring layer stores afterwards
// (kv_store_ring_f32: a row's store may evict a position an earlier row still reads), unless deferred.
func PlanWinAttention(f Family, c WinCase) (Plan, error) {
	if c.HeadDim > attnMaxHD || c.HeadDim < 1 || c.KVHeads < 1 || c.Heads%c.KVHeads != 0 || c.Window < 0 || !(c.Softcap >= 0) ||
		(c.Ring && (c.Window <= 0 || c.Window > c.Slots)) {
		return Plan{}, fmt.Errorf("metal: windowed attention with head dim %d (up to %d), %d heads over %d kv heads, window %d over %d slots (ring %v), softcap %v",
			c.HeadDim, attnMaxHD, c.Heads, c.KVHeads, c.Window, c.Slots, c.Ring, c.Softcap)
	}
	a := AttnParams{N: uint32(c.N), Heads: uint32(c.Heads), KVHeads: uint32(c.KVHeads), HD: uint32(c.HeadDim),
		Seqs: uint32(c.Seqs), MaxLen: uint32(c.Slots), Splits: 1, Scale: c.Scale}
	store := KVStoreParams{uint32(c.N), uint32(c.KVHeads * c.HeadDim), uint32(c.Seqs), uint32(c.Slots), 0}
	storeRoles := []Role{RoleKCache, RoleVCache, RoleK, RoleV, RoleSeq, RolePos}
	var plan Plan
	if !c.Ring {
		plan.Launches = append(plan.Launches, launch("kv_store_f32", [3]int{c.N, 1, 1}, [3]int{128, 1, 1}, store, storeRoles...))
	}
	roles := []Role{RoleQ, RoleKCache, RoleVCache, RoleK, RoleV, RoleSeq, RolePos}
	if selectForm(f, "attention_windowed", c.N) == "attn_win_decode" {
		a.Splits = attnSplits
		plan.Form, plan.ScratchBytes = "attn_win_decode", c.N*c.Heads*attnSplits*(c.HeadDim+2)*4
		plan.Launches = append(plan.Launches,
			launch("attn_win_split_f32", [3]int{attnSplits, c.Heads, c.N}, [3]int{128, 1, 1}, WinAttnParams{a, b2u(c.Ring), uint32(c.Window), c.Softcap},
				append([]Role{RoleScratch}, roles...)...),
			launch("attn_combine_f32", [3]int{c.Heads, c.N, 1}, [3]int{32, 1, 1}, a, RoleDst, RoleScratch))
	} else {
		plan.Form = "attn_win_rows"
		plan.Launches = append(plan.Launches, launch("attn_win_rows_f32", [3]int{1, c.Heads, c.N}, [3]int{128, 1, 1},
			WinAttnParams{a, b2u(c.Ring), uint32(c.Window), c.Softcap}, append([]Role{RoleDst}, roles...)...))
	}
	if c.Ring && c.Store {
		plan.Launches = append(plan.Launches, launch("kv_store_ring_f32", [3]int{c.N, 1, 1}, [3]int{128, 1, 1}, store, storeRoles...))
	}
	return plan, nil
}

// PlanArgmax: dst int32 [rows] greedy ids of logits [rows, vocab].
func PlanArgmax(rows, vocab int) Plan {
	return Plan{Form: "argmax", Launches: []Launch{launch("argmax_f32", [3]int{rows, 1, 1}, [3]int{1024, 1, 1},
		ArgmaxParams{uint32(rows), uint32(vocab)}, RoleDst, RoleX)}}
}

// PlanBitmask sets the logits [rows, vocab] the mask int32 [rows, words] rejects to −Inf, in place.
func PlanBitmask(rows, vocab, words int) Plan {
	return Plan{Form: "bitmask", Launches: []Launch{launch("bitmask_f32", [3]int{ceilDiv(vocab, 256), rows, 1}, [3]int{256, 1, 1},
		BitmaskParams{uint32(rows), uint32(vocab), uint32(words)}, RoleX, RoleMask)}}
}

// ---- selection ----

// selection is the M1 row (every family uses it today); first matching row wins. rows is the activation rows.
var selection = []struct {
	Choice
	ok func(rows int) bool
}{
	{Choice{"matmul_dense", "dense_gemv", "n ≤ 8"}, func(n int) bool { return n <= 8 }},
	{Choice{"matmul_dense", "dense_gemm", "any n (prompts)"}, func(int) bool { return true }},
	{Choice{"rmsnorm_rope", "rmsnorm_rope", "per-head norm then rope, hd ≤ 256 (a fusion)"}, func(int) bool { return true }},
	{Choice{"attention", "attn_decode", "n ≤ 8"}, func(n int) bool { return n <= 8 }},
	{Choice{"attention", "attn_rows", "any n (prompts)"}, func(int) bool { return true }},
	{Choice{"attention_windowed", "attn_win_decode", "n ≤ 8 (per-layer slots, window, softcap, ring)"}, func(n int) bool { return n <= 8 }},
	{Choice{"attention_windowed", "attn_win_rows", "any n (prompts)"}, func(int) bool { return true }},
	{Choice{"matmul_trellis_axis1", "trellis_reduce", "n ≤ 4, or n ≤ 8 in the reciprocal (exact) arithmetic"}, func(n int) bool { return n <= 4 }},
	{Choice{"matmul_trellis_axis1", "trellis_mma", "5 ≤ n ≤ 8, factored, cols % 256 == 0"}, func(n int) bool { return n <= 8 }},
	{Choice{"matmul_trellis_axis1", "trellis_prefill", "n > 8"}, func(int) bool { return true }},
	{Choice{"matmul_trellis_axis0", "trellis_scatter", "n ≤ 4, or n ≤ 8 in the reciprocal arithmetic; row-major codes"}, func(n int) bool { return n <= 4 }},
	{Choice{"matmul_trellis_axis0", "trellis_scatter_il", "the same, the 3-bit block interleave"}, func(n int) bool { return n <= 4 }},
	{Choice{"matmul_trellis_axis0", "trellis_mma0", "5 ≤ n ≤ 8, factored; row-major codes"}, func(n int) bool { return n <= 8 }},
	{Choice{"matmul_trellis_axis0", "trellis_mma0_il", "the same, the 3-bit block interleave"}, func(n int) bool { return n <= 8 }},
	{Choice{"matmul_trellis_axis0", "trellis_prefill", "n > 8 (either layout)"}, func(int) bool { return true }},
	{Choice{"gate_up_swiglu", "trellis_gateup_cb", "n = 1, L ≤ 12 (the seeds' M1 Max one-row choice: a threadgroup codebook)"}, func(n int) bool { return n == 1 }},
	{Choice{"gate_up_swiglu", "trellis_gateup", "n ≤ 4, gate and up at the same width"}, func(n int) bool { return n <= 4 }},
	{Choice{"gate_up_swiglu", "trellis_gateup_mixed", "n ≤ 4, different widths"}, func(n int) bool { return n <= 4 }},
	{Choice{"gate_up_swiglu", "trellis_gateup_mma", "5 ≤ n ≤ 8, cols % 256 == 0 (same or mixed widths)"}, func(n int) bool { return n <= 8 }},
	{Choice{"matmul_affine", "affine_gemv", "n ≤ 8, bits 2, 3, 4, 5, 6, 8, groups 32/64/128"}, func(n int) bool { return n <= 8 }},
	{Choice{"matmul_affine", "affine_gemm", "n > 8 (prompts): weights decoded in f32 per tile, no expansion"}, func(int) bool { return true }},
	{Choice{"expand", "trellis_expand", "a prompt GEMM's f16/bf16 weights"}, func(int) bool { return true }},
	{Choice{"matmul_exl3", "exl3_gemv", "any n: the sides, the GEMV (prompts in chunks of 8 rows), the sides"}, func(int) bool { return true }},
}

// Table is the selection of family f and its status line.
func Table(f Family) (status string, rows []Choice) {
	for _, s := range selection {
		rows = append(rows, s.Choice)
	}
	return familyInfo[f].status, rows
}

// selectForm is the first form for op whose row count fits (the shape conditions are the Plan functions').
func selectForm(_ Family, op string, n int) string {
	for _, s := range selection {
		if s.Op == op && s.ok(n) {
			return s.Form
		}
	}
	return ""
}

// Forms lists every kernel form with its functions and promise; the emulator test runs each function.
func Forms() []Form {
	var out []Form
	out = append(out,
		Form{"embed", "embed", []string{"embed_f32"}, "exact"},
		Form{"rmsnorm_simd", "rmsnorm", []string{"rmsnorm_simd_f32"}, "1e-5"},
		Form{"rmsnorm_row", "rmsnorm", []string{"rmsnorm_row_f32"}, "1e-5"},
		Form{"add_rmsnorm", "add_rmsnorm", []string{"add_rmsnorm_f32"}, "sum exact, norm 1e-5"},
		Form{"rope", "rope", []string{"rope_f32"}, "exact"},
		Form{"rmsnorm_rope", "rmsnorm_rope", []string{"rmsnorm_rope_f32"}, "bit-identical to rmsnorm_simd then rope"},
		Form{"add", "add", []string{"add_f32"}, "exact"},
		Form{"swiglu", "swiglu", []string{"swiglu_f32"}, "1e-6"},
		Form{"kv_store", "kv_store", []string{"kv_store_f32"}, "exact"},
		Form{"dense_gemv", "matmul_dense", []string{"gemv_bf16_m1", "gemv_bf16_m2", "gemv_bf16_m4", "gemv_bf16_m8"}, "1e-5"},
		Form{"dense_gemm", "matmul_dense", []string{"gemm_bf16"}, "1e-5"},
		Form{"attn_decode", "attention", []string{"attn_split_f32", "attn_combine_f32"}, "1e-5"},
		Form{"attn_rows", "attention", []string{"attn_rows_f32"}, "1e-5"},
		Form{"argmax", "argmax", []string{"argmax_f32"}, "ids equal"},
		Form{"bitmask", "bitmask", []string{"bitmask_f32"}, "exact"},
		Form{"add_scaled", "add_scaled", []string{"add_scaled_f32"}, "exact"},
		Form{"scale", "scale", []string{"scale_f32"}, "exact"},
		Form{"softcap", "softcap", []string{"softcap_f32"}, "1e-6 (tanh in f32; the CPU's in f64)"},
		Form{"geglu", "geglu", []string{"geglu_f32"}, "1e-6 (gelu in f32; the CPU's in f64)"},
		Form{"hadamard", "hadamard", []string{"hadamard_f32"}, "bit-exact to rht.Apply"},
		Form{"attn_win_decode", "attention_windowed", []string{"attn_win_split_f32", "attn_combine_f32", "kv_store_f32", "kv_store_ring_f32"}, "1e-5"},
		Form{"attn_win_rows", "attention_windowed", []string{"attn_win_rows_f32", "kv_store_f32", "kv_store_ring_f32"}, "1e-5"},
	)
	var reduce, mma, mma0, scatter, il, gu, gum, gucb, gumma, prefill, expand, aff, affGemm []string
	for _, k := range trellisKs {
		for _, m := range reduceRows {
			reduce = append(reduce, reduceName(k, m))
		}
		mma = append(mma, mmaName(k))
		mma0 = append(mma0, mma0Name(k, false))
		for _, m := range scatterRows {
			scatter = append(scatter, scatterName(k, m, false))
		}
		prefill = append(prefill, prefillName(k))
		expand = append(expand, expandName(k, true), expandName(k, false))
		for _, ku := range trellisKs {
			for _, m := range gateUpRows {
				if k == ku {
					gu = append(gu, gateUpName(k, ku, m))
				} else {
					gum = append(gum, gateUpName(k, ku, m))
				}
			}
			gumma = append(gumma, gateUpMMAName(k, ku))
			gucb = append(gucb, gateUpCBName(k, ku))
		}
	}
	for _, m := range scatterRows {
		il = append(il, scatterName(3, m, true))
	}
	for _, b := range affineBits {
		affGemm = append(affGemm, affineGemmName(b))
		for _, m := range affineRows {
			aff = append(aff, affineName(b, m))
		}
	}
	out = append(out,
		Form{"trellis_reduce", "matmul_trellis_axis1", reduce, "1e-5 (reciprocal or factored)"},
		Form{"trellis_mma", "matmul_trellis_axis1", mma, "1e-5 (factored)"},
		Form{"trellis_scatter", "matmul_trellis_axis0", append(scatter, "trellis_splitk_reduce"), "1e-5 (reciprocal or factored)"},
		Form{"trellis_scatter_il", "matmul_trellis_axis0", append(il, "trellis_splitk_reduce"), "1e-5 (reciprocal or factored)"},
		Form{"trellis_mma0", "matmul_trellis_axis0", append(mma0, "trellis_splitk_reduce"), "1e-5 (factored)"},
		Form{"trellis_mma0_il", "matmul_trellis_axis0", []string{mma0Name(3, true), "trellis_splitk_reduce"}, "1e-5 (factored)"},
		Form{"trellis_gateup", "gate_up_swiglu", gu, "1e-5 (factored)"},
		Form{"trellis_gateup_mixed", "gate_up_swiglu", gum, "1e-5 (factored)"},
		Form{"trellis_gateup_mma", "gate_up_swiglu", gumma, "1e-5 (factored)"},
		Form{"trellis_gateup_cb", "gate_up_swiglu", gucb, "bit-identical to trellis_gateup's one-row form"},
		Form{"trellis_prefill", "matmul_trellis", prefill, "1e-5 (reciprocal)"},
		Form{"trellis_expand", "expand", expand, "exact (bf16: trellis.BF16; f16: RoundF16 of trellis.Exact)"},
		Form{"affine_gemv", "matmul_affine", aff, "1e-5"},
		Form{"affine_gemm", "matmul_affine", affGemm, "1e-5"},
		Form{"exl3_gemv", "matmul_exl3", exl3Functions(), "1e-5 (the sides bit-exact to rht.Apply, the weights to exl3.Weights.Inner)"},
	)
	return out
}

// ---- trellis and affine ----

var (
	trellisKs   = []int{2, 3, 4}
	reduceRows  = []int{1, 2, 4, 8}
	scatterRows = []int{1, 2, 4, 8}
	gateUpRows  = []int{1, 2, 4}
	affineBits  = []int{2, 3, 4, 5, 6, 8} // every width MLX (and CUDA) serves
	affineGroup = []int{32, 64, 128}
	affineRows  = []int{1, 2, 4, 8}
)

func reduceName(k, m int) string { return fmt.Sprintf("trellis_reduce_k%d_m%d", k, m) }
func mmaName(k int) string       { return fmt.Sprintf("trellis_mma_k%d", k) }
func mma0Name(k int, il bool) string {
	if il {
		return fmt.Sprintf("trellis_mma0_il_k%d", k)
	}
	return fmt.Sprintf("trellis_mma0_k%d", k)
}
func scatterName(k, m int, il bool) string {
	if il {
		return fmt.Sprintf("trellis_scatter_il_k%d_m%d", k, m)
	}
	return fmt.Sprintf("trellis_scatter_k%d_m%d", k, m)
}
func gateUpName(kg, ku, m int) string {
	if kg != ku {
		return fmt.Sprintf("trellis_gateup_mixed_k%d%d_m%d", kg, ku, m)
	}
	return fmt.Sprintf("trellis_gateup_k%d%d_m%d", kg, ku, m)
}
func gateUpMMAName(kg, ku int) string { return fmt.Sprintf("trellis_gateup_mma_k%d%d", kg, ku) }
func gateUpCBName(kg, ku int) string  { return fmt.Sprintf("trellis_gateup_cb_k%d%d", kg, ku) }

// codebookMaxL is the largest L whose codebook (2^L f32) fits the 16 KiB the codebook form reserves.
const codebookMaxL = 12

func prefillName(k int) string { return fmt.Sprintf("trellis_prefill_k%d", k) }
func expandName(k int, f16 bool) string {
	if f16 {
		return fmt.Sprintf("trellis_expand_k%d_f16", k)
	}
	return fmt.Sprintf("trellis_expand_k%d_bf16", k)
}
func affineName(b, m int) string  { return fmt.Sprintf("affine_gemv_b%d_m%d", b, m) }
func affineGemmName(b int) string { return fmt.Sprintf("affine_gemm_b%d", b) }

// roundRows is the smallest instantiated row count ≥ n.
func roundRows(set []int, n int) int {
	for _, m := range set {
		if m >= n {
			return m
		}
	}
	return 0
}

func trellisSupported(g trellis.Geometry) error {
	if g.Code != "1mad" || !slices.Contains(trellisKs, g.K) || g.T%32 != 0 || g.L > 16 || g.L < g.K {
		return fmt.Errorf("metal: trellis k=%d T=%d L=%d code %q: kernels exist for k 2, 3, 4, T a multiple of 32, L ≤ 16", g.K, g.T, g.L, g.Code)
	}
	return nil
}

// scatterThreads is the axis-0 threadgroup (8 SIMD groups meeting in a fixed tree); scatterRowsPerSplit the coded
// rows a split takes before its partial is written (about 4 threadgroups per core on an M1 Max at 17408 rows).
const (
	scatterThreads      = 256
	scatterRowsPerSplit = 1024
)

// PlanTrellis is y [n, out] = x [n, in]·Wᵀ (+ bias) over trellis codes under variant v (Reciprocal or Factored).
func PlanTrellis(f Family, g trellis.Geometry, n int, v trellis.Variant, hasBias bool) (Plan, error) {
	if err := trellisSupported(g); err != nil {
		return Plan{}, err
	}
	if v != trellis.Reciprocal && v != trellis.Factored {
		return Plan{}, fmt.Errorf("metal: trellis kernels compute the reciprocal or factored arithmetic, not %s", v)
	}
	p := TrellisParams{Rows: uint32(g.Rows), Cols: uint32(g.Cols), N: uint32(n), T: uint32(g.T), L: uint32(g.L),
		Interleaved: b2u(g.Interleaved), Factored: b2u(v == trellis.Factored), HasBias: b2u(hasBias), Splits: 1}
	layer := []Role{RoleDst, RoleX, RoleWords, RoleScales, RoleBias}
	op := "matmul_trellis_axis1"
	if g.Axis == 0 {
		op = "matmul_trellis_axis0"
	}
	form := selectForm(f, op, n)
	if form == "trellis_mma" && (v != trellis.Factored || g.Cols%256 != 0) {
		form = "trellis_reduce" // the MMA form is factored only and walks 256 positions a step
	}
	if form == "trellis_mma0" && v != trellis.Factored {
		form = "trellis_scatter" // the MMA form is factored only
	}
	if g.Interleaved && (form == "trellis_scatter" || form == "trellis_mma0") {
		form += "_il"
	}
	switch form {
	case "trellis_reduce":
		m := roundRows(reduceRows, n)
		return Plan{Form: form, Launches: []Launch{launch(reduceName(g.K, m), [3]int{ceilDiv(g.Rows, 4), 1, 1}, [3]int{128, 1, 1}, p, layer...)}}, nil
	case "trellis_mma":
		return Plan{Form: form, Launches: []Launch{launch(mmaName(g.K), [3]int{ceilDiv(g.Rows, 32), 1, 1}, [3]int{128, 1, 1}, p, layer...)}}, nil
	case "trellis_scatter", "trellis_scatter_il", "trellis_mma0", "trellis_mma0_il":
		splits := ceilDiv(g.Rows, scatterRowsPerSplit)
		p.Splits, p.RowsPerSplit = uint32(splits), uint32(ceilDiv(g.Rows, splits))
		roles := []Role{RoleDst, RoleX, RoleWords, RoleScales, RoleBias, RoleScratch}
		var main Launch
		if form == "trellis_mma0" || form == "trellis_mma0_il" {
			// Four SIMD groups, each the 32 outputs of one run.
			main = launch(mma0Name(g.K, g.Interleaved), [3]int{ceilDiv(g.Cols, 128), splits, 1}, [3]int{128, 1, 1}, p, roles...)
		} else {
			m := roundRows(scatterRows, n)
			span := 32 * (32 / m) // 32 lanes of 32/m positions
			main = launch(scatterName(g.K, m, g.Interleaved), [3]int{ceilDiv(g.Cols, span), splits, 1}, [3]int{scatterThreads, 1, 1}, p, roles...)
		}
		plan := Plan{Form: form, Launches: []Launch{main}}
		if splits > 1 {
			plan.ScratchBytes = splits * n * g.Cols * 4
			plan.Launches = append(plan.Launches, launch("trellis_splitk_reduce", [3]int{ceilDiv(n*g.Cols, 256), 1, 1}, [3]int{256, 1, 1},
				SplitReduceParams{uint32(n), uint32(g.Cols), uint32(splits), b2u(hasBias)}, RoleDst, RoleScratch, RoleBias))
		}
		return plan, nil
	case "trellis_prefill":
		p.Factored = 0 // the tiled form decodes per weight (reciprocal)
		out, in := g.OutFeatures(), g.InFeatures()
		return Plan{Form: form, Launches: []Launch{launch(prefillName(g.K), [3]int{ceilDiv(out, 32), ceilDiv(n, 32), 1}, [3]int{256, 1, 1},
			prefillParams{p, uint32(g.Axis), uint32(in), uint32(out)}, layer...)}}, nil
	}
	return Plan{}, fmt.Errorf("metal: no trellis form for axis %d, %d rows", g.Axis, n)
}

// prefillParams is TrellisParams followed by the axis and the layer's in/out widths (PrefillParams in MSL).
type prefillParams struct {
	TrellisParams
	Axis, In, Out uint32
}

func init() { ParamTypes["PrefillParams"] = prefillParams{} }

// PlanGateUp is mid [n, rows] = silu(x·gateᵀ)·(x·upᵀ) for axis-1 gate and up of one geometry (widths may differ),
// in the factored arithmetic; the launch also writes the two projections to RoleGate and RoleUp (the backend's
// peephole replaces three ops whose outputs must all exist). RoleDst may be the gate or up tensor.
func PlanGateUp(f Family, gate, up trellis.Geometry, n int) (Plan, error) {
	for _, g := range []trellis.Geometry{gate, up} {
		if err := trellisSupported(g); err != nil {
			return Plan{}, err
		}
	}
	if gate.Axis != 1 || up.Axis != 1 || gate.Rows != up.Rows || gate.Cols != up.Cols || gate.T != up.T || gate.L != up.L {
		return Plan{}, fmt.Errorf("metal: fused gate/up needs axis-1 gate and up of one geometry (gate %+v, up %+v)", gate, up)
	}
	p := GateUpParams{uint32(gate.Rows), uint32(gate.Cols), uint32(n), uint32(gate.T), uint32(gate.L)}
	roles := []Role{RoleDst, RoleX, RoleGateW, RoleGateS, RoleUpW, RoleUpS, RoleGate, RoleUp}
	form := selectForm(f, "gate_up_swiglu", n)
	if form == "trellis_gateup_cb" && gate.L > codebookMaxL {
		form = "trellis_gateup"
	}
	if form == "trellis_gateup" && gate.K != up.K {
		form = "trellis_gateup_mixed"
	}
	switch {
	case form == "trellis_gateup_cb":
		return Plan{Form: form, Launches: []Launch{launch(gateUpCBName(gate.K, up.K), [3]int{ceilDiv(gate.Rows, 8), 1, 1}, [3]int{256, 1, 1}, p, roles...)}}, nil
	case form == "trellis_gateup" || form == "trellis_gateup_mixed":
		m := roundRows(gateUpRows, n)
		return Plan{Form: form, Launches: []Launch{launch(gateUpName(gate.K, up.K, m), [3]int{ceilDiv(gate.Rows, 4), 1, 1}, [3]int{128, 1, 1}, p, roles...)}}, nil
	case form == "trellis_gateup_mma" && gate.Cols%256 == 0:
		return Plan{Form: form, Launches: []Launch{launch(gateUpMMAName(gate.K, up.K), [3]int{ceilDiv(gate.Rows, 32), 1, 1}, [3]int{128, 1, 1}, p, roles...)}}, nil
	}
	return Plan{}, fmt.Errorf("metal: no fused gate/up form for %d rows (run two MatMuls and SwiGLU)", n)
}

// PlanExpand writes the layer's weights as 16-bit values [out, in] (f16 or bf16 bits) for a prompt GEMM.
func PlanExpand(g trellis.Geometry, f16 bool) (Plan, error) {
	if err := trellisSupported(g); err != nil {
		return Plan{}, err
	}
	p := ExpandParams{uint32(g.Rows), uint32(g.Cols), uint32(g.T), uint32(g.L), b2u(g.Interleaved), uint32(g.Axis)}
	return Plan{Form: "trellis_expand", Launches: []Launch{launch(expandName(g.K, f16), [3]int{ceilDiv(g.Cols, 256), g.Rows, 1}, [3]int{256, 1, 1},
		p, RoleExpanded, RoleWords, RoleScales)}}, nil
}

// PlanAffine is y = x·Wᵀ (+ bias) over MLX affine weights (bits 2, 3, 4, 5, 6, 8; groups 32/64/128): the GEMV
// for 1..8 rows, the tiled GEMM for prompts.
func PlanAffine(f Family, bits, group, out, in, n int, hasBias bool) (Plan, error) {
	if !slices.Contains(affineBits, bits) || !slices.Contains(affineGroup, group) || in%group != 0 || n < 1 || out < 1 {
		return Plan{}, fmt.Errorf("metal: affine layer of %d bits, group %d, %d→%d, %d rows: kernels exist for bits 2, 3, 4, 5, 6, 8, groups 32/64/128 dividing in", bits, group, in, out, n)
	}
	p := AffineParams{uint32(out), uint32(in), uint32(n), uint32(group), b2u(hasBias)}
	roles := []Role{RoleDst, RoleX, RoleWords, RoleScales, RoleBiases, RoleBias}
	if selectForm(f, "matmul_affine", n) == "affine_gemv" {
		return Plan{Form: "affine_gemv", Launches: []Launch{launch(affineName(bits, roundRows(affineRows, n)), [3]int{ceilDiv(out, 4), 1, 1}, [3]int{128, 1, 1},
			p, roles...)}}, nil
	}
	return Plan{Form: "affine_gemm", Launches: []Launch{launch(affineGemmName(bits), [3]int{ceilDiv(out, 32), ceilDiv(n, 32), 1}, [3]int{256, 1, 1},
		p, roles...)}}, nil
}

// denseRows are the decode GEMV's instantiated row counts.
var denseRows = []int{1, 2, 4, 8}

// PlanDense is y [n, out] = x [n, in]·Wᵀ (+ bias) over bf16 weights [out, in] (RoleDenseW), any in.
func PlanDense(f Family, out, in, n int, hasBias bool) Plan {
	p := DenseParams{uint32(out), uint32(in), uint32(n), b2u(hasBias)}
	roles := []Role{RoleDst, RoleX, RoleDenseW, RoleBias}
	if selectForm(f, "matmul_dense", n) == "dense_gemv" {
		return Plan{Form: "dense_gemv", Launches: []Launch{launch(fmt.Sprintf("gemv_bf16_m%d", roundRows(denseRows, n)),
			[3]int{ceilDiv(out, 4), 1, 1}, [3]int{128, 1, 1}, p, roles...)}}
	}
	return Plan{Form: "dense_gemm", Launches: []Launch{launch("gemm_bf16", [3]int{ceilDiv(out, 32), ceilDiv(n, 32), 1}, [3]int{256, 1, 1}, p, roles...)}}
}

// ---- EXL3 (docs/exl3-format.md; exl3.metal) ----

// exl3Rows are the GEMV's instantiated row counts.
var exl3Rows = []int{1, 2, 4, 8}

const exl3HadName = "exl3_had_f32"

func exl3GemvName(k int, cb exl3.Codebook, m int) string {
	return fmt.Sprintf("exl3_gemv_k%d_%s_m%d", k, cb, m)
}

// exl3Functions lists the EXL3 form's kernel functions: the sides and the GEMV at every K, codebook and row count.
func exl3Functions() []string {
	fns := []string{exl3HadName}
	for k := exl3.MinK; k <= exl3.MaxK; k++ {
		for _, cb := range []exl3.Codebook{exl3.ThreeInst, exl3.MCG, exl3.Mul1} {
			for _, m := range exl3Rows {
				fns = append(fns, exl3GemvName(k, cb, m))
			}
		}
	}
	return fns
}

// PlanEXL3 is y [n, out] = x [n, in]·Wᵀ (+ bias) over an EXL3 layer of geometry g and codebook cb: the input
// side into the scratch (x' [n, PadIn]), the GEMV per chunk of at most 8 rows (y' [n, PadOut] after x' in the
// scratch), the output side into dst. Roles: RoleWords the tiles as stored, RolePre su, RolePost sv (f32).
func PlanEXL3(f Family, g exl3.Geometry, cb exl3.Codebook, in, out, n int, hasBias bool) (Plan, error) {
	if g.K < exl3.MinK || g.K > exl3.MaxK || int(cb) > int(exl3.Mul1) || exl3.Padded(in) != g.PadIn() || exl3.Padded(out) != g.PadOut() || n < 1 {
		return Plan{}, fmt.Errorf("metal: EXL3 layer %+v (%v) for %d→%d, %d rows", g, cb, in, out, n)
	}
	if selectForm(f, "matmul_exl3", n) != "exl3_gemv" {
		return Plan{}, fmt.Errorf("metal: no EXL3 form for %d rows", n)
	}
	pk, pn := g.PadIn(), g.PadOut()
	scale := rht.Scale(exl3.Block)
	had := func(rows, xcols, cols, dcols, xoff int, pre, post bool) EXL3HadParams {
		return EXL3HadParams{uint32(rows), uint32(xcols), uint32(cols), uint32(dcols), uint32(xoff), 0, b2u(pre), b2u(post), b2u(post && hasBias), scale}
	}
	groups := func(cols int) [3]int { return [3]int{ceilDiv(n*cols/exl3.Block, 4), 1, 1} }
	p := Plan{Form: "exl3_gemv", ScratchBytes: 4 * n * (pk + pn)}
	p.Launches = append(p.Launches, launch(exl3HadName, groups(pk), [3]int{128, 1, 1}, had(n, in, pk, pk, 0, true, false),
		RoleScratch, RoleX, RolePre, RolePost, RoleBias))
	for r0 := 0; r0 < n; r0 += 8 {
		rows := min(8, n-r0)
		p.Launches = append(p.Launches, launch(exl3GemvName(g.K, cb, roundRows(exl3Rows, rows)), [3]int{g.TilesN, 1, 1}, [3]int{256, 1, 1},
			EXL3GemvParams{uint32(g.TilesK), uint32(g.TilesN), uint32(rows), uint32(r0 * pk), uint32(n*pk + r0*pn)}, RoleScratch, RoleWords))
	}
	p.Launches = append(p.Launches, launch(exl3HadName, groups(pn), [3]int{128, 1, 1}, had(n, pn, pn, out, n*pk, false, true),
		RoleDst, RoleScratch, RolePre, RolePost, RoleBias))
	return p, nil
}
