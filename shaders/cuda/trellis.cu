// trellis.cu: linear layers over QTIP trellis codes (1MAD computed code; docs/trellis-format.md) — decode GEMVs
// for 1..8 activation rows sharing every decoded weight (axis 1: the skeleton of quant.cuh; axis 0: split-K over
// the coded rows plus a deterministic reduce), and the expansion of one layer to a bf16 matrix for prompts (then
// cuBLASLt). What it leaves out: tensor-core (mma) forms, int8 activations, fused gate/up/SwiGLU. Contracts are
// repeated in docs/kernels.md; the host side is internal/cuda/trellis.go (launch) and quant_select.go (selection).
//
// The instantiation list is appended by the host (internal/cuda/kernels.go, from the names quant_select.go
// builds): TRELLIS_GEMV_ROWS(name, K, N, R, VAR, PF), TRELLIS_GEMV_SPLITK(name, K, N, VAR), TRELLIS_EXPAND(name, K);
// PF (prefetch of the next run's words, quant.cuh) is a lab option, off in production. VAR names
// the decode arithmetic (trellis.Variant): 0 Reciprocal — each weight (f32(y)·rcp)·scale, two rounded multiplies,
// the CPU backend's arithmetic (internal/cpu, TrellisVariant) — or 1 Factored — Σ f32(y)·x with the scale applied
// once per output (axis 1) or folded into each input row (axis 0).
//
// Decode of one position (every kernel): state s = the L-bit window at bit (T−1−t)·K of the block's words (the
// window of position t0+j of a lane's piece sits at a compile-time bit of the piece's words, piece_state); 1MAD:
// x = s·34038481 + 76625530, y = (byte sum of x) − 510, computed as one dp4a that adds the four bytes of x onto
// the bits of 1.5·2^23 − 510, then one f32 subtract (trellis_y): y exactly, no integer-to-float conversion.

// trellis_rcp: f32(1/147.800537109375), bit for bit trellis.Rcp1MAD (TestTrellisConstants reads this line).
__device__ __forceinline__ float trellis_rcp() { return __uint_as_float(0x3bddb447u); }

// trellis_value: y / 147.800537109375 correctly rounded (trellis.Value1MAD) for |y| ≤ 510 without a division: the
// reciprocal product refined by one residual step, q' = fma(fma(−q, d, y), rcp, q) (the seeds' trellis_refined_y);
// TestTrellisRefinedValue checks all 1021 codes against Go's correctly rounded division.
__device__ __forceinline__ float trellis_value(float y) {
    const float q = __fmul_rn(y, trellis_rcp());
    return fmaf(fmaf(-q, 147.800537109375f, y), trellis_rcp(), q);
}

// trellis_y: f32(Code1MAD(s)) for a masked state s.
__device__ __forceinline__ float trellis_y(unsigned s) {
    const unsigned x = s * 34038481u + 76625530u;
    unsigned u;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(u) : "r"(x), "r"(0x01010101u), "r"(0x4B3FFE02u));
    return __uint_as_float(u) - 12582912.0f; // (1.5·2^23 + y) − 1.5·2^23, exact for |y| ≤ 510
}

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

