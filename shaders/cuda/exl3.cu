// exl3.cu: linear layers in exllamav3's EXL3 format (docs/exl3-format.md): the Hadamard sides with their vectors of
// signed scales (exl3_had), a decode GEMV over the 16×16 tiles for 1..8 activation rows (EXL3_GEMV), and the
// expansion of the inner matrix to bf16 for prompts, then cuBLASLt (EXL3_EXPAND). A layer is y = sv ⊙ H(H(su ⊙ x)·Ŵ)
// (+ bias), H = blockdiag(H_128)/√128, run as three launches (had, GEMV or expand + GEMM, had). What it leaves
// out: the sides fused into the GEMV and a tensor-core form (exllamav3's exl3_gemm does both). The host side is
// internal/cuda/exl3.go; contracts are repeated in docs/kernels.md; internal/cuda/exl3_emul_test.go transcribes the
// index arithmetic and the decode into Go and checks them against internal/exl3 without a GPU.
//
// The instantiation list is appended by the host (exl3Instantiations, from the names exl3.go builds):
// EXL3_HAD(name), EXL3_GEMV(name, K, CB, N) and EXL3_EXPAND(name, K, CB); CB is the codebook (0 3inst, 1 mcg, 2 mul1: exllamav3's
// numbering and exl3.Codebook's).
//
// Decode of one position t of a tile (every kernel): the tile is 8·K 32-bit words (its 16·K int16 as stored); the
// state is the 16 bits of the most-significant-first stream ending at bit (t+1)·K, wrapping (exl3_state); the
// codebook maps it to an fp16 value, computed exactly and rounded once with cvt.rn.f16.f32 (exl3_decode): bit for
// bit exl3.Codebook.Decode.

// fp16 by its bits, through the PTX conversions (no toolkit header: common.cuh).
__device__ __forceinline__ float exl3_h2f(unsigned h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
    return f;
}
__device__ __forceinline__ float exl3_round_h(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return exl3_h2f(h);
}

// mul1's fp16 constants widened to f32 (exactly): 0x1eee = 0.00677…, 0xc931 = −10.3828125 (TestEXL3Constants reads
// these lines).
__device__ __forceinline__ float exl3_mul1_inv() { return __uint_as_float(0x3bddc000u); }
__device__ __forceinline__ float exl3_mul1_bias() { return __uint_as_float(0xc1262000u); }

// exl3_decode<CB>: the codebook value of state s (exl3.Codebook.Decode). mul1: 1024 + the byte sum of s·0x83DCD12D
// (dp4a), times k_inv plus k_bias in one f32 fma — the exact value (≤ 20 significant bits), so the one rounding to
// fp16 is the fp16 fma's; 3inst, mcg: the two masked halves summed in f32 (exact: ≤ 15 bits), rounded to fp16.
template <int CB>
__device__ __forceinline__ float exl3_decode(unsigned s) {
    if (CB == 2) {
        const unsigned x = s * 0x83DCD12Du;
        unsigned sum;
        asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(sum) : "r"(x), "r"(0x01010101u), "r"(1024u)); // 1024 + Σ bytes
        return exl3_round_h(fmaf((float)sum, exl3_mul1_inv(), exl3_mul1_bias()));
    }
    unsigned x = CB == 1 ? s * 0xCBAC1FEDu : s * 89226354u + 64248484u;
    x = (x & 0x8fff8fffu) ^ 0x3b603b60u;
    return exl3_round_h(__fadd_rn(exl3_h2f(x & 0xffffu), exl3_h2f(x >> 16)));
}

// exl3_state<K>: position t's state from a tile's 8·K words w (exl3.State): the 16 bits ending at stream bit
// (t+1)·K (offset by one stream so the start is never negative), stream bit p being bit 31 − p%32 of w[p/32].
template <int K>
__device__ __forceinline__ unsigned exl3_state(const unsigned* w, int t) {
    constexpr int NW = 8 * K;
    const int b1 = (t + 1) * K + 256 * K, b0 = b1 - 16;
    const int i0 = b0 >> 5, i1 = (b1 - 1) >> 5;
    const unsigned long long m = ((unsigned long long)w[i0 % NW] << 32) | w[i1 % NW];
    return (unsigned)(m >> ((i1 + 1) * 32 - b1)) & 0xffffu;
}

// exl3_shl_hi: the high word of (hi:lo) << s, s in 0..31 (one shf.l).
__device__ __forceinline__ unsigned exl3_shl_hi(unsigned hi, unsigned lo, unsigned s) {
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (32 - s));
}

