// ops.cu: the small kernels of the CUDA backend: embedding gather, RMSNorm, residual add, SwiGLU, rotary
// embedding, KV-cache store, bias add, the f32→bf16 conversion of prompt-GEMM inputs and the normalized greedy
// argmax, plus two fusions the backend forms from adjacent ops (add + RMSNorm, per-head RMSNorm + rope). Each is
// memory-bound and launched once per op; the contracts below are repeated in docs/kernels.md ("CUDA").
//
// Every activation kernel is a template over the activation type T and is instantiated twice at the end of the
// file: NAME_f32 (T = float, what the backend computes in: ActDType is F32) and NAME_bf16 (T = bf16, kept for
// tests and tools). Arithmetic is f32 in both; "rounded to T" is a no-op for f32. Weights and embedding tables
// stay bf16; the KV cache is f32 (kv_t). Names are plain extern "C" symbols, looked up by internal/cuda (opName).

#define GRID_STRIDE(i, n)                                                                                   \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)(n);              \
         i += (long long)gridDim.x * blockDim.x)

// embed_{f32,bf16}
//   in:  table bf16 [vocab, d] row-major; ids int32 [n]
//   out: dst T [n, d]; dst[r] = table[ids[r]] widened exactly; an id outside [0, vocab) writes zeros
//   grid: x = n rows; block 256 threads stride the row (16-byte chunks when d % 8 == 0 and rows are aligned)
//   promise: exact (the CPU reference widens the same bf16 values)
template <typename T>
__device__ __forceinline__ void embed(T* __restrict__ dst, const bf16_t* __restrict__ table,
                                      const int* __restrict__ ids, int d, int vocab) {
    const int r = blockIdx.x;
    const int id = ids[r];
    T* out = dst + (long long)r * d;
    if (id < 0 || id >= vocab) {
        for (int j = threadIdx.x; j < d; j += blockDim.x) out[j] = 0;
        return;
    }
    const bf16_t* src = table + (long long)id * d;
    if ((d & 7) == 0 && aligned16(out, src, out)) {
        for (int j = threadIdx.x; j < d / 8; j += blockDim.x) {
            float v[8];
            ld8(src + 8 * j, v);
            st8(out + 8 * j, v);
        }
    } else {
        for (int j = threadIdx.x; j < d; j += blockDim.x) store_out(out + j, bf2f(src[j]));
    }
}

// rmsnorm_warp_{f32,bf16}
//   in:  x T [groups·g] (each head of a row is one group); w f32 [g]; eps
//   out: dst T [groups·g]; dst = (x · inv) · w rounded to T, inv = 1 / sqrt(Σx²/g + eps) with Σ in f32; dst may
//        be x
//   grid: 4 groups per 128-thread block, one warp each; for g < 1024 (head norms)
//   promise: f32 sum of squares (the CPU sums in f64): relative error of inv ≤ ~g·2^-24, then the rounding to T
template <typename T>
__device__ __forceinline__ void rmsnorm_warp(T* dst, const T* x, const float* __restrict__ w, int groups, int g,
                                             float eps) {
    const int grp = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (grp >= groups) return;
    const T* xs = x + (long long)grp * g;
    T* ys = dst + (long long)grp * g;
    float ss = 0.f;
    for (int j = lane; j < g; j += 32) {
        const float v = ld1(xs + j);
        ss = fmaf(v, v, ss);
    }
    ss = warp_sum(ss);
    const float inv = 1.0f / sqrtf(ss / (float)g + eps);
    for (int j = lane; j < g; j += 32) store_out(ys + j, __fmul_rn(__fmul_rn(ld1(xs + j), inv), w[j]));
}

