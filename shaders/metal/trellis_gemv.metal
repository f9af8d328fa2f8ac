// trellis_gemv.metal: the decode GEMVs over trellis codes — trellis_reduce (axis 1) and trellis_scatter (axis 0,
// plain and interleaved, with split-K). The family's conventions are in trellis_mma.metal's header.

// ---------------------------------------------------------------------------------------------------------------
// trellis_reduce_k{K}_m{M} (axis 1: q/k/v/o, gate/up)
//   in:  x f32 [n, cols] (n ≤ M), words [rows, cols·K/32], scales f32 [rows], bias f32 [rows] when has_bias
//   out: y f32 [n, rows] = x·Wᵀ (+ bias)
//   grid: ⌈rows/4⌉ threadgroups of 128 threads: one SIMD group per output row; lane l takes runs l, l+32, ...
//        (K+1 words each), one fma chain per activation row in position order, then simd_sum
//   promise: factored or reciprocal arithmetic exactly, f32 sums in this order: tolerance 1e-5 of max|ref|
template <int K, int M>
inline void trellis_reduce(device float* y, const device float* x, const device uint* words,
                           const device float* scales, const device float* bias, constant TrellisParams& p,
                           uint tgx, uint sg, uint lane) {
    const uint row = tgx * 4u + sg;
    if (row >= p.rows) return; // the whole SIMD group leaves together
    const uint wpb = p.T * uint(K) / 32u, wpr = p.cols / p.T * wpb, rpb = p.T / 32u;
    const device uint* rw = words + ulong(row) * wpr;
    const float scale = scales[row];
    float acc[M];
    for (uint m = 0; m < uint(M); ++m) acc[m] = 0.0f;
    for (uint run = lane; run < p.cols / 32u; run += 32u) {
        const uint blk = run / rpb;
        uint w[K + 1];
        trellis_load_run<K>(rw + blk * wpb, run - blk * rpb, p.T, w);
        for (uint j = 0; j < 32u; ++j) {
            const float yv = trellis_y(trellis_run_state<K>(w, j, p.L));
            const float wt = p.factored ? yv : (yv * TRELLIS_RCP) * scale;
            for (uint m = 0; m < uint(M); ++m)
                if (m < p.n) acc[m] = fma(wt, x[ulong(m) * p.cols + run * 32u + j], acc[m]);
        }
    }
    for (uint m = 0; m < uint(M); ++m) {
        float s = simd_sum(acc[m]);
        if (lane == 0u && m < p.n) {
            if (p.factored) s = s * (scale * TRELLIS_RCP);
            if (p.has_bias) s = s + bias[row];
            y[ulong(m) * p.rows + row] = s;
        }
    }
}

#define TRELLIS_REDUCE(K, M)                                                                                        \
    kernel void trellis_reduce_k##K##_m##M(                                                                        \
        device float* y [[buffer(0)]], const device float* x [[buffer(1)]], const device uint* words [[buffer(2)]], \
        const device float* scales [[buffer(3)]], const device float* bias [[buffer(4)]],                         \
        constant TrellisParams& p [[buffer(5)]], uint3 tg [[threadgroup_position_in_grid]],                        \
        uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {                     \
        trellis_reduce<K, M>(y, x, words, scales, bias, p, tg.x, sg, lane);                                        \
    }
#define TRELLIS_REDUCE_K(K) TRELLIS_REDUCE(K, 1) TRELLIS_REDUCE(K, 2) TRELLIS_REDUCE(K, 4) TRELLIS_REDUCE(K, 8)
TRELLIS_REDUCE_K(2)
TRELLIS_REDUCE_K(3)
TRELLIS_REDUCE_K(4)