// TrellisRow: the qgemv_rows codec of one axis-1 coded row (an output row). Run q is the piece of P = 32 positions
// 32q.. of block b = 32q/T; its K+1 words are words ws..ws+K−1 of the block, ws = (T − t0 − 32)·K/32, and word
// ws+K, which is word 0 of the block for the block's first run (t0 = 0, the window of position 0 wraps).
template <int K, int VAR>
struct TrellisRow {
    static_assert(Piece<K, 32>::NA == K + 1, "a run of 32 positions spans K+1 words");
    struct Run {
        int o, ow; // word offsets in the row of word ws and of word ws+K (wrapped)
    };
    static __device__ __forceinline__ Run run(const QGemvParams& p, int q) {
        const int pos = q << 5, t0 = pos & ((1 << p.shift) - 1);
        const int blk = (pos >> p.shift) * ((K << p.shift) >> 5);
        const int o = blk + (((1 << p.shift) - t0) >> 5) * K - K;
        return Run{o, t0 == 0 ? blk : o + K};
    }
    struct Words {
        unsigned a[K + 1];
    };
    const unsigned* w;
    float scale;
    unsigned mask;
    __device__ __forceinline__ void init(const QGemvParams& p, int row) {
        w = p.W + (long long)row * ((p.in >> 5) * K);
        scale = __ldg(p.scales + row);
        mask = (1u << p.L) - 1u;
    }
    __device__ __forceinline__ void load(const Run& ru, Words& d) const {
        const unsigned* pw = w + ru.o;
#pragma unroll
        for (int i = 0; i < K; i++) d.a[i] = __ldg(pw + i);
        d.a[K] = __ldg(w + ru.ow);
    }
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
    extern "C" __global__ void __launch_bounds__(256) name(const QGemvParams p) {                               \
        qgemv_rows<TrellisRow<K, VAR>, N, R, PF>(p);                                                            \
    }

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
template <int K, int N, int VAR>
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
#pragma unroll
    for (int j = 0; j < P; j++)
#pragma unroll
        for (int m = 0; m < N; m++) acc[j][m] = 0.f;
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
    extern "C" __global__ void __launch_bounds__(256) name(const QGemvParams p) {                               \
        trellis_gemv0<K, N, VAR>(p);                                                                            \
    }

// trellis_splitk_reduce
//   in:  partial f32 [splits, nrows, out] (trellis_gemv0), bias f32 [out] or null
//   out: y f32 [nrows, out] = Σ_s partial[s] (+ bias)
//   grid: ⌈nrows·out/32⌉ blocks of 256 threads; lane = element, warp w sums splits w, w+8, ... in order, the 8 warp
//         sums added in a fixed tree: deterministic
extern "C" __global__ void __launch_bounds__(256) trellis_splitk_reduce(const QGemvParams p, int splits) {
    __shared__ float red[8][33];
    const long long total = (long long)p.nrows * p.out;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long i = (long long)blockIdx.x * 32 + lane;
    float s = 0.f;
    if (i < total)
        for (int k = warp; k < splits; k += 8) s += __ldg(p.partial + k * total + i);
    red[warp][lane] = s;
    __syncthreads();
    if (warp == 0 && i < total) {
        float t = ((red[0][lane] + red[1][lane]) + (red[2][lane] + red[3][lane])) +
                  ((red[4][lane] + red[5][lane]) + (red[6][lane] + red[7][lane]));
        if (p.bias) t += p.bias[i % p.out];
        p.y[i] = t;
    }
}

// trellis_expand_k{K}
//   in:  the codes of either axis (p.axis; p.interleaved for the 3-bit down interleave), scales f32 [coded rows],
//        T = 2^shift (T % 32 == 0), L ≤ 16
//   out: dst bf16 [out, in] row-major, W in the linear layer's orientation, each weight trellis.BF16's bit for bit:
//        bf16(f32(y / 147.800537109375)·scale), the value correctly rounded (trellis_value), one rounded multiply,
//        then round to nearest even
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
        const float sc = __ldg(p.scales + r);
        float v[32];
#pragma unroll
        for (int j = 0; j < 32; j++)
            v[j] = bf2f(f2bf(__fmul_rn(trellis_value(trellis_y(piece_state<K, 32>(a, j) & mask)), sc)));
        if (axis1) {
            uint4* o = (uint4*)(dst + (long long)r * cols + pos);
#pragma unroll
            for (int k = 0; k < 4; k++) o[k] = pack8(v + 8 * k);
        } else {
#pragma unroll
            for (int j = 0; j < 32; j++) dst[(long long)(pos + j) * rows + r] = f2bf(v[j]);
        }
    }
}

#define TRELLIS_EXPAND(name, K)                                                                                 \
    extern "C" __global__ void __launch_bounds__(256) name(bf16_t* dst, const QGemvParams p) {                  \
        trellis_expand<K>(dst, p);                                                                              \
    }
