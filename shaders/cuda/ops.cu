// ops.cu: the small kernels of the CUDA backend: embedding gather, RMSNorm, residual add, SwiGLU, rotary
// embedding, KV-cache store, bias add and the normalized greedy argmax, plus two fusions the backend forms from
// adjacent ops (add + RMSNorm, per-head RMSNorm + rope). Each is memory-bound and launched once per
// op; the contracts below are repeated in docs/kernels.md ("CUDA"). Activations are bf16 with f32 arithmetic.
// Names are plain extern "C" symbols (no template families here), looked up by internal/cuda/kernels.go.

#define GRID_STRIDE(i, n)                                                                                   \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)(n);              \
         i += (long long)gridDim.x * blockDim.x)

// embed_bf16
//   in:  table bf16 [vocab, d] row-major; ids int32 [n]
//   out: dst bf16 [n, d]; dst[r] = table[ids[r]] bit for bit; an id outside [0, vocab) writes zeros
//   grid: x = n rows; block 256 threads stride the row (16-byte copies when d % 8 == 0 and rows are aligned)
//   promise: exact copy (the CPU reference rounds the same bf16 values into f32 exactly)
extern "C" __global__ void embed_bf16(bf16_t* __restrict__ dst, const bf16_t* __restrict__ table,
                                      const int* __restrict__ ids, int d, int vocab) {
    const int r = blockIdx.x;
    const int id = ids[r];
    bf16_t* out = dst + (long long)r * d;
    if (id < 0 || id >= vocab) {
        for (int j = threadIdx.x; j < d; j += blockDim.x) out[j] = 0;
        return;
    }
    const bf16_t* src = table + (long long)id * d;
    if ((d & 7) == 0 && aligned16(out, src, out)) {
        const uint4* s = (const uint4*)src;
        uint4* o = (uint4*)out;
        for (int j = threadIdx.x; j < d / 8; j += blockDim.x) o[j] = s[j];
    } else {
        for (int j = threadIdx.x; j < d; j += blockDim.x) out[j] = src[j];
    }
}

// rmsnorm_warp_bf16
//   in:  x bf16 [groups·g] (each head of a row is one group); w f32 [g]; eps
//   out: dst bf16 [groups·g]; dst = bf16((x · inv) · w), inv = 1 / sqrt(Σx²/g + eps) with Σ in f32; dst may be x
//   grid: 4 groups per 128-thread block, one warp each; for g < 1024 (head norms)
//   promise: f32 sum of squares (the CPU sums in f64): relative error of inv ≤ ~g·2^-24, then one bf16 rounding
extern "C" __global__ void rmsnorm_warp_bf16(bf16_t* dst, const bf16_t* x, const float* __restrict__ w, int groups,
                                             int g, float eps) {
    const int grp = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (grp >= groups) return;
    const bf16_t* xs = x + (long long)grp * g;
    bf16_t* ys = dst + (long long)grp * g;
    float ss = 0.f;
    for (int j = lane; j < g; j += 32) {
        const float v = bf2f(xs[j]);
        ss = fmaf(v, v, ss);
    }
    ss = warp_sum(ss);
    const float inv = 1.0f / sqrtf(ss / (float)g + eps);
    for (int j = lane; j < g; j += 32) ys[j] = f2bf(__fmul_rn(__fmul_rn(bf2f(xs[j]), inv), w[j]));
}

