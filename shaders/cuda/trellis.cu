// trellis.cu: linear layers over QTIP trellis codes (1MAD computed code; docs/trellis-format.md) — decode GEMVs
// for 1..8 activation rows sharing every decoded weight (axis 1: the skeleton of quant.cuh; axis 0: split-K over
// the coded rows plus a deterministic reduce), and the expansion of one layer to a bf16 matrix for prompts (then
// cuBLASLt), and int8-activation variants of both decode GEMVs (dp4a of the LCG bytes against the activation
// replicated in four bytes: TRELLIS_GEMV_INT, TRELLIS_GEMV_SPLITK_INT), and the tensor-core form of axis 1
// (TRELLIS_MMA: the LCG bytes against int8 activations on mma.m16n8k32, up to three layers a launch, gate/up with
// SwiGLU folded in), and the tensor-core form of axis 0 for decode batches (TRELLIS_MMA_SPLITK: trellis_mma0, split-K).
// What it leaves out: a tensor-core form of prompts. Contracts are repeated in
// docs/kernels.md; the host side is internal/cuda/trellis.go (launch), qmma.go and quant_select.go (selection).
//
// The instantiation list is appended by the host (internal/cuda/kernels.go, from the names quant_select.go
// builds): TRELLIS_GEMV_ROWS(name, K, N, R, VAR, PF), TRELLIS_GEMV_SPLITK(name, K, N, VAR), TRELLIS_GEMV_INT(name,
// K, N, R, U), TRELLIS_GEMV_SPLITK_INT(name, K, N), TRELLIS_MMA(name, K0, K1, N), TRELLIS_MMA_SPLITK(name, K, N, P),
// TRELLIS_EXPAND(name, K), MOE_TRELLIS1(name, K, VAR) (the routed MoE experts), TRELLIS_GEMVG(name, K, BPS, U, W),
// TRELLIS_GEMVM(name, K, BPS, U) (lab);
// PF (prefetch of the next run's words, quant.cuh) is a lab option, off in production. VAR names
// the decode arithmetic (trellis.Variant): 0 Reciprocal — each weight (f32(y)·rcp)·scale, two rounded multiplies,
// the CPU backend's arithmetic (internal/cpu, TrellisVariant) — or 1 Factored — Σ f32(y)·x with the scale applied
// once per output (axis 1) or folded into each input row (axis 0).
//
// Decode of one position (every kernel): state s = the L-bit window at bit (T−1−t)·K of the block's words (the
// window of position t0+j of a lane's piece sits at a compile-time bit of the piece's words, piece_state); 1MAD:
// x = s·34038481 + 76625530, y = (byte sum of x) − 510, computed as one dp4a that adds the four bytes of x onto
// the bits of 1.5·2^23 − 510, then one f32 subtract (trellis_y): y exactly, no integer-to-float conversion.

// trellis_rcp, trellis_value and trellis_y (the 1MAD code of a state) are in code1mad.cuh, shared with viterbi.cu.

// Piece<K, P>: P consecutive positions t0..t0+P−1 of one block (P | 32, t0 % P == 0). Their windows span the bits
// from sb = (T − t0 − P)·K up to (T−1−t0)·K + L of the block; the piece keeps NA words starting at bit sb (aligned
// by one funnel shift per word when sb is not a word boundary, i.e. when P·K % 32 != 0). Position t0+j's window
// then starts at bit (P−1−j)·K of the piece's words. L ≤ 16 fixes NA.
template <int K, int P>
struct Piece {
    static constexpr int NA = ((P - 1) * K + 16 + 31) / 32;
    static constexpr bool ALIGNED = (P * K) % 32 == 0;
    static constexpr int NL = ALIGNED ? NA : NA + 1; // words loaded
};

// piece_state: the (unmasked) window of position j of a piece, j a compile-time constant after unrolling.
template <int K, int P>
__device__ __forceinline__ unsigned piece_state(const unsigned* a, int j) {
    const int bit = (P - 1 - j) * K, wi = bit >> 5, off = bit & 31;
    if (off + 16 <= 32) return a[wi] >> off;
    return shf_r(a[wi], a[wi + 1], off);
}

// TrellisRun: where run q (positions 32q..32q+31) of an axis-1 coded row keeps its K+1 words — words ws..ws+K−1 of
// block b = 32q/T, ws = (T − t0 − 32)·K/32, and word ws+K, which is word 0 of the block for the block's first run
// (t0 = 0: the window of position 0 wraps) — as word offsets in the row.
struct TrellisRun {
    int o, ow;
};
template <int K>
__device__ __forceinline__ TrellisRun trellis_run(int shift, int q) {
    const int pos = q << 5, t0 = pos & ((1 << shift) - 1);
    const int blk = (pos >> shift) * ((K << shift) >> 5);
    const int o = blk + (((1 << shift) - t0) >> 5) * K - K;
    return TrellisRun{o, t0 == 0 ? blk : o + K};
}

// trellis_run_load: the K+1 words of a run (TrellisRun) of the coded row at w.
template <int K>
__device__ __forceinline__ void trellis_run_load(const unsigned* w, TrellisRun ru, unsigned (&a)[K + 1]) {
#pragma unroll
    for (int i = 0; i < K; i++) a[i] = __ldg(w + ru.o + i);
    a[K] = __ldg(w + ru.ow);
}

// TrellisRow: the qgemv_rows codec of one axis-1 coded row (an output row); run q is the piece of P = 32 positions
// 32q.. whose words TrellisRun locates.
template <int K, int VAR>
struct TrellisRow {
    static_assert(Piece<K, 32>::NA == K + 1, "a run of 32 positions spans K+1 words");
    using Run = TrellisRun;
    static __device__ __forceinline__ Run run(const QGemvParams& p, int q) { return trellis_run<K>(p.shift, q); }
    struct Words {
        unsigned a[K + 1];
    };
    const unsigned* w;
    float scale;
    unsigned mask;
    __device__ __forceinline__ void init(const QGemvParams& p, int row) { bind(p.W, p.scales, p.in, p.L, row); }
    __device__ __forceinline__ void bind(const unsigned* W, const float* scales, int in, int L, int row) {
        w = W + (long long)row * ((in >> 5) * K);
        scale = __ldg(scales + row);
        mask = (1u << L) - 1u;
    }
    __device__ __forceinline__ void load(const Run& ru, Words& d) const { trellis_run_load<K>(w, ru, d.a); }
    __device__ __forceinline__ float weight(const Words& d, int j) const {
        const float y = trellis_y(piece_state<K, 32>(d.a, j) & mask);
        return VAR == 0 ? __fmul_rn(__fmul_rn(y, trellis_rcp()), scale) : y;
    }
    __device__ __forceinline__ float finish(float s) const {
        return VAR == 0 ? s : __fmul_rn(s, __fmul_rn(scale, trellis_rcp()));
    }
};

// trellis_gemv1_k{K}_n{N}_r{R}_{rcp|fac}[_pf] (axis 1: q/k/v/o, gate/up)
//   in:  W uint32 [out, in·K/32] (coded rows = outputs, blocks of T = 2^shift positions, T % 32 == 0, L ≤ 16),
//        scales f32 [out], bias f32 [out] or null, x f32 [nrows, in], nrows ≤ N
//   out: y f32 [nrows, out] = x·Wᵀ (+ bias) with W under VAR
//   grid, smem, order: qgemv_rows (quant.cuh)
//   promise: VAR 0 — every weight is trellis.Reciprocal's bit for bit, sums in f32 (fma) in the qgemv_rows order:
//            within f32 accumulation-order rounding of the CPU (internal/cpu); VAR 1 — trellis.Factored's sums.
#define TRELLIS_GEMV_ROWS(name, K, N, R, VAR, PF)                                                               \
    extern "C" __global__ void __launch_bounds__(256) name(const QGemvParams p) { pdl_begin();                  \
        qgemv_rows<TrellisRow<K, VAR>, N, R, PF>(p);                                                            \
    }

// qrun_load: the 32 activations of one run at src (zeros for null) into v, and their max|x|.
__device__ __forceinline__ float qrun_load(float (&v)[32], const float* __restrict__ src) {
    if (src) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            const float4 t = __ldg((const float4*)src + k);
            v[4 * k] = t.x, v[4 * k + 1] = t.y, v[4 * k + 2] = t.z, v[4 * k + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < 32; j++) v[j] = 0.f;
    }
    float mx[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int j = 0; j < 32; j++) mx[j & 3] = fmaxf(mx[j & 3], fabsf(v[j]));
    return fmaxf(fmaxf(mx[0], mx[1]), fmaxf(mx[2], mx[3]));
}

// qstage_i8: positions [c0, c0+len) of the activation rows x [nrows, in] quantized per run of 32 positions (the
// Q8_0 scheme): s = max|x|/127 over the run, a = rint(x·127/max|x|) in [−127, 127], stored as xs[m·cs + q·36 + j] =
// (a & 0xff)·0x01010101 (the activation in all four bytes: dp4a's second operand), xs[m·cs + q·36 + 32] = s (f32
// bits) and [+ 33] = −510·Σa (the 1MAD offset of the run, applied once). One thread per (row, run): eight 16-byte
// loads in flight, no shuffles (the first version, a warp per run with two 5-step shuffle trees, cost ~6 µs a launch
// at in = 5120: docs/perf.md); rows ≥ nrows are zeros. Same values as that version, bit for bit.
// (trellis_gemvg stages its one row with qstage1_i8, which also folds the input norm.)
template <int N>
__device__ __forceinline__ void qstage_i8(unsigned* xs, int cs, const float* __restrict__ x, int in, int nrows, int c0, int len) {
    const int nq = len >> 5;
    for (int i = threadIdx.x; i < N * nq; i += blockDim.x) {
        const int m = i / nq, q = i - m * nq;
        float v[32];
        const float amax = qrun_load(v, m < nrows ? x + (long long)m * in + c0 + 32 * q : nullptr);
        const float f = amax > 0.f ? 127.f / amax : 0.f;
        int sum = 0;
        unsigned* r = xs + m * cs + q * 36;
#pragma unroll
        for (int k = 0; k < 8; k++) {
            unsigned w[4];
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int a = __float2int_rn(v[4 * k + c] * f);
                sum += a;
                w[c] = (unsigned)(a & 0xff) * 0x01010101u;
            }
            *(uint4*)(r + 4 * k) = make_uint4(w[0], w[1], w[2], w[3]);
        }
        *(uint2*)(r + 32) = make_uint2(__float_as_uint(amax * (1.f / 127.f)), (unsigned)(-510 * sum));
    }
}