// rownorm: one block per group (a whole row); ADD first forms sum = a + b (rounded to T) and writes it, then
// normalizes that sum, which is exactly Add followed by RMSNorm. Each thread keeps up to ROWNORM_CACHE 8-value
// chunks in registers between the two passes. y16, when not null, also receives the output rounded to bf16 (the
// input of a following prompt GEMM, so it needs no conversion launch).
#define ROWNORM_CACHE 4
template <typename T, bool ADD>
__device__ __forceinline__ void rownorm(T* sum, T* y, bf16_t* y16, const T* a, const T* b,
                                        const float* __restrict__ w, int g, float eps) {
    __shared__ float part[32];
    const long long base = (long long)blockIdx.x * g;
    const T* as = a + base;
    const T* bs = ADD ? b + base : as;
    T* ss = ADD ? sum + base : (T*)as; // the normalized input: the sum, or x itself
    T* ys = y + base;
    bf16_t* hs = y16 ? y16 + base : 0;
    const int n8 = g / 8;
    const bool vec = (g & 7) == 0 && aligned16(as, bs, ss) && aligned16(ys, hs ? (const void*)hs : (const void*)ys, ys);
    float acc = 0.f;
    float cache[ROWNORM_CACHE][8];
    if (vec) {
#pragma unroll
        for (int k = 0; k < ROWNORM_CACHE; k++) {
            const int c = threadIdx.x + k * blockDim.x;
            if (c < n8) {
                float v[8];
                ld8(as + 8 * c, v);
                if (ADD) {
                    float u[8];
                    ld8(bs + 8 * c, u);
#pragma unroll
                    for (int q = 0; q < 8; q++) v[q] = as_act(v[q] + u[q], ss);
                    st8(ss + 8 * c, v);
                }
#pragma unroll
                for (int q = 0; q < 8; q++) {
                    cache[k][q] = v[q];
                    acc = fmaf(v[q], v[q], acc);
                }
            }
        }
        for (int c = threadIdx.x + ROWNORM_CACHE * blockDim.x; c < n8; c += blockDim.x) {
            float v[8];
            ld8(as + 8 * c, v);
            if (ADD) {
                float u[8];
                ld8(bs + 8 * c, u);
#pragma unroll
                for (int q = 0; q < 8; q++) v[q] = as_act(v[q] + u[q], ss);
                st8(ss + 8 * c, v);
            }
#pragma unroll
            for (int q = 0; q < 8; q++) acc = fmaf(v[q], v[q], acc);
        }
    } else {
        for (int j = threadIdx.x; j < g; j += blockDim.x) {
            float v = ld1(as + j);
            if (ADD) {
                v = as_act(v + ld1(bs + j), ss);
                store_out(ss + j, v);
            }
            acc = fmaf(v, v, acc);
        }
    }
    acc = warp_sum(acc);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.f;
        v = warp_sum(v);
        if (threadIdx.x == 0) part[0] = v;
    }
    __syncthreads();
    const float inv = 1.0f / sqrtf(part[0] / (float)g + eps);
    if (vec) {
#pragma unroll
        for (int k = 0; k < ROWNORM_CACHE; k++) {
            const int c = threadIdx.x + k * blockDim.x;
            if (c < n8) {
                float o[8];
#pragma unroll
                for (int q = 0; q < 8; q++) o[q] = __fmul_rn(__fmul_rn(cache[k][q], inv), w[8 * c + q]);
                st8(ys + 8 * c, o);
                if (hs) st8(hs + 8 * c, o);
            }
        }
        for (int c = threadIdx.x + ROWNORM_CACHE * blockDim.x; c < n8; c += blockDim.x) {
            float v[8], o[8];
            ld8(ss + 8 * c, v); // this thread's own sum (or x)
#pragma unroll
            for (int q = 0; q < 8; q++) o[q] = __fmul_rn(__fmul_rn(v[q], inv), w[8 * c + q]);
            st8(ys + 8 * c, o);
            if (hs) st8(hs + 8 * c, o);
        }
    } else {
        for (int j = threadIdx.x; j < g; j += blockDim.x) {
            const float o = __fmul_rn(__fmul_rn(ld1(ss + j), inv), w[j]);
            store_out(ys + j, o);
            if (hs) hs[j] = f2bf(o);
        }
    }
}

// rmsnorm_row_{f32,bf16}
//   in/out: as rmsnorm_warp, one group (a whole row) per block; y16 bf16 [groups·g] or null: the output again,
//        rounded to bf16
//   grid: x = groups; block = min(1024, 32·ceil(g/8/32)) threads (host), one 8-value chunk each per 4·block
//   promise: as rmsnorm_warp
//
// add_rmsnorm_{f32,bf16} (the fusion of Add(sum, a, b) followed by RMSNorm(y, sum, w))
//   in:  a, b T [groups·g]; w f32 [g]; eps
//   out: sum T = a + b rounded to T (may alias a or b); y T = (sum · inv) · w over each group of the stored sum (y
//        may alias sum); y16 as rmsnorm_row
//   grid: as rmsnorm_row
//   promise: bit-identical to add then rmsnorm_row