// rownorm: one block per group (a whole row); ADD first forms sum = bf16(a + b) and writes it, then normalizes
// that (rounded) sum, which is exactly Add followed by RMSNorm. Each thread keeps up to ROWNORM_CACHE 16-byte
// chunks in registers between the two passes.
#define ROWNORM_CACHE 4
template <bool ADD>
__device__ __forceinline__ void rownorm(bf16_t* sum, bf16_t* y, const bf16_t* a, const bf16_t* b,
                                        const float* __restrict__ w, int g, float eps) {
    __shared__ float part[32];
    const long long base = (long long)blockIdx.x * g;
    const bf16_t* as = a + base;
    const bf16_t* bs = ADD ? b + base : as;
    bf16_t* ss = ADD ? sum + base : (bf16_t*)as; // the normalized input: the sum, or x itself
    bf16_t* ys = y + base;
    const int n8 = g / 8;
    const bool vec = (g & 7) == 0 && aligned16(as, bs, ss) && aligned16(ys, ys, ys);
    float acc = 0.f;
    uint4 cache[ROWNORM_CACHE];
    if (vec) {
#pragma unroll
        for (int k = 0; k < ROWNORM_CACHE; k++) {
            const int c = threadIdx.x + k * blockDim.x;
            if (c < n8) {
                uint4 o = ((const uint4*)as)[c];
                if (ADD) {
                    const uint4 v = ((const uint4*)bs)[c];
                    o.x = pack_bf2(bf_lo(o.x) + bf_lo(v.x), bf_hi(o.x) + bf_hi(v.x));
                    o.y = pack_bf2(bf_lo(o.y) + bf_lo(v.y), bf_hi(o.y) + bf_hi(v.y));
                    o.z = pack_bf2(bf_lo(o.z) + bf_lo(v.z), bf_hi(o.z) + bf_hi(v.z));
                    o.w = pack_bf2(bf_lo(o.w) + bf_lo(v.w), bf_hi(o.w) + bf_hi(v.w));
                    ((uint4*)ss)[c] = o;
                }
                cache[k] = o;
                const unsigned ws[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    acc = fmaf(bf_lo(ws[q]), bf_lo(ws[q]), acc);
                    acc = fmaf(bf_hi(ws[q]), bf_hi(ws[q]), acc);
                }
            }
        }
        for (int c = threadIdx.x + ROWNORM_CACHE * blockDim.x; c < n8; c += blockDim.x) {
            uint4 o = ((const uint4*)as)[c];
            if (ADD) {
                const uint4 v = ((const uint4*)bs)[c];
                o.x = pack_bf2(bf_lo(o.x) + bf_lo(v.x), bf_hi(o.x) + bf_hi(v.x));
                o.y = pack_bf2(bf_lo(o.y) + bf_lo(v.y), bf_hi(o.y) + bf_hi(v.y));
                o.z = pack_bf2(bf_lo(o.z) + bf_lo(v.z), bf_hi(o.z) + bf_hi(v.z));
                o.w = pack_bf2(bf_lo(o.w) + bf_lo(v.w), bf_hi(o.w) + bf_hi(v.w));
                ((uint4*)ss)[c] = o;
            }
            const unsigned ws[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
            for (int q = 0; q < 4; q++) {
                acc = fmaf(bf_lo(ws[q]), bf_lo(ws[q]), acc);
                acc = fmaf(bf_hi(ws[q]), bf_hi(ws[q]), acc);
            }
        }
    } else {
        for (int j = threadIdx.x; j < g; j += blockDim.x) {
            float v = bf2f(as[j]);
            if (ADD) {
                const bf16_t sb = f2bf(v + bf2f(bs[j]));
                ss[j] = sb;
                v = bf2f(sb);
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
                const unsigned ws[4] = {cache[k].x, cache[k].y, cache[k].z, cache[k].w};
                unsigned o[4];
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const int j = c * 8 + 2 * q;
                    o[q] = pack_bf2(__fmul_rn(__fmul_rn(bf_lo(ws[q]), inv), w[j]),
                                    __fmul_rn(__fmul_rn(bf_hi(ws[q]), inv), w[j + 1]));
                }
                ((uint4*)ys)[c] = make_uint4(o[0], o[1], o[2], o[3]);
            }
        }
        for (int c = threadIdx.x + ROWNORM_CACHE * blockDim.x; c < n8; c += blockDim.x) {
            const uint4 u = ((const uint4*)ss)[c]; // this thread's own sum (or x)
            const unsigned ws[4] = {u.x, u.y, u.z, u.w};
            unsigned o[4];
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const int j = c * 8 + 2 * q;
                o[q] = pack_bf2(__fmul_rn(__fmul_rn(bf_lo(ws[q]), inv), w[j]),
                                __fmul_rn(__fmul_rn(bf_hi(ws[q]), inv), w[j + 1]));
            }
            ((uint4*)ys)[c] = make_uint4(o[0], o[1], o[2], o[3]);
        }
    } else {
        for (int j = threadIdx.x; j < g; j += blockDim.x) ys[j] = f2bf(__fmul_rn(__fmul_rn(bf2f(ss[j]), inv), w[j]));
    }
}

