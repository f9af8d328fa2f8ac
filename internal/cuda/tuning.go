// The CUDA backend's tuning table: the launch choices that measurements decide (which form serves a shape, grid
// and split sizes, launch mechanics, the lab forms compiled for experiments), each default with the measurement
// behind it, and one override for experiments — MLXBUN_CUDA_TUNE="key=value,key=value" — parsed once when the
// backend opens and logged with its debug lines. An unknown key or a bad value fails the open, naming it. Nothing
// else in the environment changes which kernel serves an op.

package cuda

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// envTune is the one override of the tuning table.
const envTune = "MLXBUN_CUDA_TUNE"

// tuning is one device's table. Fields are read after Open only.
type tuning struct {
	// exact loads quantized layers in the reference-arithmetic mode: trellis.Reciprocal per weight (the CPU's),
	// f32 activations, f32 weights for prompts too (SetQuantExact does it per layer load). Off: the fast forms.
	exact bool
	// act8 is whether trellis layers of coded axis 0 (down) and 1 (q/k/v/o, gate/up) decode with int8 activations.
	// Both, measured on the H200 (2026-11-30, docs/perf.md): 3-bit 14B tg128 153.4 ± 2.6 tok/s against 136.5 ± 2.1
	// with the f32 forms; verify MatMul/trellis/i8 worst 7.7e-3 of max|ref| (bound 1e-2); TestQuantizedKL mean
	// per-token KL to the CPU 1.4–1.6e-4 (tiny-qwen3 2/3/4-bit), 3.0e-5 (pycoder-12m 3-bit), bound 1e-3.
	act8 [2]bool
	// mmaRows and mma0Rows are the fewest decode rows the tensor-core forms serve (0 never): trellis_mma (axis 1)
	// and trellis_mma0 (axis 0), both from 2 (qmmaDefaultRows, qmma0DefaultRows: the measurements are there).
	mmaRows, mma0Rows int
	// pdl launches every kernel with programmatic dependent launch on sm_90+ (pdl_begin, shaders/cuda/common.cuh).
	// Measured (H200, 2026-12-01, 3-bit 14B tg128): alone +3.4 % (154.4 → 159.7), with the grouped form none
	// (174.2 off, 173.2 on; spread ±3). Kept on: it costs nothing and its overlap grows as launches shrink.
	pdl bool
	// gemvGroup serves one-row int8-activation axis-1 trellis layers that share their input (q/k/v; gate/up with
	// SwiGLU folded) with one trellis_gemvg launch whose warps take two-row units from a counter. Measured (H200,
	// 2026-12-01, 3-bit 14B tg128): 159.7 → 173.2 tok/s (+8.5 %; +12.8 % without PDL).
	gemvGroup bool
	// gemvMMA (lab) runs those launches' products on the tensor cores (trellis_gemvm: the unit's two rows × eight
	// input segments as the MMA's 16 rows, activations int8 per group of 128) instead of dp4a (trellis_gemvg),
	// where in % 128 == 0 and trellis_gemvg serves (one row below mma_rows; SetQuantMMA's pins leave it off).
	// Measured slower (H200, 2026-12-02, Qwen3-14B 3-bit tg128): 165.8–171.4 tok/s against
	// 194.6 (docs/perf.md, eighth session): it executes 4 % fewer instructions, not the 30 % counted.
	gemvMMA bool
	// moeDense forces the Experts op's dense form at every row count (the routed form's comparison).
	moeDense bool
	// splitGemmMax bounds n·in·out of the small prompt GEMMs cublaslt_split serves (linear.go): 2^28 takes every
	// GEMM of the fixture models (pycoder-12m's largest at a 256-token prompt is 2.0e8) and none of a Qwen3-0.6B
	// pp512 (5.4e8 and up), whose speed the second GEMM would cost.
	splitGemmMax int
	// mmaWideRows is the most rows trellis_mma serves: qmmaWideRows (16) takes prompt chunks of 9..16 rows (one
	// decode of each weight for two n-fragments) from the bf16 expansion; 8 keeps them there. chunkRowsMax: int8-
	// activation prompt chunks of at most this many rows that no tensor-core form takes (the down projection)
	// run the decode forms in passes of 8 (gemv_chunks) rather than the expansion; 0 never.
	// Measured (H200, 2026-12-02, bench --streams 8 -p 2048: the 16-row chunk at position 2032 of Qwen3-14B 3-bit):
	// 31.2 ms with both (trellis_mma_k33_n16 14.8 ms, two passes of trellis_mma0 5.4 ms) against 51.0 ms with
	// mma_wide_rows=8,chunk_rows_max=0 (the expansion 16.6 ms and its GEMMs 19.8 ms); predicted ~25 ms.
	mmaWideRows, chunkRowsMax int
	// attnRowsMax bounds the work (Σ (pos[r]+1)) of the prompt chunks the rows form of attention serves instead of
	// the tensor-core form (attention.go): 2^16, a prompt of up to ~360 tokens from position 0.
	attnRowsMax int
	// attnChunkRows is the most rows of a prompt chunk the chunk form of attention takes, attnChunkMin the work
	// (Σ (pos[r]+1)) above which it does (attention.go). Measured (H200, 2026-12-02): the 16-row chunk at position
	// 2032 of Qwen3-14B spent 4.85 ms of 40 layers in the split form (each row reading its 2,048 positions of f32
	// keys and values, 2.2 TB/s) and 10.3 ms in the prompt form (40 blocks walking 2,048 positions each).
	attnChunkRows, attnChunkMin int
	// normRopeQK serves backend.OpNormRopeQK (a layer's q and k head norms with their ropes) with one
	// rmsnorm_rope_qk launch instead of two rmsnorm_rope launches; attnStore folds kv_store into the decode split
	// attention (attn_split_store, f32 activations, n ≤ 8). Each saves one launch a layer (~2.9 µs in a recorded
	// graph: docs/perf.md "What one launch costs"). Measured (H200, 2026-12-02, quant.sh fuse17: Qwen3-14B 3-bit
	// tg128): 183.6 tok/s with neither, 190.1 with norm_rope_qk, 188.1 with attn_store, 192.9 with both; on.
	normRopeQK, attnStore bool
	// normRopeAttn serves backend.OpNormRopeAttention under attnStore with attn_split_norm: the split blocks norm
	// and rope their query heads and this step's keys themselves, so rmsnorm_rope_qk's launch goes (one a layer).
	// Prediction (2026-12-04): rmsnorm_rope_qk's 7.1 µs a layer in the profile, ~4 % of a Qwen3-14B 3-bit step.
	// Off until quant.sh stage16a has run it on the device (verify Fused, TestNormRopeAttentionBitIdentical, the
	// tg128 A/B): it was written in a session without one.
	normRopeAttn bool
	// foldResidual serves backend.OpMatMulAdd (the residual add in the epilogue of o and down: trellis_gemvg's res,
	// the split-K reduce's) and the input norms folded into the one-row trellis_gemvg launches that read them
	// (OpNormMatMulGroup, OpNormGateUpSwiGLU): two add_rmsnorm launches a layer fewer. Measured (H200, 2026-12-03,
	// quant.sh foldprof/fold9, Qwen3-14B 3-bit): 406 → 325 launches a token; add_rmsnorm's 0.52 ms a token gone,
	// trellis_gemvg 0.26 ms slower (every block reads the norm's weight beside x: 2.1 µs a launch); tg128 192.2 and
	// 190.3 on against 190.1 off — within the spread. On: the launches are gone, and the prologue's cost goes with
	// activations quantized once by their producer (docs/perf.md, ninth session).
	foldResidual bool
	// deltaChunkRows is the fewest rows of a one-sequence run the chunked gated delta rule (gated_delta_chunk,
	// deltanet.go) serves; shorter runs, decode steps and batches of several sequences keep the recurrent form; 0
	// never. 64 is the CPU's own switch (cpu.defaultDeltaChunk), so verify compares like with like on both sides
	// of it. Measured (H200, 2026-12-03, quant.sh hybridprompt, Qwen3.5-27B 3-bit pp512): 4,207 tok/s chunked
	// against 3,954 with 0 (verify DeltaNet 114/114 with it).
	deltaChunkRows int
	// gemvgWarps is the warps a trellis_gemvg block (8: four blocks an SM; 32: one, staging the activations once
	// an SM instead of four times). Measured (H200, 2026-12-03, quant.sh stage10, Qwen3-14B 3-bit tg128, with
	// qstage1_i8's staging): 200.7 / 201.9 tok/s at 8 against 210.1 / 210.0 at 32 (verify Fused/trellis and
	// MatMul/trellis/i8 pass at both); 32.
	gemvgWarps int
	// gemv0Blocks is the grid trellis_gemv0's split-K aims for, in blocks per multiprocessor (gemv0Split): four
	// 256-thread blocks keep 32 warps per multiprocessor at the one-row form's 64 registers. Measured (H200,
	// 2026-12-03, quant.sh stage11b, Qwen3-14B 3-bit tg128): 218.3 / 217.9 tok/s at 4 against 190.4 at 2, 208.5
	// at 3 and 210.4 at 6; Nsight Compute at 4: 24.5 µs a launch, 0.68 issued warps a scheduler-cycle, 7.1 active
	// warps a scheduler, long-scoreboard stalls 4.5 of 10.4 cycles an instruction.
	gemv0Blocks int
	// gemvgRound runs trellis_gemvg launches of few units (o, q/k/v) at the gemvgRounds shapes: every unit in one
	// round of the grid's warps with more of a lane's runs in flight (qmma.go). Measured (H200, 2026-12-03,
	// quant.sh stage11c/stage11d, Qwen3-14B tg128 -r 3, the same call): 3-bit 216.0 / 216.4 → 218.2 / 220.4
	// tok/s, 2-bit 221.2 → 224.2, 4-bit 203.1 → 204.0 (stage11c: 216.3 / 216.9 → 219.4 / 219.7); Nsight
	// Compute: o 14.4 → 12.4 µs, q/k/v 17.1 → 16.5; verify Fused/trellis and MatMul/trellis/i8 pass with it; on.
	gemvgRound bool
	// deltaNormCluster serves backend.OpDeltaRuleNormGated on sm_90+ with gated_delta_norm_cl (a value head in a
	// cluster of four 128-thread blocks, the gated norm's parts exchanged through distributed shared memory)
	// rather than gated_delta_norm (one 512-thread block a head: Qwen3.5-27B's 48 heads on 48 SMs), at key dims
	// from deltaNormClusterKD. Measured (H200, 2026-12-04, quant.sh stage14a, Qwen3.5-27B 3-bit tg32, alternated
	// in one call): 122.2 / 123.2 tok/s on against 119.6 / 119.5 off; 13.6 → 10.2 µs a call (16-token profile);
	// TestDeltaRuleNormGatedBitIdentical passes for both forms, verify DeltaNet 114/114. On.
	deltaNormCluster bool

	// lab compiles the forms instantiated for measurement only (labInstantiations) and lets the keys below pick
	// them; any lab key sets it. Off in production: the lab forms are not in the compiled kernel list.
	lab bool
	// The lab choices (3-bit codes, one row unless said): trellis_gemv1's rows per warp and prefetching form and
	// the int8 form's runs per load (qLab, qLabPrefetch, qLabI8), the qgemv grid cap per SM; trellis_mma's warps
	// per tile and blocks per SM; trellis_mma0's piece; trellis_gemvg's shape and prefetching form (gemvgLab).
	gemvR, gemvU, gemvBlocks int
	gemvPF                   bool
	mmaKS, mmaBlocks         int
	mma0Piece                int
	gemvgShape               gemvgShape
	gemvgPrefetch            bool
	// labPad empty launches (launch_probe) follow every kernel: the step's time against the launches added is
	// what one launch costs in a recorded graph, the measure of what fusing launches can gain.
	labPad int
}