// qstage1_i8: qstage_i8<1>'s staging of one row (c0 = 0, len = in) with four
// threads a run, eight positions each, so that a block's threads share the work of its 160 runs at in = 5,120
// instead of 160 of them walking 32 positions each: the run's max|x| and Σa meet in two shuffles among the four
// lanes. The int8 values, scales and offsets are qstage_i8's bit for bit (a max and an integer sum do not depend on
// the order). With nw (trellis_gemvg's folded input norm): the values quantized are x·nw (the norm's 1/rms is
// common to every run, so it leaves the int8 values alone and multiplies the sums once, in gemvg_store), and each
// warp's Σx² goes to ssp[warp] for the caller to finish after its __syncthreads. Rounds of the loop are
// warp-uniform (the shuffles need every lane).
__device__ __forceinline__ void qstage1_i8(unsigned* xs, const float* __restrict__ x, int in, const float* __restrict__ nw, float* ssp) {
    const int items = in >> 3; // four a run
    float ss = 0.f;
    for (int base = 0; base < items; base += blockDim.x) {
        const int i = base + threadIdx.x, q = i >> 2, j = i & 3;
        const bool on = i < items;
        float v[8];
        {
            const float4 t0 = on ? __ldg((const float4*)(x + 8 * i)) : make_float4(0.f, 0.f, 0.f, 0.f);
            const float4 t1 = on ? __ldg((const float4*)(x + 8 * i) + 1) : make_float4(0.f, 0.f, 0.f, 0.f);
            v[0] = t0.x, v[1] = t0.y, v[2] = t0.z, v[3] = t0.w, v[4] = t1.x, v[5] = t1.y, v[6] = t1.z, v[7] = t1.w;
        }
        if (nw && on) {
            const float4 w0 = __ldg((const float4*)(nw + 8 * i)), w1 = __ldg((const float4*)(nw + 8 * i) + 1);
            const float w8[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
#pragma unroll
            for (int c = 0; c < 8; c++) {
                ss = fmaf(v[c], v[c], ss);
                v[c] = __fmul_rn(v[c], w8[c]);
            }
        }
        float amax = 0.f;
#pragma unroll
        for (int c = 0; c < 8; c++) amax = fmaxf(amax, fabsf(v[c]));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 1));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 2));
        const float f = amax > 0.f ? 127.f / amax : 0.f;
        int sum = 0;
        unsigned w[8];
#pragma unroll
        for (int c = 0; c < 8; c++) {
            const int a = __float2int_rn(v[c] * f);
            sum += a;
            w[c] = (unsigned)(a & 0xff) * 0x01010101u;
        }
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        if (on) {
            unsigned* r = xs + q * 36;
            *(uint4*)(r + 8 * j) = make_uint4(w[0], w[1], w[2], w[3]);
            *(uint4*)(r + 8 * j + 4) = make_uint4(w[4], w[5], w[6], w[7]);
            if (j == 0) *(uint2*)(r + 32) = make_uint2(__float_as_uint(amax * (1.f / 127.f)), (unsigned)(-510 * sum));
        }
    }
    if (ssp) {
        ss = warp_sum(ss);
        if ((threadIdx.x & 31) == 0) ssp[threadIdx.x >> 5] = ss;
    }
}

// rms_inv: 1/sqrt(Σx²/n + eps) from the W warps' partial sums qstage_i8 left (in warp order: every block of a
// launch computes the same value, and any W gives the same one, the warps past the runs holding zeros),
// rmsnorm_row's inv up to the order of the sum.
template <int W>
__device__ __forceinline__ float rms_inv(const float* ssp, int n, float eps) {
    float ss = 0.f;
#pragma unroll
    for (int w = 0; w < W; w++) ss += ssp[w];
    return 1.0f / sqrtf(ss / (float)n + eps);
}

// rms_store: xn = (x·inv)·w over [0, n) (n % 4 == 0), rmsnorm_row's rounding, by one block.
__device__ __forceinline__ void rms_store(float* xn, const float* __restrict__ x, const float* __restrict__ w, int n, float inv) {
    for (int i = threadIdx.x; i < (n >> 2); i += blockDim.x) {
        const float4 v = __ldg((const float4*)x + i), t = __ldg((const float4*)w + i);
        ((float4*)xn)[i] = make_float4(__fmul_rn(__fmul_rn(v.x, inv), t.x), __fmul_rn(__fmul_rn(v.y, inv), t.y),
                                       __fmul_rn(__fmul_rn(v.z, inv), t.z), __fmul_rn(__fmul_rn(v.w, inv), t.w));
    }
}

// dp4a_us: c + Σ_b byte_b(x) (unsigned) · byte_b(a) (signed).
__device__ __forceinline__ int dp4a_us(unsigned x, unsigned a, int c) {
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(a), "r"(c));
    return d;
}

__device__ __forceinline__ unsigned u4c(const uint4& v, int c) { return c == 0 ? v.x : (c == 1 ? v.y : (c == 2 ? v.z : v.w)); }

// i8_load: the words of U runs of one lane (lq0, lq0 + stride, ...; all < nq) for R weight rows (U·R·(K+1) loads).
template <int K, int R, int U>
__device__ __forceinline__ void i8_load(int shift, const TrellisRow<K, 1>* rw, int q0, int lq0, int stride,
                                        typename TrellisRow<K, 1>::Words (&wd)[U][R]) {
#pragma unroll
    for (int u = 0; u < U; u++) {
        const TrellisRun ru = trellis_run<K>(shift, q0 + lq0 + u * stride);
#pragma unroll
        for (int r = 0; r < R; r++) rw[r].load(ru, wd[u][r]);
    }
}

// i8_dot: per run of i8_load's words and weight row an int32 sum Σ_j bytesum(x_j)·a_j − 510·Σa (one dp4a per
// weight and activation row: the byte sum and the product in one instruction), added to acc as f32(sum)·s_run in
// run order.
template <int K, int N, int R, int U>
__device__ __forceinline__ void i8_dot(const typename TrellisRow<K, 1>::Words (&wd)[U][R], const unsigned* xs, int cs, int lq0,
                                       int stride, unsigned mask, float (&acc)[R][N]) {
    int ia[U][R][N];
#pragma unroll
    for (int u = 0; u < U; u++) {
        const unsigned* xr = xs + (lq0 + u * stride) * 36;
#pragma unroll
        for (int m = 0; m < N; m++) {
            const int off = (int)xr[m * cs + 33];
#pragma unroll
            for (int r = 0; r < R; r++) ia[u][r][m] = off;
        }
    }
#pragma unroll
    for (int j4 = 0; j4 < 8; j4++) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const unsigned* xr = xs + (lq0 + u * stride) * 36;
            uint4 xv[N];
#pragma unroll
            for (int m = 0; m < N; m++) xv[m] = *(const uint4*)(xr + m * cs + 4 * j4);
#pragma unroll
            for (int c = 0; c < 4; c++) {
#pragma unroll
                for (int r = 0; r < R; r++) {
                    const unsigned x = (piece_state<K, 32>(wd[u][r].a, 4 * j4 + c) & mask) * 34038481u + 76625530u;
#pragma unroll
                    for (int m = 0; m < N; m++) ia[u][r][m] = dp4a_us(x, u4c(xv[m], c), ia[u][r][m]);
                }
            }
        }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        const unsigned* xr = xs + (lq0 + u * stride) * 36;
#pragma unroll
        for (int m = 0; m < N; m++) {
            const float s = __uint_as_float(xr[m * cs + 32]);
#pragma unroll
            for (int r = 0; r < R; r++) acc[r][m] = fmaf((float)ia[u][r][m], s, acc[r][m]);
        }
    }
}

// i8_runs: U runs of one lane, their words loaded first (U·R·(K+1) loads in flight), then their sums (i8_dot).
template <int K, int N, int R, int U>
__device__ __forceinline__ void i8_runs(int shift, const TrellisRow<K, 1>* rw, const unsigned* xs, int cs, int q0, int lq0,
                                        int stride, unsigned mask, float (&acc)[R][N]) {
    typename TrellisRow<K, 1>::Words wd[U][R];
    i8_load<K, R, U>(shift, rw, q0, lq0, stride, wd);
    i8_dot<K, N, R, U>(wd, xs, cs, lq0, stride, mask, acc);
}

// trellis_gemv1_k{K}_n{N}_r{R}_i8u{U} (axis 1, int8 activations: the default decode form unless exact or
// MLXBUN_CUDA_QGEMV_I8=0; quant_select.go)
//   in, out: as trellis_gemv1 (Factored: the row scale·rcp applied once per output)
//   grid, smem: qgemv_rows's (256 threads, 8/ks row groups of R rows, N·(chunk/32)·36 words staged per pass)
//   order: per lane, per run an exact int32 sum (|sum| ≤ 32·1020·127 + 510·32·127), f32 fma of sum·s_run in run
//          order, warp tree sum, ks parts in order: deterministic for a given launch shape
//   promise: each activation replaced by its int8 value per run of 32 (qstage_i8: relative error ≤ 1/254 of the
//            run's max|x|), weights trellis.Factored's exactly; verify bound 1e-2 of max|ref| (MatMul/trellis/i8)
template <int K, int N, int R, int U>
__device__ __forceinline__ void trellis_gemv1_i8(const QGemvParams& p) {
    extern __shared__ float4 qsm[];
    unsigned* xs = (unsigned*)qsm;
    __shared__ float red[8][R][N];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int ks = p.ks, gpb = 8 / ks, grp = warp / ks, part = warp - grp * ks;
    const int rpb = gpb * R;
    const int ngroups = (p.out + rpb - 1) / rpb;
    const int chunk = p.chunk, cs = (chunk >> 5) * 36;
    const bool once = chunk >= p.in;
    const unsigned mask = (1u << p.L) - 1u;
    if (once) {
        qstage_i8<N>(xs, cs, p.x, p.in, p.nrows, 0, p.in);
        __syncthreads();
    }
    for (int g = blockIdx.x; g < ngroups; g += gridDim.x) {
        const int row0 = g * rpb + grp * R;
        TrellisRow<K, 1> rw[R];
#pragma unroll
        for (int r = 0; r < R; r++) rw[r].init(p, min(row0 + r, p.out - 1));
        float acc[R][N];
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int m = 0; m < N; m++) acc[r][m] = 0.f;
        for (int c0 = 0; c0 < p.in; c0 += chunk) {
            const int len = min(chunk, p.in - c0);
            if (!once) {
                __syncthreads();
                qstage_i8<N>(xs, cs, p.x, p.in, p.nrows, c0, len);
                __syncthreads();
            }
            const int q0 = c0 >> 5, nq = len >> 5, stride = 32 * ks;
            int lq = part * 32 + lane;
            for (; lq + (U - 1) * stride < nq; lq += U * stride) i8_runs<K, N, R, U>(p.shift, rw, xs, cs, q0, lq, stride, mask, acc);
            if (U > 1)
                for (; lq < nq; lq += stride) i8_runs<K, N, R, 1>(p.shift, rw, xs, cs, q0, lq, stride, mask, acc);
        }
        qgemv_finish<N, R>(p, rw, acc, red, warp, lane, part, ks, row0);
    }
}

// One row: __launch_bounds__(256, 4), four blocks per SM (the grid cap, qShapes) resident: ≤ 64 registers.
#define TRELLIS_GEMV_INT(name, K, N, R, U)                                                                       \
    extern "C" __global__ void __launch_bounds__(256, (N) == 1 ? 4 : 1) name(const QGemvParams p) { pdl_begin(); \
        trellis_gemv1_i8<K, N, R, U>(p);                                                                        \
    }

// QMmaSeg: one linear of a multi-layer launch (trellis_gemvg, trellis_mma). Mirrored by qmmaSeg in
// internal/cuda/qmma.go.
struct QMmaSeg {
    const unsigned* W;     // 0: packed words [out, in·K/32]
    const float* scales;   // 8: [out]
    const float* bias;     // 16: [out] or null
    float* y;              // 24: [nrows, out]
    int out;               // 32
    int tile0;             // 36: the segment's first tile or unit (SwiGLU: unused)
};                         // 40 bytes

// qmma_seg_of: segment i (0..2) of a launch's parameters, without indexing the array by a run-time value.
template <class P>
__device__ __forceinline__ QMmaSeg qmma_seg_of(const P& p, int i) { return i == 0 ? p.seg[0] : (i == 1 ? p.seg[1] : p.seg[2]); }