// exl3_window<K>: the GEMV lane's view of a tile. Positions 8·lane..8·lane+7 read 7·K + 16 consecutive stream bits
// from stream bit b = (8·lane+1)·K + 256·K − 16 on (exl3_state's offset); the lane loads the NA + 1 words from b/32
// (wrapping) and shifts them left by b%32 into a[0..NA), so position 8·lane+j's state is the 16 bits at the
// constant offset j·K (exl3_lane_state): one shift a weight instead of two shared loads and a 64-bit shift.
template <int K>
struct exl3_window {
    static constexpr int NW = 8 * K, NA = (7 * K + 16 + 31) / 32;
    int wi[NA + 1];
    unsigned off;
    __device__ __forceinline__ explicit exl3_window(int lane) {
        const int b = (8 * lane + 1) * K + 256 * K - 16;
        off = b & 31;
#pragma unroll
        for (int v = 0; v <= NA; v++) wi[v] = ((b >> 5) + v) % NW;
    }
    __device__ __forceinline__ void load(const unsigned* w, unsigned (&a)[NA]) const {
        unsigned wv[NA + 1];
#pragma unroll
        for (int v = 0; v <= NA; v++) wv[v] = w[wi[v]];
#pragma unroll
        for (int v = 0; v < NA; v++) a[v] = exl3_shl_hi(wv[v], wv[v + 1], off);
    }
};

// exl3_lane_state<K>: position 8·lane+j's state from the shifted window a (j a constant after unrolling).
template <int K, int NA>
__device__ __forceinline__ unsigned exl3_lane_state(const unsigned (&a)[NA], int j) {
    const int q = j * K, v = q >> 5, s = q & 31;
    return s <= 16 ? (a[v] >> (16 - s)) & 0xffffu : exl3_shl_hi(a[v], a[v + 1 < NA ? v + 1 : NA - 1], s) >> 16;
}

// exl3_pos: the weight of tile position t = 8·lane + j (exl3.Position): input row r, output column c of the tile.
__device__ __forceinline__ void exl3_pos(int lane, int j, int& r, int& c) {
    r = (lane & 3) * 2 + (j & 1) + 8 * ((j >> 1) & 1);
    c = (lane >> 2) + 8 * (j >> 2);
}

// EXL3_HAD(name): the two sides of an EXL3 layer
//   in:  x f32 [rows, xcols] (xcols ≤ cols: columns past xcols read as 0, the layer's zero padding); pre, post f32
//        [cols] or null (all 1); bias f32 [dcols] or null; cols a multiple of 128
//   out: dst f32 [rows, dcols] (dcols ≤ cols: the first dcols columns of the result; null: not written) and dst16
//        bf16 [rows, cols] or null (the whole result before the bias, rounded to bf16: a prompt GEMM's input):
//        dst = post ⊙ (H_128(pre ⊙ x)·f32(1/√128)) + bias on each run of 128 columns; dst may alias x when
//        dcols == xcols (each lane reads its four columns before writing them)
//   grid: x = ⌈rows·cols/128 / 4⌉ blocks of 128 threads, a warp per run, lane l holding columns 4l..4l+3
//   promise: bit-exact to rht.Apply (pre, post) then the f32 bias add, the CPU's EXL3 forward (exl3.Weights.MatMul):
//            pre products rounded once, butterfly stages h = 1, 2 (in the lane), 4 … 64 (shuffles), each pair
//            (j, j+h) → (u + v, u − v) rounded to f32, then the scale and post products and the bias sum each
//            rounded once (no contraction)
__device__ __forceinline__ void exl3_had_run(float* dst, bf16_t* dst16, const float* x, const float* __restrict__ pre,
                                         const float* __restrict__ post, const float* __restrict__ bias, int rows,
                                         int xcols, int cols, int dcols, float scale) {
    const int runs = cols >> 7;
    const long long run = (long long)blockIdx.x * 4 + (threadIdx.x >> 5);
    if (run >= (long long)rows * runs) return;
    const int lane = threadIdx.x & 31;
    const int row = (int)(run / runs), c0 = (int)(run % runs) * 128 + 4 * lane;
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; e++) {
        const int c = c0 + e;
        float a = c < xcols ? x[(long long)row * xcols + c] : 0.f;
        if (pre) a = __fmul_rn(a, pre[c]);
        v[e] = a;
    }
    // h = 1, 2 inside the lane.
    float t0 = __fadd_rn(v[0], v[1]), t1 = __fsub_rn(v[0], v[1]), t2 = __fadd_rn(v[2], v[3]), t3 = __fsub_rn(v[2], v[3]);
    v[0] = __fadd_rn(t0, t2), v[2] = __fsub_rn(t0, t2), v[1] = __fadd_rn(t1, t3), v[3] = __fsub_rn(t1, t3);
    // h = 4 … 64: the partner lane l ^ m; the lane with bit m set holds the pair's upper element.
