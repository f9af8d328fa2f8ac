// trellis.metal: the trellis (QTIP 1MAD) linear-layer kernels. Weights stay as stored (uint32 words, either axis,
// the 3-bit axis-0 block interleave as is) with f32 scales per coded row; activations and outputs are f32. Each
// kernel decodes a position's L-bit window from the words it loaded (common.metal: a run of 32 positions is K+1
// words, every window a shift and a mask), the 1MAD code f32(y) exactly, and applies the arithmetic its contract
// names: trellis.Reciprocal (weight (y·rcp)·scale) or trellis.Factored (Σ y·x, × scale·rcp once). Templates are
// instantiated by the macros at the end of each section; names are built by kernels.go's naming functions.

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

// ---------------------------------------------------------------------------------------------------------------
// trellis_gateup{_mixed}_k{KG}{KU}_m{M} (fused gate/up/SwiGLU, axis 1, same or different widths)
//   in:  x f32 [n, cols] (n ≤ M); gate and up words [rows, cols·K/32] at KG and KU bits, scales f32 [rows]
//   out: mid f32 [n, rows] = g / (1 + exp(−g)) · u with g, u the factored projections (the CPU's SwiGLU order)
//   grid: as trellis_reduce, one SIMD group per output row decoding both projections' runs
//   promise: trellis.Factored for both, f32 sums, precise::exp: tolerance 1e-5 of max|ref|
template <int KG, int KU, int M>
inline void trellis_gateup(device float* mid, const device float* x, const device uint* gw, const device float* gs,
                           const device uint* uw, const device float* us, constant GateUpParams& p, uint tgx, uint sg,
                           uint lane) {
    const uint row = tgx * 4u + sg;
    if (row >= p.rows) return;
    const uint gwpb = p.T * uint(KG) / 32u, uwpb = p.T * uint(KU) / 32u, rpb = p.T / 32u;
    const device uint* grow = gw + ulong(row) * (p.cols / p.T * gwpb);
    const device uint* urow = uw + ulong(row) * (p.cols / p.T * uwpb);
    float ga[M], ua[M];
    for (uint m = 0; m < uint(M); ++m) { ga[m] = 0.0f; ua[m] = 0.0f; }
    for (uint run = lane; run < p.cols / 32u; run += 32u) {
        const uint blk = run / rpb, q = run - blk * rpb;
        uint g[KG + 1], u[KU + 1];
        trellis_load_run<KG>(grow + blk * gwpb, q, p.T, g);
        trellis_load_run<KU>(urow + blk * uwpb, q, p.T, u);
        for (uint j = 0; j < 32u; ++j) {
            const float yg = trellis_y(trellis_run_state<KG>(g, j, p.L));
            const float yu = trellis_y(trellis_run_state<KU>(u, j, p.L));
            for (uint m = 0; m < uint(M); ++m) {
                if (m >= p.n) break;
                const float xv = x[ulong(m) * p.cols + run * 32u + j];
                ga[m] = fma(yg, xv, ga[m]);
                ua[m] = fma(yu, xv, ua[m]);
            }
        }
    }
    const float gf = gs[row] * TRELLIS_RCP, uf = us[row] * TRELLIS_RCP;
    for (uint m = 0; m < uint(M); ++m) {
        const float gv = simd_sum(ga[m]) * gf;
        const float uv = simd_sum(ua[m]) * uf;
        if (lane == 0u && m < p.n) mid[ulong(m) * p.rows + row] = gv / (1.0f + precise::exp(-gv)) * uv;
    }
}

#define TRELLIS_GATEUP(NAME, KG, KU, M)                                                                             \
    kernel void NAME(device float* mid [[buffer(0)]], const device float* x [[buffer(1)]],                        \
                     const device uint* gw [[buffer(2)]], const device float* gs [[buffer(3)]],                  \
                     const device uint* uw [[buffer(4)]], const device float* us [[buffer(5)]],                  \
                     constant GateUpParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],           \
                     uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {       \
        trellis_gateup<KG, KU, M>(mid, x, gw, gs, uw, us, p, tg.x, sg, lane);                                      \
    }
#define TRELLIS_GATEUP_M(PFX, KG, KU)                                                                               \
    TRELLIS_GATEUP(PFX##_k##KG##KU##_m1, KG, KU, 1) TRELLIS_GATEUP(PFX##_k##KG##KU##_m2, KG, KU, 2)               \
    TRELLIS_GATEUP(PFX##_k##KG##KU##_m4, KG, KU, 4)
TRELLIS_GATEUP_M(trellis_gateup, 2, 2)
TRELLIS_GATEUP_M(trellis_gateup, 3, 3)
TRELLIS_GATEUP_M(trellis_gateup, 4, 4)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 2, 3)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 2, 4)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 3, 2)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 3, 4)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 4, 2)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 4, 3)