// ---- One-row grouped form (trellis_gemvg): the layers on one input in one launch, units taken from a counter ----
//
// QGroupParams: one trellis_gemvg launch — up to three axis-1 layers on the same x (q, k, v; gate, up), or gate and
// up with SwiGLU folded in. Its segments are QMmaSeg (tile0: the segment's first unit). Mirrored by qgroupParams in
// internal/cuda/qmma.go; TestQGroupParamsLayout checks sizes and offsets.
struct QGroupParams {
    QMmaSeg seg[3];        // 0
    const float* x;        // 120: f32 [1, in]
    float* h;              // 128: SwiGLU output [seg[0].out], or null
    int* ctr;              // 136: two counters, zero before and after every launch (units taken, warps done)
    int nseg;              // 144
    int in;                // 148: a multiple of 32, in·36/32 words of shared memory
    int shift;             // 152: log2 T
    int L;                 // 156
    int nunits;            // 160
    float eps;             // 164: the folded norm's epsilon (with normw)
    const float* normw;    // 168: f32 [in], or null: x is RMSNorm'd with this weight before its quantization
    float* xn;             // 176: with normw, RMSNorm's output f32 [1, in] (written by block 0), or null
    const float* res;      // 184: f32 [seg[0].out], or null: added to seg 0's outputs (y may be res; no SwiGLU)
};                         // 192 bytes

// gemvg_unit: which rows unit u multiplies — gate row u and up row u (SwiGLU), else rows 2v, 2v+1 of the segment
// holding u (v = u − tile0; the second is clamped to the last row, and not stored, for an odd out).
__device__ __forceinline__ void gemvg_unit(const QGroupParams& p, int u, int& si, int& r0, int& r1) {
    if (p.h) {
        si = 0, r0 = u, r1 = u;
        return;
    }
    si = (p.nseg > 2 && u >= p.seg[2].tile0) ? 2 : ((p.nseg > 1 && u >= p.seg[1].tile0) ? 1 : 0);
    r0 = 2 * (u - qmma_seg_of(p, si).tile0), r1 = r0 + 1;
}

// gemvg_segs: unit u's rows and their segments — gemvg_unit's rows; SwiGLU's gate and up directly (no segment
// search: a select over seg[] by a run-time index costs ~30 instructions a unit in the finish).
__device__ __forceinline__ void gemvg_segs(const QGroupParams& p, int u, QMmaSeg& s0, QMmaSeg& s1, int& r0, int& r1) {
    if (p.h) {
        s0 = p.seg[0], s1 = p.seg[1], r0 = u, r1 = u;
        return;
    }
    int si;
    gemvg_unit(p, u, si, r0, r1);
    s0 = qmma_seg_of(p, si), s1 = s0;
}

// gemvg_prefetch: unit u's two weight rows asked into L2 (read-only weights: allowed before the dependency wait).
template <int K>
__device__ __forceinline__ void gemvg_prefetch(const QGroupParams& p, int u, int nq) {
    QMmaSeg s0, s1;
    int r0, r1;
    gemvg_segs(p, u, s0, s1, r0, r1);
    const unsigned rowBytes = (unsigned)nq * K * 4;
    l2_prefetch(s0.W + (long long)r0 * nq * K, rowBytes);
    l2_prefetch(s1.W + (long long)min(r1, s1.out - 1) * nq * K, rowBytes);
}

// gemvg_bind: the codecs of unit (r0, r1)'s rows (the second clamped to the last row for an odd out).
template <int K>
__device__ __forceinline__ void gemvg_bind(const QGroupParams& p, TrellisRow<K, 1> (&rw)[2], const QMmaSeg& s0, const QMmaSeg& s1, int r0, int r1) {
    rw[0].bind(s0.W, s0.scales, p.in, p.L, r0);
    rw[1].bind(s1.W, s1.scales, p.in, p.L, min(r1, s1.out - 1));
}

// gemvg_store: pair (r0, r1)'s sums a0, a1 (over the whole input, before the folded norm's 1/rms) finished and
// stored (and h for SwiGLU); lane 0 only. inv: the folded norm's 1/rms, which multiplies the sums (1 without a norm:
// exact).
template <int K>
__device__ __forceinline__ void gemvg_store(const QGroupParams& p, const TrellisRow<K, 1> (&rw)[2], float a0, float a1, const QMmaSeg& s0,
                                            const QMmaSeg& s1, int r0, int r1, float inv) {
    a0 = __fmul_rn(a0, inv), a1 = __fmul_rn(a1, inv);
    const float y0 = __fadd_rn(rw[0].finish(a0), s0.bias ? __ldg(s0.bias + r0) : 0.f);
    s0.y[r0] = p.res ? __fadd_rn(p.res[r0], y0) : y0; // MatMulAdd: Add(y, res, t) after the product, in place
    if (r1 < s1.out) {
        const float y1 = __fadd_rn(rw[1].finish(a1), s1.bias ? __ldg(s1.bias + r1) : 0.f);
        s1.y[r1] = p.res ? __fadd_rn(p.res[r1], y1) : y1;
        if (p.h) p.h[r0] = silu_mul(y0, y1);
    }
}

// gemvg_finish: unit u's lane sums reduced over the warp and stored. The unit's rows and codecs are found again
// here rather than kept in registers through the unit's loop.
template <int K>
__device__ __forceinline__ void gemvg_finish(const QGroupParams& p, float (&acc)[2][1], int u, int lane, float inv) {
    const float a0 = warp_sum(acc[0][0]), a1 = warp_sum(acc[1][0]);
    if (lane != 0) return;
    QMmaSeg s0, s1;
    int r0, r1;
    gemvg_segs(p, u, s0, s1, r0, r1);
    TrellisRow<K, 1> rw[2];
    gemvg_bind(p, rw, s0, s1, r0, r1);
    gemvg_store(p, rw, a0, a1, s0, s1, r0, r1, inv);
}

// gemvg_done: the last warp of the grid to finish (every warp has taken its last unit) zeroes the counters.
__device__ __forceinline__ void gemvg_done(const QGroupParams& p, int lane, int nwarps) {
    if (lane == 0 && atomicAdd(p.ctr + 1, 1) == nwarps - 1) {
        p.ctr[0] = 0;
        p.ctr[1] = 0;
    }
}

// trellis_gemvg_k{K} (axis 1, one activation row, int8 activations: one-row layers sharing their input when
//   the tuning table's gemv_group is on; qmma.go)
//   in:  seg[0..nseg) trellis layers of coded axis 1 (K-bit, blocks of T = 2^shift, L ≤ 16) on x f32 [1, in]
//   out: each seg's y f32 [1, out] = x·Wᵀ (+ bias); with h: seg 0 = gate, seg 1 = up (same out), both written and
//        h = silu_mul(gate, up)
//   units: two rows each (SwiGLU: gate row u and up row u; else consecutive rows of one segment); warp w of
//          block b takes unit w·G + b first (G blocks: a launch of fewer units than warps, as o and q/k/v at one
//          32-warp block an SM, spreads them over every SM instead of filling the first blocks and leaving the
//          rest idle), then the units a shared counter hands out (p.ctr[0], the next one fetched
//          while the current one computes), so the grid's warps finish within about one unit of each other
//          whatever the row counts; the last warp to finish zeroes the counters for the next launch. (Units of a
//          slice of the rows, their sums finished by the last slice to arrive, measured slower at every split:
//          docs/perf.md, tenth session.)
//   grid: blocks of W = 8 warps (at most four per SM) or of 32 (one per SM), activations quantized once per block
//         (qstage_i8's values: each SM's blocks read x, and normw, from L2 once each)
//   order: per lane and unit the i8_runs sums of the one-row int8 form (U at a time), a warp tree sum, finish (scale·rcp)
//          and bias: each output the same for any grid and any order the counter hands out units in
//   folded (the fused ops of internal/backend/fused.go): with normw, x is RMSNorm(x, normw, eps): every block
//          quantizes x·normw and sums x² in the same pass (qstage_i8), and its sums are multiplied by 1/rms (the
//          int8 values of a run do not depend on it); block 0 writes the norm to xn as rmsnorm_row rounds it:
//          NormMatMulGroup, NormGateUpSwiGLU. With res, seg 0's y = res + (its output), rounded as Add: MatMulAdd.
//          (The first version, a separate pass for Σx² before the staging, cost ~3.4 µs a launch on the H200,
//          2026-12-03: as much as the add_rmsnorm launch it removed.)
//   promise: as trellis_gemv1_i8 (MatMul/trellis/i8 bound 1e-2 of max|ref|); h as swiglu of the stored y
template <int K, int U>
__device__ __forceinline__ void gemvm_rounds(int shift, const TrellisRow<K, 1> (&rw)[2], const unsigned* xs, int nq, int q0, unsigned mask,
                                             int lane, float (&acc)[2][1]);
__device__ __forceinline__ void qstage_i8_g4(unsigned* xs, const float* __restrict__ x, int in);

// gemvg_lane_step: NU runs of the unit's two rows at a lane's pointers pa, pl (words at immediate offsets, run u
// of them 32·K words on) and activations xr, loaded at once, then summed (i8_dot); the pointers step past them.
template <int K, int NU>
__device__ __forceinline__ void gemvg_lane_step(const unsigned* (&pa)[2], const unsigned* (&pl)[2], const unsigned*& xr, int cs, unsigned mask,
                                                float (&acc)[2][1]) {
    typename TrellisRow<K, 1>::Words wd[NU][2];
#pragma unroll
    for (int u = 0; u < NU; u++) {
#pragma unroll
        for (int r = 0; r < 2; r++) {
#pragma unroll
            for (int i = 0; i < K; i++) wd[u][r].a[i] = __ldg(pa[r] + u * 32 * K + i);
            wd[u][r].a[K] = __ldg(pl[r] + u * 32 * K);
        }
    }
    i8_dot<K, 1, 2, NU>(wd, xr, cs, 0, 32, mask, acc);
#pragma unroll
    for (int r = 0; r < 2; r++) pa[r] += 32 * K * NU, pl[r] += 32 * K * NU;
    xr += 32 * 36 * NU;
}

// gemvg_lane_runs: a unit's sums over the lane's runs lane, lane + 32, ... (U at a time, then two, then one at a
// time), as i8_runs sums them, where T divides 1024 (shift ≤ 10): run q + 32 then sits at run q's position in its
// block, 32·K words on (both words of TrellisRun step by 32·K), so two pointers a row set once a unit step through
// the runs with immediate offsets — the per-run trellis_run and 64-bit address arithmetic of i8_runs (~0.45 SASS
// instructions a weight, NVRTC 11.8 sm_90: 628 → ~568 a U = 2 round at K = 3) leave the loop. lr: trellis_run of
// run lane. The byte offsets are formed unsigned (no sign extension): every offset of a row is below 2^30 bytes.
template <int K, int U>
__device__ __forceinline__ void gemvg_lane_runs(const TrellisRow<K, 1> (&rw)[2], TrellisRun lr, const unsigned* xs, int cs, int nq, int lane,
                                                unsigned mask, float (&acc)[2][1]) {
    const unsigned *pa[2], *pl[2];
#pragma unroll
    for (int r = 0; r < 2; r++) {
        pa[r] = (const unsigned*)((const char*)rw[r].w + (unsigned long long)((unsigned)lr.o * 4u));
        pl[r] = (const unsigned*)((const char*)rw[r].w + (unsigned long long)((unsigned)lr.ow * 4u));
    }
    const unsigned* xr = xs + lane * 36;
    int lq = lane;
    for (; lq + 32 * (U - 1) < nq; lq += 32 * U) gemvg_lane_step<K, U>(pa, pl, xr, cs, mask, acc);
    if (U > 2 && lq + 32 < nq) { // two more runs at once (U 3 of a lane's five: 3, 2 rather than 3, 1, 1)
        gemvg_lane_step<K, 2>(pa, pl, xr, cs, mask, acc);
        lq += 64;
    }
    if (U > 1)
        for (; lq < nq; lq += 32) gemvg_lane_step<K, 1>(pa, pl, xr, cs, mask, acc);
}