// add_{f32,bf16}
//   in:  a, b T [n]; out: dst T [n] = a + b (f32 add, rounded to T); dst may alias a or b
//   grid: grid-stride over 8-element chunks (16-byte accesses when all three are aligned), tail scalar
//   promise: exactly the CPU's f32 sum (rounded once for bf16)
template <typename T> __device__ __forceinline__ void add(T* dst, const T* a, const T* b, long long n) {
    if (aligned16(dst, a, b)) {
        const long long n8 = n / 8;
        GRID_STRIDE(i, n8) {
            float u[8], v[8];
            ld8(a + 8 * i, u);
            ld8(b + 8 * i, v);
#pragma unroll
            for (int q = 0; q < 8; q++) u[q] += v[q];
            st8(dst + 8 * i, u);
        }
        GRID_STRIDE(j, n - n8 * 8) {
            const long long k = n8 * 8 + j;
            store_out(dst + k, ld1(a + k) + ld1(b + k));
        }
    } else {
        GRID_STRIDE(k, n) store_out(dst + k, ld1(a + k) + ld1(b + k));
    }
}


// swiglu_{f32,bf16}
//   in:  gate, up T [n]; out: dst T [n] = gate / (1 + exp(-gate)) · up rounded to T; dst may alias either;
//        y16 bf16 [n] or null: the output again, rounded to bf16 (a following prompt GEMM's input)
//   grid: as add
//   promise: f32 arithmetic in the CPU's order; expf differs from the CPU's f64 exp by ≤ 2 ulp
template <typename T>
__device__ __forceinline__ void swiglu(T* dst, bf16_t* y16, const T* gate, const T* up, long long n) {
    if (aligned16(dst, gate, up) && aligned16(y16 ? (const void*)y16 : (const void*)dst, dst, dst)) {
        const long long n8 = n / 8;
        GRID_STRIDE(i, n8) {
            float u[8], v[8];
            ld8(gate + 8 * i, u);
            ld8(up + 8 * i, v);
#pragma unroll
            for (int q = 0; q < 8; q++) u[q] = silu_mul(u[q], v[q]);
            st8(dst + 8 * i, u);
            if (y16) st8(y16 + 8 * i, u);
        }
        GRID_STRIDE(j, n - n8 * 8) {
            const long long k = n8 * 8 + j;
            const float o = silu_mul(ld1(gate + k), ld1(up + k));
            store_out(dst + k, o);
            if (y16) y16[k] = f2bf(o);
        }
    } else {
        GRID_STRIDE(k, n) {
            const float o = silu_mul(ld1(gate + k), ld1(up + k));
            store_out(dst + k, o);
            if (y16) y16[k] = f2bf(o);
        }
    }
}

// launch_probe (the tuning table's lab key lab_pad): nothing but the dependency wait — launched after every kernel
// of a step it measures what one more launch costs in a recorded graph with programmatic dependent launch, the
// yardstick for fusing launches (docs/perf.md).
extern "C" __global__ void launch_probe() { pdl_begin(); }

// cvt_f32_bf16
//   in:  x f32 [n]; out: y bf16 [n] = bf16(x), round to nearest even (the input of a prompt GEMM, cuBLASLt bf16)
//   grid: as add
//   promise: exact rounding, as backend.F32ToBF16
extern "C" __global__ void cvt_f32_bf16(bf16_t* __restrict__ y, const float* __restrict__ x, long long n) { pdl_begin();
    if (aligned16(y, x, x)) {
        const long long n8 = n / 8;
        GRID_STRIDE(i, n8) {
            float v[8];
            ld8(x + 8 * i, v);
            st8(y + 8 * i, v);
        }
        GRID_STRIDE(j, n - n8 * 8) y[n8 * 8 + j] = f2bf(x[n8 * 8 + j]);
    } else {
        GRID_STRIDE(k, n) y[k] = f2bf(x[k]);
    }
}

// split_f32_bf16
//   in:  x f32 [n]; out: hi, lo bf16 [n]: hi = bf16(x), lo = bf16(x − hi) (x − hi is exact in f32), so hi + lo
//        holds x to ~2^-17 relative: two bf16 GEMMs accumulated in f32 give an f32-accurate input (cublaslt_split)
//   grid: grid-stride over n
//   promise: exact roundings
extern "C" __global__ void split_f32_bf16(bf16_t* __restrict__ hi, bf16_t* __restrict__ lo,
                                          const float* __restrict__ x, long long n) { pdl_begin();
    GRID_STRIDE(k, n) {
        const float v = x[k];
        const bf16_t h = f2bf(v);
        hi[k] = h;
        lo[k] = f2bf(v - bf2f(h));
    }
}