// ---------------------------------------------------------------------------------------------------------------
// trellis_mma_k{K}, trellis_gateup_mma_k{KG}{KU} (axis 1, 1..8 rows on the simdgroup matrix unit)
//   in:  x f32 [n, cols] (n ≤ 8, cols % 256 == 0); words, scales as trellis_reduce (gate and up for _gateup)
//   out: y f32 [n, rows] (+ bias), or mid = SwiGLU(gate, up) as trellis_gateup
//   grid: ⌈rows/32⌉ threadgroups of 128 threads; SIMD group w owns output rows 8(4·tg + w)..+7. Each 8x8 step's
//        k index i is position base + 32·i + j: lane (row fm, columns fn, fn+1 of the MLX fragment layout) decodes
//        runs base/32 + fn and + fn + 1 of row fm straight into its A fragment, so every weight is decoded once;
//        B holds x[fn + c][base + 32·fm + j]; D accumulates f32(y)·x, × scale·rcp at the end
//   promise: trellis.Factored, f32 products summed by the MMA in k order: tolerance 1e-5 of max|ref|
inline uint frag_m(uint lane) { return ((lane / 4u) & 4u) + ((lane / 2u) % 4u); }
inline uint frag_n(uint lane) { return ((lane / 4u) & 2u) * 2u + (lane % 2u) * 2u; }

template <int K>
inline void trellis_mma_load(const device uint* rw, uint run, uint T, thread uint* w) {
    const uint rpb = T / 32u, blk = run / rpb;
    trellis_load_run<K>(rw + blk * (T * uint(K) / 32u), run - blk * rpb, T, w);
}

template <int K>
inline void trellis_mma(device float* y, const device float* x, const device uint* words, const device float* scales,
                        const device float* bias, constant TrellisParams& p, uint tgx, uint sg, uint lane) {
    const uint n0 = (tgx * 4u + sg) * 8u;
    if (n0 >= p.rows) return;
    const uint fm = frag_m(lane), fn = frag_n(lane);
    const uint row = n0 + fm, rowc = min(row, p.rows - 1u);
    const uint wpr = p.cols / p.T * (p.T * uint(K) / 32u);
    const device uint* rw = words + ulong(rowc) * wpr;
    const bool m0 = fn < p.n, m1 = fn + 1u < p.n;
    simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint base = 0; base < p.cols; base += 256u) {
        uint wa[K + 1], wb[K + 1];
        trellis_mma_load<K>(rw, base / 32u + fn, p.T, wa);
        trellis_mma_load<K>(rw, base / 32u + fn + 1u, p.T, wb);
        const ulong xo = base + 32u * fm;
        for (uint j = 0; j < 32u; ++j) {
            simdgroup_float8x8 a, b;
            a.thread_elements()[0] = trellis_y(trellis_run_state<K>(wa, j, p.L));
            a.thread_elements()[1] = trellis_y(trellis_run_state<K>(wb, j, p.L));
            b.thread_elements()[0] = m0 ? x[ulong(fn) * p.cols + xo + j] : 0.0f;
            b.thread_elements()[1] = m1 ? x[ulong(fn + 1u) * p.cols + xo + j] : 0.0f;
            simdgroup_multiply_accumulate(acc, a, b, acc);
        }
    }
    if (row >= p.rows) return;
    const float f = scales[row] * TRELLIS_RCP;
    for (uint c = 0; c < 2u; ++c) {
        const uint m = fn + c;
        if (m < p.n) y[ulong(m) * p.rows + row] = acc.thread_elements()[c] * f + (p.has_bias ? bias[row] : 0.0f);
    }
}

#define TRELLIS_MMA(K)                                                                                              \
    kernel void trellis_mma_k##K(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],              \
                                 const device uint* words [[buffer(2)]], const device float* scales [[buffer(3)]], \
                                 const device float* bias [[buffer(4)]], constant TrellisParams& p [[buffer(5)]], \
                                 uint3 tg [[threadgroup_position_in_grid]],                                       \
                                 uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) { \
        trellis_mma<K>(y, x, words, scales, bias, p, tg.x, sg, lane);                                              \
    }
TRELLIS_MMA(2)
TRELLIS_MMA(3)
TRELLIS_MMA(4)

