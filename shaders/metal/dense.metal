// dense.metal: linear layers over dense bf16 weights (unquantized models, a tied lm_head): the decode GEMV for
// 1..8 rows and a tiled GEMM for prompts. Activations and outputs f32, weights bf16 bits widened exactly.

// gemv_bf16_m{M}
//   in:  x f32 [n, in] (n ≤ M, any in); w bf16 bits [out, in]; bias f32 [out] when has_bias
//   out: y f32 [n, out] = x·Wᵀ (+ bias)
//   grid: ⌈out/4⌉ threadgroups of 128 threads, one SIMD group per output row, lane l taking inputs l, l+32, ...
//        (one fma chain per activation row), then simd_sum
//   promise: exact products of the widened weights, f32 sums in this order: tolerance 1e-5 of max|ref|
template <int M>
inline void gemv_bf16(device float* y, const device float* x, const device ushort* w, const device float* bias,
                      constant DenseParams& p, uint tgx, uint sg, uint lane) {
    const uint row = tgx * 4u + sg;
    if (row >= p.out) return;
    const device ushort* wr = w + ulong(row) * p.in;
    float acc[M];
    for (uint m = 0; m < uint(M); ++m) acc[m] = 0.0f;
    for (uint j = lane; j < p.in; j += 32u) {
        const float wv = bf16_to_f32(wr[j]);
        for (uint m = 0; m < uint(M); ++m)
            if (m < p.n) acc[m] = fma(wv, x[ulong(m) * p.in + j], acc[m]);
    }
    for (uint m = 0; m < uint(M); ++m) {
        const float s = simd_sum(acc[m]);
        if (lane == 0u && m < p.n) y[ulong(m) * p.out + row] = s + (p.has_bias ? bias[row] : 0.0f);
    }
}

#define GEMV_BF16(M)                                                                                                \
    kernel void gemv_bf16_m##M(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],                \
                               const device ushort* w [[buffer(2)]], const device float* bias [[buffer(3)]],      \
                               constant DenseParams& p [[buffer(4)]], uint3 tg [[threadgroup_position_in_grid]],  \
                               uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) { \
        gemv_bf16<M>(y, x, w, bias, p, tg.x, sg, lane);                                                            \
    }
GEMV_BF16(1)
GEMV_BF16(2)
GEMV_BF16(4)
GEMV_BF16(8)

// gemm_bf16 (prompts)
//   in/out: as gemv_bf16 for any n
//   grid: (⌈out/32⌉, ⌈n/32⌉) threadgroups of 256 threads; per 32 inputs the threadgroup stages the 32×32 weight
//        tile (widened) and the 32×32 activation tile in threadgroup memory, then thread t accumulates outputs
//        (t%32, 4 rows of t/32)
//   promise: as gemv_bf16: tolerance 1e-5 of max|ref|
template <typename TGP>
inline void gemm_bf16(TGP tw, TGP tx, device float* y, const device float* x, const device ushort* w,
                      const device float* bias, constant DenseParams& p, uint3 tg, uint t) {
    const uint o0 = tg.x * 32u, m0 = tg.y * 32u, oo = t % 32u, mg = t / 32u;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (uint i0 = 0; i0 < p.in; i0 += 32u) {
        for (uint e = t; e < 1024u; e += 256u) {
            const uint a = e / 32u, ii = e % 32u, i = i0 + ii;
            tw[a * 33u + ii] = (o0 + a < p.out && i < p.in) ? bf16_to_f32(w[ulong(o0 + a) * p.in + i]) : 0.0f;
            tx[a * 33u + ii] = (m0 + a < p.n && i < p.in) ? x[ulong(m0 + a) * p.in + i] : 0.0f;
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

kernel void gemm_bf16(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],
                      const device ushort* w [[buffer(2)]], const device float* bias [[buffer(3)]],
                      constant DenseParams& p [[buffer(4)]], uint3 tg [[threadgroup_position_in_grid]],
                      uint t [[thread_index_in_threadgroup]]) {
    threadgroup float tw[32u * 33u];
    threadgroup float tx[32u * 33u];
    gemm_bf16(tw, tx, y, x, w, bias, p, tg, t);
}