// rmsnorm_row_bf16
//   in/out: as rmsnorm_warp_bf16, one group (a whole row) per block
//   grid: x = groups; block = min(1024, 32·ceil(g/8/32)) threads (host), one 16-byte chunk each per 4·block
//   promise: as rmsnorm_warp_bf16
extern "C" __global__ void rmsnorm_row_bf16(bf16_t* dst, const bf16_t* x, const float* __restrict__ w, int g,
                                            float eps) {
    rownorm<false>(0, dst, x, 0, w, g, eps);
}

// add_rmsnorm_bf16 (the fusion of Add(sum, a, b) followed by RMSNorm(y, sum, w))
//   in:  a, b bf16 [groups·g]; w f32 [g]; eps
//   out: sum bf16 = bf16(a + b) (may alias a or b); y bf16 = bf16((sum · inv) · w) over each group of the rounded
//        sum (y may alias sum)
//   grid: as rmsnorm_row_bf16
//   promise: bit-identical to add_bf16 then rmsnorm_row_bf16
extern "C" __global__ void add_rmsnorm_bf16(bf16_t* sum, bf16_t* y, const bf16_t* a, const bf16_t* b,
                                            const float* __restrict__ w, int g, float eps) {
    rownorm<true>(sum, y, a, b, w, g, eps);
}

// add_bf16
//   in:  a, b bf16 [n]; out: dst bf16 [n] = bf16(a + b) (f32 add, one rounding); dst may alias a or b
//   grid: grid-stride over 8-element chunks (16-byte loads when all three are aligned), tail scalar
//   promise: exactly the CPU's f32 sum rounded once to bf16
extern "C" __global__ void add_bf16(bf16_t* dst, const bf16_t* a, const bf16_t* b, long long n) {
    if (aligned16(dst, a, b)) {
        const long long n8 = n / 8;
        GRID_STRIDE(i, n8) {
            const uint4 u = ((const uint4*)a)[i], v = ((const uint4*)b)[i];
            uint4 o;
            o.x = pack_bf2(bf_lo(u.x) + bf_lo(v.x), bf_hi(u.x) + bf_hi(v.x));
            o.y = pack_bf2(bf_lo(u.y) + bf_lo(v.y), bf_hi(u.y) + bf_hi(v.y));
            o.z = pack_bf2(bf_lo(u.z) + bf_lo(v.z), bf_hi(u.z) + bf_hi(v.z));
            o.w = pack_bf2(bf_lo(u.w) + bf_lo(v.w), bf_hi(u.w) + bf_hi(v.w));
            ((uint4*)dst)[i] = o;
        }
        GRID_STRIDE(j, n - n8 * 8) {
            const long long k = n8 * 8 + j;
            dst[k] = f2bf(bf2f(a[k]) + bf2f(b[k]));
        }
    } else {
        GRID_STRIDE(k, n) dst[k] = f2bf(bf2f(a[k]) + bf2f(b[k]));
    }
}

__device__ __forceinline__ float silu_mul(float g, float u) {
    return __fmul_rn(__fdiv_rn(g, __fadd_rn(1.0f, expf(-g))), u);
}