// rope_{f32,bf16}
//   in:  x T [n, heads·hd] (rotated in place); pos int32 [n]; inv_freq f32 [dims/2] (rope.Table.InvFreq)
//   out: x; per head, the first dims values rotated as rope.Table.Apply does: x[:dims] = prescale · x (rounded to
//        T) when prescale != 1; angle = f32(pos)·inv_freq[i] in f32; c, s = f32(cos/sin(angle)) evaluated in
//        double; pair (a, b) = (i, i+dims/2), or (2i, 2i+1) when traditional; a' = x_a·c − x_b·s,
//        b' = x_a·s + x_b·c with each product and sum rounded to f32 (no FMA); dims beyond dims untouched
//   grid: x = n·heads blocks (one per row and head) of 64 threads over the pairs
//   promise: bit-exact to rope.Table.Apply on the same inputs (f32), then one bf16 rounding (bf16)
template <typename T>
__device__ __forceinline__ void rope(T* x, const int* __restrict__ pos, const float* __restrict__ inv_freq, int heads,
                                     int hd, int dims, int traditional, float prescale) {
    const int r = blockIdx.x / heads, h = blockIdx.x - r * heads;
    const int half = dims / 2;
    const float p = (float)pos[r];
    T* hp = x + ((long long)r * heads + h) * hd;
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
        const int ia = traditional ? 2 * i : i;
        const int ib = traditional ? 2 * i + 1 : i + half;
        float x1 = ld1(hp + ia), x2 = ld1(hp + ib);
        rope_pair<T>(x1, x2, p, inv_freq[i], prescale);
        store_out(hp + ia, x1);
        store_out(hp + ib, x2);
    }
}

// rmsnorm_rope_{f32,bf16} (the fusion of a per-head RMSNorm(y, x, w) followed by Rope(y, pos, heads, table))
//   in:  x T [n, heads·hd]; w f32 [hd]; pos int32 [n]; inv_freq f32 [dims/2]; hd ≤ 256
//   out: y T [n, heads·hd] (may be x): each head normalized as rmsnorm_warp (rounded to T), then its first dims
//        values rotated as rope
//   grid: 4 heads per 128-thread block, one warp each (lane l holds dims l, l+32, ...); the normalized head
//         passes through shared memory to the pair loop
//   promise: bit-identical to rmsnorm_warp then rope
// rmsnorm_rope_head (common.cuh) is one warp's head, shared by rmsnorm_rope, rmsnorm_rope_qk and attention.cu's
// attn_split_norm so that they compute the same bits.
template <typename T>
__device__ __forceinline__ void rmsnorm_rope(T* y, const T* x, const float* __restrict__ w, const int* __restrict__ pos,
                                             const float* __restrict__ inv_freq, int groups, int heads, int hd,
                                             int dims, int traditional, float prescale, float eps) {
    __shared__ float sm[4][256];
    const int warp = threadIdx.x >> 5;
    const int grp = blockIdx.x * 4 + warp;
    if (grp >= groups) return;
    const int r = grp / heads;
    rmsnorm_rope_head<T>(y + (long long)grp * hd, x + (long long)grp * hd, w, (float)pos[r], inv_freq, hd, dims,
                         traditional, prescale, eps, sm[warp]);
}

// rmsnorm_rope_qk_{f32,bf16} (backend.OpNormRopeQK: rmsnorm_rope of q in place, then rmsnorm_rope of k in place,
// as one launch: Qwen3's query and key head norms and their ropes)
//   in:  q T [n, qheads·hd], k T [n, kheads·hd] (disjoint); wq, wk f32 [hd]; pos, inv_freq, hd ≤ 256 as rmsnorm_rope
//   out: q, k in place, each as rmsnorm_rope leaves it
//   grid: ⌈n·(qheads+kheads)/4⌉ blocks of 128 threads, one warp a head: heads g < n·qheads are q's (row
//         g / qheads), the rest k's; a block may hold heads of both (the warps are independent)
//   promise: bit-identical to rmsnorm_rope of q then of k (the same rmsnorm_rope_head per head; q and k disjoint,
//         so the order of the heads does not matter)
template <typename T>
__device__ __forceinline__ void rmsnorm_rope_qk(T* q, T* k, const float* __restrict__ wq, const float* __restrict__ wk,
                                                const int* __restrict__ pos, const float* __restrict__ inv_freq,
                                                int n, int qheads, int kheads, int hd, int dims, int traditional,
                                                float prescale, float eps) {
    __shared__ float sm[4][256];
    const int warp = threadIdx.x >> 5;
    int grp = blockIdx.x * 4 + warp;
    const int qgroups = n * qheads;
    if (grp < qgroups) {
        rmsnorm_rope_head<T>(q + (long long)grp * hd, q + (long long)grp * hd, wq, (float)pos[grp / qheads],
                             inv_freq, hd, dims, traditional, prescale, eps, sm[warp]);
        return;
    }
    grp -= qgroups;
    if (grp >= n * kheads) return;
    rmsnorm_rope_head<T>(k + (long long)grp * hd, k + (long long)grp * hd, wk, (float)pos[grp / kheads], inv_freq,
                         hd, dims, traditional, prescale, eps, sm[warp]);
}