// gemvg_stage: the activations of a trellis_gemvg block staged (after the dependency wait) and, with the folded
// norm, its 1/rms (block 0 writes the norm to xn); ssp: the block's W floats of shared memory.
template <int W, bool MMA>
__device__ __forceinline__ float gemvg_stage(const QGroupParams& p, unsigned* xs, float* ssp) {
    if constexpr (MMA) qstage_i8_g4(xs, p.x, p.in); // no folded norm (the host keeps normw null)
    else qstage1_i8(xs, p.x, p.in, p.normw, p.normw ? ssp : nullptr);
    __syncthreads();
    float inv = 1.f;
    if (!MMA && p.normw) {
        inv = rms_inv<W>(ssp, p.in, p.eps);
        if (blockIdx.x == 0 && p.xn) rms_store(p.xn, p.x, p.normw, p.in, inv);
    }
    return inv;
}

// MMA: the lab's tensor-core form of the same launch (trellis_gemvm, below). W warps a block (8, or 32: one block
// an SM stages the activations once for all its warps).
template <int K, int U, bool MMA, int W>
__device__ __forceinline__ void trellis_gemvg(const QGroupParams& p) {
    extern __shared__ float4 qsm[];
    unsigned* xs = (unsigned*)qsm;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nwarps = gridDim.x * W, nq = p.in >> 5, cs = nq * 36, rounds = (nq + 31) >> 5;
    const unsigned mask = (1u << p.L) - 1u;
    int u = warp * gridDim.x + blockIdx.x;
    if (lane == 0 && u < p.nunits) gemvg_prefetch<K>(p, u, nq); // weights only before the dependency wait
    pdl_begin();
    __shared__ float ssp[W];
    const float inv = gemvg_stage<W, MMA>(p, xs, ssp);
    const TrellisRun lr = trellis_run<K>(p.shift, lane); // the lane's first run (gemvg_lane_runs)
    while (u < p.nunits) {
        int next = 0;
        if (lane == 0) next = atomicAdd(p.ctr, 1);
        TrellisRow<K, 1> rw[2];
        {
            QMmaSeg s0, s1;
            int r0, r1;
            gemvg_segs(p, u, s0, s1, r0, r1);
            gemvg_bind(p, rw, s0, s1, r0, r1);
        }
        float acc[2][1] = {{0.f}, {0.f}};
        if constexpr (MMA) { // warp-uniform bounds: the MMAs need all 32 lanes
            int r = 0;
            for (; r + U <= rounds; r += U) gemvm_rounds<K, U>(p.shift, rw, xs, nq, 32 * r, mask, lane, acc);
            for (; r < rounds; r++) gemvm_rounds<K, 1>(p.shift, rw, xs, nq, 32 * r, mask, lane, acc);
        } else if (p.shift <= 10) {
            gemvg_lane_runs<K, U>(rw, lr, xs, cs, nq, lane, mask, acc);
        } else {
            int lq = lane;
            for (; lq + 32 * (U - 1) < nq; lq += 32 * U) i8_runs<K, 1, 2, U>(p.shift, rw, xs, cs, 0, lq, 32, mask, acc);
            if (U > 1)
                for (; lq < nq; lq += 32) i8_runs<K, 1, 2, 1>(p.shift, rw, xs, cs, 0, lq, 32, mask, acc);
        }
        gemvg_finish<K>(p, acc, u, lane, inv);
        u = __shfl_sync(0xffffffffu, next, 0) + nwarps;
    }
    gemvg_done(p, lane, nwarps);
}

// trellis_gemvg_k{K}_pf: trellis_gemvg with each lane's words one run ahead — run i+1's words (or, at a unit's
//   last run, the first run of the unit after it, whose number the counter handed out one unit earlier) are
//   loaded before run i's arithmetic, so every load has a run's worth of work to arrive in. Same contract,
//   same sums in the same order. The first unit's first words are loaded before the dependency wait.
template <int K>
__device__ __forceinline__ void trellis_gemvg_pf(const QGroupParams& p) {
    using Words = typename TrellisRow<K, 1>::Words;
    extern __shared__ float4 qsm[];
    unsigned* xs = (unsigned*)qsm;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nwarps = gridDim.x * 8, nq = p.in >> 5, cs = nq * 36;
    const unsigned mask = (1u << p.L) - 1u;
    int u = warp * gridDim.x + blockIdx.x; // as trellis_gemvg
    TrellisRow<K, 1> rw[2];
    int si = 0, r0 = 0, r1 = 0;
    Words nxt[1][2];
    if (u < p.nunits) { // weights only before the dependency wait
        gemvg_unit(p, u, si, r0, r1);
        const QMmaSeg s0 = qmma_seg_of(p, si), s1 = p.h ? p.seg[1] : s0;
        rw[0].bind(s0.W, s0.scales, p.in, p.L, r0);
        rw[1].bind(s1.W, s1.scales, p.in, p.L, min(r1, s1.out - 1));
        if (lane < nq) i8_load<K, 2, 1>(p.shift, rw, 0, lane, 32, nxt);
    }
    pdl_begin();
    qstage_i8<1>(xs, cs, p.x, p.in, 1, 0, p.in);
    __syncthreads();
    int un = 0; // the unit after u, fetched one unit ahead
    if (u < p.nunits) {
        if (lane == 0) un = atomicAdd(p.ctr, 1);
        un = __shfl_sync(0xffffffffu, un, 0) + nwarps;
    }
    while (u < p.nunits) {
        int after = 0;
        if (lane == 0 && un < p.nunits) after = atomicAdd(p.ctr, 1);
        const QMmaSeg s0 = qmma_seg_of(p, si), s1 = p.h ? p.seg[1] : s0;
        int sn = 0, n0 = 0, n1 = 0;
        TrellisRow<K, 1> rn[2];
        if (un < p.nunits) {
            gemvg_unit(p, un, sn, n0, n1);
            const QMmaSeg t0 = qmma_seg_of(p, sn), t1 = p.h ? p.seg[1] : t0;
            rn[0].bind(t0.W, t0.scales, p.in, p.L, n0);
            rn[1].bind(t1.W, t1.scales, p.in, p.L, min(n1, t1.out - 1));
        }
        float acc[2][1] = {{0.f}, {0.f}};
        for (int lq = lane; lq < nq; lq += 32) {
            Words cur[1][2];
            cur[0][0] = nxt[0][0], cur[0][1] = nxt[0][1];
            if (lq + 32 < nq) i8_load<K, 2, 1>(p.shift, rw, 0, lq + 32, 32, nxt);
            else if (un < p.nunits && lane < nq) i8_load<K, 2, 1>(p.shift, rn, 0, lane, 32, nxt);
            i8_dot<K, 1, 2, 1>(cur, xs, cs, lq, 32, mask, acc);
        }
        gemvg_finish<K>(p, acc, u, lane, 1.f);
        u = un, si = sn, r0 = n0, r1 = n1, rw[0] = rn[0], rw[1] = rn[1];
        if (u < p.nunits) un = __shfl_sync(0xffffffffu, after, 0) + nwarps;
    }
    gemvg_done(p, lane, nwarps);
}

// BPS blocks per SM of W warps (4 × 8 or 1 × 32: ≤ 64 registers a thread, as the one-row int8 form), U runs a lane
// loads at once.
#define TRELLIS_GEMVG(name, K, BPS, U, W)                                                                        \
    extern "C" __global__ void __launch_bounds__(32 * (W), BPS) name(const QGroupParams p) { trellis_gemvg<K, U, false, W>(p); }
#define TRELLIS_GEMVG_PF(name, K)                                                                                \
    extern "C" __global__ void __launch_bounds__(256, 4) name(const QGroupParams p) { trellis_gemvg_pf<K>(p); }

// ---- Tensor-core form (trellis_mma): int8 activations against the LCG bytes on mma.m16n8k32 ----
//
// In the 1MAD code a weight is y = (sum of the four bytes of x) − 510, x = s·34038481 + 76625530 (s the masked
// state). mma.m16n8k32 with u8 A and s8 B multiplies 16×32 bytes by 32×8: put the four bytes of one weight's x in
// four consecutive k-entries of A and the weight's int8 activation in the same four k-entries of B (replicated, as
// the dp4a forms hold it) and the tensor core forms Σ bytesum(x)·a for 16 rows × 8 weights × 8 columns in one
// instruction. A lane then spends three integer instructions per weight (window, mask, multiply-add) and a quarter
// MMA; the byte sums, products and sums cost nothing, and columns 2..8 (batch rows) ride along for free.
//
// Fragments (PTX ISA, m16n8k32 .u8/.s8): lane = 4·g + t; A registers a0, a1, a2, a3 hold bytes k = 4t..4t+3 of row
// g, of row g+8, bytes k = 16+4t.. of row g, of row g+8; B registers b0, b1 bytes k = 4t.., 16+4t.. of column g; C
// c0, c1 rows g, columns 2t, 2t+1; c2, c3 row g+8. The order of k is free as long as A and B agree: here k-slot t
// (bytes 4t..4t+3) is position 2s of run t of the current group of four runs, k-slot 4+t position 2s+1, so each
// lane decodes whole runs (a run's K+1 words, loaded as the dp4a forms do) of rows g and g+8: 16 MMA steps s a run.

// QMmaParams: one trellis_mma launch (up to three linears on the same x — q, k, v
// or gate, up — or gate and up fused with SwiGLU). Mirrored by qmmaParams in internal/cuda/qmma.go;
// TestQMmaParamsLayout checks sizes and offsets.
struct QMmaParams {
    QMmaSeg seg[3];        // 0
    const float* x;        // 120: f32 [nrows, in]
    float* h;              // 128: SwiGLU output [nrows, seg[0].out], or null
    int nseg;              // 136
    int in;                // 140: a multiple of 128
    int shift;             // 144: log2 T
    int L;                 // 148
    int nrows;             // 152: 1..N
    int ks;                // 156: warps sharing one tile's run groups (1, 2, 4, 8)
    int chunk;             // 160: positions staged per pass (a multiple of 128)
    int ntiles;            // 164: tiles of the launch (32 rows each; SwiGLU: 16 rows of gate and of up)
};                         // 168 bytes

// qstage_g128: positions [c0, c0+len) of x [nrows, in] quantized to int8 per group of 128 positions (four runs):
// s = max|x|/127 over the group, a = rint(x·127/max|x|), stored replicated in four bytes at xs[m·cs + G·144 + r·34
// + j] (group G, run r of it, position j; runs 34 words apart so the lanes' 8-byte B loads of four runs fall in
// distinct banks), s at [G·144 + 136] and −510·Σa at [+ 137]. One thread per (row, run); the four threads of a
// group are four consecutive lanes and meet by shuffles. Rows ≥ nrows are zeros. len % 128 == 0.
template <int N>
__device__ __forceinline__ void qstage_g128(unsigned* xs, int cs, const float* __restrict__ x, int in, int nrows, int c0, int len) {
    const int nq = len >> 5, total = N * nq;
    for (int base = 0; base < total; base += blockDim.x) { // uniform trip count: every lane reaches the shuffles
        const int i = base + threadIdx.x;
        const bool ok = i < total;
        const int m = ok ? i / nq : 0, q = ok ? i - m * nq : 0;
        float v[32];
        float amax = qrun_load(v, ok && m < nrows ? x + (long long)m * in + c0 + 32 * q : nullptr);
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 1));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 2));
        const float f = amax > 0.f ? 127.f / amax : 0.f;
        int sum = 0;
        unsigned* r = xs + m * cs + (q >> 2) * 144 + (q & 3) * 34;
