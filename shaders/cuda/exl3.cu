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
// codebook maps it to an fp16 value, rounded once by an fp16 fma or add as exllamav3 does (exl3_decode): bit for
// bit exl3.Codebook.Decode.

// fp16 by its bits, through PTX (no toolkit header: common.cuh): the widening, and the fp16 fma and add, which
// round their exact result once to nearest even and keep subnormals (no .ftz).
__device__ __forceinline__ float exl3_h2f(unsigned h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
    return f;
}

// mul1's fp16 constants by their bits: 0x1eee = 0.00677…, 0xc931 = −10.3828125 (TestEXL3Constants reads these
// lines).
__device__ __forceinline__ unsigned short exl3_mul1_inv() { return 0x1eee; }
__device__ __forceinline__ unsigned short exl3_mul1_bias() { return 0xc931; }

// exl3_decode<CB>: the codebook value of state s (exl3.Codebook.Decode), as exllamav3 computes it in fp16. mul1:
// dp4a sums the bytes of s·0x83DCD12D onto 0x6400, the fp16 bits of 1024 (1024 + Σ ≤ 2044 is exact there), and
// one fp16 fma scales it by k_inv plus k_bias; 3inst, mcg: the two masked halves added in fp16. Either way one
// rounding of the exact value to fp16 (an HFMA2 or HADD2), then the widening to f32: no f32 round trip.
template <int CB>
__device__ __forceinline__ float exl3_decode(unsigned s) {
    unsigned short r;
    if (CB == 2) {
        const unsigned x = s * 0x83DCD12Du;
        unsigned h;
        asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(h) : "r"(x), "r"(0x01010101u), "r"(0x6400u)); // fp16(1024 + Σ bytes)
        asm("fma.rn.f16 %0, %1, %2, %3;"
            : "=h"(r) : "h"((unsigned short)h), "h"(exl3_mul1_inv()), "h"(exl3_mul1_bias()));
    } else {
        const unsigned x = CB == 1 ? s * 0xCBAC1FEDu : s * 89226354u + 64248484u;
        // (x & 0x8fff8fff) ^ 0x3b603b60 as one lop3 (written in C, ptxas makes two of it, one per immediate).
        asm("{.reg .b32 t; .reg .b16 lo, hi; lop3.b32 t, %1, %2, %3, 0x6a; mov.b32 {lo, hi}, t; add.rn.f16 %0, lo, hi;}"
            : "=h"(r) : "r"(x), "r"(0x8fff8fffu), "r"(0x3b603b60u));
    }
    return exl3_h2f(r);
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

// exl3_shl_hi: the high word of (hi:lo) << s, s in 0..31: one funnel shift (written as 64-bit C, a constant s
// turns into masks and a 64-bit shift).
__device__ __forceinline__ unsigned exl3_shl_hi(unsigned hi, unsigned lo, unsigned s) {
    unsigned d;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(lo), "r"(hi), "r"(s));
    return d;
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

// exl3_al16: whether p is 16-byte aligned (x and dst are any tensor's, a view's possibly at any float).
__device__ __forceinline__ bool exl3_al16(const void* p) { return ((unsigned long long)p & 15) == 0; }