// kv_store_{f32,bf16}
//   in:  k, v T [n, width]; seq, pos int32 [n]; cache geometry (seqs, max_len, width) and layer
//   out: kc, vc kv_t (f32) [layers, seqs, max_len, width]: slot (layer, seq[r], pos[r]) = row r; rows outside the
//        cache are skipped (the model validates positions before it calls)
//   grid: x = n rows; 128 threads, 8-value chunks when width % 8 == 0
//   promise: exact copy (bf16 rows widen exactly)
template <typename T>
__device__ __forceinline__ void kv_store(kv_t* __restrict__ kc, kv_t* __restrict__ vc, const T* __restrict__ k,
                                         const T* __restrict__ v, const int* __restrict__ seq,
                                         const int* __restrict__ pos, int width, int layer, int seqs, int max_len) {
    const int r = blockIdx.x;
    const int s = seq[r], p = pos[r];
    if (s < 0 || s >= seqs || p < 0 || p >= max_len) return;
    const long long slot = (((long long)layer * seqs + s) * max_len + p) * width;
    const T* ks = k + (long long)r * width;
    const T* vs = v + (long long)r * width;
    if ((width & 7) == 0 && aligned16(ks, vs, kc + slot) && aligned16(vc + slot, vc + slot, vc + slot)) {
        for (int c = threadIdx.x; c < width / 8; c += blockDim.x) {
            float t[8];
            ld8(ks + 8 * c, t);
            st8(kc + slot + 8 * c, t);
            ld8(vs + 8 * c, t);
            st8(vc + slot + 8 * c, t);
        }
    } else {
        for (int j = threadIdx.x; j < width; j += blockDim.x) {
            store_out(kc + slot + j, ld1(ks + j));
            store_out(vc + slot + j, ld1(vs + j));
        }
    }
}

