// trellis_prefill.metal: prompt forms over trellis codes — the tiled prefill and the 16-bit expansion.

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