// EXL3_HAD(name): the two sides of an EXL3 layer
//   in:  x f32 [rows, xcols] (xcols ≤ cols: columns past xcols read as 0, the layer's zero padding); pre, post f32
//        [cols] or null (all 1); bias f32 [dcols] or null; cols a multiple of 128
//   out: dst f32 [rows, dcols] (dcols ≤ cols: the first dcols columns of the result; null: not written) and dst16
//        bf16 [rows, cols] or null (the whole result before the bias, rounded to bf16: a prompt GEMM's input):
//        dst = post ⊙ (H_128(pre ⊙ x)·f32(1/√128)) + bias on each run of 128 columns; dst may alias x when
//        dcols == xcols (each lane reads its four columns before writing them)
//   grid: x = ⌈rows·cols/128 / 4⌉ blocks of 128 threads, a warp per run, lane l holding columns 4l..4l+3; the
//         weights (pre, post, bias) are read before pdl_begin, so only x's load is behind the previous kernel;
//         16-byte loads and stores where a lane's four columns are all inside and 16-byte aligned
//   promise: bit-exact to rht.Apply (pre, post) then the f32 bias add, the CPU's EXL3 forward (exl3.Weights.MatMul):
//            pre products rounded once, butterfly stages h = 1, 2 (in the lane), 4 … 64 (shuffles), each pair
//            (j, j+h) → (u + v, u − v) rounded to f32, then the scale and post products and the bias sum each
//            rounded once (no contraction)
__device__ __forceinline__ void exl3_had_run(float* dst, bf16_t* dst16, const float* x, const float* __restrict__ pre,
                                         const float* __restrict__ post, const float* __restrict__ bias, int rows,
                                         int xcols, int cols, int dcols, float scale) {
    const int runs = cols >> 7;
    const long long run = (long long)blockIdx.x * 4 + (threadIdx.x >> 5);
    const bool live = run < (long long)rows * runs;
    const int lane = threadIdx.x & 31;
    const int row = live ? (int)(run / runs) : 0, c0 = live ? (int)(run % runs) * 128 + 4 * lane : 0;
    // The weights, before pdl_begin (no kernel writes them): their latency overlaps the previous kernel's tail.
    __align__(16) float pv[4] = {1.f, 1.f, 1.f, 1.f}, qv[4] = {1.f, 1.f, 1.f, 1.f}, bv[4] = {0.f, 0.f, 0.f, 0.f};
    if (live) {
        if (pre) *(float4*)pv = __ldg((const float4*)(pre + c0));
        if (post) *(float4*)qv = __ldg((const float4*)(post + c0));
        if (bias && dst) {
            if (c0 + 3 < dcols && exl3_al16(bias + c0)) *(float4*)bv = __ldg((const float4*)(bias + c0));
            else
#pragma unroll
                for (int e = 0; e < 4; e++) bv[e] = c0 + e < dcols ? __ldg(bias + c0 + e) : 0.f;
        }
    }
    pdl_begin();
    if (!live) return;
    __align__(16) float v[4];
    const float* xr = x + (long long)row * xcols;
    if (c0 + 3 < xcols && exl3_al16(xr + c0)) *(float4*)v = *(const float4*)(xr + c0);
    else
#pragma unroll
        for (int e = 0; e < 4; e++) v[e] = c0 + e < xcols ? xr[c0 + e] : 0.f;
    if (pre)
#pragma unroll
        for (int e = 0; e < 4; e++) v[e] = __fmul_rn(v[e], pv[e]);
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
    __syncwarp(); // every lane's x is read before any writes dst (dst may alias x)
#pragma unroll
    for (int e = 0; e < 4; e++) {
        v[e] = __fmul_rn(v[e], scale);
        if (post) v[e] = __fmul_rn(v[e], qv[e]);
    }
    if (dst16)
        *(uint2*)(dst16 + (long long)row * cols + c0) =
            make_uint2((unsigned)f2bf(v[0]) | (unsigned)f2bf(v[1]) << 16,
                       (unsigned)f2bf(v[2]) | (unsigned)f2bf(v[3]) << 16);
    if (dst) {
        if (bias)
#pragma unroll
            for (int e = 0; e < 4; e++) v[e] = __fadd_rn(v[e], bv[e]);
        float* dr = dst + (long long)row * dcols;
        if (c0 + 3 < dcols && exl3_al16(dr + c0)) *(float4*)(dr + c0) = *(const float4*)v;
        else
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (c0 + e < dcols) dr[c0 + e] = v[e];
    }
}

// pdl_begin is inside exl3_had_run, after the weights' loads.
#define EXL3_HAD(name)                                                                                         \
    extern "C" __global__ void __launch_bounds__(128)                                                          \
        name(float* dst, bf16_t* dst16, const float* x, const float* pre, const float* post, const float* bias,  \
             int rows, int xcols, int cols, int dcols, float scale) {                                           \
        exl3_had_run(dst, dst16, x, pre, post, bias, rows, xcols, cols, dcols, scale);                          \
    }

#define EXL3_GEMV_AHEAD 8 // tiles of a warp's group in EXL3_GEMV (the unit its copies to shared memory go by)

// cp.async of 16 bytes global → shared (a shared-window address) through L2 only (.cg: each tile is read once),
// and its group fences.
__device__ __forceinline__ unsigned exl3_smem_addr(const void* p) {
    unsigned d;
    asm("{.reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t;}" : "=r"(d) : "l"(p));
    return d;
}
__device__ __forceinline__ void exl3_cp16(unsigned dst, const unsigned* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void exl3_cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int P>
__device__ __forceinline__ void exl3_cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(P) : "memory"); }