// hadamard_{f32,bf16} (backend.Rotator; the random Hadamard rotations of docs/trellis-format.md section 11)
//   in:  x T [rows, cols]; pre, post f32 [cols] (±1) or null (all +1); b a power of two, 2 ≤ b ≤ 8192,
//        cols % b == 0; scale = f32(1/√b)
//   out: dst T [rows, cols] = post ⊙ H_b(pre ⊙ x)·scale on each run of b columns, H_b the Sylvester Hadamard
//        matrix; dst may alias x (a block reads its whole run before writing); y16 bf16 [rows, cols] or null: the
//        output again, rounded to bf16 (a following prompt GEMM's input)
//   grid: x = rows · cols/b, one thread block per run; min(b/2, 512) threads; dynamic shared memory 4·b bytes
//   promise: bit-exact to rht.Apply (the CPU reference): the signs are exact, the butterflies run in stage order
//            h = 1, 2, ..., b/2 with each pair (j, j+h) → (u + v, u − v) rounded to f32 (no contraction), then one
//            rounded multiply by scale; bf16 activations add one rounding of the result
template <typename T>
__device__ __forceinline__ void hadamard(T* dst, bf16_t* y16, const T* x, const float* __restrict__ pre,
                                         const float* __restrict__ post, int cols, int b, float scale) {
    extern __shared__ float hsh[];
    const int per = cols / b;
    const long long base = (long long)(blockIdx.x / per) * cols + (long long)(blockIdx.x % per) * b;
    const int lo = (blockIdx.x % per) * b;
    for (int i = threadIdx.x; i < b; i += blockDim.x) {
        const float v = ld1(x + base + i);
        hsh[i] = (pre && pre[lo + i] < 0.f) ? -v : v;
    }
    __syncthreads();
    for (int h = 1; h < b; h <<= 1) {
        for (int p = threadIdx.x; p < b / 2; p += blockDim.x) {
            const int j = (p / h) * 2 * h + (p % h);
            const float u = hsh[j], v = hsh[j + h];
            hsh[j] = __fadd_rn(u, v);
            hsh[j + h] = __fsub_rn(u, v);
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < b; i += blockDim.x) {
        float v = __fmul_rn(hsh[i], scale);
        if (post && post[lo + i] < 0.f) v = -v;
        store_out(dst + base + i, v);
        if (y16) y16[base + i] = f2bf(v);
    }
}

// The instantiations: NAME_f32 and NAME_bf16 of each template above.
#define OPS_INSTANTIATE(T, SFX)                                                                                  \
    extern "C" __global__ void embed_##SFX(T* dst, const bf16_t* table, const int* ids, int d, int vocab) { pdl_begin(); \
        embed<T>(dst, table, ids, d, vocab);                                                                   \
    }                                                                                                          \
    extern "C" __global__ void rmsnorm_warp_##SFX(T* dst, const T* x, const float* w, int groups, int g,      \
                                                  float eps) { pdl_begin();                                    \
        rmsnorm_warp<T>(dst, x, w, groups, g, eps);                                                            \
    }                                                                                                          \
    extern "C" __global__ void rmsnorm_row_##SFX(T* dst, bf16_t* y16, const T* x, const float* w, int g,      \
                                                 float eps) { pdl_begin();                                     \
        rownorm<T, false>(0, dst, y16, x, 0, w, g, eps);                                                       \
    }                                                                                                          \
    extern "C" __global__ void add_rmsnorm_##SFX(T* sum, T* y, bf16_t* y16, const T* a, const T* b,           \
                                                 const float* w, int g, float eps) { pdl_begin();              \
        rownorm<T, true>(sum, y, y16, a, b, w, g, eps);                                                        \
    }                                                                                                          \
    extern "C" __global__ void add_##SFX(T* dst, const T* a, const T* b, long long n) { pdl_begin(); add<T>(dst, a, b, n); } \
    extern "C" __global__ void swiglu_##SFX(T* dst, bf16_t* y16, const T* gate, const T* up, long long n) { pdl_begin(); \
        swiglu<T>(dst, y16, gate, up, n);                                                                      \
    }                                                                                                          \
    extern "C" __global__ void rope_##SFX(T* x, const int* pos, const float* inv_freq, int heads, int hd,     \
                                          int dims, int traditional, float prescale) { pdl_begin();            \
        rope<T>(x, pos, inv_freq, heads, hd, dims, traditional, prescale);                                     \
    }                                                                                                          \
    extern "C" __global__ void rmsnorm_rope_##SFX(T* y, const T* x, const float* w, const int* pos,           \
                                                  const float* inv_freq, int groups, int heads, int hd,        \
                                                  int dims, int traditional, float prescale, float eps) { pdl_begin(); \
        rmsnorm_rope<T>(y, x, w, pos, inv_freq, groups, heads, hd, dims, traditional, prescale, eps);          \
    }                                                                                                          \
    extern "C" __global__ void rmsnorm_rope_qk_##SFX(T* q, T* k, const float* wq, const float* wk,           \
                                                     const int* pos, const float* inv_freq, int n, int qheads, \
                                                     int kheads, int hd, int dims, int traditional,            \
                                                     float prescale, float eps) { pdl_begin();                 \
        rmsnorm_rope_qk<T>(q, k, wq, wk, pos, inv_freq, n, qheads, kheads, hd, dims, traditional, prescale, eps); \
    }                                                                                                          \
    extern "C" __global__ void kv_store_##SFX(kv_t* kc, kv_t* vc, const T* k, const T* v, const int* seq, \
                                              const int* pos, int width, int layer, int seqs, int max_len) { pdl_begin(); \
        kv_store<T>(kc, vc, k, v, seq, pos, width, layer, seqs, max_len);                                      \
    }                                                                                                          \
    extern "C" __global__ void hadamard_##SFX(T* dst, bf16_t* y16, const T* x, const float* pre,              \
                                              const float* post, int cols, int b, float scale) { pdl_begin();  \
        hadamard<T>(dst, y16, x, pre, post, cols, b, scale);                                                   \
    }
OPS_INSTANTIATE(float, f32)
OPS_INSTANTIATE(bf16_t, bf16)

