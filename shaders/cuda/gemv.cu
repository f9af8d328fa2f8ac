// gemv.cu: dense bf16 matrix-vector products for decode-sized batches (n ≤ 8 activation rows), the kernels that
// bound batch-1 decode speed. The weight matrix is streamed once at full width (16-byte non-caching loads, several
// in flight per lane); the few activation rows stay in L1 and are reused for R output rows per warp. Larger n goes
// to cuBLASLt (internal/cuda/linear.go). Contracts are repeated in docs/kernels.md ("CUDA").
//
// The instantiation list is appended by the host from its kernel table (internal/cuda/kernels.go, gemvName);
// each line is GEMV_VEC(name, N, R, U, X_T, OUT_T) or GEMV_SCALAR(name, N, X_T, OUT_T). X_T is the activation type:
// float (the backend's activations) or bf16_t (tests, tools, the lab forms).

// ldg8 reads 8 consecutive activations through the read-only cache (16-byte aligned).
__device__ __forceinline__ void ldg8(const bf16_t* p, float* v) { unpack8(__ldg((const uint4*)p), v); }
__device__ __forceinline__ void ldg8(const float* p, float* v) {
    const float4 a = __ldg((const float4*)p), b = __ldg((const float4*)p + 1);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}

// GemvSeg / GemvParams: one launch serves up to three weight matrices that multiply the same activations (the q,
// k and v projections, or gate and up), each a run of whole blocks. Mirrored by gemvSeg / gemvParams in
// internal/cuda/linear.go; TestGemvParamsLayout checks sizes and offsets.
struct GemvSeg {
    const bf16_t* W;   // 0: [out, in] row-major
    void* y;           // 8: [N, out], OutT
    const float* bias; // 16: [out] or null
    int out;           // 24
    int block0;        // 28: first block of this segment
};
struct GemvParams {
    GemvSeg seg[3]; // 0
    int nseg;       // 96
    int in;         // 100
    int ksplit;     // 104
    int pad;        // 108
};                  // 112 bytes

// gemv_vec
//   in:  per segment W bf16 [out, in] row-major (in % 8 == 0, rows 16-byte aligned), bias f32 [out] or null;
//        x X_T [N, in] contiguous (f32 or bf16), shared by the segments
//   out: per segment y [N, out] (f32 or bf16): y[n, o] = Σ_k x[n, k]·W[o, k] (+ bias[o]), f32 accumulation, one
//        rounding
//   grid: 256 threads = 8 warps; warps form 8/ksplit row groups of R output rows, each group's ksplit warps split
//         the 16-byte chunks of a row (lane l of part p takes chunks p·32 + l, then every 32·ksplit, U chunks in
//         flight per row) and meet in shared memory; segment s owns blocks [block0_s, block0_{s+1}), each
//         ceil(out_s / (R·8/ksplit)) long; ksplit ∈ {1, 2, 4, 8}
//   promise: f32 sums of exact bf16 products in a tree order (the CPU sums in f32 in 4 strided accumulators):
//         |err| ≤ ~in·2^-24·Σ|x·w| before the output rounding
template <typename T> __device__ __forceinline__ T pick3(int s, T a, T b, T c) { return s == 0 ? a : (s == 1 ? b : c); }

template <int N, int R, int U, typename XT, typename OutT>
__device__ __forceinline__ void gemv_vec(const GemvParams& p, const XT* __restrict__ x) {
    __shared__ float red[8][R][N];
    int s = 0;
    if (p.nseg > 1 && (int)blockIdx.x >= p.seg[1].block0) s = 1;
    if (p.nseg > 2 && (int)blockIdx.x >= p.seg[2].block0) s = 2;
    const bf16_t* __restrict__ W = pick3(s, p.seg[0].W, p.seg[1].W, p.seg[2].W);
    OutT* __restrict__ y = (OutT*)pick3(s, p.seg[0].y, p.seg[1].y, p.seg[2].y);
    const float* __restrict__ bias = pick3(s, p.seg[0].bias, p.seg[1].bias, p.seg[2].bias);
    const int out = pick3(s, p.seg[0].out, p.seg[1].out, p.seg[2].out);
    const int blk = blockIdx.x - pick3(s, p.seg[0].block0, p.seg[1].block0, p.seg[2].block0);
    const int in = p.in, ksplit = p.ksplit;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int groups = 8 / ksplit;
    const int grp = warp / ksplit, part = warp - grp * ksplit;
    const int row0 = (blk * groups + grp) * R;
    const int in8 = in >> 3;
    float acc[R][N];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int n = 0; n < N; n++) acc[r][n] = 0.f;
    const uint4* wp[R];
