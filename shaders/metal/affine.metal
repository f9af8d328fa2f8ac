// affine.metal: MLX affine-quantized linear layers (4 and 8 bits, groups of 32/64/128) for decode rows.

// affine_gemv_b{B}_m{M}
//   in:  x f32 [n, in] (n ≤ M, in % 32 == 0); words uint32 [out, in·B/32] (MLX packing: q_i at bits i·B of the
//        row); scales, biases f32 [out, in/group]; bias f32 [out] when has_bias
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
            const uint bit = j * uint(B);
            const float qv = float((w[bit / 32u] >> (bit % 32u)) & ((1u << uint(B)) - 1u));
            // Two statements: a compiler contracting within an expression (fp-contract=on) leaves them unfused,
            // so the product is rounded before the add as affine.DecodeRow does.
            const float sq = s * qv;
            const float wt = sq + b;
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
AFFINE_GEMV(4, 1)
AFFINE_GEMV(4, 2)
AFFINE_GEMV(4, 4)
AFFINE_GEMV(4, 8)
AFFINE_GEMV(8, 1)
AFFINE_GEMV(8, 2)
AFFINE_GEMV(8, 4)
AFFINE_GEMV(8, 8)