// add_scaled_{f32,bf16} (LoRA adapters: a projection's output plus an adapter's scaled B(A·x); the contract of
// backend.ScaledAdder, docs/kernels.md)
//   in:  a, b T [n]; s f32; out: dst T [n] = a + f32(s·b), the product and the sum each rounded to f32 (__fmul_rn,
//        __fadd_rn: no FMA), then rounded to T; dst may alias a or b
//   grid: as add
//   promise: exactly the CPU's f32 arithmetic (rounded once more for bf16)
__device__ __forceinline__ float scaled_sum(float a, float b, float s) { return __fadd_rn(a, __fmul_rn(s, b)); }
template <typename T>
__device__ __forceinline__ void add_scaled(T* dst, const T* a, const T* b, float s, long long n) {
    if (aligned16(dst, a, b)) {
        const long long n8 = n / 8;
        GRID_STRIDE(i, n8) {
            float u[8], v[8];
            ld8(a + 8 * i, u);
            ld8(b + 8 * i, v);
#pragma unroll
            for (int q = 0; q < 8; q++) u[q] = scaled_sum(u[q], v[q], s);
            st8(dst + 8 * i, u);
        }
        GRID_STRIDE(j, n - n8 * 8) {
            const long long k = n8 * 8 + j;
            store_out(dst + k, scaled_sum(ld1(a + k), ld1(b + k), s));
        }
    } else {
        GRID_STRIDE(k, n) store_out(dst + k, scaled_sum(ld1(a + k), ld1(b + k), s));
    }
}
extern "C" __global__ void add_scaled_f32(float* dst, const float* a, const float* b, float s, long long n) { pdl_begin();
    add_scaled<float>(dst, a, b, s, n);
}
extern "C" __global__ void add_scaled_bf16(bf16_t* dst, const bf16_t* a, const bf16_t* b, float s, long long n) { pdl_begin();
    add_scaled<bf16_t>(dst, a, b, s, n);
}

// bias_add_f32 / bias_add_bf16
//   in:  y [n, out] (f32 or bf16); bias f32 [out]; out: y[r, o] += bias[o] (f32 add, one rounding for bf16)
//   grid: grid-stride over n·out
//   promise: f32: exact as the CPU; bf16: the product was already rounded once, so two roundings in all
extern "C" __global__ void bias_add_f32(float* y, const float* __restrict__ bias, long long n, int out) { pdl_begin();
    GRID_STRIDE(i, n) y[i] += bias[i % out];
}
extern "C" __global__ void bias_add_bf16(bf16_t* y, const float* __restrict__ bias, long long n, int out) { pdl_begin();
    GRID_STRIDE(i, n) y[i] = f2bf(bf2f(y[i]) + bias[i % out]);
}

// argmax_part_f32 + argmax_f32 (two launches: a row of 150–250k logits in one block took 185 µs on the H200,
// three latency-bound passes on one multiprocessor)
//   in:  logits f32 [rows, vocab]; out: dst int32 [rows]
//   semantics: sample.GreedyNormalizedArgmax with F32 rounding: a row holding NaN or +Inf, or only -Inf, picks 0;
//        L = f32(m + log Σ exp(x − m)) with m the largest logit; the winner is the lowest id whose x − L (f32)
//        equals m − L
//   argmax_part_f32: grid (P, rows), 256 threads; slice p of a row (ARGMAX_SLICE positions) gives its largest
//        logit m_p, Σ exp(x − m_p) over the slice and whether it holds a NaN or +Inf: part f32 [rows, P, 3]
//   argmax_f32: grid x = rows, 256 threads; M = max m_p, S = Σ_p s_p·e^(m_p−M) in slice order, L = M + log S; the
//        winner lies in the first slice whose f32(m_p − L) equals f32(M − L) (x − L is monotone in x, so no
//        earlier slice can hold one), searched there for its lowest such id
//   promise: the sum is f32 in a fixed order (the reference sums in f64), so when L sits within an ulp of a
//        rounding boundary ties may resolve differently; the largest logit always scores highest
#define ARGMAX_SLICE 4096 // positions a part block takes (must match argmaxSlice in ops.go)
__device__ __forceinline__ void block_argmax(float& v, int& i, float* sv, int* si) {
    // larger value wins; equal values: lower index wins
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, v, o);
        const int oi = __shfl_xor_sync(0xffffffffu, i, o);
        if (ov > v || (ov == v && oi < i)) {
            v = ov;
            i = oi;
        }
    }
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) {
        sv[w] = v;
        si[w] = i;
    }
    __syncthreads();
    if (w == 0) {
        v = lane < (blockDim.x >> 5) ? sv[lane] : -__int_as_float(0x7f800000);
        i = lane < (blockDim.x >> 5) ? si[lane] : 0x7fffffff;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            const float ov = __shfl_xor_sync(0xffffffffu, v, o);
            const int oi = __shfl_xor_sync(0xffffffffu, i, o);
            if (ov > v || (ov == v && oi < i)) {
                v = ov;
                i = oi;
            }
        }
        if (lane == 0) {
            sv[0] = v;
            si[0] = i;
        }
    }
    __syncthreads();
    v = sv[0];
    i = si[0];
    __syncthreads();
}