// swiglu_bf16
//   in:  gate, up bf16 [n]; out: dst bf16 [n] = bf16(gate / (1 + exp(-gate)) · up); dst may alias either
//   grid: as add_bf16
//   promise: f32 arithmetic in the CPU's order; expf differs from the CPU's f64 exp by ≤ 2 ulp before rounding
extern "C" __global__ void swiglu_bf16(bf16_t* dst, const bf16_t* gate, const bf16_t* up, long long n) {
    if (aligned16(dst, gate, up)) {
        const long long n8 = n / 8;
        GRID_STRIDE(i, n8) {
            const uint4 u = ((const uint4*)gate)[i], v = ((const uint4*)up)[i];
            uint4 o;
            o.x = pack_bf2(silu_mul(bf_lo(u.x), bf_lo(v.x)), silu_mul(bf_hi(u.x), bf_hi(v.x)));
            o.y = pack_bf2(silu_mul(bf_lo(u.y), bf_lo(v.y)), silu_mul(bf_hi(u.y), bf_hi(v.y)));
            o.z = pack_bf2(silu_mul(bf_lo(u.z), bf_lo(v.z)), silu_mul(bf_hi(u.z), bf_hi(v.z)));
            o.w = pack_bf2(silu_mul(bf_lo(u.w), bf_lo(v.w)), silu_mul(bf_hi(u.w), bf_hi(v.w)));
            ((uint4*)dst)[i] = o;
        }
        GRID_STRIDE(j, n - n8 * 8) {
            const long long k = n8 * 8 + j;
            dst[k] = f2bf(silu_mul(bf2f(gate[k]), bf2f(up[k])));
        }
    } else {
        GRID_STRIDE(k, n) dst[k] = f2bf(silu_mul(bf2f(gate[k]), bf2f(up[k])));
    }
}

// rope_pair rotates one pair of a head held at (ia, ib), rope.Table.Apply's arithmetic on bf16 inputs.
__device__ __forceinline__ void rope_pair(float& x1, float& x2, float p, float inv_freq, float prescale) {
    const float ang = __fmul_rn(p, inv_freq);
    double sd, cd;
    sincos((double)ang, &sd, &cd);
    const float c = (float)cd, s = (float)sd;
    if (prescale != 1.0f) {
        x1 = bf2f(f2bf(__fmul_rn(prescale, x1)));
        x2 = bf2f(f2bf(__fmul_rn(prescale, x2)));
    }
    const float a = __fsub_rn(__fmul_rn(x1, c), __fmul_rn(x2, s));
    const float b = __fadd_rn(__fmul_rn(x1, s), __fmul_rn(x2, c));
    x1 = a;
    x2 = b;
}

// rope_bf16
//   in:  x bf16 [n, heads·hd] (rotated in place); pos int32 [n]; inv_freq f32 [dims/2] (rope.Table.InvFreq)
//   out: x; per head, the first dims values rotated as rope.Table.Apply does: x[:dims] = bf16(prescale · x) when
//        prescale != 1; angle = f32(pos)·inv_freq[i] in f32; c, s = f32(cos/sin(angle)) evaluated in double; pair
//        (a, b) = (i, i+dims/2), or (2i, 2i+1) when traditional; a' = x_a·c − x_b·s, b' = x_a·s + x_b·c with each
//        product and sum rounded to f32 (no FMA); dims beyond dims untouched
//   grid: x = n·heads blocks (one per row and head) of 64 threads over the pairs
//   promise: bit-exact to rope.Table.Apply on the same bf16 inputs, then one bf16 rounding
extern "C" __global__ void rope_bf16(bf16_t* x, const int* __restrict__ pos, const float* __restrict__ inv_freq,
                                     int heads, int hd, int dims, int traditional, float prescale) {
    const int r = blockIdx.x / heads, h = blockIdx.x - r * heads;
    const int half = dims / 2;
    const float p = (float)pos[r];
    bf16_t* hp = x + ((long long)r * heads + h) * hd;
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
        const int ia = traditional ? 2 * i : i;
        const int ib = traditional ? 2 * i + 1 : i + half;
        float x1 = bf2f(hp[ia]), x2 = bf2f(hp[ib]);
        rope_pair(x1, x2, p, inv_freq[i], prescale);
        hp[ia] = f2bf(x1);
        hp[ib] = f2bf(x2);
    }
}

