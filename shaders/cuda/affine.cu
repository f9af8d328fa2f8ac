// affine.cu: linear layers over MLX affine-quantized weights (docs/trellis-format.md §9, internal/affine) — the
// decode GEMV for 1..8 activation rows (the skeleton of quant.cuh with an affine row codec) and the expansion of
// one layer to a bf16 matrix for prompts (then cuBLASLt). Bits 2, 3, 4, 5, 6, 8; group sizes 32, 64, 128. What it
// leaves out: the factored Σq·x form MLX's own kernels use (it rounds differently from the CPU reference).
// Contracts are repeated in docs/kernels.md; the host side is internal/cuda/trellis.go and quant_select.go.
//
// The instantiation list is appended by the host (internal/cuda/kernels.go): AFFINE_GEMV(name, B, N, R),
// AFFINE_EXPAND(name, B), MOE_AFFINE(name, B) (the routed MoE experts).

// affine_words: the B words of run q (32 values of B bits: exactly B words, 16- or 8-byte aligned when B is a
// multiple of 4 or 2, since a row holds in·B/32 words with in % 32 == 0).
template <int B>
__device__ __forceinline__ void affine_words(const unsigned* __restrict__ w, unsigned* v) {
    if (B % 4 == 0) {
#pragma unroll
        for (int i = 0; i < B / 4; i++) {
            const uint4 t = __ldg((const uint4*)w + i);
            v[4 * i] = t.x, v[4 * i + 1] = t.y, v[4 * i + 2] = t.z, v[4 * i + 3] = t.w;
        }
    } else if (B % 2 == 0) {
#pragma unroll
        for (int i = 0; i < B / 2; i++) {
            const uint2 t = __ldg((const uint2*)w + i);
            v[2 * i] = t.x, v[2 * i + 1] = t.y;
        }
    } else {
#pragma unroll
        for (int i = 0; i < B; i++) v[i] = __ldg(w + i);
    }
}

// affine_q: value j (a compile-time constant after unrolling) of a run's words as an exact f32, through the bits
// of 2^23 (no integer-to-float conversion).
template <int B>
__device__ __forceinline__ float affine_q(const unsigned* v, int j) {
    const int bit = j * B, wi = bit >> 5, off = bit & 31;
    unsigned q = off + B <= 32 ? v[wi] >> off : shf_r(v[wi], v[wi + 1], off);
    q &= (1u << B) - 1u;
    return __uint_as_float(q | 0x4B000000u) - 8388608.0f;
}

// AffineRow: the qgemv_rows codec of one output row: run q's B words and its group's scale and bias.
template <int B>
struct AffineRow {
    struct Words {
        unsigned v[B];
        float s, b; // the run's group scale and bias
    };
    const unsigned* w;
    const float *sc, *bi;
    __device__ __forceinline__ void init(const QGemvParams& p, int row) {
        w = p.W + (long long)row * ((p.in >> 5) * B);
        const long long ng = p.in >> p.shift;
        sc = p.scales + row * ng;
        bi = p.biases + row * ng;
    }
    struct Run {
        int q, g; // the run and its group
    };
    static __device__ __forceinline__ Run run(const QGemvParams& p, int q) { return Run{q, (q << 5) >> p.shift}; }
    __device__ __forceinline__ void load(const Run& ru, Words& d) const {
        affine_words<B>(w + ru.q * B, d.v);
        d.s = __ldg(sc + ru.g);
        d.b = __ldg(bi + ru.g);
    }
    __device__ __forceinline__ float weight(const Words& d, int j) const {
        return __fadd_rn(__fmul_rn(d.s, affine_q<B>(d.v, j)), d.b);
    }
    __device__ __forceinline__ float finish(float acc) const { return acc; }
};

// affine_gemv_b{B}_n{N}_r{R}
//   in:  W uint32 [out, in·B/32] (MLX packing: value i at bits [i·B, (i+1)·B) of the row's little-endian stream),
//        scales, biases f32 [out, in/G] (G = 2^shift ∈ {32, 64, 128}), bias f32 [out] or null, x f32 [nrows, in]
//   out: y f32 [nrows, out] = x·Wᵀ (+ bias)
//   grid, smem, order: qgemv_rows (quant.cuh)
//   promise: every weight is affine.Weights.DecodeRow's bit for bit (f32(scale·q) + bias, no fma), sums in f32:
//            within f32 accumulation-order rounding of the CPU
#define AFFINE_GEMV(name, B, N, R)                                                                              \
    extern "C" __global__ void __launch_bounds__(256) name(const QGemvParams p) { pdl_begin();                  \
        qgemv_rows<AffineRow<B>, N, R, false>(p);                                                               \
    }

// affine_expand_b{B}
//   in:  as affine_gemv; out: dst bf16 [out, in] = bf16(f32(scale·q) + bias) (round to nearest even)
//   grid: grid-stride over (row, run of 32) pairs, 256 threads, consecutive threads on consecutive runs of a row
template <int B>
__device__ __forceinline__ void affine_expand(bf16_t* __restrict__ dst, const QGemvParams& p) {
    const int nq = p.in >> 5;
    const long long total = (long long)p.out * nq;
    for (long long it = (long long)blockIdx.x * blockDim.x + threadIdx.x; it < total; it += (long long)gridDim.x * blockDim.x) {
        const int r = (int)(it / nq), q = (int)(it - (long long)r * nq);
        AffineRow<B> row;
        row.init(p, r);
        typename AffineRow<B>::Words d;
        row.load(AffineRow<B>::run(p, q), d);
        float v[32];
#pragma unroll
        for (int j = 0; j < 32; j++) v[j] = row.weight(d, j);
        uint4* o = (uint4*)(dst + (long long)r * p.in + (q << 5));
#pragma unroll
        for (int k = 0; k < 4; k++) o[k] = pack8(v + 8 * k);
    }
}

#define AFFINE_EXPAND(name, B)                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) name(bf16_t* dst, const QGemvParams p) { pdl_begin();     \
        affine_expand<B>(dst, p);                                                                               \
    }

// moe_affine_b{B} (Experts' routed decode form over affine experts)
//   in:  moe_qgemv (quant.cuh) with Row = AffineRow<B>: Wt, St, Bt device tables of E pointers to the experts'
//        words uint32 [out, in·B/32], f32 scales and biases [out, in/G] (G = 2^shift); Wt2, St2, Bt2 null or
//        the up projection's
//   promise: every weight affine.Weights.DecodeRow's bit for bit, f32 sums (the MatMul/affine decode bound)
#define MOE_AFFINE(name, B)                                                                                     \
    extern "C" __global__ void __launch_bounds__(256) name(MOE_QGEMV_ARGS) { pdl_begin();                      \
        moe_qgemv<AffineRow<B>>(MOE_QGEMV_PASS);                                                                \
    }