#pragma unroll
        for (int k = 0; k < 16; k++) {
            const int a0 = __float2int_rn(v[2 * k] * f), a1 = __float2int_rn(v[2 * k + 1] * f);
            sum += a0 + a1;
            if (ok) *(uint2*)(r + 2 * k) = make_uint2((unsigned)(a0 & 0xff) * 0x01010101u, (unsigned)(a1 & 0xff) * 0x01010101u);
        }
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        if (ok && (q & 3) == 0)
            *(uint2*)(xs + m * cs + (q >> 2) * 144 + 136) = make_uint2(__float_as_uint(amax * (1.f / 127.f)), (unsigned)(-510 * sum));
    }
}

// mma_u8s8: c += A·B on mma.m16n8k32 (u8 A, s8 B, s32 accumulators).
__device__ __forceinline__ void mma_u8s8(int (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// lcg_x: the 1MAD LCG output of position j of a run's words (its four bytes are the weight's k-entries).
template <int K>
__device__ __forceinline__ unsigned lcg_x(const unsigned (&a)[K + 1], int j, unsigned mask) {
    return (piece_state<K, 32>(a, j) & mask) * 34038481u + 76625530u;
}

__device__ __forceinline__ QMmaSeg qmma_seg(const QMmaParams& p, int i) { return qmma_seg_of(p, i); }

// MmaRows: the two coded rows (g and g+8 of a 16-row m-tile) a lane decodes, and their words of the current run.
template <int K>
struct MmaRows {
    const unsigned* w[2];
    unsigned a[2][K + 1];
    __device__ __forceinline__ void bind(const QMmaSeg& s, int in, int row) {
        const long long wpr = (long long)(in >> 5) * K;
        w[0] = s.W + min(row, s.out - 1) * wpr;
        w[1] = s.W + min(row + 8, s.out - 1) * wpr;
    }
    __device__ __forceinline__ void load(int shift, int q) {
        const TrellisRun ru = trellis_run<K>(shift, q);
        trellis_run_load<K>(w[0], ru, a[0]);
        trellis_run_load<K>(w[1], ru, a[1]);
    }
};

// trellis_mma_k{K0}{K1}_n{N} (axis 1; n ≤ N activation rows, N ≤ 8 or 16; int8-activation layers with
// in % 128 == 0, qmma.go; N 16 for prompt chunks of 9..16 rows: each weight decoded once for two n-fragments)
//   in:  seg[0..nseg) trellis layers of coded axis 1 on the same x f32 [nrows, in], T = 2^shift, L ≤ 16
//   out: each seg's y f32 [nrows, out] = x·Wᵀ (+ bias); with h: gate = seg 0, up = seg 1 (same out), both written
//        and h = silu_mul(gate, up) (swiglu's arithmetic)
//   tiles: 32 rows — m-tile 0 (K0) rows 32i..32i+15 and m-tile 1 (K1 = K0) rows 32i+16.. of one segment; SwiGLU:
//          m-tile 0 gate rows 16i.., m-tile 1 (K1, may differ) the same up rows
//   grid: 256 threads = 8 warps = 8/ks tiles, the ks warps of a tile taking its groups of 128 positions in turn
//         (part, part + ks, ...); blocks stride over tile groups, activations staged once per block (chunk ≥ in)
//         or per pass; smem N·(chunk/128·144 + 8) words
//   order: per lane and group an exact int32 sum (MMA), plus −510·Σa, times the group's s in f32 (fma) in group
//          order; the ks parts added in order; finish (scale·rcp) and bias: deterministic for a launch shape
//   promise: activations int8 per group of 128 (relative error ≤ 1/254 of the group's max|x|), weights as
//            trellis.Factored exactly; verify bound 1e-2 of max|ref| (MatMul/trellis/mma)
template <int K0, int K1, int N>
__device__ __forceinline__ void trellis_mma(const QMmaParams& p) {
    extern __shared__ float4 qsm[];
    unsigned* xs = (unsigned*)qsm;
    constexpr int NF = (N + 7) / 8; // n-fragments: activation rows 8f..8f+7 (N 16: two MMAs per A fragment)
    __shared__ float red[8][8 * NF][32];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int ks = p.ks, gpb = 8 / ks, grp = warp / ks, part = warp - grp * ks;
    const int chunk = p.chunk, cs = (chunk >> 7) * 144 + 8;
    const bool once = chunk >= p.in, glu = p.h != nullptr;
    const unsigned mask = (1u << p.L) - 1u;
    int bcol[NF], col0[NF], col1[NF];
#pragma unroll
    for (int f = 0; f < NF; f++) {
        bcol[f] = min(8 * f + g, N - 1) * cs;                       // B column g of fragment f: activation row 8f + g
        col0[f] = min(8 * f + 2 * t, N - 1), col1[f] = min(8 * f + 2 * t + 1, N - 1); // the columns of this lane's C
    }
    if (once) {
        qstage_g128<N>(xs, cs, p.x, p.in, p.nrows, 0, p.in);
        __syncthreads();
    }
    for (int tg = blockIdx.x; tg * gpb < p.ntiles; tg += gridDim.x) {
        const int tile = tg * gpb + grp;
        const bool live = tile < p.ntiles;
        int si = 0;
        if (!glu && p.nseg > 1 && tile >= p.seg[1].tile0) si = 1;
        if (!glu && p.nseg > 2 && tile >= p.seg[2].tile0) si = 2;
        const QMmaSeg s0 = qmma_seg(p, si), s1 = glu ? p.seg[1] : s0;
        const int rb0 = glu ? tile * 16 : (tile - s0.tile0) * 32, rb1 = glu ? rb0 : rb0 + 16;
        MmaRows<K0> m0;
        MmaRows<K1> m1;
        m0.bind(s0, p.in, rb0 + g);
        m1.bind(s1, p.in, rb1 + g);
        float acc[NF][2][4];
#pragma unroll
        for (int f = 0; f < NF; f++)
#pragma unroll
            for (int i = 0; i < 4; i++) acc[f][0][i] = acc[f][1][i] = 0.f;
        for (int c0 = 0; c0 < p.in; c0 += chunk) {
            const int len = min(chunk, p.in - c0);
            if (!once) {
                __syncthreads();
                qstage_g128<N>(xs, cs, p.x, p.in, p.nrows, c0, len);
                __syncthreads();
            }
            const int ng = len >> 7, q0 = c0 >> 5;
            if (!live) continue;
            // The next group's words are loaded before the current group's MMAs (two sets in registers).
            MmaRows<K0> n0 = m0;
            MmaRows<K1> n1 = m1;
            if (part < ng) {
                n0.load(p.shift, q0 + 4 * part + t);
                n1.load(p.shift, q0 + 4 * part + t);
            }
            for (int gl = part; gl < ng; gl += ks) {
                m0 = n0;
                m1 = n1;
                if (gl + ks < ng) {
                    n0.load(p.shift, q0 + 4 * (gl + ks) + t);
                    n1.load(p.shift, q0 + 4 * (gl + ks) + t);
                }
                int c[NF][2][4];
#pragma unroll
                for (int f = 0; f < NF; f++)
#pragma unroll
                    for (int i = 0; i < 4; i++) c[f][0][i] = c[f][1][i] = 0;
#pragma unroll
                for (int s = 0; s < 16; s++) {
                    // Each weight decoded once for the NF fragments of activation rows.
                    const unsigned x00 = lcg_x<K0>(m0.a[0], 2 * s, mask), x01 = lcg_x<K0>(m0.a[1], 2 * s, mask);
                    const unsigned x02 = lcg_x<K0>(m0.a[0], 2 * s + 1, mask), x03 = lcg_x<K0>(m0.a[1], 2 * s + 1, mask);
                    const unsigned x10 = lcg_x<K1>(m1.a[0], 2 * s, mask), x11 = lcg_x<K1>(m1.a[1], 2 * s, mask);
                    const unsigned x12 = lcg_x<K1>(m1.a[0], 2 * s + 1, mask), x13 = lcg_x<K1>(m1.a[1], 2 * s + 1, mask);
#pragma unroll
                    for (int f = 0; f < NF; f++) {
                        const uint2 b = *(const uint2*)(xs + bcol[f] + gl * 144 + t * 34 + 2 * s);
                        mma_u8s8(c[f][0], x00, x01, x02, x03, b.x, b.y);
                        mma_u8s8(c[f][1], x10, x11, x12, x13, b.x, b.y);
                    }
                }
                const unsigned* xg = xs + gl * 144 + 136;
#pragma unroll
                for (int f = 0; f < NF; f++) {
                    const uint2 e0 = *(const uint2*)(xg + col0[f] * cs), e1 = *(const uint2*)(xg + col1[f] * cs);
                    const float sa = __uint_as_float(e0.x), sb = __uint_as_float(e1.x);
                    const int oa = (int)e0.y, ob = (int)e1.y;
#pragma unroll
                    for (int m = 0; m < 2; m++) {
                        acc[f][m][0] = fmaf((float)(c[f][m][0] + oa), sa, acc[f][m][0]);
                        acc[f][m][1] = fmaf((float)(c[f][m][1] + ob), sb, acc[f][m][1]);
                        acc[f][m][2] = fmaf((float)(c[f][m][2] + oa), sa, acc[f][m][2]);
                        acc[f][m][3] = fmaf((float)(c[f][m][3] + ob), sb, acc[f][m][3]);
                    }
                }
            }
        }
        if (ks > 1) {
#pragma unroll
            for (int i = 0; i < 8 * NF; i++) red[warp][i][lane] = acc[i >> 3][(i >> 2) & 1][i & 3];
            __syncthreads();
            if (part == 0)
                for (int q = 1; q < ks; q++)
#pragma unroll
                    for (int i = 0; i < 8 * NF; i++) acc[i >> 3][(i >> 2) & 1][i & 3] += red[warp + q][i][lane];
            __syncthreads();
        }
        if (part != 0 || !live) continue;
        const float rcp = trellis_rcp();
#pragma unroll
        for (int fi = 0; fi < 4 * NF; fi++) {
            const int f = fi >> 2, i = fi & 3;
            const int n = 8 * f + 2 * t + (i & 1), dr = (i >> 1) * 8 + g; // C element i of fragment f: column n, row dr
            if (n >= p.nrows) continue;
            const int r0 = rb0 + dr, r1 = rb1 + dr;
            float v0 = 0.f, v1 = 0.f;
            if (r0 < s0.out) {
                v0 = __fmul_rn(acc[f][0][i], __fmul_rn(__ldg(s0.scales + r0), rcp));
                v0 = __fadd_rn(v0, s0.bias ? __ldg(s0.bias + r0) : 0.f);
                s0.y[(long long)n * s0.out + r0] = v0;
            }
            if (r1 < s1.out) {
                v1 = __fmul_rn(acc[f][1][i], __fmul_rn(__ldg(s1.scales + r1), rcp));
                v1 = __fadd_rn(v1, s1.bias ? __ldg(s1.bias + r1) : 0.f);
                s1.y[(long long)n * s1.out + r1] = v1;
            }
            if (glu && r0 < s0.out) p.h[(long long)n * s0.out + r0] = silu_mul(v0, v1);
        }
    }
}

// Two blocks per SM (≤ 128 registers a thread): the one-row 14B shapes stage up to 78 KB of activations a block.
#define TRELLIS_MMA(name, K0, K1, N)                                                                            \
    extern "C" __global__ void __launch_bounds__(256, 2) name(const QMmaParams p) { pdl_begin();                \
        trellis_mma<K0, K1, N>(p);                                                                              \
    }

// ---- One-row grouped form on the tensor cores (trellis_gemvm): trellis_gemvg's units, mma.m16n8k32's products ----
//
// The dp4a form spends four instructions a weight (window, mask, LCG multiply-add, dp4a); here the tensor core takes
// the dp4a's place. One activation row has no columns for the MMA to share, so its 16 A rows are the unit's two
// weight rows × eight segments of the input and its 8 B columns the same eight segments' activations: in round ρ
// lane 4g + t decodes run 32ρ + lane of both rows (the runs gemvg's lane would: the same loads), group 8ρ + g is
// segment g's, and D[g][g] (row r0) and D[g+8][g] (row r1) are segment g's sums over that group's four runs — the
// other 112 entries of D mix segments and are dropped. A group's four runs share one activation scale (the MMA sums
// across them), so activations are int8 per group of 128 (qstage_i8_g4), as trellis_mma's.

// qstage_i8_g4: x [1, in] quantized per group of four runs (128 positions) into qstage_i8's layout (run q at
// xs[q·36], each int8 activation replicated in four bytes): s = max|x|/127 over the group at xs[4G·36 + 32] and
// −510·Σa over the group at [4G·36 + 33] (runs 4G+1..4G+3 leave theirs unset). One thread per run; the four of a
// group are consecutive lanes and meet by shuffles (qstage_g128's arithmetic, bit for bit). in % 128 == 0.
__device__ __forceinline__ void qstage_i8_g4(unsigned* xs, const float* __restrict__ x, int in) {
    const int nq = in >> 5;
    for (int base = 0; base < nq; base += blockDim.x) { // uniform trip count: every lane reaches the shuffles
        const int q = base + threadIdx.x;
        const bool ok = q < nq;
        float v[32];
        float amax = qrun_load(v, ok ? x + 32 * q : nullptr);
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 1));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 2));
        const float f = amax > 0.f ? 127.f / amax : 0.f;
        int sum = 0;
        unsigned* r = xs + q * 36;