template <int KG, int KU>
inline void trellis_gateup_mma(device float* mid, const device float* x, const device uint* gw,
                               const device float* gs, const device uint* uw, const device float* us,
                               constant GateUpParams& p, uint tgx, uint sg, uint lane) {
    const uint n0 = (tgx * 4u + sg) * 8u;
    if (n0 >= p.rows) return;
    const uint fm = frag_m(lane), fn = frag_n(lane);
    const uint row = n0 + fm, rowc = min(row, p.rows - 1u);
    const device uint* grow = gw + ulong(rowc) * (p.cols / p.T * (p.T * uint(KG) / 32u));
    const device uint* urow = uw + ulong(rowc) * (p.cols / p.T * (p.T * uint(KU) / 32u));
    const bool m0 = fn < p.n, m1 = fn + 1u < p.n;
    simdgroup_float8x8 accG = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    simdgroup_float8x8 accU = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint base = 0; base < p.cols; base += 256u) {
        uint ga[KG + 1], gb[KG + 1], ua[KU + 1], ub[KU + 1];
        trellis_mma_load<KG>(grow, base / 32u + fn, p.T, ga);
        trellis_mma_load<KG>(grow, base / 32u + fn + 1u, p.T, gb);
        trellis_mma_load<KU>(urow, base / 32u + fn, p.T, ua);
        trellis_mma_load<KU>(urow, base / 32u + fn + 1u, p.T, ub);
        const ulong xo = base + 32u * fm;
        for (uint j = 0; j < 32u; ++j) {
            simdgroup_float8x8 aG, aU, b;
            aG.thread_elements()[0] = trellis_y(trellis_run_state<KG>(ga, j, p.L));
            aG.thread_elements()[1] = trellis_y(trellis_run_state<KG>(gb, j, p.L));
            aU.thread_elements()[0] = trellis_y(trellis_run_state<KU>(ua, j, p.L));
            aU.thread_elements()[1] = trellis_y(trellis_run_state<KU>(ub, j, p.L));
            b.thread_elements()[0] = m0 ? x[ulong(fn) * p.cols + xo + j] : 0.0f;
            b.thread_elements()[1] = m1 ? x[ulong(fn + 1u) * p.cols + xo + j] : 0.0f;
            simdgroup_multiply_accumulate(accG, aG, b, accG);
            simdgroup_multiply_accumulate(accU, aU, b, accU);
        }
    }
    if (row >= p.rows) return;
    const float gf = gs[row] * TRELLIS_RCP, uf = us[row] * TRELLIS_RCP;
    for (uint c = 0; c < 2u; ++c) {
        const uint m = fn + c;
        if (m >= p.n) continue;
        const float gv = accG.thread_elements()[c] * gf, uv = accU.thread_elements()[c] * uf;
        mid[ulong(m) * p.rows + row] = gv / (1.0f + precise::exp(-gv)) * uv;
    }
}

#define TRELLIS_GATEUP_MMA(KG, KU)                                                                                  \
    kernel void trellis_gateup_mma_k##KG##KU(                                                                      \
        device float* mid [[buffer(0)]], const device float* x [[buffer(1)]], const device uint* gw [[buffer(2)]], \
        const device float* gs [[buffer(3)]], const device uint* uw [[buffer(4)]], const device float* us [[buffer(5)]], \
        constant GateUpParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],                         \
        uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {                     \
        trellis_gateup_mma<KG, KU>(mid, x, gw, gs, uw, us, p, tg.x, sg, lane);                                     \
    }
TRELLIS_GATEUP_MMA(2, 2)
TRELLIS_GATEUP_MMA(2, 3)
TRELLIS_GATEUP_MMA(2, 4)
TRELLIS_GATEUP_MMA(3, 2)
TRELLIS_GATEUP_MMA(3, 3)
TRELLIS_GATEUP_MMA(3, 4)
TRELLIS_GATEUP_MMA(4, 2)
TRELLIS_GATEUP_MMA(4, 3)
TRELLIS_GATEUP_MMA(4, 4)