#pragma unroll
    for (int r = 0; r < R; r++) wp[r] = (const uint4*)(W + (long long)min(row0 + r, out - 1) * in);
    const int stride = 32 * ksplit;
    for (int c0 = part * 32 + lane; c0 < in8; c0 += stride * U) {
        uint4 w[U][R];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int c = c0 + u * stride;
#pragma unroll
            for (int r = 0; r < R; r++) w[u][r] = c < in8 ? ld_stream(wp[r] + c) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int c = c0 + u * stride;
            if (c < in8) {
#pragma unroll
                for (int n = 0; n < N; n++) {
                    float xv[8];
                    ldg8(x + (long long)n * in + 8 * c, xv);
                    const float x0 = xv[0], x1 = xv[1], x2 = xv[2], x3 = xv[3];
                    const float x4 = xv[4], x5 = xv[5], x6 = xv[6], x7 = xv[7];
#pragma unroll
                    for (int r = 0; r < R; r++) {
                        float a = acc[r][n];
                        a = fmaf(bf_lo(w[u][r].x), x0, a);
                        a = fmaf(bf_hi(w[u][r].x), x1, a);
                        a = fmaf(bf_lo(w[u][r].y), x2, a);
                        a = fmaf(bf_hi(w[u][r].y), x3, a);
                        a = fmaf(bf_lo(w[u][r].z), x4, a);
                        a = fmaf(bf_hi(w[u][r].z), x5, a);
                        a = fmaf(bf_lo(w[u][r].w), x6, a);
                        a = fmaf(bf_hi(w[u][r].w), x7, a);
                        acc[r][n] = a;
                    }
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int n = 0; n < N; n++) acc[r][n] = warp_sum(acc[r][n]);
    if (ksplit > 1) {
        if (lane == 0) {
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int n = 0; n < N; n++) red[warp][r][n] = acc[r][n];
        }
        __syncthreads();
        if (part == 0 && lane == 0) {
            for (int q = 1; q < ksplit; q++) {
#pragma unroll
                for (int r = 0; r < R; r++)
#pragma unroll
                    for (int n = 0; n < N; n++) acc[r][n] += red[warp + q][r][n];
            }
        }
    }
    if (part == 0 && lane == 0) {
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int row = row0 + r;
            if (row < out) {
                const float b = bias ? bias[row] : 0.f;
#pragma unroll
                for (int n = 0; n < N; n++) store_out(y + (long long)n * out + row, acc[r][n] + b);
            }
        }
    }
}

// gemv_scalar
//   in/out: as gemv_vec, any in (no alignment needed)
//   grid: 256 threads = 8 warps, one output row per warp, lanes stride the row by 32; x = ceil(out / 8) blocks
//   promise: as gemv_vec
template <int N, typename XT, typename OutT>
__device__ __forceinline__ void gemv_scalar(OutT* __restrict__ y, const bf16_t* __restrict__ W,
                                            const XT* __restrict__ x, const float* __restrict__ bias, int in,
                                            int out) {
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (row >= out) return;
    float acc[N];
#pragma unroll
    for (int n = 0; n < N; n++) acc[n] = 0.f;
    const bf16_t* w = W + (long long)row * in;
    for (int k = lane; k < in; k += 32) {
        const float wv = bf2f(w[k]);
#pragma unroll
        for (int n = 0; n < N; n++) acc[n] = fmaf(wv, ld1(x + (long long)n * in + k), acc[n]);
    }
#pragma unroll
    for (int n = 0; n < N; n++) acc[n] = warp_sum(acc[n]);
    if (lane == 0) {
        const float b = bias ? bias[row] : 0.f;
#pragma unroll
        for (int n = 0; n < N; n++) store_out(y + (long long)n * out + row, acc[n] + b);
    }
}

#define GEMV_VEC(name, N, R, U, X_T, OUT_T)                                                                  \
    extern "C" __global__ void __launch_bounds__(256) name(const GemvParams p, const X_T* x) { pdl_begin();  \
        gemv_vec<N, R, U, X_T, OUT_T>(p, x);                                                                 \
    }

#define GEMV_SCALAR(name, N, X_T, OUT_T)                                                                     \
    extern "C" __global__ void __launch_bounds__(256) name(OUT_T* y, const bf16_t* W, const X_T* x,         \
                                                           const float* bias, int in, int out) { pdl_begin(); \
        gemv_scalar<N, X_T, OUT_T>(y, W, x, bias, in, out);                                                  \
    }