#pragma unroll
    for (int m = 1; m < 32; m <<= 1) {
        const bool upper = lane & m;
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const float p = __shfl_xor_sync(0xffffffffu, v[e], m);
            v[e] = upper ? __fsub_rn(p, v[e]) : __fadd_rn(v[e], p);
        }
    }
    __syncwarp();
#pragma unroll
    for (int e = 0; e < 4; e++) {
        const int c = c0 + e;
        float a = __fmul_rn(v[e], scale);
        if (post) a = __fmul_rn(a, post[c]);
        if (dst16) dst16[(long long)row * cols + c] = f2bf(a);
        if (dst && c < dcols) dst[(long long)row * dcols + c] = bias ? __fadd_rn(a, bias[c]) : a;
    }
}

#define EXL3_HAD(name)                                                                                         \
    extern "C" __global__ void __launch_bounds__(128)                                                          \
        name(float* dst, bf16_t* dst16, const float* x, const float* pre, const float* post, const float* bias,  \
             int rows, int xcols, int cols, int dcols, float scale) { pdl_begin();                              \
        exl3_had_run(dst, dst16, x, pre, post, bias, rows, xcols, cols, dcols, scale);                          \
    }

#define EXL3_GEMV_AHEAD 8 // tiles a warp has in flight in EXL3_GEMV (its loads run one group ahead)

// EXL3_GEMV(name, K, CB, N)
//   in:  tiles u32 [tk, tn, 8·K] (the stored .trellis); x f32 [n, tk·16] (the rotated input); n ≤ N rows
//   out: y f32 [n, tn·16] = x·Ŵ, Ŵ the inner matrix [tk·16, tn·16] decoded per exl3_decode
//   grid: x = tn (one block per tile column: 16 outputs), 256 threads; warp w takes the tiles kb = w, w+8, …, in
//         groups of EXL3_GEMV_AHEAD: the next group's words are loaded into registers while this group's, staged
//         in shared memory, are decoded (one 8·K-word load in flight a warp measured 240 GB/s on the H200);
//         lane l decodes positions 8l..8l+7 (rows 2(l%4)+{0,1,8,9} of columns l/4 and l/4+8) and keeps 2·N sums;
//         the four lanes of a column pair add theirs (shuffles xor 1, 2), then the 8 warps theirs in warp order
//   promise: f32 weights bit-exact to exl3.Weights.Inner, f32 products and sums in the order above (fused
//            multiply-adds): within f32 summation-order rounding of the reference
template <int K, int CB, int N>
__device__ __forceinline__ void exl3_gemv(const unsigned* __restrict__ tiles, const float* __restrict__ x,
                                          float* __restrict__ y, int tk, int tn, int n) {
    constexpr int NW = 8 * K, WPL = (NW + 31) / 32, U = EXL3_GEMV_AHEAD;
    __shared__ unsigned sw[8][U][NW];
    __shared__ float red[8][N][16];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nb = blockIdx.x, in = tk * 16;
    const long long stride = (long long)tn * NW; // words from tile (kb, nb) to (kb + 1, nb)
    const unsigned* col = tiles + (long long)nb * NW;
    const exl3_window<K> win(lane);
    float acc[N][2];
#pragma unroll
    for (int m = 0; m < N; m++) acc[m][0] = acc[m][1] = 0.f;
    // The U tiles kb0 + 8u of the next group, lane l holding words l, l + 32 of each.
    unsigned ahead[U][WPL];
#pragma unroll
    for (int u = 0; u < U; u++)
#pragma unroll
        for (int v = 0; v < WPL; v++) {
            const int kb = warp + 8 * u, i = lane + 32 * v;
            ahead[u][v] = kb < tk && i < NW ? __ldg(col + kb * stride + i) : 0u;
        }
    for (int kb0 = warp; kb0 < tk; kb0 += 8 * U) {
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int v = 0; v < WPL; v++)
                if (lane + 32 * v < NW) sw[warp][u][lane + 32 * v] = ahead[u][v];
        __syncwarp();
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int v = 0; v < WPL; v++) {
                const int kb = kb0 + 8 * (U + u), i = lane + 32 * v;
                ahead[u][v] = kb < tk && i < NW ? __ldg(col + kb * stride + i) : 0u;
            }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int kb = kb0 + 8 * u;
            if (kb >= tk) break;
            unsigned a[exl3_window<K>::NA];
            win.load(sw[warp][u], a);