// ---------------------------------------------------------------------------------------------------------------
// trellis_scatter{_il}_k{K}_m{M} + trellis_splitk_reduce (axis 0: down; _il: the 3-bit block interleave)
//   in:  x f32 [n, rows] (coded row r = input feature r), words as stored, scales f32 [rows], bias f32 [cols]
//   out: y f32 [n, cols] (splits == 1), else partials f32 [splits, n, cols] then trellis_splitk_reduce sums the
//        splits in order (+ bias)
//   grid: (⌈cols/(32·P)⌉, splits) threadgroups of 256 threads, P = 32/M positions per lane (P·M = 32
//        accumulators); lane l of every SIMD group owns positions P·l.. of the threadgroup's span, SIMD group w
//        takes the split's rows w, w+8, ...; the 8 SIMD groups meet in a fixed tree in threadgroup memory (16 KiB)
//   promise: as trellis_reduce (factored: x' = x·(scale·rcp), then Σ y·x'); tolerance 1e-5 of max|ref|
template <int K, int M, bool IL, typename TGP>
inline void trellis_scatter(TGP red, device float* y, const device float* x, const device uint* words,
                            const device float* scales, const device float* bias, device float* partials,
                            constant TrellisParams& p, uint3 tg, uint sg, uint lane) {
    const uint P = 32u / uint(M);
    const uint c0 = tg.x * 32u * P + lane * P;
    const bool active = c0 < p.cols;
    const uint wpb = p.T * uint(K) / 32u, wpr = p.cols / p.T * wpb;
    const uint blk = c0 / p.T, t0 = c0 - blk * p.T, runq = t0 / 32u, j0 = t0 % 32u;
    const uint r0 = tg.y * p.rows_per_split, r1 = min(p.rows, r0 + p.rows_per_split);
    float acc[32];
    for (uint i = 0; i < 32u; ++i) acc[i] = 0.0f;
    if (active) {
        for (uint r = r0 + sg; r < r1; r += 8u) {
            uint w[K + 1];
            trellis_load_run<K>(words + trellis_block_offset(r, blk, p.rows, wpr, wpb, IL), runq, p.T, w);
            const float sc = scales[r];
            float xm[M];
            for (uint m = 0; m < uint(M); ++m) {
                const float v = m < p.n ? x[ulong(m) * p.rows + r] : 0.0f;
                xm[m] = p.factored ? v * (sc * TRELLIS_RCP) : v;
            }
            for (uint j = 0; j < P; ++j) {
                const float yv = trellis_y(trellis_run_state<K>(w, j0 + j, p.L));
                const float wt = p.factored ? yv : (yv * TRELLIS_RCP) * sc;
                for (uint m = 0; m < uint(M); ++m) acc[m * P + j] = fma(wt, xm[m], acc[m * P + j]);
            }
        }
    }
    // Fixed tree over the SIMD groups: 4..7 into 0..3, 2..3 into 0..1, 1 into 0.
    for (uint half_ = 4u; half_ >= 1u; half_ /= 2u) {
        if (sg >= half_ && sg < 2u * half_)
            for (uint i = 0; i < 32u; ++i) red[((sg - half_) * 32u + lane) * 32u + i] = acc[i];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (sg < half_)
            for (uint i = 0; i < 32u; ++i) acc[i] += red[(sg * 32u + lane) * 32u + i];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (sg != 0u || !active) return;
    for (uint m = 0; m < uint(M); ++m) {
        if (m >= p.n) break;
        for (uint j = 0; j < P; ++j) {
            const uint c = c0 + j;
            if (c >= p.cols) break;
            if (p.splits == 1u) y[ulong(m) * p.cols + c] = acc[m * P + j] + (p.has_bias ? bias[c] : 0.0f);
            else partials[(ulong(tg.y) * p.n + m) * p.cols + c] = acc[m * P + j];
        }
    }
}

#define TRELLIS_SCATTER(NAME, K, M, IL)                                                                             \
    kernel void NAME(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],                          \
                     const device uint* words [[buffer(2)]], const device float* scales [[buffer(3)]],           \
                     const device float* bias [[buffer(4)]], device float* partials [[buffer(5)]],               \
                     constant TrellisParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],          \
                     uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {       \
        threadgroup float red[4u * 32u * 32u];                                                                     \
        trellis_scatter<K, M, IL>(red, y, x, words, scales, bias, partials, p, tg, sg, lane);                     \
    }
#define TRELLIS_SCATTER_K(K)                                                                                        \
    TRELLIS_SCATTER(trellis_scatter_k##K##_m1, K, 1, false) TRELLIS_SCATTER(trellis_scatter_k##K##_m2, K, 2, false) \
    TRELLIS_SCATTER(trellis_scatter_k##K##_m4, K, 4, false) TRELLIS_SCATTER(trellis_scatter_k##K##_m8, K, 8, false)
TRELLIS_SCATTER_K(2)
TRELLIS_SCATTER_K(3)
TRELLIS_SCATTER_K(4)
TRELLIS_SCATTER(trellis_scatter_il_k3_m1, 3, 1, true)
TRELLIS_SCATTER(trellis_scatter_il_k3_m2, 3, 2, true)
TRELLIS_SCATTER(trellis_scatter_il_k3_m4, 3, 4, true)
TRELLIS_SCATTER(trellis_scatter_il_k3_m8, 3, 8, true)

kernel void trellis_splitk_reduce(device float* y [[buffer(0)]], const device float* partials [[buffer(1)]],
                                  const device float* bias [[buffer(2)]], constant SplitReduceParams& p [[buffer(3)]],
                                  uint i [[thread_position_in_grid]]) {
    if (i >= p.n * p.out) return;
    const uint c = i % p.out;
    float s = 0.0f;
    for (uint k = 0; k < p.splits; ++k) s += partials[ulong(k) * p.n * p.out + i];
    y[i] = s + (p.has_bias ? bias[c] : 0.0f);
}