#pragma unroll
        for (int k = 0; k < 8; k++) {
            unsigned w[4];
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int a = __float2int_rn(v[4 * k + c] * f);
                sum += a;
                w[c] = (unsigned)(a & 0xff) * 0x01010101u;
            }
            if (ok) *(uint4*)(r + 4 * k) = make_uint4(w[0], w[1], w[2], w[3]);
        }
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        if (ok && (q & 3) == 0) *(uint2*)(r + 32) = make_uint2(__float_as_uint(amax * (1.f / 127.f)), (unsigned)(-510 * sum));
    }
}

// gemvm_rounds: U rounds of one unit from run q0 + lane on (q0 a multiple of 32, the same for the warp: the MMAs
// need all 32 lanes, so nothing here branches): every round's words first (U·2·(K+1) loads in flight), then 16 MMA
// steps a round — step s puts positions 2s (k-slot t) and 2s+1 (k-slot 4+t) of the lane's run, both rows, in A and
// the activations of those positions in B, U accumulator chains side by side — then segment g's diagonal entries,
// plus −510·Σa, times the group's s, onto acc in round order (lane 4g + g/2 holds them; every other lane adds
// nothing). A lane past the last run (in % 1024 ≠ 0) reads the last run instead: its segment's diagonal, the only
// entry its A rows and B column reach, is dropped.
template <int K, int U>
__device__ __forceinline__ void gemvm_rounds(int shift, const TrellisRow<K, 1> (&rw)[2], const unsigned* xs, int nq, int q0, unsigned mask,
                                             int lane, float (&acc)[2][1]) {
    typename TrellisRow<K, 1>::Words wd[U][2];
    int qc[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        qc[u] = min(q0 + 32 * u + lane, nq - 1);
        const TrellisRun ru = trellis_run<K>(shift, qc[u]);
        rw[0].load(ru, wd[u][0]);
        rw[1].load(ru, wd[u][1]);
    }
    int c[U][4];
#pragma unroll
    for (int u = 0; u < U; u++) c[u][0] = c[u][1] = c[u][2] = c[u][3] = 0;
#pragma unroll
    for (int s2 = 0; s2 < 8; s2++) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const uint4 b = *(const uint4*)(xs + qc[u] * 36 + 4 * s2);
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int s = 2 * s2 + h;
                const unsigned x00 = lcg_x<K>(wd[u][0].a, 2 * s, mask), x01 = lcg_x<K>(wd[u][1].a, 2 * s, mask);
                const unsigned x02 = lcg_x<K>(wd[u][0].a, 2 * s + 1, mask), x03 = lcg_x<K>(wd[u][1].a, 2 * s + 1, mask);
                const unsigned b0 = h ? b.z : b.x, b1 = h ? b.w : b.y;
                mma_u8s8(c[u], x00, x01, x02, x03, b0, b1);
            }
        }
    }
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int d0 = (g & 1) ? c[u][1] : c[u][0], d1 = (g & 1) ? c[u][3] : c[u][2];
        const uint2 e = *(const uint2*)(xs + (qc[u] & ~3) * 36 + 32);
        const bool use = q0 + 32 * u + lane < nq && t == (g >> 1);
        acc[0][0] = use ? fmaf((float)(d0 + (int)e.y), __uint_as_float(e.x), acc[0][0]) : acc[0][0];
        acc[1][0] = use ? fmaf((float)(d1 + (int)e.y), __uint_as_float(e.x), acc[1][0]) : acc[1][0];
    }
}

// trellis_gemvm_k{K}[_b{BPS}u{U}] (axis 1, one activation row, int8 activations on the tensor cores: a lab form,
//   trellis_gemvg's launches under the tuning key gemv_mma; measured slower than trellis_gemvg, docs/perf.md; qmma.go)
//   in, out, units, grid: as trellis_gemvg, with in % 128 == 0 (trellis_gemvg<K, U, true>: the same launch with
//          qstage_i8_g4 and gemvm_rounds in place of qstage_i8 and i8_runs)
//   order: per lane and unit the diagonal int32 sums of each round (exact), f32 fma of (sum − 510·Σa)·s_group in
//          round order, a warp tree sum, finish (scale·rcp) and bias: each output the same for any grid and order
//   promise: activations int8 per group of 128 (relative error ≤ 1/254 of the group's max|x|), weights as
//            trellis.Factored exactly; verify bound of the tensor-core forms (MatMul/trellis/mma)
// BPS blocks per SM (four: ≤ 64 registers a thread, trellis_gemvg's shape), U rounds loaded at once.
#define TRELLIS_GEMVM(name, K, BPS, U)                                                                           \
    extern "C" __global__ void __launch_bounds__(256, BPS) name(const QGroupParams p) { trellis_gemvg<K, U, true, 8>(p); }