// rmsnorm_rope_bf16 (the fusion of a per-head RMSNorm(y, x, w) followed by Rope(y, pos, heads, table))
//   in:  x bf16 [n, heads·hd]; w f32 [hd]; pos int32 [n]; inv_freq f32 [dims/2]; hd ≤ 256
//   out: y bf16 [n, heads·hd] (may be x): each head normalized as rmsnorm_warp_bf16 (rounded to bf16), then its
//        first dims values rotated as rope_bf16
//   grid: 4 heads per 128-thread block, one warp each (lane l holds dims l, l+32, ...); the normalized head
//         passes through shared memory to the pair loop
//   promise: bit-identical to rmsnorm_warp_bf16 then rope_bf16
extern "C" __global__ void rmsnorm_rope_bf16(bf16_t* y, const bf16_t* x, const float* __restrict__ w,
                                             const int* __restrict__ pos, const float* __restrict__ inv_freq,
                                             int groups, int heads, int hd, int dims, int traditional,
                                             float prescale, float eps) {
    __shared__ float sm[4][256];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int grp = blockIdx.x * 4 + warp;
    if (grp >= groups) return;
    const int r = grp / heads;
    const bf16_t* xs = x + (long long)grp * hd;
    bf16_t* ys = y + (long long)grp * hd;
    float v[8];
    float ss = 0.f;
#pragma unroll
    for (int k = 0; k < 8; k++) {
        const int j = lane + 32 * k;
        v[k] = j < hd ? bf2f(xs[j]) : 0.f;
        ss = fmaf(v[k], v[k], ss);
    }
    ss = warp_sum(ss);
    const float inv = 1.0f / sqrtf(ss / (float)hd + eps);
#pragma unroll
    for (int k = 0; k < 8; k++) {
        const int j = lane + 32 * k;
        if (j < hd) {
            const bf16_t yn = f2bf(__fmul_rn(__fmul_rn(v[k], inv), w[j]));
            if (j >= dims) {
                ys[j] = yn;
            } else {
                sm[warp][j] = bf2f(yn);
            }
        }
    }
    __syncwarp();
    const int half = dims / 2;
    const float p = (float)pos[r];
    for (int i = lane; i < half; i += 32) {
        const int ia = traditional ? 2 * i : i;
        const int ib = traditional ? 2 * i + 1 : i + half;
        float x1 = sm[warp][ia], x2 = sm[warp][ib];
        rope_pair(x1, x2, p, inv_freq[i], prescale);
        ys[ia] = f2bf(x1);
        ys[ib] = f2bf(x2);
    }
}

// kv_store_bf16
//   in:  k, v bf16 [n, width]; seq, pos int32 [n]; cache geometry (seqs, max_len, width) and layer
//   out: kc, vc bf16 [layers, seqs, max_len, width]: slot (layer, seq[r], pos[r]) = row r; rows outside the cache
//        are skipped (the model validates positions before it calls)
//   grid: x = n rows; 128 threads, 16-byte copies when width % 8 == 0
//   promise: exact copy
extern "C" __global__ void kv_store_bf16(bf16_t* __restrict__ kc, bf16_t* __restrict__ vc, const bf16_t* __restrict__ k,
                                         const bf16_t* __restrict__ v, const int* __restrict__ seq,
                                         const int* __restrict__ pos, int width, int layer, int seqs, int max_len) {
    const int r = blockIdx.x;
    const int s = seq[r], p = pos[r];
    if (s < 0 || s >= seqs || p < 0 || p >= max_len) return;
    const long long slot = (((long long)layer * seqs + s) * max_len + p) * width;
    const bf16_t* ks = k + (long long)r * width;
    const bf16_t* vs = v + (long long)r * width;
    if ((width & 7) == 0 && aligned16(ks, vs, kc + slot) && aligned16(vc + slot, vc + slot, vc + slot)) {
        for (int c = threadIdx.x; c < width / 8; c += blockDim.x) {
            ((uint4*)(kc + slot))[c] = ((const uint4*)ks)[c];
            ((uint4*)(vc + slot))[c] = ((const uint4*)vs)[c];
        }
    } else {
        for (int j = threadIdx.x; j < width; j += blockDim.x) {
            kc[slot + j] = ks[j];
            vc[slot + j] = vs[j];
        }
    }
}