#pragma unroll
            for (int j = 0; j < 8; j++) {
                int r, c;
                exl3_pos(lane, j, r, c);
                const float w = exl3_decode<CB>(exl3_lane_state<K>(a, j));
#pragma unroll
                for (int m = 0; m < N; m++)
                    if (m < n) acc[m][j >> 2] = fmaf(w, __ldg(x + (long long)m * in + kb * 16 + r), acc[m][j >> 2]);
            }
        }
        __syncwarp();
    }
#pragma unroll
    for (int m = 0; m < N; m++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float s = acc[m][h];
            s = __fadd_rn(s, __shfl_xor_sync(0xffffffffu, s, 1));
            s = __fadd_rn(s, __shfl_xor_sync(0xffffffffu, s, 2));
            if ((lane & 3) == 0) red[warp][m][(lane >> 2) + 8 * h] = s;
        }
    __syncthreads();
    if (threadIdx.x < N * 16) {
        const int m = threadIdx.x >> 4, c = threadIdx.x & 15;
        if (m < n) {
            float s = red[0][m][c];
#pragma unroll
            for (int w = 1; w < 8; w++) s = __fadd_rn(s, red[w][m][c]);
            y[(long long)m * tn * 16 + nb * 16 + c] = s;
        }
    }
}

#define EXL3_GEMV(name, K, CB, N)                                                                              \
    extern "C" __global__ void __launch_bounds__(256)                                                          \
        name(const unsigned* tiles, const float* x, float* y, int tk, int tn, int n) { pdl_begin();            \
        exl3_gemv<K, CB, N>(tiles, x, y, tk, tn, n);                                                           \
    }

// EXL3_EXPAND(name, K, CB)
//   in:  tiles u32 [tk, tn, 8·K]
//   out: w bf16 [tn·16, tk·16] = Ŵᵀ (the [out, in] weight cuBLASLt multiplies as x·wᵀ), each value rounded to bf16
//   grid: x = tk·tn blocks at most (grid-stride over the tiles), 256 threads: thread t decodes position t, the tile
//         goes through shared memory transposed and out as 16 rows of 16 values
//   promise: bf16(exl3.Weights.Inner), round to nearest even
template <int K, int CB>
__device__ __forceinline__ void exl3_expand(bf16_t* __restrict__ w, const unsigned* __restrict__ tiles, int tk, int tn) {
    constexpr int NW = 8 * K;
    __shared__ unsigned sw[NW];
    __shared__ bf16_t st[16][16]; // [c][r]: the tile transposed, written out as 16 rows of 32 bytes
    const long long total = (long long)tk * tn, in = (long long)tk * 16;
    for (long long tile = blockIdx.x; tile < total; tile += gridDim.x) {
        const int kb = (int)(tile / tn), nb = (int)(tile % tn);
        __syncthreads();
        if (threadIdx.x < NW) sw[threadIdx.x] = __ldg(tiles + tile * NW + threadIdx.x);
        __syncthreads();
        int r, c;
        exl3_pos(threadIdx.x >> 3, threadIdx.x & 7, r, c);
        st[c][r] = f2bf(exl3_decode<CB>(exl3_state<K>(sw, threadIdx.x)));
        __syncthreads();
        if (threadIdx.x < 128) {
            const int oc = threadIdx.x >> 3, p = threadIdx.x & 7;
            *(unsigned*)(w + (nb * 16 + oc) * in + kb * 16 + 2 * p) = (unsigned)st[oc][2 * p] | ((unsigned)st[oc][2 * p + 1] << 16);
        }
    }
}

#define EXL3_EXPAND(name, K, CB)                                                                               \
    extern "C" __global__ void __launch_bounds__(256) name(bf16_t* w, const unsigned* tiles, int tk, int tn) { pdl_begin(); \
        exl3_expand<K, CB>(w, tiles, tk, tn);                                                                  \
    }