// trellis_gemv0_k{K}_n{N}_{rcp|fac} (axis 0: down, coded along the output)
//   in:  W as stored: [in, out·K/32] or the 3-bit interleave [out/512, in, 48] (interleaved = 1); coded row r is
//        input feature r, position c output feature c; scales f32 [in]; x f32 [nrows, in], nrows ≤ N
//   out: partial f32 [splits, nrows, out], split s = blockIdx.y holding Σ over coded rows
//        [s·rowsPerSplit, (s+1)·rowsPerSplit) ∩ [0, in) of x[m, r]·W[r, c]; trellis_splitk_reduce finishes y
//   grid: (⌈out/(32·P)⌉, splits) blocks of 256 threads; lane l of every warp owns the piece of P positions
//         (blockIdx.x·32 + l)·P.. (P = 32 for N ≤ 2, 16 for N ≤ 4, 8 for N = 8: P·N ≤ 64 accumulators); warp w
//         takes the split's rows w, w+8, ...; the 8 warps' sums meet in a fixed tree (4+4, 2+2, 1+1) in shared
//         memory; rowsPerSplit ≤ min(1024, 2048/N) (the split's x and scales are staged)
//   promise: VAR 0 — weights trellis.Reciprocal's bit for bit; VAR 1 — x'[m, r] = x[m, r]·(scale_r·rcp) as
//            trellis.Factored, then Σ f32(y)·x'; f32 sums, deterministic for a given launch shape.
//   I8 (trellis_gemv0_k{K}_n{N}_i8, VAR 1 only): after staging, warp w quantizes its own rows of the split (w, w+8,
//   ...: the rows it sums) to int8 with one scale per activation row m, s_m = max|x'|/127 over them (≤ 128 rows),
//   stored replicated in the four bytes; per position and m an exact int32 sum Σ_r bytesum(x_r)·a_r − 510·Σa,
//   times s_m at the end (one dp4a per weight and row instead of dp4a, FADD, FFMA).
template <int K, int N, int VAR, bool I8>
__device__ __forceinline__ void trellis_gemv0(const QGemvParams& p) {
    constexpr int P = N <= 2 ? 32 : (N <= 4 ? 16 : 8);
    constexpr int NA = Piece<K, P>::NA, NL = Piece<K, P>::NL;
    constexpr bool ALIGNED = Piece<K, P>::ALIGNED;
    constexpr int RPS = (2048 / N) < 1024 ? (2048 / N) : 1024;
    __shared__ float red[4][P * N][32];
    __shared__ __align__(16) float xsh[RPS * N]; // [rows of the split, N]
    __shared__ float ssh[RPS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows = p.in, cols = p.out;
    const int rs = blockIdx.y * p.rowsPerSplit, re = min(rs + p.rowsPerSplit, rows);
    const float rcp = trellis_rcp();
    for (int i = threadIdx.x; i < re - rs; i += blockDim.x) {
        const float sc = __ldg(p.scales + rs + i);
        ssh[i] = sc;
        const float f = __fmul_rn(sc, rcp);
#pragma unroll
        for (int m = 0; m < N; m++) {
            float v = m < p.nrows ? __ldg(p.x + (long long)m * rows + rs + i) : 0.f;
            xsh[i * N + m] = VAR == 0 ? v : __fmul_rn(v, f);
        }
    }
    __syncthreads();
    float sq[N];
    int ioff[N];
    if (I8) {
        const int nr = re - rs;
#pragma unroll
        for (int m = 0; m < N; m++) {
            float amax = 0.f;
            for (int i = warp + 8 * lane; i < nr; i += 256) amax = fmaxf(amax, fabsf(xsh[i * N + m]));
#pragma unroll
            for (int o = 16; o; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
            const float f = amax > 0.f ? 127.f / amax : 0.f;
            int sum = 0;
            for (int i = warp + 8 * lane; i < nr; i += 256) {
                const int a = __float2int_rn(xsh[i * N + m] * f);
                sum += a;
                xsh[i * N + m] = __uint_as_float((unsigned)(a & 0xff) * 0x01010101u);
            }
#pragma unroll
            for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
            sq[m] = amax * (1.f / 127.f);
            ioff[m] = -510 * sum;
        }
        __syncwarp();
    }
    const int T = 1 << p.shift, wpb = (K << p.shift) >> 5, wpr = (cols >> 5) * K;
    const int c0 = (blockIdx.x * 32 + lane) * P;
    const bool active = c0 < cols;
    const int b = c0 >> p.shift, t0 = c0 & (T - 1);
    const int sb = (T - t0 - P) * K;
    const unsigned sh = sb & 31;
    int idx[NL];
#pragma unroll
    for (int i = 0; i < NL; i++) idx[i] = ((sb >> 5) + i) % wpb;
    const long long base = p.interleaved ? (long long)(b >> 1) * rows * 48 + (b & 1) * wpb : (long long)b * wpb;
    const int stride = p.interleaved ? 48 : wpr;
    const unsigned mask = (1u << p.L) - 1u;
    float acc[P][N];
    int iacc[I8 ? P : 1][N];
#pragma unroll
    for (int j = 0; j < P; j++)
#pragma unroll
        for (int m = 0; m < N; m++) acc[j][m] = 0.f;
    if (I8) {
#pragma unroll
        for (int j = 0; j < (I8 ? P : 1); j++)
#pragma unroll
            for (int m = 0; m < N; m++) iacc[j][m] = ioff[m];
    }
    if (active) {
        // One pointer per loaded word, stepped by 8 rows: a 64-bit add and a load per word and row.
        const unsigned* pw[NL];
#pragma unroll
        for (int i = 0; i < NL; i++) pw[i] = p.W + base + (long long)(rs + warp) * stride + idx[i];
        const long long step = 8LL * stride;
        for (int r = rs + warp; r < re; r += 8) {
            unsigned ld[NL], a[NA];
#pragma unroll
            for (int i = 0; i < NL; i++) {
                ld[i] = __ldg(pw[i]);
                pw[i] += step;
            }
#pragma unroll
            for (int i = 0; i < NA; i++) a[i] = ALIGNED ? ld[i] : shf_r(ld[i], ld[ALIGNED ? i : i + 1], sh);
            float xv[N]; // the row's N activations, contiguous in xsh: N/4 16-byte reads
            const float* xr = xsh + (r - rs) * N;
            if (I8) {
#pragma unroll
                for (int m = 0; m < N; m++) xv[m] = xr[m];
#pragma unroll
                for (int j = 0; j < (I8 ? P : 1); j++) {
                    const unsigned x = (piece_state<K, P>(a, j) & mask) * 34038481u + 76625530u;
#pragma unroll
                    for (int m = 0; m < N; m++) iacc[j][m] = dp4a_us(x, __float_as_uint(xv[m]), iacc[j][m]);
                }
                continue;
            }
            if (N % 4 == 0) {
#pragma unroll
                for (int m = 0; m < N; m += 4) {
                    const float4 t = *(const float4*)(xr + m);
                    xv[m] = t.x, xv[m + 1] = t.y, xv[m + 2] = t.z, xv[m + 3] = t.w;
                }
            } else {
#pragma unroll
                for (int m = 0; m < N; m++) xv[m] = xr[m];
            }
            const float sc = ssh[r - rs];
#pragma unroll
            for (int j = 0; j < P; j++) {
                float w = trellis_y(piece_state<K, P>(a, j) & mask);
                if (VAR == 0) w = __fmul_rn(__fmul_rn(w, rcp), sc);
#pragma unroll
                for (int m = 0; m < N; m++) acc[j][m] = fmaf(w, xv[m], acc[j][m]);
            }
        }
    }
    if (I8) {
#pragma unroll
        for (int j = 0; j < (I8 ? P : 1); j++)
#pragma unroll
            for (int m = 0; m < N; m++) acc[j][m] = (float)iacc[j][m] * sq[m];
    }
#pragma unroll
    for (int half = 4; half >= 1; half >>= 1) {
        if (warp >= half && warp < 2 * half) {
#pragma unroll
            for (int j = 0; j < P; j++)
#pragma unroll
                for (int m = 0; m < N; m++) red[warp - half][j * N + m][lane] = acc[j][m];
        }
        __syncthreads();
        if (warp < half) {
#pragma unroll
            for (int j = 0; j < P; j++)
#pragma unroll
                for (int m = 0; m < N; m++) acc[j][m] += red[warp][j * N + m][lane];
        }
        __syncthreads();
    }
    if (warp == 0 && active) {
#pragma unroll
        for (int m = 0; m < N; m++) {
            if (m < p.nrows) {
                float4* dst = (float4*)(p.partial + ((long long)blockIdx.y * p.nrows + m) * cols + c0);
#pragma unroll
                for (int j = 0; j < P; j += 4) dst[j / 4] = make_float4(acc[j][m], acc[j + 1][m], acc[j + 2][m], acc[j + 3][m]);
            }
        }
    }
}

#define TRELLIS_GEMV_SPLITK(name, K, N, VAR)                                                                    \
    extern "C" __global__ void __launch_bounds__(256) name(const QGemvParams p) { pdl_begin();                  \
        trellis_gemv0<K, N, VAR, false>(p);                                                                     \
    }
#define TRELLIS_GEMV_SPLITK_INT(name, K, N)                                                                     \
    extern "C" __global__ void __launch_bounds__(256) name(const QGemvParams p) { pdl_begin();                  \
        trellis_gemv0<K, N, 1, true>(p);                                                                        \
    }

// ---- Tensor-core form of axis 0 (trellis_mma0): the down projection of a batch on mma.m16n8k32 ----
//
// trellis_mma0_k{K}_n{N}_p{P} (axis 0; int8-activation layers, by default for 2..8 rows: qmma.go, MLXBUN_CUDA_QMMA0)
//   in/out: as trellis_gemv0 — W as stored ([in, out·K/32] or the 3-bit interleave [out/512, in, 48]), coded row
//        r = input feature r; scales f32 [in]; x f32 [nrows, in]; partial f32 [splits, nrows, out], split s =
//        blockIdx.y; trellis_splitk_reduce finishes y. in % 8 == 0, out % 32 == 0.
//   the MMA: m = output positions, n = batch rows (columns ≥ N repeat column N−1, columns ≥ nrows hold zeros;
//        neither is stored), k = 8 coded rows of four bytes each (a weight's LCG output x against its row's int8 activation
//        replicated in four bytes, as trellis_mma). Lane 4g + t owns the piece of P positions cg = (blockIdx.x·8 +
//        g)·P.. of coded rows r0+t and r0+4+t of every group r0 of 8 coded rows it visits (NL words each, loaded as
//        trellis_gemv0 loads a piece); m-tile j (0 ≤ j < P/2) maps m-row g to position cg + j and m-row g+8 to cg +
//        P/2 + j, so its A registers are x(r0+t, cg+j), x(r0+t, cg+P/2+j), x(r0+4+t, cg+j), x(r0+4+t, cg+P/2+j),
//        its B registers the activations of rows r0+t and r0+4+t for batch row g, and C[j] holds positions cg+j
//        (c0, c1) and cg+P/2+j (c2, c3) of batch rows 2t, 2t+1. One decoded weight serves every batch row.
//   activations: staged x' = x·f32(scale·rcp) (trellis.Factored), then quantized by each warp for exactly the rows
//        it sums (its groups w, w+8, ... of the split: ≤ 128 rows), one scale per activation row — as
//        trellis_gemv0_i8; the int32 accumulators start at −510·Σa and end × s_m.
//   grid: (⌈out/(8P)⌉, splits) × 256 threads; the 8 warps' f32 sums meet in trellis_gemv0's fixed tree (shared
//        memory reused from the staging: ≤ 32 KB static); rowsPerSplit a multiple of 8, ≤ 1024 (mma0Split).
//   work per weight (prediction, counted from this source; SASS not yet read): window (SHF/SHR; none at bit 0),
//        mask (LOP3), LCG multiply-add (IMAD) = 3, plus a quarter MMA (four weights a lane an instruction, for
//        every N), and per group of 2P weights a lane 2·NL loads, ≤ 2·NA funnel shifts, 2 LDS and four 64-bit
//        pointer steps: ~4.1 instructions/weight at P 16, ~3.6 at P 32, against 3 + N (+ loads) for
//        trellis_gemv0_i8 — 7.3 at N 4.
//   promise: weights as trellis.Factored exactly, activations int8 per warp's rows (relative error ≤ 1/254 of
//        their max|x'|), exact int32 sums per warp; deterministic for a given launch shape.
template <int K, int N, int P>
__device__ __forceinline__ void trellis_mma0(const QGemvParams& p) {
    constexpr int J = P / 2;
    constexpr int NA = Piece<K, P>::NA, NL = Piece<K, P>::NL;
    constexpr bool ALIGNED = Piece<K, P>::ALIGNED;
    constexpr int RPS = 1024;
    constexpr int XW = RPS * N, RW = 4 * 4 * J * 32; // words: the staged activations; the warp tree (after the loop)
    __shared__ __align__(16) unsigned sm[XW > RW ? XW : RW];
    float* xsh = (float*)sm;                                // [rows of the split, N]
    float(*red)[4 * J][32] = (float(*)[4 * J][32])sm;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int rows = p.in, cols = p.out;
    const int rs = blockIdx.y * p.rowsPerSplit, nr = min(p.rowsPerSplit, rows - rs), ngrp = nr >> 3;
    const float rcp = trellis_rcp();
    for (int i = threadIdx.x; i < nr; i += blockDim.x) {
        const float f = __fmul_rn(__ldg(p.scales + rs + i), rcp);
#pragma unroll
        for (int m = 0; m < N; m++) {
            const float v = m < p.nrows ? __ldg(p.x + (long long)m * rows + rs + i) : 0.f;
            xsh[i * N + m] = __fmul_rn(v, f);
        }
    }
    __syncthreads();
    // Warp w's rows: lane l visits row l & 7 of groups w + 8·(l >> 3), + 32, ...; the values go back in place as
    // a·0x01010101 (only this warp reads them).
    float sq[N];
    int ioff[N];
#pragma unroll
    for (int m = 0; m < N; m++) {
        float amax = 0.f;
        for (int G = warp + 8 * (lane >> 3); G < ngrp; G += 32) amax = fmaxf(amax, fabsf(xsh[(8 * G + (lane & 7)) * N + m]));
#pragma unroll
        for (int o = 16; o; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
        const float f = amax > 0.f ? 127.f / amax : 0.f;
        int sum = 0;
        for (int G = warp + 8 * (lane >> 3); G < ngrp; G += 32) {
            float* e = xsh + (8 * G + (lane & 7)) * N + m;
            const int a = __float2int_rn(*e * f);
            sum += a;
            *e = __uint_as_float((unsigned)(a & 0xff) * 0x01010101u);
        }
#pragma unroll
        for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
        sq[m] = amax * (1.f / 127.f);
        ioff[m] = -510 * sum;
    }
    __syncwarp();
    // This lane's C columns 2t, 2t+1: their scales and offsets (columns ≥ N are never stored).
    float s0 = 0.f, s1 = 0.f;
    int o0 = 0, o1 = 0;
#pragma unroll
    for (int m = 0; m < N; m++) {
        if (m == 2 * t) s0 = sq[m], o0 = ioff[m];
        if (m == 2 * t + 1) s1 = sq[m], o1 = ioff[m];
    }
    int c[J][4];
#pragma unroll
    for (int j = 0; j < J; j++) c[j][0] = o0, c[j][1] = o1, c[j][2] = o0, c[j][3] = o1;

    const int T = 1 << p.shift, wpb = (K << p.shift) >> 5, wpr = (cols >> 5) * K;
    const int cg = (blockIdx.x * 8 + g) * P;
    const bool active = cg < cols;
    const int c0 = active ? cg : 0; // a lane past the end decodes position 0's piece (its C rows are not stored)
    const int b = c0 >> p.shift, t0 = c0 & (T - 1);
    const int sb = (T - t0 - P) * K;
    const unsigned sh = sb & 31;
    const long long base = p.interleaved ? (long long)(b >> 1) * rows * 48 + (b & 1) * wpb : (long long)b * wpb;
    const long long stride = p.interleaved ? 48 : wpr;
    const unsigned mask = (1u << p.L) - 1u;
    // Words 0..NL−2 of a piece are consecutive (immediate offsets from one pointer); the last may wrap to the
    // block's word 0 (the piece at t0 = 0), so it has its own pointer: two pointers per coded row.
    const int w0 = sb >> 5, wl = (w0 + NL - 1) % wpb;
    const unsigned* pa[2];
    const unsigned* pl[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const unsigned* row = p.W + base + (long long)(rs + 8 * warp + 4 * h + t) * stride;
        pa[h] = row + w0, pl[h] = row + wl;
    }
    const long long step = 64 * stride; // a warp's next group: 8 groups on
    const int bcol = g < N ? g : N - 1;
    unsigned nx[2][NL];
    if (warp < ngrp) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
#pragma unroll
            for (int i = 0; i < NL - 1; i++) nx[h][i] = __ldg(pa[h] + i);
            nx[h][NL - 1] = __ldg(pl[h]);
        }
    }
    for (int G = warp; G < ngrp; G += 8) {
        unsigned a[2][NA];
        if (ALIGNED) {
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int i = 0; i < NA; i++) a[h][i] = nx[h][i];
        } else {
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int i = 0; i < NA; i++) a[h][i] = shf_r(nx[h][i], nx[h][i + (ALIGNED ? 0 : 1)], sh);
        }
        // The next group's words load under this group's MMAs. The pointers step unconditionally (only the loads
        // are predicated): a conditional step cost ~20 register moves a group in SASS.
#pragma unroll
        for (int h = 0; h < 2; h++) pa[h] += step, pl[h] += step;
        if (G + 8 < ngrp) {
#pragma unroll
            for (int h = 0; h < 2; h++) {
#pragma unroll
                for (int i = 0; i < NL - 1; i++) nx[h][i] = __ldg(pa[h] + i);
                nx[h][NL - 1] = __ldg(pl[h]);
            }
        }
        const unsigned b0 = __float_as_uint(xsh[(8 * G + t) * N + bcol]), b1 = __float_as_uint(xsh[(8 * G + 4 + t) * N + bcol]);
#pragma unroll
        for (int j = 0; j < J; j++) {
            const unsigned x0 = (piece_state<K, P>(a[0], j) & mask) * 34038481u + 76625530u;
            const unsigned x1 = (piece_state<K, P>(a[0], J + j) & mask) * 34038481u + 76625530u;
            const unsigned x2 = (piece_state<K, P>(a[1], j) & mask) * 34038481u + 76625530u;
            const unsigned x3 = (piece_state<K, P>(a[1], J + j) & mask) * 34038481u + 76625530u;
            mma_u8s8(c[j], x0, x1, x2, x3, b0, b1);
        }
    }
    float acc[J][4];