// bias_add_f32 / bias_add_bf16
//   in:  y [n, out] (f32 or bf16); bias f32 [out]; out: y[r, o] += bias[o] (f32 add, one rounding for bf16)
//   grid: grid-stride over n·out
//   promise: f32: exact as the CPU; bf16: the product was already rounded once, so two roundings in all
extern "C" __global__ void bias_add_f32(float* y, const float* __restrict__ bias, long long n, int out) {
    GRID_STRIDE(i, n) y[i] += bias[i % out];
}
extern "C" __global__ void bias_add_bf16(bf16_t* y, const float* __restrict__ bias, long long n, int out) {
    GRID_STRIDE(i, n) y[i] = f2bf(bf2f(y[i]) + bias[i % out]);
}

// argmax_f32
//   in:  logits f32 [rows, vocab]; out: dst int32 [rows]
//   semantics: sample.GreedyNormalizedArgmax with F32 rounding: a row holding NaN or +Inf, or only -Inf, picks 0;
//        L = f32(m + log Σ exp(x − m)) with m the largest logit; the winner is the lowest id whose x − L (f32)
//        equals m − L
//   grid: x = rows; 1024 threads; three passes over the row (max, sum, first index reaching the best score)
//   promise: the sum is f32 in a tree order (the reference sums in f64), so when L sits within an ulp of a rounding
//        boundary ties may resolve differently; the largest logit always scores highest
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

extern "C" __global__ void argmax_f32(int* __restrict__ dst, const float* __restrict__ logits, int vocab) {
    __shared__ float sv[32];
    __shared__ int si[32];
    __shared__ int bad;
    const float* x = logits + (long long)blockIdx.x * vocab;
    const float ninf = -__int_as_float(0x7f800000);
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    float m = ninf;
    int mi = 0x7fffffff;
    int nonfinite = 0;
    for (int j = threadIdx.x; j < vocab; j += blockDim.x) {
        const float v = x[j];
        if (v != v || v == -ninf) nonfinite = 1;
        if (v > m) {
            m = v;
            mi = j;
        }
    }
    if (nonfinite) bad = 1;
    block_argmax(m, mi, sv, si);
    if (bad || m == ninf || vocab == 0) {
        if (threadIdx.x == 0) dst[blockIdx.x] = 0;
        return;
    }
    float s = 0.f;
    for (int j = threadIdx.x; j < vocab; j += blockDim.x) s += expf(x[j] - m);
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0) sv[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < (blockDim.x >> 5) ? sv[threadIdx.x] : 0.f;
        t = warp_sum(t);
        if (threadIdx.x == 0) sv[0] = t;
    }
    __syncthreads();
    const float L = __fadd_rn(m, logf(sv[0]));
    __syncthreads();
    if (!(L <= 3.402823466e38f)) {
        if (threadIdx.x == 0) dst[blockIdx.x] = 0;
        return;
    }
    const float best = __fsub_rn(m, L);
    int first = 0x7fffffff;
    for (int j = threadIdx.x; j < vocab; j += blockDim.x) {
        if (__fsub_rn(x[j], L) == best) {
            first = j;
            break;
        }
    }
    float dummy = 0.f;
    block_argmax(dummy, first, sv, si);
    if (threadIdx.x == 0) dst[blockIdx.x] = first;
}