// exl3_gemv_stages<K>: the groups a warp's shared ring holds (the one decoded and those in flight): three while a
// group is at most 8 KiB a block (K ≤ 4: 8 blocks, 200 KiB an SM), else two (the widest K: 6 blocks).
template <int K>
struct exl3_gemv_stages {
    static constexpr int S = K <= 4 ? 3 : 2;
};

// exl3_gemv_copier<K>: a lane's share of its warp's copies, group after group. A group is EXL3_GEMV_AHEAD tiles
// kb0 + 8u of 2K 16-byte chunks each; lane l copies chunks l/8 + 4i (i < ⌈K/2⌉, those below 2K) of tile u = l%8,
// so its chunks are one tile's, at constant offsets from one global and one shared address: the per-group work is
// a bound check, the copies and a pointer step. One commit a group (an empty one where the lane has none: the
// waits count groups).
template <int K>
struct exl3_gemv_copier {
    static constexpr int NW = 8 * K, U = EXL3_GEMV_AHEAD, CPL = (K + 1) / 2, SLOT = U * NW * 4; // SLOT: bytes
    const unsigned* src; // chunk l/8 of tile (kb0 + 8u, nb) of the next group
    unsigned dst;        // its shared address in ring slot 0
    int du, p0;          // 8u, l/8
    __device__ __forceinline__ exl3_gemv_copier(unsigned (*ring)[U][NW], const unsigned* col, long long stride,
                                                int warp, int lane)
        : du(8 * (lane & 7)), p0(lane >> 3) {
        src = col + (long long)(warp + du) * stride + 4 * p0;
        dst = exl3_smem_addr(&ring[0][lane & 7][4 * p0]);
    }
    // issue: this lane's copies of group kb0 (its tile kb0 + du) into ring slot `slot`, then a step to kb0 + 8U.
    __device__ __forceinline__ void issue(int kb0, int slot, int tk, long long stride) {
        if (kb0 + du < tk) {
            const unsigned d = dst + slot * SLOT;
#pragma unroll
            for (int i = 0; i < CPL; i++)
                if (4 * i + 3 < 2 * K || p0 + 4 * i < 2 * K) exl3_cp16(d + 64 * i, src + 16 * i);
        }
        exl3_cp_commit();
        src += 8 * U * stride;
    }
};

// exl3_gemv_tile: one tile's part of lane l's sums: the window of the tile's words w (shared), x at xp (row m
// at xp + m·in: two float2 at +0 and +8), the 8 weights in position order into acc[m][j/4]. Row 0 needs no check
// (n ≥ 1).
template <int K, int CB, int N>
__device__ __forceinline__ void exl3_gemv_tile(const exl3_window<K>& win, const unsigned* w,
                                               const float* __restrict__ xp, int in, int n, float (&acc)[N][2]) {
    unsigned a[exl3_window<K>::NA];
    win.load(w, a);
    float2 xa[N], xb[N];
#pragma unroll
    for (int m = 0; m < N; m++)
        if (m == 0 || m < n) {
            const float* p = xp + (long long)m * in;
            xa[m] = __ldg((const float2*)p), xb[m] = __ldg((const float2*)(p + 8));
        }
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const float wt = exl3_decode<CB>(exl3_lane_state<K>(a, j));
#pragma unroll
        for (int m = 0; m < N; m++)
            if (m == 0 || m < n) {
                const float2 v = j & 2 ? xb[m] : xa[m]; // row 2(l%4) + (j&1) + 8((j>>1)&1)
                acc[m][j >> 2] = fmaf(wt, j & 1 ? v.y : v.x, acc[m][j >> 2]);
            }
    }
}

