// trellis_mma.metal: the trellis decode kernels on the simdgroup matrix unit (1..8 rows): a plain linear layer
// and the fused gate/up/SwiGLU, same or mixed widths.
//
// The trellis_*.metal conventions: weights stay as stored (uint32 words, either axis, the 3-bit axis-0 block
// interleave as is) with f32 scales per coded row; activations and outputs are f32. Each kernel decodes a
// position's L-bit window from the words it loaded (common.metal: a run of 32 positions is K+1 words, every window
// a shift and a mask), the 1MAD code f32(y) exactly, and applies the arithmetic its contract names:
// trellis.Reciprocal (weight (y·rcp)·scale) or trellis.Factored (Σ y·x, × scale·rcp once). Templates are
// instantiated by the macros after each kernel; names match kernels.go's naming functions.


// ---------------------------------------------------------------------------------------------------------------
// trellis_mma_k{K}, trellis_gateup_mma_k{KG}{KU} (axis 1, 1..8 rows on the simdgroup matrix unit)
//   in:  x f32 [n, cols] (n ≤ 8, cols % 256 == 0); words, scales as trellis_reduce (gate and up for _gateup)
//   out: y f32 [n, rows] (+ bias), or mid = SwiGLU(gate, up) and gate, up themselves as trellis_gateup
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
                               device float* gout, device float* uout, constant GateUpParams& p, uint tgx, uint sg,
                               uint lane) {
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
        const ulong o = ulong(m) * p.rows + row;
        gout[o] = gv;
        uout[o] = uv;
        mid[o] = gv / (1.0f + precise::exp(-gv)) * uv;
    }
}

#define TRELLIS_GATEUP_MMA(KG, KU)                                                                                  \
    kernel void trellis_gateup_mma_k##KG##KU(                                                                      \
        device float* mid [[buffer(0)]], const device float* x [[buffer(1)]], const device uint* gw [[buffer(2)]], \
        const device float* gs [[buffer(3)]], const device uint* uw [[buffer(4)]], const device float* us [[buffer(5)]], \
        device float* gout [[buffer(6)]], device float* uout [[buffer(7)]], constant GateUpParams& p [[buffer(8)]], \
        uint3 tg [[threadgroup_position_in_grid]], uint sg [[simdgroup_index_in_threadgroup]],                     \
        uint lane [[thread_index_in_simdgroup]]) {                                                                 \
        trellis_gateup_mma<KG, KU>(mid, x, gw, gs, uw, us, gout, uout, p, tg.x, sg, lane);                         \
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
// trellis_mma0{_il}_k{K} (axis 0: down, 1..8 rows on the simdgroup matrix unit; _il: the 3-bit interleave)
//   in:  x f32 [n, rows] (n ≤ 8, coded row r = input feature r), words as stored, scales f32 [rows], bias f32 [cols]
//   out: y f32 [n, cols] (splits == 1, + bias), else partials f32 [splits, n, cols] for trellis_splitk_reduce
//   grid: (⌈cols/128⌉, splits) threadgroups of 128 threads; SIMD group w owns the 32 outputs of one run and walks
//        the split's coded rows 8 at a time: D_t[m][c] += X[m][k]·W_t[k][c] for the four 8-output tiles t of the
//        run, X[m][k] = x[m][r0 + k]·(scale·rcp), W_t[k][c] = f32(y) of coded row r0 + k at position 8t + c; lane
//        (row fm, columns fn, fn + 1) decodes positions 8t + fn, + 1 of row r0 + fm from that row's K+1 run words
//   promise: trellis.Factored (x' = x·(scale·rcp), Σ y·x'), f32 products summed by the MMA: tolerance 1e-5
template <int K, bool IL>
inline void trellis_mma0(device float* y, const device float* x, const device uint* words, const device float* scales,
                         const device float* bias, device float* partials, constant TrellisParams& p, uint3 tg,
                         uint sg, uint lane) {
    const uint c0 = (tg.x * 4u + sg) * 32u;
    if (c0 >= p.cols) return; // the whole SIMD group: cols is a multiple of T, so of 32
    const uint fm = frag_m(lane), fn = frag_n(lane);
    const uint wpb = p.T * uint(K) / 32u, wpr = p.cols / p.T * wpb;
    const uint blk = c0 / p.T, runq = (c0 - blk * p.T) / 32u;
    const uint r0 = tg.y * p.rows_per_split, r1 = min(p.rows, r0 + p.rows_per_split);
    simdgroup_float8x8 acc[4];
    for (uint t = 0; t < 4u; ++t) acc[t] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint rb = r0; rb < r1; rb += 8u) {
        const uint r = rb + fm;
        const bool live = r < r1;
        uint w[K + 1];
        trellis_load_run<K>(words + trellis_block_offset(live ? r : r0, blk, p.rows, wpr, wpb, IL), runq, p.T, w);
        simdgroup_float8x8 xm;
        for (uint j = 0; j < 2u; ++j) {
            const uint rk = rb + fn + j;
            xm.thread_elements()[j] = (fm < p.n && rk < r1) ? x[ulong(fm) * p.rows + rk] * (scales[rk] * TRELLIS_RCP) : 0.0f;
        }
        for (uint t = 0; t < 4u; ++t) {
            simdgroup_float8x8 wm;
            for (uint j = 0; j < 2u; ++j)
                wm.thread_elements()[j] = live ? trellis_y(trellis_run_state<K>(w, 8u * t + fn + j, p.L)) : 0.0f;
            simdgroup_multiply_accumulate(acc[t], xm, wm, acc[t]);
        }
    }
    if (fm >= p.n) return;
    for (uint t = 0; t < 4u; ++t)
        for (uint j = 0; j < 2u; ++j) {
            const uint c = c0 + 8u * t + fn + j;
            const float v = acc[t].thread_elements()[j];
            if (p.splits == 1u) y[ulong(fm) * p.cols + c] = v + (p.has_bias ? bias[c] : 0.0f);
            else partials[(ulong(tg.y) * p.n + fm) * p.cols + c] = v;
        }
}

#define TRELLIS_MMA0(NAME, K, IL)                                                                                   \
    kernel void NAME(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],                          \
                     const device uint* words [[buffer(2)]], const device float* scales [[buffer(3)]],           \
                     const device float* bias [[buffer(4)]], device float* partials [[buffer(5)]],               \
                     constant TrellisParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],          \
                     uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {       \
        trellis_mma0<K, IL>(y, x, words, scales, bias, partials, p, tg, sg, lane);                                 \
    }
TRELLIS_MMA0(trellis_mma0_k2, 2, false)
TRELLIS_MMA0(trellis_mma0_k3, 3, false)
TRELLIS_MMA0(trellis_mma0_k4, 4, false)
TRELLIS_MMA0(trellis_mma0_il_k3, 3, true)