// ---------------------------------------------------------------------------------------------------------------
// trellis_prefill_k{K} (tiled prefill, any rows, either axis and layout)
//   in:  x f32 [n, in]; words, scales as stored; bias f32 [out]; out: y f32 [n, out] (+ bias)
//   grid: (⌈out/32⌉, ⌈n/32⌉) threadgroups of 256 threads; per 32-position slice of the input the threadgroup
//        decodes the 32×32 weight tile (trellis.Reciprocal, 4 weights a thread) and stages the 32×32 activation
//        tile in threadgroup memory, then thread t accumulates outputs (t%32, 4 rows of t/32) over the slice
//   promise: trellis.Reciprocal weights, f32 sums in input order: tolerance 1e-5 of max|ref|
template <int K, typename TGP>
inline void trellis_prefill(TGP tw, TGP tx, device float* y, const device float* x, const device uint* words,
                            const device float* scales, const device float* bias, constant PrefillParams& pp,
                            uint3 tg, uint t) {
    const uint o0 = tg.x * 32u, m0 = tg.y * 32u, oo = t % 32u, mg = t / 32u;
    const uint T = pp.t.T, rows = pp.t.rows, cols = pp.t.cols;
    const uint wpb = T * uint(K) / 32u, wpr = cols / T * wpb;
    const bool il = pp.t.interleaved != 0u;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (uint i0 = 0; i0 < pp.in; i0 += 32u) {
        for (uint e = t; e < 1024u; e += 256u) {
            const uint oi = e / 32u, ii = e % 32u, o = o0 + oi, i = i0 + ii;
            float w = 0.0f;
            if (o < pp.out && i < pp.in) {
                const uint r = pp.axis == 1u ? o : i, c = pp.axis == 1u ? i : o, blk = c / T;
                const uint s = trellis_state_at(words + trellis_block_offset(r, blk, rows, wpr, wpb, il), c - blk * T,
                                                T, uint(K), pp.t.L);
                w = (trellis_y(s) * TRELLIS_RCP) * scales[r];
            }
            tw[oi * 33u + ii] = w;
            const uint mi = e / 32u;
            tx[mi * 33u + ii] = (m0 + mi < pp.t.n && i < pp.in) ? x[ulong(m0 + mi) * pp.in + i] : 0.0f;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint q = 0; q < 4u; ++q)
            for (uint ii = 0; ii < 32u; ++ii) acc[q] = fma(tw[oo * 33u + ii], tx[(mg * 4u + q) * 33u + ii], acc[q]);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    const uint o = o0 + oo;
    for (uint q = 0; q < 4u; ++q) {
        const uint m = m0 + mg * 4u + q;
        if (m < pp.t.n && o < pp.out) y[ulong(m) * pp.out + o] = acc[q] + (pp.t.has_bias ? bias[o] : 0.0f);
    }
}

#define TRELLIS_PREFILL(K)                                                                                          \
    kernel void trellis_prefill_k##K(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],          \
                                     const device uint* words [[buffer(2)]], const device float* scales [[buffer(3)]], \
                                     const device float* bias [[buffer(4)]], constant PrefillParams& p [[buffer(5)]], \
                                     uint3 tg [[threadgroup_position_in_grid]], uint t [[thread_index_in_threadgroup]]) { \
        threadgroup float tw[32u * 33u];                                                                           \
        threadgroup float tx[32u * 33u];                                                                           \
        trellis_prefill<K>(tw, tx, y, x, words, scales, bias, p, tg, t);                                           \
    }
TRELLIS_PREFILL(2)
TRELLIS_PREFILL(3)
TRELLIS_PREFILL(4)

// ---------------------------------------------------------------------------------------------------------------
// trellis_expand_k{K}_{f16,bf16} (a prompt GEMM's weights)
//   in:  words, scales as stored; out: e 16-bit [out, in] in the layer's orientation: bf16 = trellis.BF16 bit for
//        bit (bf16 of f32(value)·scale, value = y/147.8 correctly rounded by trellis_value), f16 = the same f32
//        weight (trellis.Exact) rounded to binary16, ties to even
//   grid: (⌈cols/256⌉, rows) threadgroups of 256 threads, one position each
//   promise: exact
template <int K, bool F16>
inline void trellis_expand(device ushort* e, const device uint* words, const device float* scales,
                           constant ExpandParams& p, uint3 tg, uint t) {
    const uint r = tg.y, c = tg.x * 256u + t;
    if (r >= p.rows || c >= p.cols) return;
    const uint wpb = p.T * uint(K) / 32u, wpr = p.cols / p.T * wpb, blk = c / p.T;
    const uint s = trellis_state_at(words + trellis_block_offset(r, blk, p.rows, wpr, wpb, p.interleaved != 0u),
                                    c - blk * p.T, p.T, uint(K), p.L);
    const float w = trellis_value(s) * scales[r];
    const ulong at = p.axis == 1u ? ulong(r) * p.cols + c : ulong(c) * p.rows + r;
    e[at] = F16 ? f32_to_f16(w) : f32_to_bf16(w);
}

#define TRELLIS_EXPAND(K, F16, SUF)                                                                                 \
    kernel void trellis_expand_k##K##_##SUF(device ushort* e [[buffer(0)]], const device uint* words [[buffer(1)]], \
                                            const device float* scales [[buffer(2)]],                             \
                                            constant ExpandParams& p [[buffer(3)]],                                 \
                                            uint3 tg [[threadgroup_position_in_grid]],                             \
                                            uint t [[thread_index_in_threadgroup]]) {                              \
        trellis_expand<K, F16>(e, words, scales, p, tg, t);                                                        \
    }
TRELLIS_EXPAND(2, true, f16)
TRELLIS_EXPAND(3, true, f16)
TRELLIS_EXPAND(4, true, f16)
TRELLIS_EXPAND(2, false, bf16)
TRELLIS_EXPAND(3, false, bf16)
TRELLIS_EXPAND(4, false, bf16)
