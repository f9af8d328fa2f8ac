// exl3.metal: linear layers in exllamav3's EXL3 format (docs/exl3-format.md), the MSL versions of
// shaders/cuda/exl3.cu: the two Hadamard sides with their vectors of signed scales (exl3_had_f32) and the decode
// GEMV over the 16×16 tiles for 1..8 activation rows (exl3_gemv_k{K}_{cb}_m{M}); a prompt runs the GEMV over
// chunks of 8 rows (PlanEXL3). What it leaves out: a tiled prompt form, and the sides fused into the GEMV.
//
// Decode of one position t of a tile (8·K words as stored): the 16 bits ending at bit (t+1)·K of the most
// significant-first stream, wrapping (exl3_state); the codebook value computed exactly in f32 and rounded once to
// binary16 (exl3_decode) — bit for bit exl3.Codebook.Decode. CB: 0 3inst, 1 mcg, 2 mul1.

// binary16 bits → f32, exactly (normal, subnormal, ±Inf, NaN).
inline float exl3_f16_to_f32(uint h) {
    const uint sign = (h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u;
    if (e == 31u) return as_type<float>(sign | 0x7f800000u | (m << 13));
    if (e == 0u) {
        const float v = float(m) * 5.9604644775390625e-8f; // m·2^-24, exact
        return sign != 0u ? -v : v;
    }
    return as_type<float>(sign | ((e + 112u) << 23) | (m << 13));
}

// The value an fp16 operation gives for the exact result f (f32 holds it exactly): rounded once to binary16.
inline float exl3_round_h(float f) { return exl3_f16_to_f32(uint(f32_to_f16(f))); }

template <int CB>
inline float exl3_decode(uint s) {
    if (CB == 2) {
        const uint x = s * 0x83DCD12Du;
        const uint sum = (x & 255u) + ((x >> 8) & 255u) + ((x >> 16) & 255u) + (x >> 24);
        // 1024 + Σ bytes times fp16 0x1eee plus fp16 0xc931: exact in f32 (≤ 20 significant bits), one rounding.
        return exl3_round_h(fma(1024.0f + float(sum), as_type<float>(0x3bddc000u), as_type<float>(0xc1262000u)));
    }
    uint x = CB == 1 ? s * 0xCBAC1FEDu : s * 89226354u + 64248484u;
    x = (x & 0x8fff8fffu) ^ 0x3b603b60u;
    const float lo = exl3_f16_to_f32(x & 0xffffu), hi = exl3_f16_to_f32(x >> 16);
    const float sum = lo + hi; // exact: both halves in ±[1/8, 2)
    return exl3_round_h(sum);
}

// The state of position t from a tile's 8·K words w (exl3.State; W a threadgroup pointer, as trellis_scatter passes
// its threadgroup memory).
template <int K, typename W>
inline uint exl3_state(W w, uint t) {
    const uint nw = 8u * uint(K);
    const uint b1 = (t + 1u) * uint(K) + 256u * uint(K), b0 = b1 - 16u;
    const uint i0 = b0 >> 5, i1 = (b1 - 1u) >> 5;
    const ulong m = (ulong(w[i0 % nw]) << 32) | ulong(w[i1 % nw]);
    return uint(m >> ((i1 + 1u) * 32u - b1)) & 0xffffu;
}

// exl3_had_f32 (the two sides of an EXL3 layer)
//   in:  x f32 [rows, xcols] at element x_off of its buffer (columns past xcols read as 0: the padding); pre, post
//        f32 [cols], bias f32 [dcols], each bound but unread when its has_ flag is 0; cols a multiple of 128
//   out: dst f32 [rows, dcols] at element dst_off: post ⊙ H_128(pre ⊙ x)·scale (+ bias), the first dcols columns
//   grid: ⌈rows·cols/128 / 4⌉ threadgroups of 128 threads, a SIMD group per run of 128, lane l holding columns
//        4l..4l+3: stages h = 1, 2 in the lane, h = 4 … 64 by simd_shuffle_xor
//   promise: bit-exact to rht.Apply then the f32 bias add (each product and sum one rounding)
kernel void exl3_had_f32(device float* dst [[buffer(0)]], const device float* x [[buffer(1)]],
                         const device float* pre [[buffer(2)]], const device float* post [[buffer(3)]],
                         const device float* bias [[buffer(4)]], constant EXL3HadParams& p [[buffer(5)]],
                         uint3 tg [[threadgroup_position_in_grid]], uint sg [[simdgroup_index_in_threadgroup]],
                         uint lane [[thread_index_in_simdgroup]]) {
    const uint runs = p.cols / 128u;
    const uint run = tg.x * 4u + sg;
    if (run >= p.rows * runs) return;
    const uint row = run / runs, c0 = (run % runs) * 128u + 4u * lane;
    float v[4];
    for (uint e = 0; e < 4u; ++e) {
        const uint c = c0 + e;
        float a = c < p.xcols ? x[p.x_off + ulong(row) * p.xcols + c] : 0.0f;
        if (p.has_pre != 0u) a = a * pre[c];
        v[e] = a;
    }
    const float t0 = v[0] + v[1], t1 = v[0] - v[1], t2 = v[2] + v[3], t3 = v[2] - v[3];
    v[0] = t0 + t2;
    v[2] = t0 - t2;
    v[1] = t1 + t3;
    v[3] = t1 - t3;
    for (uint m = 1u; m < 32u; m <<= 1u) {
        const bool upper = (lane & m) != 0u;
        for (uint e = 0; e < 4u; ++e) {
            const float q = simd_shuffle_xor(v[e], ushort(m));
            v[e] = upper ? q - v[e] : v[e] + q;
        }
    }
    for (uint e = 0; e < 4u; ++e) {
        const uint c = c0 + e;
        if (c >= p.dcols) continue;
        float a = v[e] * p.scale;
        if (p.has_post != 0u) a = a * post[c];
        if (p.has_bias != 0u) a = a + bias[c];
        dst[p.dst_off + ulong(row) * p.dcols + c] = a;
    }
}

// exl3_gemv_k{K}_{cb}_m{M}
//   in:  tiles uint32 [tk, tn, 8·K] (the stored .trellis); buf f32: x [n, tk·16] at element x_off (the rotated
//        input), n ≤ M
//   out: buf f32: y [n, tn·16] at element y_off = x·Ŵ, Ŵ decoded per exl3_decode (x and y must not overlap)
//   grid: tn threadgroups (one per tile column: 16 outputs) of 256 threads; SIMD group g takes the tiles kb = g,
//        g+8, …, its words staged in threadgroup memory; lane l decodes positions 8l..8l+7 (rows 2(l%4)+{0,1,8,9}
//        of columns l/4 and l/4+8) into 2·M fma sums; the column's 4 lanes add theirs (shuffles xor 1, 2), then
//        the 8 SIMD groups theirs in order
//   promise: the reference's f32 weights exactly, f32 sums in this order: tolerance 1e-5 of max|ref|
template <int K, int CB, int M, typename TGU, typename TGF>
inline void exl3_gemv(TGU sw, TGF red, device float* buf, const device uint* tiles, constant EXL3GemvParams& p, uint nb,
                      uint sg, uint lane) {
    const uint nw = 8u * uint(K), in = p.tk * 16u, outs = p.tn * 16u;
    const auto w = sw + sg * 64u;
    float acc[M][2];
    for (uint m = 0; m < uint(M); ++m) acc[m][0] = acc[m][1] = 0.0f;
    for (uint kb = sg; kb < p.tk; kb += 8u) {
        const device uint* t = tiles + (ulong(kb) * p.tn + nb) * nw;
        for (uint i = lane; i < nw; i += 32u) w[i] = t[i];
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint j = 0; j < 8u; ++j) {
            const uint r = (lane & 3u) * 2u + (j & 1u) + 8u * ((j >> 1) & 1u);
            const float wt = exl3_decode<CB>(exl3_state<K>(w, 8u * lane + j));
            for (uint m = 0; m < uint(M); ++m)
                if (m < p.n) acc[m][j >> 2] = fma(wt, buf[p.x_off + ulong(m) * in + kb * 16u + r], acc[m][j >> 2]);
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
    }
    for (uint m = 0; m < uint(M); ++m)
        for (uint h = 0; h < 2u; ++h) {
            float s = acc[m][h];
            s = s + simd_shuffle_xor(s, ushort(1));
            s = s + simd_shuffle_xor(s, ushort(2));
            if ((lane & 3u) == 0u) red[(sg * uint(M) + m) * 16u + (lane >> 2) + 8u * h] = s;
        }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const uint ti = sg * 32u + lane;
    if (ti < uint(M) * 16u) {
        const uint m = ti / 16u, c = ti % 16u;
        if (m < p.n) {
            float s = red[m * 16u + c];
            for (uint g = 1u; g < 8u; ++g) s = s + red[(g * uint(M) + m) * 16u + c];
            buf[p.y_off + ulong(m) * outs + nb * 16u + c] = s;
        }
    }
}

#define EXL3_GEMV(K, CBN, CB, M)                                                                                    \
    kernel void exl3_gemv_k##K##_##CBN##_m##M(                                                                   \
        device float* buf [[buffer(0)]], const device uint* tiles [[buffer(1)]],                                  \
        constant EXL3GemvParams& p [[buffer(2)]], uint3 tg [[threadgroup_position_in_grid]],                      \
        uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {                    \
        threadgroup uint sw[8 * 64];                                                                             \
        threadgroup float red[8 * M * 16];                                                                       \
        exl3_gemv<K, CB, M>(sw, red, buf, tiles, p, tg.x, sg, lane);                                             \
    }
#define EXL3_GEMV_M(K, CBN, CB) EXL3_GEMV(K, CBN, CB, 1) EXL3_GEMV(K, CBN, CB, 2) EXL3_GEMV(K, CBN, CB, 4) EXL3_GEMV(K, CBN, CB, 8)
#define EXL3_GEMV_CB(K) EXL3_GEMV_M(K, 3inst, 0) EXL3_GEMV_M(K, mcg, 1) EXL3_GEMV_M(K, mul1, 2)
EXL3_GEMV_CB(1)
EXL3_GEMV_CB(2)
EXL3_GEMV_CB(3)
EXL3_GEMV_CB(4)
EXL3_GEMV_CB(5)
EXL3_GEMV_CB(6)
EXL3_GEMV_CB(7)
EXL3_GEMV_CB(8)
