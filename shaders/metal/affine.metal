// affine.metal: MLX affine-quantized linear layers (2, 3, 4, 5, 6 and 8 bits, groups of 32/64/128): the decode
// GEMV for 1..8 rows and a tiled GEMM for prompts, both decoding every weight as affine.DecodeRow does.

// affine_q: value j (0..31) of a run's B words (32 values of B bits fill exactly B words): the value's bits may
// straddle two words at 3, 5 and 6 bits.
template <int B>
inline uint affine_q(const thread uint* w, uint j) {
    const uint bit = j * uint(B), wi = bit / 32u, off = bit % 32u;
    uint q = w[wi] >> off;
    if (off + uint(B) > 32u) q |= w[wi + 1u] << (32u - off);
    return q & ((1u << uint(B)) - 1u);
}

// affine_weight: f32(scale·q) + bias, the product rounded before the add. Two statements: a compiler contracting
// within an expression (fp-contract=on) leaves them unfused, as affine.DecodeRow computes them.
inline float affine_weight(float s, uint q, float b) {
    const float sq = s * float(q);
    const float wt = sq + b;
    return wt;
}

// affine_gemv_b{B}_m{M}
//   in:  x f32 [n, in] (n ≤ M, in % 32 == 0); words uint32 [out, in·B/32] (MLX packing: q_i at bits i·B of the
//        row's little-endian bitstream); scales, biases f32 [out, in/group]; bias f32 [out] when has_bias
//   out: y f32 [n, out] = x·Wᵀ (+ bias), weight f32(scale·q) + bias_g (affine.DecodeRow's two roundings)
//   grid: ⌈out/4⌉ threadgroups of 128 threads, one SIMD group per output row; lane l takes runs of 32 values
//        l, l+32, ... (B words each), fma chains per activation row, then simd_sum
//   promise: affine.DecodeRow's weights exactly, f32 sums in this order: tolerance 1e-5 of max|ref|
template <int B, int M>
inline void affine_gemv(device float* y, const device float* x, const device uint* words, const device float* scales,
                        const device float* biases, const device float* bias, constant AffineParams& p, uint tgx,
                        uint sg, uint lane) {
    const uint row = tgx * 4u + sg;
    if (row >= p.out) return;
    const uint ng = p.in / p.group;
    const device uint* rw = words + ulong(row) * (p.in * uint(B) / 32u);
    float acc[M];
    for (uint m = 0; m < uint(M); ++m) acc[m] = 0.0f;
    for (uint run = lane; run < p.in / 32u; run += 32u) {
        uint w[B];
        for (uint i = 0; i < uint(B); ++i) w[i] = rw[run * uint(B) + i];
        const uint g = run * 32u / p.group;
        const float s = scales[ulong(row) * ng + g], b = biases[ulong(row) * ng + g];
        for (uint j = 0; j < 32u; ++j) {
            const float wt = affine_weight(s, affine_q<B>(w, j), b);
            for (uint m = 0; m < uint(M); ++m)
                if (m < p.n) acc[m] = fma(wt, x[ulong(m) * p.in + run * 32u + j], acc[m]);
        }
    }
    for (uint m = 0; m < uint(M); ++m) {
        const float sum = simd_sum(acc[m]);
        if (lane == 0u && m < p.n) y[ulong(m) * p.out + row] = sum + (p.has_bias ? bias[row] : 0.0f);
    }
}

#define AFFINE_GEMV(B, M)                                                                                           \
    kernel void affine_gemv_b##B##_m##M(                                                                           \
        device float* y [[buffer(0)]], const device float* x [[buffer(1)]], const device uint* words [[buffer(2)]], \
        const device float* scales [[buffer(3)]], const device float* biases [[buffer(4)]],                       \
        const device float* bias [[buffer(5)]], constant AffineParams& p [[buffer(6)]],                            \
        uint3 tg [[threadgroup_position_in_grid]], uint sg [[simdgroup_index_in_threadgroup]],                     \
        uint lane [[thread_index_in_simdgroup]]) {                                                                 \
        affine_gemv<B, M>(y, x, words, scales, biases, bias, p, tg.x, sg, lane);                                   \
    }