// defaultTuning is the table for the devices measured so far (the NVIDIA H200).
func defaultTuning() tuning {
	return tuning{act8: [2]bool{true, true}, mmaRows: qmmaDefaultRows, mma0Rows: qmma0DefaultRows, pdl: true, gemvGroup: true,
		splitGemmMax: 1 << 28, attnRowsMax: 1 << 16, mmaWideRows: qmmaWideRows, chunkRowsMax: 2 * maxGemvRows,
		attnChunkRows: 64, attnChunkMin: 1 << 12, normRopeQK: true, attnStore: true, foldResidual: true,
		deltaChunkRows: 64, gemvgWarps: 32, gemv0Blocks: 4, gemvgRound: true, deltaNormCluster: true}
}

// tuneKey sets one field from its text; lab keys also switch the lab forms on.
type tuneKey struct {
	lab bool
	set func(t *tuning, v string) error
}

var tuneKeys = map[string]tuneKey{
	"exact":          {set: func(t *tuning, v string) error { return parseBool(&t.exact, v) }},
	"act8":           {set: func(t *tuning, v string) error { err := parseBool(&t.act8[1], v); t.act8[0] = t.act8[1]; return err }},
	"act8_axis0":     {set: func(t *tuning, v string) error { return parseBool(&t.act8[0], v) }},
	"mma_rows":       {set: func(t *tuning, v string) error { return parseInt(&t.mmaRows, v, 0, 8) }},
	"mma0_rows":      {set: func(t *tuning, v string) error { return parseInt(&t.mma0Rows, v, 0, 8) }},
	"pdl":            {set: func(t *tuning, v string) error { return parseBool(&t.pdl, v) }},
	"gemv_group":     {set: func(t *tuning, v string) error { return parseBool(&t.gemvGroup, v) }},
	"gemv_mma":       {lab: true, set: func(t *tuning, v string) error { return parseBool(&t.gemvMMA, v) }},
	"moe_dense":      {set: func(t *tuning, v string) error { return parseBool(&t.moeDense, v) }},
	"split_gemm_max": {set: func(t *tuning, v string) error { return parseInt(&t.splitGemmMax, v, 0, 1<<62) }},
	"mma_wide_rows": {set: func(t *tuning, v string) error {
		return parseOneOf(&t.mmaWideRows, v, []int{maxGemvRows, qmmaWideRows})
	}},
	"chunk_rows_max":     {set: func(t *tuning, v string) error { return parseInt(&t.chunkRowsMax, v, 0, 64) }},
	"attn_rows_max":      {set: func(t *tuning, v string) error { return parseInt(&t.attnRowsMax, v, 0, 1<<62) }},
	"attn_chunk_rows":    {set: func(t *tuning, v string) error { return parseInt(&t.attnChunkRows, v, 0, 1<<20) }},
	"attn_chunk_min":     {set: func(t *tuning, v string) error { return parseInt(&t.attnChunkMin, v, 0, 1<<62) }},
	"norm_rope_qk":       {set: func(t *tuning, v string) error { return parseBool(&t.normRopeQK, v) }},
	"attn_store":         {set: func(t *tuning, v string) error { return parseBool(&t.attnStore, v) }},
	"norm_rope_attn":     {set: func(t *tuning, v string) error { return parseBool(&t.normRopeAttn, v) }},
	"fold_residual":      {set: func(t *tuning, v string) error { return parseBool(&t.foldResidual, v) }},
	"delta_chunk_rows":   {set: func(t *tuning, v string) error { return parseInt(&t.deltaChunkRows, v, 0, 1<<20) }},
	"gemvg_warps":        {set: func(t *tuning, v string) error { return parseOneOf(&t.gemvgWarps, v, []int{8, 32}) }},
	"gemv0_blocks":       {set: func(t *tuning, v string) error { return parseInt(&t.gemv0Blocks, v, 1, 16) }},
	"gemvg_round":        {set: func(t *tuning, v string) error { return parseBool(&t.gemvgRound, v) }},
	"delta_norm_cluster": {set: func(t *tuning, v string) error { return parseBool(&t.deltaNormCluster, v) }},
	"lab":                {lab: true, set: func(t *tuning, v string) error { return parseBool(&t.lab, v) }},
	"gemv_r":             {lab: true, set: func(t *tuning, v string) error { return parseOneOf(&t.gemvR, v, append([]int{qShapes[1].R}, qLab...)) }},
	"gemv_u":             {lab: true, set: func(t *tuning, v string) error { return parseOneOf(&t.gemvU, v, []int{1, 2, 4}) }},
	"gemv_blocks":        {lab: true, set: func(t *tuning, v string) error { return parseInt(&t.gemvBlocks, v, 1, 32) }},
	"gemv_pf":            {lab: true, set: func(t *tuning, v string) error { return parseBool(&t.gemvPF, v) }},
	"mma_ks":             {lab: true, set: func(t *tuning, v string) error { return parseOneOf(&t.mmaKS, v, []int{1, 2, 4, 8}) }},
	"mma_blocks":         {lab: true, set: func(t *tuning, v string) error { return parseOneOf(&t.mmaBlocks, v, []int{1, 2}) }},
	"mma0_piece":         {lab: true, set: func(t *tuning, v string) error { return parseOneOf(&t.mma0Piece, v, []int{qmma0Piece, qmma0LabPiece}) }},
	"lab_pad":            {lab: true, set: func(t *tuning, v string) error { return parseInt(&t.labPad, v, 0, 64) }},
	"gemvg_pf":           {lab: true, set: func(t *tuning, v string) error { return parseBool(&t.gemvgPrefetch, v) }},
	"gemvg_shape": {lab: true, set: func(t *tuning, v string) error {
		var s gemvgShape
		s.w = 8
		if _, err := fmt.Sscanf(v, "%dx%d", &s.bps, &s.u); err != nil || !slices.Contains(gemvgLab, s) && !slices.Contains(gemvmLab, s) {
			return fmt.Errorf("want one of the lab shapes %v (trellis_gemvg) or %v (trellis_gemvm) as BPSxU, got %q", gemvgLab, gemvmLab, v)
		}
		t.gemvgShape = s
		return nil
	}},
}