#pragma unroll
    for (int j = 0; j < J; j++) {
        acc[j][0] = (float)c[j][0] * s0, acc[j][1] = (float)c[j][1] * s1;
        acc[j][2] = (float)c[j][2] * s0, acc[j][3] = (float)c[j][3] * s1;
    }
    __syncthreads(); // the tree reuses the staging memory
#pragma unroll
    for (int half = 4; half >= 1; half >>= 1) {
        if (warp >= half && warp < 2 * half) {
#pragma unroll
            for (int j = 0; j < J; j++)
#pragma unroll
                for (int i = 0; i < 4; i++) red[warp - half][4 * j + i][lane] = acc[j][i];
        }
        __syncthreads();
        if (warp < half) {
#pragma unroll
            for (int j = 0; j < J; j++)
#pragma unroll
                for (int i = 0; i < 4; i++) acc[j][i] += red[warp][4 * j + i][lane];
        }
        __syncthreads();
    }
    if (warp == 0 && active) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int n = 2 * t + (i & 1);
            if (n < p.nrows) {
                float* dst = p.partial + ((long long)blockIdx.y * p.nrows + n) * cols + cg + (i >> 1) * J;
#pragma unroll
                for (int j = 0; j < J; j++) dst[j] = acc[j][i];
            }
        }
    }
}

// Three blocks per SM (≤ 80 registers a thread) at P 16; the lab P 32 holds 64 accumulators (two blocks).
#define TRELLIS_MMA_SPLITK(name, K, N, P)                                                                             \
    extern "C" __global__ void __launch_bounds__(256, (P) <= 16 ? 3 : 2) name(const QGemvParams p) { pdl_begin(); \
        trellis_mma0<K, N, P>(p);                                                                               \
    }

// trellis_splitk_reduce
//   in:  partial f32 [splits, nrows, out] (trellis_gemv0), bias f32 [out] or null, res f32 [nrows, out] or null
//   out: y f32 [nrows, out] = Σ_s partial[s] (+ bias), then res + that rounded as Add (MatMulAdd; y may be res)
//   grid: ⌈nrows·out/32⌉ blocks of 256 threads; lane = element, warp w sums splits w, w+8, ... in order, the 8 warp
//         sums added in a fixed tree: deterministic
//   loads: a warp's splits are read 16 at a time before any is added (the loop was one L2 round trip per split
//         and row: 13 in a row at the 14B down projection's 104 splits, ~5.9 µs a launch); the splits past the
//         last add +0, which leaves a sum that started at +0 unchanged, so the bits are the one-at-a-time loop's
extern "C" __global__ void __launch_bounds__(256) trellis_splitk_reduce(const QGemvParams p, int splits, const float* res) { pdl_begin();
    __shared__ float red[8][33];
    const long long total = (long long)p.nrows * p.out;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long i = (long long)blockIdx.x * 32 + lane;
    float s = 0.f;
    if (i < total)
        for (int k0 = warp; k0 < splits; k0 += 8 * 16) {
            float v[16];
#pragma unroll
            for (int u = 0; u < 16; u++) {
                const int k = k0 + 8 * u;
                v[u] = k < splits ? __ldg(p.partial + k * total + i) : 0.f;
            }
#pragma unroll
            for (int u = 0; u < 16; u++) s += v[u];
        }
    red[warp][lane] = s;
    __syncthreads();
    if (warp == 0 && i < total) {
        float t = ((red[0][lane] + red[1][lane]) + (red[2][lane] + red[3][lane])) +
                  ((red[4][lane] + red[5][lane]) + (red[6][lane] + red[7][lane]));
        if (p.bias) t += p.bias[i % p.out];
        p.y[i] = res ? __fadd_rn(res[i], t) : t;
    }
}

// cvt_bf2: lo and hi rounded to bf16 (nearest even) in one word, lo in the low half; cvt_bf: one value.
__device__ __forceinline__ unsigned cvt_bf2(float lo, float hi) {
    unsigned d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}
__device__ __forceinline__ bf16_t cvt_bf(float v) {
    unsigned short d;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(d) : "f"(v));
    return (bf16_t)d;
}

// trellis_expand_k{K}
//   in:  the codes of either axis (p.axis; p.interleaved for the 3-bit down interleave), scales f32 [coded rows],
//        T = 2^shift (T % 32 == 0), L ≤ 16
//   out: dst bf16 [out, in] row-major, W in the linear layer's orientation, each weight trellis.Factored's f32
//        weight f32(y)·f32(scale·rcp) rounded to bf16 (nearest even, the hardware cvt: two weights an instruction).
//        The first version rounded trellis.BF16's value (the correctly rounded y/147.8 times the scale, ~17
//        instructions a weight with the software rounding): the expansion cost ~20 ms of a 3-bit 14B pp512
//        (docs/perf.md); both differ from the f32 weights by the bf16 rounding, within the prompt bound (5e-3).
//   grid: grid-stride over (coded row, run of 32) pairs, 256 threads; axis 1: consecutive threads take consecutive
//         runs of one row (64-byte row pieces, 16-byte stores); axis 0: consecutive coded rows of one run, so each
//         of the 32 output rows gets 64 contiguous bytes per warp
template <int K>
__device__ __forceinline__ void trellis_expand(bf16_t* __restrict__ dst, const QGemvParams& p) {
    constexpr int NA = Piece<K, 32>::NA;
    const bool axis1 = p.axis == 1;
    const int rows = axis1 ? p.out : p.in, cols = axis1 ? p.in : p.out;
    const int T = 1 << p.shift, wpb = (K << p.shift) >> 5, wpr = (cols >> 5) * K, nq = cols >> 5;
    const unsigned mask = (1u << p.L) - 1u;
    const long long total = (long long)rows * nq;
    for (long long it = (long long)blockIdx.x * blockDim.x + threadIdx.x; it < total; it += (long long)gridDim.x * blockDim.x) {
        int r, q;
        if (axis1) {
            r = (int)(it / nq), q = (int)(it - (long long)r * nq);
        } else {
            q = (int)(it / rows), r = (int)(it - (long long)q * rows);
        }
        const int pos = q << 5, b = pos >> p.shift, t0 = pos & (T - 1);
        const int ws = ((T - t0) >> 5) * K - K;
        const unsigned* blk = p.W + (p.interleaved ? ((long long)(b >> 1) * rows + r) * 48 + (b & 1) * wpb
                                                   : (long long)r * wpr + (long long)b * wpb);
        unsigned a[NA];
#pragma unroll
        for (int i = 0; i < NA; i++) {
            int wi = ws + i;
            if (wi >= wpb) wi -= wpb;
            a[i] = __ldg(blk + wi);
        }
        const float f = __fmul_rn(__ldg(p.scales + r), trellis_rcp());
        float v[32];
#pragma unroll
        for (int j = 0; j < 32; j++) v[j] = __fmul_rn(trellis_y(piece_state<K, 32>(a, j) & mask), f);
        if (axis1) {
            uint4* o = (uint4*)(dst + (long long)r * cols + pos);
#pragma unroll
            for (int k = 0; k < 4; k++)
                o[k] = make_uint4(cvt_bf2(v[8 * k], v[8 * k + 1]), cvt_bf2(v[8 * k + 2], v[8 * k + 3]),
                                  cvt_bf2(v[8 * k + 4], v[8 * k + 5]), cvt_bf2(v[8 * k + 6], v[8 * k + 7]));
        } else {
#pragma unroll
            for (int j = 0; j < 32; j++) dst[(long long)(pos + j) * rows + r] = cvt_bf(v[j]);
        }
    }
}

#define TRELLIS_EXPAND(name, K)                                                                                 \
    extern "C" __global__ void __launch_bounds__(256) name(bf16_t* dst, const QGemvParams p) { pdl_begin();     \
        trellis_expand<K>(dst, p);                                                                              \
    }

// moe_trellis1_k{K}_{rcp|fac} (backend.MoE Experts' routed form over axis-1 trellis experts, decode: n ≤ 8 rows)
//   in:  moe_qgemv (quant.cuh) with Row = TrellisRow<K, VAR>: Wt, St device tables of E pointers to the experts'
//        codes uint32 [out, in·K/32] (axis 1: coded rows = outputs, blocks of T = 2^shift, T % 32 == 0, L ≤ 16) and
//        f32 scales [out]; Bt unused (the table's zeros); Wt2, St2, Bt2 null or the up projection's
//   out: y f32 [n·k, out]: g[s][o] = Σ_c W_{ids[s]}[o][c]·x[..][c] under VAR (TrellisRow: 0 Reciprocal per weight,
//        1 Factored), y = g, or with Wt2 y = silu_mul(g, u) (swiglu's arithmetic) with u the same over Wt2 —
//        only the routed experts' codes are read, the ids read on the device
//   grid: moe_qgemv's; each lane decodes whole runs as trellis_gemv1 does (compile-time window shifts)
//   promise: each weight (or sum, Factored) is the trellis Linear's decode, f32 sums in another order than the
//        CPU: within f32 accumulation-order rounding (the MatMul/trellis decode bound); SwiGLU as swiglu
#define MOE_TRELLIS1(name, K, VAR)                                                                              \
    extern "C" __global__ void __launch_bounds__(256) name(MOE_QGEMV_ARGS) { pdl_begin();                      \
        moe_qgemv<TrellisRow<K, VAR>>(MOE_QGEMV_PASS);                                                          \
    }