extern "C" __global__ void argmax_part_f32(float* __restrict__ part, const float* __restrict__ logits, int vocab) { pdl_begin();
    __shared__ float sv[32];
    __shared__ int si[32];
    __shared__ int bad;
    const int p = blockIdx.x, P = gridDim.x;
    const float* x = logits + (long long)blockIdx.y * vocab;
    const int j0 = p * ARGMAX_SLICE, j1 = min(j0 + ARGMAX_SLICE, vocab);
    const float ninf = -__int_as_float(0x7f800000);
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    float v[ARGMAX_SLICE / 256]; // the slice in registers: one pass of loads, all in flight
    float m = ninf;
    int nonfinite = 0;
#pragma unroll
    for (int k = 0; k < ARGMAX_SLICE / 256; k++) {
        const int j = j0 + k * 256 + threadIdx.x;
        v[k] = j < j1 ? __ldg(x + j) : ninf;
    }
#pragma unroll
    for (int k = 0; k < ARGMAX_SLICE / 256; k++) {
        if (v[k] != v[k] || v[k] == -ninf) nonfinite = 1;
        m = fmaxf(m, v[k]);
    }
    if (nonfinite) bad = 1;
    int dummy = 0;
    block_argmax(m, dummy, sv, si);
    float s = 0.f;
    if (m != ninf) {
#pragma unroll
        for (int k = 0; k < ARGMAX_SLICE / 256; k++) s += expf(v[k] - m);
    }
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0) sv[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < (blockDim.x >> 5) ? sv[threadIdx.x] : 0.f;
        t = warp_sum(t);
        if (threadIdx.x == 0) {
            float* o = part + ((long long)blockIdx.y * P + p) * 3;
            o[0] = m;
            o[1] = t;
            o[2] = bad ? 1.f : 0.f;
        }
    }
}

extern "C" __global__ void argmax_f32(int* __restrict__ dst, const float* __restrict__ part, const float* __restrict__ logits,
                                      int vocab, int P) { pdl_begin();
    __shared__ float sv[32];
    __shared__ int si[32];
    __shared__ float stat[2];
    const float* pp = part + (long long)blockIdx.x * P * 3;
    const float* x = logits + (long long)blockIdx.x * vocab;
    const float ninf = -__int_as_float(0x7f800000);
    if (threadIdx.x == 0) { // P ≤ a few hundred: one thread, in slice order (deterministic)
        float M = ninf, S = 0.f;
        int bad = 0;
        for (int q = 0; q < P; q++) {
            M = fmaxf(M, pp[3 * q]);
            bad |= pp[3 * q + 2] != 0.f;
        }
        if (!bad && M != ninf)
            for (int q = 0; q < P; q++)
                if (pp[3 * q] != ninf) S += pp[3 * q + 1] * expf(pp[3 * q] - M);
        stat[0] = bad || M == ninf || vocab == 0 ? ninf : M;
        stat[1] = S;
    }
    __syncthreads();
    const float M = stat[0];
    if (M == ninf) {
        if (threadIdx.x == 0) dst[blockIdx.x] = 0;
        return;
    }
    const float L = __fadd_rn(M, logf(stat[1]));
    if (!(L <= 3.402823466e38f)) {
        if (threadIdx.x == 0) dst[blockIdx.x] = 0;
        return;
    }
    const float best = __fsub_rn(M, L);
    int q0 = 0;
    while (q0 < P && __fsub_rn(pp[3 * q0], L) != best) q0++; // every thread walks the same few partials
    int first = 0x7fffffff;
    const int j1 = min((q0 + 1) * ARGMAX_SLICE, vocab);
    for (int j = q0 * ARGMAX_SLICE + threadIdx.x; j < j1; j += blockDim.x) {
        if (__fsub_rn(x[j], L) == best) {
            first = j;
            break;
        }
    }
    float dv = 0.f;
    block_argmax(dv, first, sv, si);
    if (threadIdx.x == 0) dst[blockIdx.x] = first == 0x7fffffff ? 0 : first;
}