#define AFFINE_GEMV_M(B) AFFINE_GEMV(B, 1) AFFINE_GEMV(B, 2) AFFINE_GEMV(B, 4) AFFINE_GEMV(B, 8)
AFFINE_GEMV_M(2)
AFFINE_GEMV_M(3)
AFFINE_GEMV_M(4)
AFFINE_GEMV_M(5)
AFFINE_GEMV_M(6)
AFFINE_GEMV_M(8)

// affine_gemm_b{B} (prompts)
//   in/out: as affine_gemv for any n
//   grid: (⌈out/32⌉, ⌈n/32⌉) threadgroups of 256 threads; per 32 inputs (one run of each of the tile's 32 weight
//        rows: B words, one group) the threadgroup decodes the 32×32 weight tile and stages it with the 32×32
//        activation tile in threadgroup memory, then thread t accumulates outputs (t%32, 4 rows of t/32) — the
//        dense gemm_bf16's order, on weights decoded in f32 rather than an expansion rounded to 16 bits
//   promise: affine.DecodeRow's weights exactly, f32 sums: tolerance 1e-5 of max|ref| (tighter than the 5e-3
//        a bf16 expansion would need)
template <int B, typename TGP>
inline void affine_gemm(TGP tw, TGP tx, device float* y, const device float* x, const device uint* words,
                        const device float* scales, const device float* biases, const device float* bias,
                        constant AffineParams& p, uint3 tg, uint t) {
    const uint o0 = tg.x * 32u, m0 = tg.y * 32u, oo = t % 32u, mg = t / 32u;
    const uint ng = p.in / p.group, wpr = p.in * uint(B) / 32u;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (uint i0 = 0; i0 < p.in; i0 += 32u) {
        // Weights: 8 threads per tile row, 4 values each (the row's run of B words read by each of the 8).
        {
            const uint a = t / 8u, j0 = (t % 8u) * 4u, o = o0 + a;
            if (o < p.out) {
                uint w[B];
                const device uint* rw = words + ulong(o) * wpr + (i0 / 32u) * uint(B);
                for (uint i = 0; i < uint(B); ++i) w[i] = rw[i];
                const ulong gi = ulong(o) * ng + i0 / p.group;
                const float s = scales[gi], b = biases[gi];
                for (uint j = j0; j < j0 + 4u; ++j) tw[a * 33u + j] = affine_weight(s, affine_q<B>(w, j), b);
            } else {
                for (uint j = j0; j < j0 + 4u; ++j) tw[a * 33u + j] = 0.0f;
            }
        }
        for (uint e = t; e < 1024u; e += 256u) {
            const uint a = e / 32u, ii = e % 32u;
            tx[a * 33u + ii] = m0 + a < p.n ? x[ulong(m0 + a) * p.in + i0 + ii] : 0.0f;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint q = 0; q < 4u; ++q)
            for (uint ii = 0; ii < 32u; ++ii) acc[q] = fma(tw[oo * 33u + ii], tx[(mg * 4u + q) * 33u + ii], acc[q]);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    const uint o = o0 + oo;
    for (uint q = 0; q < 4u; ++q) {
        const uint m = m0 + mg * 4u + q;
        if (m < p.n && o < p.out) y[ulong(m) * p.out + o] = acc[q] + (p.has_bias ? bias[o] : 0.0f);
    }
}

#define AFFINE_GEMM(B)                                                                                              \
    kernel void affine_gemm_b##B(                                                                                  \
        device float* y [[buffer(0)]], const device float* x [[buffer(1)]], const device uint* words [[buffer(2)]], \
        const device float* scales [[buffer(3)]], const device float* biases [[buffer(4)]],                       \
        const device float* bias [[buffer(5)]], constant AffineParams& p [[buffer(6)]],                            \
        uint3 tg [[threadgroup_position_in_grid]], uint t [[thread_index_in_threadgroup]]) {                       \
        threadgroup float tw[32u * 33u];                                                                           \
        threadgroup float tx[32u * 33u];                                                                           \
        affine_gemm<B>(tw, tx, y, x, words, scales, biases, bias, p, tg, t);                                       \
    }
AFFINE_GEMM(2)
AFFINE_GEMM(3)
AFFINE_GEMM(4)
AFFINE_GEMM(5)
AFFINE_GEMM(6)
AFFINE_GEMM(8)