func parseBool(dst *bool, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want 0 or 1, got %q", v)
	}
	*dst = b
	return nil
}

func parseInt(dst *int, v string, lo, hi int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return fmt.Errorf("want an integer in [%d, %d], got %q", lo, hi, v)
	}
	*dst = n
	return nil
}

func parseOneOf(dst *int, v string, allowed []int) error {
	n, err := strconv.Atoi(v)
	if err != nil || !slices.Contains(allowed, n) {
		return fmt.Errorf("want one of %v, got %q", allowed, v)
	}
	*dst = n
	return nil
}

// loadTuning is the default table with the override applied.
func loadTuning(override string) (tuning, error) {
	t := defaultTuning()
	if strings.TrimSpace(override) == "" {
		return t, nil
	}
	for _, kv := range strings.Split(override, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		key, known := tuneKeys[k]
		if !ok || !known {
			return t, fmt.Errorf("%s: unknown setting %q (known: %s)", envTune, kv, strings.Join(tuneKeyNames(), ", "))
		}
		if err := key.set(&t, v); err != nil {
			return t, fmt.Errorf("%s: %s: %w", envTune, k, err)
		}
		if key.lab && k != "lab" {
			t.lab = true
		}
	}
	return t, nil
}

func tuneKeyNames() []string {
	var ks []string
	for k := range tuneKeys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// tuningFromEnv reads the override once (Open).
func tuningFromEnv() (tuning, error) { return loadTuning(os.Getenv(envTune)) }