// EXL3_GEMV(name, K, CB, N)
//   in:  tiles u32 [tk, tn, 8·K] (the stored .trellis, 16-byte aligned); x f32 [n, tk·16] (the rotated input,
//        8-byte aligned); 1 ≤ n ≤ N rows
//   out: y f32 [n, tn·16] = x·Ŵ, Ŵ the inner matrix [tk·16, tn·16] decoded per exl3_decode
//   grid: x = tn (one block per tile column: 16 outputs), 256 threads; warp w takes the tiles kb = w, w+8, …, in
//         groups of EXL3_GEMV_AHEAD, copied by cp.async into a ring of exl3_gemv_stages groups in shared memory
//         (the first S − 1 issued before pdl_begin: weights only, so their DRAM latency overlaps the previous
//         kernel) and decoded S − 1 groups behind the copies; lane l decodes positions 8l..8l+7 (rows
//         2(l%4)+{0,1,8,9} of columns l/4 and l/4+8: x read as two float2 a tile and row) and keeps 2·N sums;
//         the four lanes of a column pair add theirs (shuffles xor 1, 2), then the 8 warps theirs in warp order
//   promise: f32 weights bit-exact to exl3.Weights.Inner, f32 products and sums in the order above (fused
//            multiply-adds): within f32 summation-order rounding of the reference
template <int K, int CB, int N>
__device__ __forceinline__ void exl3_gemv(const unsigned* __restrict__ tiles, const float* __restrict__ x,
                                          float* __restrict__ y, int tk, int tn, int n) {
    constexpr int NW = 8 * K, U = EXL3_GEMV_AHEAD, S = exl3_gemv_stages<K>::S;
    __shared__ __align__(16) unsigned sw[8][S][U][NW];
    __shared__ float red[8][N][16];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nb = blockIdx.x, in = tk * 16;
    const long long stride = (long long)tn * NW; // words from tile (kb, nb) to (kb + 1, nb)
    const unsigned* col = tiles + (long long)nb * NW;
    exl3_gemv_copier<K> cp(sw[warp], col, stride, warp, lane);
#pragma unroll
    for (int s = 0; s < S - 1; s++) cp.issue(warp + 8 * U * s, s, tk, stride);
    pdl_begin(); // x is the previous kernel's output
    const exl3_window<K> win(lane);
    const float* xl = x + 2 * (lane & 3); // lane l's rows of tile kb: xl + 16·kb + {0, 1, 8, 9} (exl3_pos)
    float acc[N][2];
#pragma unroll
    for (int m = 0; m < N; m++) acc[m][0] = acc[m][1] = 0.f;
    int st = 0; // the ring slot of group kb0
    for (int kb0 = warp; kb0 < tk; kb0 += 8 * U) {
        cp.issue(kb0 + 8 * U * (S - 1), st == 0 ? S - 1 : st - 1, tk, stride);
        exl3_cp_wait<S - 1>(); // this lane's copies of group kb0 have landed; the warp's after the __syncwarp
        __syncwarp();
        const float* xg = xl + kb0 * 16;
        if (kb0 + 8 * (U - 1) < tk) { // a whole group: no bound checks between its tiles
#pragma unroll
            for (int u = 0; u < U; u++) exl3_gemv_tile<K, CB, N>(win, sw[warp][st][u], xg + 128 * u, in, n, acc);
        } else {
#pragma unroll
            for (int u = 0; u < U; u++)
                if (kb0 + 8 * u < tk) exl3_gemv_tile<K, CB, N>(win, sw[warp][st][u], xg + 128 * u, in, n, acc);
        }
        __syncwarp(); // every lane is done with slot st before a later issue refills it
        st = st == S - 1 ? 0 : st + 1;
    }
    exl3_cp_wait<0>();
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

// EXL3_GEMV_MIN_BLOCKS(K, CB, N): the blocks an SM should hold, so the register cap ptxas gets: 32 registers for
// one row (8 blocks: full occupancy), 40 where 32 would spill (3inst's extra constant, K = 7's four-word window);
// for more rows the counts the form had before its groups were unrolled whole (48, 64, 80; 128 for K = 7 at 8
// rows), which otherwise hoists every tile's x loads and doubles them. Checked by TestKernelsCompile's ptxas log.
#define EXL3_GEMV_MIN_BLOCKS(K, CB, N) \
    ((N) == 1 ? ((K) == 7 || (CB) == 0 ? 6 : 8) : (N) == 2 ? 5 : (N) <= 4 ? 4 : (K) == 7 ? 2 : 3)

// pdl_begin is inside exl3_gemv, after the first tiles' copies are issued.
#define EXL3_GEMV(name, K, CB, N)                                                                              \
    extern "C" __global__ void __launch_bounds__(256, EXL3_GEMV_MIN_BLOCKS(K, CB, N))                           \
        name(const unsigned* tiles, const float* x, float* y, int tk, int tn, int n) {                         \
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
