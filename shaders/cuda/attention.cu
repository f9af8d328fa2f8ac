// attention.cu: causal attention over the f32 KV cache (kv_t, common.cuh; kv_store in ops.cu has already written
// this step's keys and values, except for attn_split_store, which stores them itself). Queries and outputs are
// activations of type T: float (the backend's, names ending _f32) or bf16 (names as before: tests and tools);
// scores, softmax and accumulation are f32 in both. The forms, chosen by the table in internal/cuda/attention.go:
//   attn_split_e*   decode: flash-decoding, each block one slice of one row's positions for one kv head (all the
//                   query heads of its group), partial results to a scratch buffer, then attn_combine_{f32,bf16}. The grid
//                   depends only on the row count, never on the position: blocks past pos[r] exit at once, so one
//                   captured graph serves every position. attn_split_store_e* (tuning key attn_store) is the same
//                   with kv_store folded in: it stores this step's rows and reads them from its inputs.
//   attn_rows_e*    any rows, no split: one block per (row, kv head) over all of the row's positions (fallback).
//   attn_prompt_hd* prompt: the rows are one sequence at consecutive positions; 64 query rows × one head per block,
//                   tensor-core (mma.sync m16n8k16 bf16) flash attention over 64-position tiles.
//   attn_prompt_wide_hd* the same for head dims 256 and 512, each block one 128-dim slice of a head's output.
//   attn_chunk_hd*  a prompt chunk of few rows deep in a context: the prompt form's tiles split over the positions
//                   with every row and query head of a kv head in one block, then attn_combine_{f32,bf16}.
//   attn_chunk_wide_hd* the same at head dims 256 and 512 on the wide prompt form's tiles and 128-dim slices.
// Cache layout: [layers, seqs, max_len, kv_heads·hd] f32. Contracts are repeated in docs/kernels.md ("CUDA").
// The instantiation list is appended by the host (internal/cuda/kernels.go: attnSplitName, attnRowsName,
// attnPromptName, attnChunkName, attnPromptWideName, attnChunkWideName).

#define ATTN_WARPS 4

#define ATTN_MAX_SPLITS 128 // most position slices per row (must match attnMaxSplits in attention.go)
#define ATTN_MIN_CHUNK 8 // fewest positions a split block takes (must match attnMinChunk in attention.go)

// Positions per split for a row of len positions over S splits; attn_split and attn_combine must agree.
__device__ __forceinline__ int split_chunk(int len, int S) {
    const int cl = (len + S - 1) / S;
    return cl < ATTN_MIN_CHUNK ? ATTN_MIN_CHUNK : cl;
}

// fold_rows (attn_split_store): where a block reads position t of sequence sq from: kp, vp (the cache's slot)
// unless t ≥ lo and a row j of this launch stores that slot (the last such row), then row j of kn (rows kstride
// apart from koff: this step's keys, or the block's normalized copy of them in shared memory) and of vn (rows
// width apart from off). t is the same across the warp.
__device__ __forceinline__ void fold_rows(const kv_t*& kp, const kv_t*& vp, int t, int lo, const kv_t* kn,
                                          int kstride, int koff, const kv_t* vn, const int* __restrict__ seq,
                                          const int* __restrict__ pos, int sq, int width, int off) {
    if (t < lo) return;
    for (int j = (int)gridDim.z - 1; j >= 0; j--) {
        if (pos[j] == t && seq[j] == sq) {
            kp = kn + (long long)j * kstride + koff;
            vp = vn + (long long)j * width + off;
            return;
        }
    }
}

// attn_norm: the head norms and ropes attn_split_norm applies (rmsnorm_rope_qk's operands, ops.cu).
struct attn_norm {
    const float *wq, *wk, *inv_freq;
    int dims, traditional;
    float prescale, eps;
};

#define ATTN_FOLD_ROWS 8 // most rows of a folded launch (backend.MaxDecodeRows)

// attn_split_e{EPT} (DIRECT = false) / attn_rows_e{EPT} (DIRECT = true)
//   in:  q T [n, heads·hd]; kc, vc f32 cache; seq, pos int32 [n]; hd ≤ 32·EPT; heads % kv_heads == 0
//   out: split: part f32 [n, heads, S, hd+2] (unnormalized output, running max, sum) for the splits that hold
//        positions; rows: out T [n, heads·hd] = softmax(q·Kᵀ·scale)·V over positions 0..pos[r]
//   grid: (S, kv_heads, n) blocks of 128 threads (rows: S = 1); block s takes positions [s·cl, min((s+1)·cl, len))
//         with cl = max(ceil(len/S), 8), len = pos[r]+1; warp w takes every 4th position, two per step; lane l
//         holds dims [l·EPT, l·EPT+EPT) of q, k, v for attn_group<EPT>::G query heads a pass; warps merge through
//         shared memory
//   promise: f32 scores, online softmax in f32 (expf), f32 accumulation: relative error ~1e-6 of the CPU's f32
//         result on the same inputs, before the rounding of the output to T (none for f32)
// attn_split_store_e{EPT}_xf32 (FOLD = true: kv_store folded into the split form, f32 activations, n ≤ 8)
//   in:  as attn_split_e*_xf32, plus kn, vn f32 [n, kv_heads·hd]: this step's keys and values, which kv_store has
//        not stored
//   out: as attn_split_e*, and the cache slots (layer, seq[r], pos[r]) = row r of kn, vn (rows outside the cache
//        skipped), written by block s = 0 of each (row, kv head) for its kv head's hd values
//   reads: a position t of sequence sq that some row j of the launch stores (seq[j] == sq, pos[j] == t; the last
//        such row where rows share a slot) comes from row j of kn, vn, never from the cache, so no block reads a
//        slot this launch writes; every other position from the cache (stored by earlier steps)
//   promise: bit-identical to kv_store then attn_split (the same values at every position, consumed in the same
//        order; kv_store's copy is exact), the cache left as kv_store leaves it (rows sharing a slot: one of them,
//        as kv_store's race)
// attn_split_norm_e{EPT}_xf32 (NORM = true: rmsnorm_rope_qk folded into attn_split_store, EPT ≤ 8: hd ≤ 256;
// backend.OpNormRopeAttention)
//   in:  as attn_split_store, but q and kn as they come from the projections; wq, wk f32 [hd], inv_freq, dims,
//        traditional, prescale, eps as rmsnorm_rope_qk
//   out: as attn_split_store, the cache slots holding the normalized and rotated keys; q and kn unchanged
//   each block: rmsnorm_rope_head of its pass's query heads of row r into shared memory (sm_o, free until the
//        pass's merge), and of the rows of kn it reads or stores (row r for block s = 0, and every row j of its
//        sequence whose position lies in its slice) into sm_k, one warp a head
//   promise: bit-identical to rmsnorm_rope_qk then attn_split_store (the same rmsnorm_rope_head arithmetic per
//        head, whose f32 results attention reads in the same order)
template <int EPT, bool DIRECT, typename T, bool FOLD = false, bool NORM = false>
__device__ __forceinline__ void attn_rows_body(float* __restrict__ part, T* __restrict__ out,
                                               const T* __restrict__ q, const kv_t* __restrict__ kc,
                                               const kv_t* __restrict__ vc, const int* __restrict__ seq,
                                               const int* __restrict__ pos, int heads, int kv_heads, int hd,
                                               int seqs, int max_len, int layer, float scale, kv_t* kw = 0,
                                               kv_t* vw = 0, const kv_t* __restrict__ kn = 0,
                                               const kv_t* __restrict__ vn = 0, attn_norm nm = attn_norm{}) {
    constexpr int GM = attn_group<EPT>::G;
    static_assert(!NORM || (FOLD && EPT <= 8), "attn_split_norm: the folded store, heads of at most 256");
    __shared__ float sm_m[ATTN_WARPS][GM], sm_l[ATTN_WARPS][GM];
    __shared__ float sm_o[ATTN_WARPS][GM][EPT * 32];
    __shared__ float sm_k[NORM ? ATTN_FOLD_ROWS : 1][NORM ? EPT * 32 : 1]; // NORM: normalized rows of kn
    const int s = blockIdx.x, kvh = blockIdx.y, r = blockIdx.z;
    const int S = gridDim.x;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int group = heads / kv_heads;
    const int P = pos[r], sq = seq[r];
    const float ninf = -__int_as_float(0x7f800000);
    if (P < 0 || P >= max_len || sq < 0 || sq >= seqs) {
        if (DIRECT && s == 0) {
            for (int i = threadIdx.x; i < group * hd; i += blockDim.x)
                out[(long long)r * heads * hd + (long long)kvh * group * hd + i] = 0;
        }
        return;
    }
    const int len = P + 1;
    const int cl = DIRECT ? len : split_chunk(len, S);
    const int t0 = s * cl;
    if (t0 >= len) return;
    const int t1 = min(t0 + cl, len);
    const int width = kv_heads * hd;
    const long long base = (((long long)layer * seqs + sq) * max_len) * width + (long long)kvh * hd;
    const int d0 = lane * EPT;
    int lo = 0x7fffffff; // FOLD: the first position of [t0, t1) that a row of this launch stores
    if (FOLD) {
        if (NORM) { // the rows of kn this block stores or reads, normalized and rotated as rmsnorm_rope_qk's k
            for (int j = warp; j < (int)gridDim.z; j += ATTN_WARPS) {
                const int pj = pos[j];
                if ((j == r && s == 0) || (seq[j] == sq && pj >= t0 && pj < t1))
                    rmsnorm_rope_head<float>(sm_k[j], kn + (long long)j * width + (long long)kvh * hd, nm.wk,
                                             (float)pj, nm.inv_freq, hd, nm.dims, nm.traditional, nm.prescale,
                                             nm.eps, sm_k[j]);
            }
            __syncthreads();
        }
        if (s == 0) { // kv_store's copy of row r, this kv head's slice (read by later launches only)
            const long long slot = base + (long long)P * width, src = (long long)r * width + (long long)kvh * hd;
            for (int i = threadIdx.x; i < hd; i += blockDim.x) {
                kw[slot + i] = NORM ? sm_k[NORM ? r : 0][i] : kn[src + i];
                vw[slot + i] = vn[src + i];
            }
        }
        for (int j = 0; j < (int)gridDim.z; j++) {
            const int pj = pos[j];
            if (seq[j] == sq && pj >= t0 && pj < t1) lo = min(lo, pj);
        }
    }
    // Where fold_rows takes this step's keys from: kn itself, or the block's normalized rows.
    const kv_t* kf = NORM ? &sm_k[0][0] : kn;
    const int kstride = NORM ? EPT * 32 : width, koff = NORM ? 0 : kvh * hd;

    for (int g0 = 0; g0 < group; g0 += GM) {
        const int gn = min(GM, group - g0);
        float qv[GM][EPT], acc[GM][EPT], m[GM], l[GM];
        if (NORM) { // this pass's query heads of row r, normalized and rotated, into sm_o[0] until the merge
            for (int g = warp; g < gn; g += ATTN_WARPS) {
                // NORM instantiates T = float only (the cast names the type for the other instantiations).
                const float* qp = (const float*)(q + (long long)r * heads * hd + (long long)(kvh * group + g0 + g) * hd);
                rmsnorm_rope_head<float>(sm_o[0][g], qp, nm.wq, (float)P, nm.inv_freq, hd, nm.dims, nm.traditional,
                                         nm.prescale, nm.eps, sm_o[0][g]);
            }
            __syncthreads();
        }
#pragma unroll
        for (int g = 0; g < GM; g++) {
            const int h = kvh * group + g0 + g;
            const T* qp = q + (long long)r * heads * hd + (long long)h * hd;
#pragma unroll
            for (int e = 0; e < EPT; e++) {
                const bool in = g < gn && d0 + e < hd;
                qv[g][e] = in ? (NORM ? sm_o[0][g][d0 + e] : ld1(qp + d0 + e)) : 0.f;
                acc[g][e] = 0.f;
            }
            m[g] = ninf;
            l[g] = 0.f;
        }
        if (NORM) __syncthreads(); // every warp holds its queries before warp 0 writes sm_o[0] at the merge
        // Two positions per step (t and t + ATTN_WARPS): both loads are in flight before either is used.
        int t = t0 + warp;
        for (; t + ATTN_WARPS < t1; t += 2 * ATTN_WARPS) {
            const kv_t* kp = kc + base + (long long)t * width;
            const kv_t* vp = vc + base + (long long)t * width;
            const long long nx = (long long)ATTN_WARPS * width;
            const kv_t *kq = kp + nx, *vq = vp + nx;
            if (FOLD) {
                fold_rows(kp, vp, t, lo, kf, kstride, koff, vn, seq, pos, sq, width, kvh * hd);
                fold_rows(kq, vq, t + ATTN_WARPS, lo, kf, kstride, koff, vn, seq, pos, sq, width, kvh * hd);
            }
            float k0[EPT], v0[EPT], k1[EPT], v1[EPT];
#pragma unroll
            for (int e = 0; e < EPT; e++) {
                const bool in = d0 + e < hd;
                k0[e] = in ? ld1(kp + (d0 + e)) : 0.f;
                v0[e] = in ? ld1(vp + (d0 + e)) : 0.f;
                k1[e] = in ? ld1(kq + (d0 + e)) : 0.f;
                v1[e] = in ? ld1(vq + (d0 + e)) : 0.f;
            }
#pragma unroll
            for (int g = 0; g < GM; g++) {
                if (g < gn) {
                    float a = 0.f, b = 0.f;
#pragma unroll
                    for (int e = 0; e < EPT; e++) {
                        a = fmaf(qv[g][e], k0[e], a);
                        b = fmaf(qv[g][e], k1[e], b);
                    }
                    const float s0 = warp_sum(a) * scale, s1 = warp_sum(b) * scale;
                    const float mn = fmaxf(m[g], fmaxf(s0, s1));
                    const float corr = expf(m[g] - mn);
                    const float p0 = expf(s0 - mn), p1 = expf(s1 - mn);
                    l[g] = l[g] * corr + p0 + p1;
#pragma unroll
                    for (int e = 0; e < EPT; e++) acc[g][e] = fmaf(acc[g][e], corr, fmaf(p0, v0[e], p1 * v1[e]));
                    m[g] = mn;
                }
            }
        }
        if (t < t1) {
            const kv_t* kp = kc + base + (long long)t * width;
            const kv_t* vp = vc + base + (long long)t * width;
            if (FOLD) fold_rows(kp, vp, t, lo, kf, kstride, koff, vn, seq, pos, sq, width, kvh * hd);
            float kv[EPT], vv[EPT];
#pragma unroll
            for (int e = 0; e < EPT; e++) {
                kv[e] = d0 + e < hd ? ld1(kp + (d0 + e)) : 0.f;
                vv[e] = d0 + e < hd ? ld1(vp + (d0 + e)) : 0.f;
            }
#pragma unroll
            for (int g = 0; g < GM; g++) {
                if (g < gn) {
                    float d = 0.f;
#pragma unroll
                    for (int e = 0; e < EPT; e++) d = fmaf(qv[g][e], kv[e], d);
                    const float sc = warp_sum(d) * scale;
                    const float mn = fmaxf(m[g], sc);
                    const float corr = expf(m[g] - mn);
                    const float p = expf(sc - mn);
                    l[g] = l[g] * corr + p;
#pragma unroll
                    for (int e = 0; e < EPT; e++) acc[g][e] = fmaf(acc[g][e], corr, p * vv[e]);
                    m[g] = mn;
                }
            }
        }
#pragma unroll
        for (int g = 0; g < GM; g++) {
            if (g < gn) {
                if (lane == 0) {
                    sm_m[warp][g] = m[g];
                    sm_l[warp][g] = l[g];
                }
#pragma unroll
                for (int e = 0; e < EPT; e++) sm_o[warp][g][d0 + e] = acc[g][e];
            }
        }
        __syncthreads();
        for (int g = warp; g < gn; g += ATTN_WARPS) {
            float M = ninf;
#pragma unroll
            for (int w = 0; w < ATTN_WARPS; w++) M = fmaxf(M, sm_m[w][g]);
            float wt[ATTN_WARPS], L = 0.f;
#pragma unroll
            for (int w = 0; w < ATTN_WARPS; w++) {
                wt[w] = sm_m[w][g] == ninf ? 0.f : expf(sm_m[w][g] - M);
                L += sm_l[w][g] * wt[w];
            }
            const int h = kvh * group + g0 + g;
            for (int d = lane; d < hd; d += 32) {
                float o = 0.f;
#pragma unroll
                for (int w = 0; w < ATTN_WARPS; w++) o += sm_o[w][g][d] * wt[w];
                if (DIRECT) {
                    store_out(out + (long long)r * heads * hd + (long long)h * hd + d, o / L);
                } else {
                    part[(((long long)r * heads + h) * S + s) * (hd + 2) + d] = o;
                }
            }
            if (!DIRECT && lane == 0) {
                float* pp = part + (((long long)r * heads + h) * S + s) * (hd + 2);
                pp[hd] = M;
                pp[hd + 1] = L;
            }
        }
        __syncthreads();
    }
}

// attn_combine_{f32,bf16}
//   in:  part f32 [n, heads, S, hd+2] from attn_split (cl = 0: each row's slices as split_chunk cuts them) or
//        attn_chunk (cl: every row's slices cl positions long); seq, pos int32 [n]
//   out: out T [n, heads·hd] = Σ_s O_s·e^(m_s−M) / Σ_s l_s·e^(m_s−M) over the splits holding positions
//   grid: (heads, n) blocks of 128 threads striding hd; warp 0 first forms the weights e^(m_s−M) in shared
//         memory (S ≤ 128)
//   promise: f32, as attn_split
template <typename T>
__device__ __forceinline__ void attn_combine(T* __restrict__ out, const float* __restrict__ part,
                                             const int* __restrict__ seq, const int* __restrict__ pos, int heads,
                                             int hd, int S, int seqs, int max_len, int fixed_cl) {
    __shared__ float wt[ATTN_MAX_SPLITS];
    __shared__ float red[2];
    const int h = blockIdx.x, r = blockIdx.y;
    const int P = pos[r], sq = seq[r];
    T* o = out + (long long)r * heads * hd + (long long)h * hd;
    if (P < 0 || P >= max_len || sq < 0 || sq >= seqs) {
        for (int d = threadIdx.x; d < hd; d += blockDim.x) o[d] = 0;
        return;
    }
    const int len = P + 1;
    const int cl = fixed_cl > 0 ? fixed_cl : split_chunk(len, S);
    const int active = (len + cl - 1) / cl;
    const float* pp = part + ((long long)r * heads + h) * S * (hd + 2);
    if (threadIdx.x < 32) {
        float M = -__int_as_float(0x7f800000);
        for (int s = threadIdx.x; s < active; s += 32) M = fmaxf(M, pp[s * (hd + 2) + hd]);
        M = warp_max(M);
        float L = 0.f;
        for (int s = threadIdx.x; s < active; s += 32) {
            const float w = expf(pp[s * (hd + 2) + hd] - M);
            wt[s] = w;
            L += pp[s * (hd + 2) + hd + 1] * w;
        }
        L = warp_sum(L);
        if (threadIdx.x == 0) red[0] = L;
    }
    __syncthreads();
    const float inv = 1.0f / red[0];
    for (int d = threadIdx.x; d < hd; d += blockDim.x) {
        float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f; // four independent chains keep four loads in flight
        int s = 0;
        for (; s + 4 <= active; s += 4) {
            a0 = fmaf(pp[s * (hd + 2) + d], wt[s], a0);
            a1 = fmaf(pp[(s + 1) * (hd + 2) + d], wt[s + 1], a1);
            a2 = fmaf(pp[(s + 2) * (hd + 2) + d], wt[s + 2], a2);
            a3 = fmaf(pp[(s + 3) * (hd + 2) + d], wt[s + 3], a3);
        }
        for (; s < active; s++) a0 = fmaf(pp[s * (hd + 2) + d], wt[s], a0);
        store_out(o + d, ((a0 + a1) + (a2 + a3)) * inv);
    }
}
extern "C" __global__ void attn_combine_f32(float* out, const float* part, const int* seq, const int* pos, int heads,
                                            int hd, int S, int seqs, int max_len, int cl) { pdl_begin();
    attn_combine<float>(out, part, seq, pos, heads, hd, S, seqs, max_len, cl);
}
extern "C" __global__ void attn_combine_bf16(bf16_t* out, const float* part, const int* seq, const int* pos, int heads,
                                             int hd, int S, int seqs, int max_len, int cl) { pdl_begin();
    attn_combine<bf16_t>(out, part, seq, pos, heads, hd, S, seqs, max_len, cl);
}

__device__ __forceinline__ void mma_bf16_16816(float* d, const unsigned* a, unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// attn_q_frags: the A fragments (bf16 pairs) of this lane's two query rows for every 16-wide k-step: row ra of
// head ha and row rb of head hb (zeros for a row that is not there: va, vb false); c is the lane's column pair.
template <int HD, typename T>
__device__ __forceinline__ void attn_q_frags(unsigned (&qa)[HD / 16][4], const T* __restrict__ q, int qstride, int ra,
                                             int ha, bool va, int rb, int hb, bool vb, int c) {
#pragma unroll
    for (int kk = 0; kk < HD / 16; kk++) {
        const T* qra = q + (long long)ra * qstride + ha * HD + kk * 16 + c * 2;
        const T* qrb = q + (long long)rb * qstride + hb * HD + kk * 16 + c * 2;
        qa[kk][0] = va ? ld2bf(qra) : 0u;
        qa[kk][1] = vb ? ld2bf(qrb) : 0u;
        qa[kk][2] = va ? ld2bf(qra + 8) : 0u;
        qa[kk][3] = vb ? ld2bf(qrb + 8) : 0u;
    }
}

// attn_quad_sum: a row's sum over the four lanes (c = 0..3) that hold its columns.
__device__ __forceinline__ float attn_quad_sum(float l) {
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    return l + __shfl_xor_sync(0xffffffffu, l, 2);
}

// attn_tiles: the flash-attention loop of attn_prompt_hd* and attn_chunk_hd* over the 64-position tiles kt0..kt1−1
// of the cache rows at kc/vc + cbase: each staged (rounded to bf16, positions past last zeroed) by the whole
// block, then this warp's 16 query rows (fragments qa; row positions pa, pb for the causal mask t ≤ p, −1 for
// none) update their unnormalized outputs o, running maxima m (of scaled scores) and this lane's partial sums l.
template <int HD>
__device__ __forceinline__ void attn_tiles(bf16_t* Ks, bf16_t* Vs, const kv_t* __restrict__ kc, const kv_t* __restrict__ vc,
                                           long long cbase, int width, int kt0, int kt1, int last, int pa, int pb,
                                           float scale, const unsigned (&qa)[HD / 16][4], float (&o)[HD / 8][4],
                                           float& mA, float& mB, float& lA, float& lB) {
    constexpr int BK = 64, LD = HD + 8;
    constexpr int KSTEPS = HD / 16, DTILES = HD / 8;
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2, c = lane & 3;
    const float ninf = -__int_as_float(0x7f800000);
    for (int kt = kt0; kt < kt1; kt++) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < BK * (HD / 8); idx += blockDim.x) {
            const int i = idx / (HD / 8), cc = idx - i * (HD / 8);
            const int t = kt * BK + i;
            uint4 kv = make_uint4(0, 0, 0, 0), vv = make_uint4(0, 0, 0, 0);
            if (t <= last) {
                float f[8];
                ld8(kc + cbase + (long long)t * width + cc * 8, f);
                kv = pack8(f);
                ld8(vc + cbase + (long long)t * width + cc * 8, f);
                vv = pack8(f);
            }
            *(uint4*)(Ks + i * LD + cc * 8) = kv;
            *(uint4*)(Vs + i * LD + cc * 8) = vv;
        }
        __syncthreads();
        float s[8][4];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
#pragma unroll
            for (int kk = 0; kk < KSTEPS; kk++) {
                const bf16_t* kp = Ks + (j * 8 + g) * LD + kk * 16 + c * 2;
                mma_bf16_16816(s[j], qa[kk], *(const unsigned*)kp, *(const unsigned*)(kp + 8));
            }
        }
        float mxA = ninf, mxB = ninf;
#pragma unroll
        for (int j = 0; j < 8; j++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int t = kt * BK + j * 8 + c * 2 + (e & 1);
                const int rp = e < 2 ? pa : pb;
                s[j][e] = t <= rp ? s[j][e] * scale : ninf;
            }
            mxA = fmaxf(mxA, fmaxf(s[j][0], s[j][1]));
            mxB = fmaxf(mxB, fmaxf(s[j][2], s[j][3]));
        }
        mxA = fmaxf(mxA, __shfl_xor_sync(0xffffffffu, mxA, 1));
        mxA = fmaxf(mxA, __shfl_xor_sync(0xffffffffu, mxA, 2));
        mxB = fmaxf(mxB, __shfl_xor_sync(0xffffffffu, mxB, 1));
        mxB = fmaxf(mxB, __shfl_xor_sync(0xffffffffu, mxB, 2));
        const float nA = fmaxf(mA, mxA), nB = fmaxf(mB, mxB);
        const float uA = nA == ninf ? 0.f : nA, uB = nB == ninf ? 0.f : nB;
        const float corrA = expf(mA - uA), corrB = expf(mB - uB);
        mA = nA;
        mB = nB;
        float sumA = 0.f, sumB = 0.f;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            s[j][0] = expf(s[j][0] - uA);
            s[j][1] = expf(s[j][1] - uA);
            s[j][2] = expf(s[j][2] - uB);
            s[j][3] = expf(s[j][3] - uB);
            sumA += s[j][0] + s[j][1];
            sumB += s[j][2] + s[j][3];
        }
        lA = lA * corrA + sumA;
        lB = lB * corrB + sumB;
#pragma unroll
        for (int dt = 0; dt < DTILES; dt++) {
            o[dt][0] *= corrA;
            o[dt][1] *= corrA;
            o[dt][2] *= corrB;
            o[dt][3] *= corrB;
        }
#pragma unroll
        for (int u = 0; u < BK / 16; u++) {
            const unsigned pf[4] = {pack_bf2(s[2 * u][0], s[2 * u][1]), pack_bf2(s[2 * u][2], s[2 * u][3]),
                                    pack_bf2(s[2 * u + 1][0], s[2 * u + 1][1]),
                                    pack_bf2(s[2 * u + 1][2], s[2 * u + 1][3])};
#pragma unroll
            for (int dt = 0; dt < DTILES; dt++) {
                const bf16_t* vp = Vs + (u * 16 + c * 2) * LD + dt * 8 + g;
                const unsigned b0 = (unsigned)vp[0] | ((unsigned)vp[LD] << 16);
                const unsigned b1 = (unsigned)vp[8 * LD] | ((unsigned)vp[9 * LD] << 16);
                mma_bf16_16816(o[dt], pf, b0, b1);
            }
        }
    }
}

// attn_prompt_hd{HD}
//   in:  q T [n, heads·HD]; kc, vc f32 cache; seq, pos int32 [n] with every seq[r] == seq[0] and
//        pos[r] == pos[0] + r (the host checks the values it wrote); HD ∈ {32, 64, 96, 128}
//   out: out T [n, heads·HD] (and y16 bf16, the same rounded, unless null: an o-projection GEMM's input) = softmax(q·Kᵀ·scale, causal: t ≤ pos[r])·V
//   grid: (ceil(n/64), heads) blocks of 128 threads; warp w owns query rows 16w..16w+15 of its block's 64; K and V
//         tiles of 64 positions rounded to bf16 and staged in shared memory (rows padded by 8 bf16: conflict-free fragment loads)
//   promise: q, K and V rounded to bf16 (the tensor-core operands); S = q·Kᵀ exact bf16 products summed in f32; P rounded to bf16 for P·V (the
//         flash-attention convention), row sums in f32: relative error ~2^-9 per weight, ~1e-3 of max|out|
template <int HD, typename T>
__device__ __forceinline__ void attn_prompt_body(T* __restrict__ out, bf16_t* __restrict__ y16, const T* __restrict__ q,
                                                 const kv_t* __restrict__ kc, const kv_t* __restrict__ vc,
                                                 const int* __restrict__ seq, const int* __restrict__ pos, int n,
                                                 int heads, int kv_heads, int seqs, int max_len, int layer,
                                                 float scale) {
    constexpr int BQ = 64, BK = 64, LD = HD + 8;
    constexpr int KSTEPS = HD / 16, DTILES = HD / 8;
    __shared__ __align__(16) bf16_t Ks[BK * LD];
    __shared__ __align__(16) bf16_t Vs[BK * LD];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, c = lane & 3;
    const int h = blockIdx.y, kvh = h / (heads / kv_heads);
    const int q0 = blockIdx.x * BQ;
    const int sq = seq[0];
    const int width = kv_heads * HD;
    const float ninf = -__int_as_float(0x7f800000);
    const int qstride = heads * HD;
    const int ra = q0 + warp * 16 + g, rb = ra + 8;
    const int pa = ra < n ? pos[ra] : -1, pb = rb < n ? pos[rb] : -1;
    const int last = pos[min(q0 + BQ, n) - 1];
    if (sq < 0 || sq >= seqs || last >= max_len || pos[q0] < 0) return;
    const long long cbase = ((long long)layer * seqs + sq) * max_len * width + (long long)kvh * HD;

    unsigned qa[KSTEPS][4];
    attn_q_frags<HD, T>(qa, q, qstride, ra, h, ra < n, rb, h, rb < n, c);
    float o[DTILES][4];
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.f;
    float mA = ninf, mB = ninf, lA = 0.f, lB = 0.f;
    attn_tiles<HD>(Ks, Vs, kc, vc, cbase, width, 0, last / BK + 1, last, pa, pb, scale, qa, o, mA, mB, lA, lB);
    lA = attn_quad_sum(lA);
    lB = attn_quad_sum(lB);
    const float iA = lA > 0.f ? 1.0f / lA : 0.f, iB = lB > 0.f ? 1.0f / lB : 0.f;
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++) {
        const int col = h * HD + dt * 8 + c * 2;
        if (ra < n) st2(out + (long long)ra * qstride + col, o[dt][0] * iA, o[dt][1] * iA);
        if (rb < n) st2(out + (long long)rb * qstride + col, o[dt][2] * iB, o[dt][3] * iB);
        if (y16 && ra < n) st2(y16 + (long long)ra * qstride + col, o[dt][0] * iA, o[dt][1] * iA);
        if (y16 && rb < n) st2(y16 + (long long)rb * qstride + col, o[dt][2] * iB, o[dt][3] * iB);
    }
}

// attn_chunk_hd{HD} (a prompt chunk of few rows deep in a context: the follow-up of a cached conversation)
//   in:  q T [n, heads·HD]; kc, vc f32 cache; seq, pos int32 [n] with every seq[r] == seq[0] and pos[r] == pos[0] + r
//        (the host checks the values it wrote); HD ∈ {32, 64, 96, 128}; cl a multiple of 64
//   out: part f32 [n, heads, S, HD+2] as attn_split's (unnormalized output, running max of the scaled scores, sum)
//        for the splits s with s·cl ≤ pos[r]; attn_combine_* with the same cl finishes the rows
//   grid: (S, kv_heads, Z) blocks of 32·W threads: the query rows of one kv head — (row r, head g of the group) as
//         index i = r·G + g, G = heads/kv_heads — 16 to a warp, 16·W to a block (block z: i from z·16·W); block s
//         takes positions [s·cl, min((s+1)·cl, pos[n−1]+1)) in 64-position tiles (attn_tiles), so each kv head's
//         keys and values are read once per block for all n·G query rows (the split form reads them once per row)
//   promise: as attn_prompt_hd* (bf16 q, K, V and P; f32 scores, sums and partials); the combine in f32
template <int HD, typename T>
__device__ __forceinline__ void attn_chunk_body(float* __restrict__ part, const T* __restrict__ q,
                                                const kv_t* __restrict__ kc, const kv_t* __restrict__ vc,
                                                const int* __restrict__ seq, const int* __restrict__ pos, int n,
                                                int heads, int kv_heads, int seqs, int max_len, int layer,
                                                float scale, int cl) {
    constexpr int BK = 64, LD = HD + 8;
    constexpr int KSTEPS = HD / 16, DTILES = HD / 8;
    __shared__ __align__(16) bf16_t Ks[BK * LD];
    __shared__ __align__(16) bf16_t Vs[BK * LD];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, c = lane & 3;
    const int s = blockIdx.x, S = gridDim.x, kvh = blockIdx.y;
    const int G = heads / kv_heads, nq = n * G;
    const int sq = seq[0], last = pos[n - 1];
    const int t0 = s * cl, t1 = min(t0 + cl, last + 1);
    if (sq < 0 || sq >= seqs || last >= max_len || pos[0] < 0 || t0 > last) return;
    const int width = kv_heads * HD, qstride = heads * HD;
    const float ninf = -__int_as_float(0x7f800000);
    const long long cbase = ((long long)layer * seqs + sq) * max_len * width + (long long)kvh * HD;
    const int ia = blockIdx.z * blockDim.x / 2 + warp * 16 + g, ib = ia + 8; // query rows of this lane
    const int ra = ia / G, rb = ib / G;
    const int ha = kvh * G + ia % G, hb = kvh * G + ib % G;
    const int pa = ia < nq ? pos[ra] : -1, pb = ib < nq ? pos[rb] : -1;

    unsigned qa[KSTEPS][4];
    attn_q_frags<HD, T>(qa, q, qstride, ra, ha, ia < nq, rb, hb, ib < nq, c);
    float o[DTILES][4];
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.f;
    float mA = ninf, mB = ninf, lA = 0.f, lB = 0.f;
    attn_tiles<HD>(Ks, Vs, kc, vc, cbase, width, t0 / BK, (t1 + BK - 1) / BK, t1 - 1, pa, pb, scale, qa, o, mA, mB, lA, lB);
    lA = attn_quad_sum(lA);
    lB = attn_quad_sum(lB);
    float* qa_ = part + (((long long)ra * heads + ha) * S + s) * (HD + 2);
    float* qb_ = part + (((long long)rb * heads + hb) * S + s) * (HD + 2);
    const bool wa = ia < nq && t0 <= pa, wb = ib < nq && t0 <= pb;
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++) {
        const int col = dt * 8 + c * 2;
        if (wa) *(float2*)(qa_ + col) = make_float2(o[dt][0], o[dt][1]);
        if (wb) *(float2*)(qb_ + col) = make_float2(o[dt][2], o[dt][3]);
    }
    if (c == 0) {
        if (wa) qa_[HD] = mA, qa_[HD + 1] = lA;
        if (wb) qb_[HD] = mB, qb_[HD + 1] = lB;
    }
}

// attn_prompt_wide_hd{HD} (HD ∈ {256, 512}: Qwen3.5's full-attention and Gemma 4's global layers)
//   in:  as attn_prompt_hd*; out: as attn_prompt_hd*, block z writing output dims [z·DV, (z+1)·DV) of its head
//   grid: (ceil(n/64), heads, HD/DV) blocks of 128 threads, DV = ATTN_WIDE_DV; warp w owns query rows 16w..16w+15
//         of its block's 64. The accumulators of a whole 512-wide head (256 f32 a lane) do not fit the registers,
//         so each block forms the full q·Kᵀ of its rows (over all HD dims) and P·V over its DV dims only: q·Kᵀ is
//         formed HD/DV times per head, cheap beside the cache reads at these widths. q (64 × HD), a K tile
//         (ATTN_WIDE_BK positions × HD) and V's slice (ATTN_WIDE_BK × DV) are bf16 in dynamic shared memory, rows
//         padded by 8 bf16 (conflict-free fragment loads): attnPromptWideSmem(HD) bytes (internal/cuda/attention.go;
//         above 48 KiB, allowed at Open)
//   promise: as attn_prompt_hd* (the same bf16 operands and f32 sums; the softmax statistics of the DV slices of
//         one head are computed identically, so the slices agree)
// attn_chunk_wide_hd{HD} (CHUNK: the chunk form, attn_chunk_hd*, at HD ∈ {256, 512}: a cached follow-up's few rows)
//   in:  as attn_chunk_hd*; cl a multiple of 64
//   out: part f32 [n, heads, S, HD+2] as attn_chunk_hd*'s: block z writes dims [zd·DV, (zd+1)·DV) of its query rows'
//        unnormalized outputs, the zd = 0 blocks the running max and sum; attn_combine_* with the same cl finishes
//   grid: (S, kv_heads, ceil(n·G/64)·HD/DV) blocks of 128 threads, z = zq·(HD/DV) + zd: the 64 query indices
//         i = zq·64 + 16w + … of kv head blockIdx.y, i = r·G + g (row r, head g of the group) as attn_chunk_hd*'s,
//         staged like the prompt's 64 rows; block s takes positions [s·cl, min((s+1)·cl, pos[n−1]+1)) in
//         ATTN_WIDE_BK-position tiles (cl a multiple of them, so no tile crosses a slice's end but the last's, whose
//         positions past every row's are masked), so each kv head's keys and values are read once per block for
//         all n·G query rows; dynamic shared memory attnPromptWideSmem(HD) as the prompt's
//   promise: as attn_chunk_hd* (bf16 q, K, V and P; f32 scores, sums and partials); the combine in f32
#define ATTN_WIDE_DV 128 // output dims per block (must match attnWideDV in attention.go)
#define ATTN_WIDE_BK 32  // positions per K/V tile (must match attnWideBK)
template <int HD, typename T, bool CHUNK>
__device__ __forceinline__ void attn_wide_body(T* __restrict__ out, bf16_t* __restrict__ y16, float* __restrict__ part,
                                               const T* __restrict__ q, const kv_t* __restrict__ kc,
                                               const kv_t* __restrict__ vc, const int* __restrict__ seq,
                                               const int* __restrict__ pos, int n, int heads, int kv_heads,
                                               int seqs, int max_len, int layer, float scale, int cl) {
    constexpr int BQ = 64, BK = ATTN_WIDE_BK, DV = ATTN_WIDE_DV, LD = HD + 8, LDV = DV + 8;
    constexpr int KSTEPS = HD / 16, DTILES = DV / 8, NT = BK / 8, ZD = HD / DV;
    extern __shared__ __align__(16) unsigned char attn_wide_smem[];
    bf16_t* Qs = (bf16_t*)attn_wide_smem;
    bf16_t* Ks = Qs + BQ * LD;
    bf16_t* Vs = Ks + BK * LD;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, c = lane & 3;
    const int G = heads / kv_heads, nq = CHUNK ? n * G : n;
    // prompt: block rows q0.. of head blockIdx.y; chunk: query indices q0.. (row i / G, head kvh·G + i mod G)
    const int kvh = CHUNK ? blockIdx.y : blockIdx.y / G;
    const int z0 = (CHUNK ? blockIdx.z % ZD : blockIdx.z) * DV;
    const int q0 = (CHUNK ? blockIdx.z / ZD : blockIdx.x) * BQ;
    const int s = blockIdx.x, S = gridDim.x;
    const int sq = seq[0];
    const int width = kv_heads * HD;
    const float ninf = -__int_as_float(0x7f800000);
    const int qstride = heads * HD;
    const int ia = q0 + warp * 16 + g, ib = ia + 8; // this lane's query rows (prompt) or indices (chunk)
    const int ra = CHUNK ? ia / G : ia, rb = CHUNK ? ib / G : ib;
    const int ha = CHUNK ? kvh * G + ia % G : blockIdx.y, hb = CHUNK ? kvh * G + ib % G : blockIdx.y;
    const int pa = ia < nq ? pos[ra] : -1, pb = ib < nq ? pos[rb] : -1;
    // the positions this block reads: [t0, t1), staged up to lim
    const int last = CHUNK ? pos[n - 1] : pos[min(q0 + BQ, n) - 1];
    const int t0 = CHUNK ? s * cl : 0, t1 = CHUNK ? min(t0 + cl, last + 1) : last + 1, lim = t1 - 1;
    if (sq < 0 || sq >= seqs || last >= max_len || pos[CHUNK ? 0 : q0] < 0 || t0 > last) return;
    const long long cbase = ((long long)layer * seqs + sq) * max_len * width + (long long)kvh * HD;

    for (int idx = threadIdx.x; idx < BQ * (HD / 2); idx += blockDim.x) {
        const int i = idx / (HD / 2), cc = idx - i * (HD / 2);
        const int qi = q0 + i, r = CHUNK ? qi / G : qi, hh = CHUNK ? kvh * G + qi % G : blockIdx.y;
        *(unsigned*)(Qs + i * LD + cc * 2) = qi < nq ? ld2bf(q + (long long)r * qstride + hh * HD + cc * 2) : 0u;
    }
    float o[DTILES][4];
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.f;
    float mA = ninf, mB = ninf, lA = 0.f, lB = 0.f;
    const bf16_t* qw = Qs + (warp * 16 + g) * LD + c * 2; // this lane's a-fragment base

    const int kt1 = (t1 + BK - 1) / BK;
    for (int kt = t0 / BK; kt < kt1; kt++) {
        __syncthreads(); // the previous tile is consumed (and, at the first, q is staged)
        for (int idx = threadIdx.x; idx < BK * (HD / 8); idx += blockDim.x) {
            const int i = idx / (HD / 8), cc = idx - i * (HD / 8);
            const int t = kt * BK + i;
            uint4 kv = make_uint4(0, 0, 0, 0);
            if (t <= lim) {
                float f[8];
                ld8(kc + cbase + (long long)t * width + cc * 8, f);
                kv = pack8(f);
            }
            *(uint4*)(Ks + i * LD + cc * 8) = kv;
        }
        for (int idx = threadIdx.x; idx < BK * (DV / 8); idx += blockDim.x) {
            const int i = idx / (DV / 8), cc = idx - i * (DV / 8);
            const int t = kt * BK + i;
            uint4 vv = make_uint4(0, 0, 0, 0);
            if (t <= lim) {
                float f[8];
                ld8(vc + cbase + (long long)t * width + z0 + cc * 8, f);
                vv = pack8(f);
            }
            *(uint4*)(Vs + i * LDV + cc * 8) = vv;
        }
        __syncthreads();
        float sc[NT][4];
#pragma unroll
        for (int j = 0; j < NT; j++) sc[j][0] = sc[j][1] = sc[j][2] = sc[j][3] = 0.f;
#pragma unroll 4
        for (int kk = 0; kk < KSTEPS; kk++) {
            const bf16_t* qp = qw + kk * 16;
            const unsigned a[4] = {*(const unsigned*)qp, *(const unsigned*)(qp + 8 * LD), *(const unsigned*)(qp + 8),
                                   *(const unsigned*)(qp + 8 * LD + 8)};
#pragma unroll
            for (int j = 0; j < NT; j++) {
                const bf16_t* kp = Ks + (j * 8 + g) * LD + kk * 16 + c * 2;
                mma_bf16_16816(sc[j], a, *(const unsigned*)kp, *(const unsigned*)(kp + 8));
            }
        }
        float mxA = ninf, mxB = ninf;
#pragma unroll
        for (int j = 0; j < NT; j++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int t = kt * BK + j * 8 + c * 2 + (e & 1);
                const int rp = e < 2 ? pa : pb;
                sc[j][e] = t <= rp ? sc[j][e] * scale : ninf;
            }
            mxA = fmaxf(mxA, fmaxf(sc[j][0], sc[j][1]));
            mxB = fmaxf(mxB, fmaxf(sc[j][2], sc[j][3]));
        }
        mxA = fmaxf(mxA, __shfl_xor_sync(0xffffffffu, mxA, 1));
        mxA = fmaxf(mxA, __shfl_xor_sync(0xffffffffu, mxA, 2));
        mxB = fmaxf(mxB, __shfl_xor_sync(0xffffffffu, mxB, 1));
        mxB = fmaxf(mxB, __shfl_xor_sync(0xffffffffu, mxB, 2));
        const float nA = fmaxf(mA, mxA), nB = fmaxf(mB, mxB);
        const float uA = nA == ninf ? 0.f : nA, uB = nB == ninf ? 0.f : nB;
        const float corrA = expf(mA - uA), corrB = expf(mB - uB);
        mA = nA;
        mB = nB;
        float sumA = 0.f, sumB = 0.f;
#pragma unroll
        for (int j = 0; j < NT; j++) {
            sc[j][0] = expf(sc[j][0] - uA);
            sc[j][1] = expf(sc[j][1] - uA);
            sc[j][2] = expf(sc[j][2] - uB);
            sc[j][3] = expf(sc[j][3] - uB);
            sumA += sc[j][0] + sc[j][1];
            sumB += sc[j][2] + sc[j][3];
        }
        lA = lA * corrA + sumA;
        lB = lB * corrB + sumB;
#pragma unroll
        for (int dt = 0; dt < DTILES; dt++) {
            o[dt][0] *= corrA;
            o[dt][1] *= corrA;
            o[dt][2] *= corrB;
            o[dt][3] *= corrB;
        }
#pragma unroll
        for (int u = 0; u < BK / 16; u++) {
            const unsigned pf[4] = {pack_bf2(sc[2 * u][0], sc[2 * u][1]), pack_bf2(sc[2 * u][2], sc[2 * u][3]),
                                    pack_bf2(sc[2 * u + 1][0], sc[2 * u + 1][1]),
                                    pack_bf2(sc[2 * u + 1][2], sc[2 * u + 1][3])};
#pragma unroll
            for (int dt = 0; dt < DTILES; dt++) {
                const bf16_t* vp = Vs + (u * 16 + c * 2) * LDV + dt * 8 + g;
                const unsigned b0 = (unsigned)vp[0] | ((unsigned)vp[LDV] << 16);
                const unsigned b1 = (unsigned)vp[8 * LDV] | ((unsigned)vp[9 * LDV] << 16);
                mma_bf16_16816(o[dt], pf, b0, b1);
            }
        }
    }
    lA = attn_quad_sum(lA);
    lB = attn_quad_sum(lB);
    if (CHUNK) {
        float* qa_ = part + (((long long)ra * heads + ha) * S + s) * (HD + 2);
        float* qb_ = part + (((long long)rb * heads + hb) * S + s) * (HD + 2);
        const bool wa = ia < nq && t0 <= pa, wb = ib < nq && t0 <= pb;
#pragma unroll
        for (int dt = 0; dt < DTILES; dt++) {
            const int col = z0 + dt * 8 + c * 2;
            if (wa) *(float2*)(qa_ + col) = make_float2(o[dt][0], o[dt][1]);
            if (wb) *(float2*)(qb_ + col) = make_float2(o[dt][2], o[dt][3]);
        }
        if (c == 0 && z0 == 0) {
            if (wa) qa_[HD] = mA, qa_[HD + 1] = lA;
            if (wb) qb_[HD] = mB, qb_[HD + 1] = lB;
        }
        return;
    }
    const float iA = lA > 0.f ? 1.0f / lA : 0.f, iB = lB > 0.f ? 1.0f / lB : 0.f;
#pragma unroll
    for (int dt = 0; dt < DTILES; dt++) {
        const int col = ha * HD + z0 + dt * 8 + c * 2;
        if (ra < n) st2(out + (long long)ra * qstride + col, o[dt][0] * iA, o[dt][1] * iA);
        if (rb < n) st2(out + (long long)rb * qstride + col, o[dt][2] * iB, o[dt][3] * iB);
        if (y16 && ra < n) st2(y16 + (long long)ra * qstride + col, o[dt][0] * iA, o[dt][1] * iA);
        if (y16 && rb < n) st2(y16 + (long long)rb * qstride + col, o[dt][2] * iB, o[dt][3] * iB);
    }
}

#define ATTN_SPLIT(name, EPT, T)                                                                                \
    extern "C" __global__ void __launch_bounds__(128)                                                         \
        name(float* part, const T* q, const kv_t* kc, const kv_t* vc, const int* seq, const int* pos,      \
             int heads, int kv_heads, int hd, int seqs, int max_len, int layer, float scale) { pdl_begin();    \
        attn_rows_body<EPT, false, T>(part, 0, q, kc, vc, seq, pos, heads, kv_heads, hd, seqs, max_len, layer, \
                                      scale);                                                                  \
    }

#define ATTN_SPLIT_STORE(name, EPT)                                                                             \
    extern "C" __global__ void __launch_bounds__(128)                                                         \
        name(float* part, const float* q, kv_t* kc, kv_t* vc, const float* kn, const float* vn,              \
             const int* seq, const int* pos, int heads, int kv_heads, int hd, int seqs, int max_len,          \
             int layer, float scale) { pdl_begin();                                                          \
        attn_rows_body<EPT, false, float, true>(part, 0, q, kc, vc, seq, pos, heads, kv_heads, hd, seqs, max_len, \
                                                layer, scale, kc, vc, kn, vn);                               \
    }

#define ATTN_SPLIT_NORM(name, EPT)                                                                              \
    extern "C" __global__ void __launch_bounds__(128)                                                         \
        name(float* part, const float* q, kv_t* kc, kv_t* vc, const float* kn, const float* vn,              \
             const int* seq, const int* pos, int heads, int kv_heads, int hd, int seqs, int max_len,          \
             int layer, float scale, const float* wq, const float* wk, const float* inv_freq, int dims,      \
             int traditional, float prescale, float eps) { pdl_begin();                                      \
        attn_rows_body<EPT, false, float, true, true>(part, 0, q, kc, vc, seq, pos, heads, kv_heads, hd, seqs,   \
                                                      max_len, layer, scale, kc, vc, kn, vn,                  \
                                                      attn_norm{wq, wk, inv_freq, dims, traditional, prescale, eps}); \
    }

#define ATTN_ROWS(name, EPT, T)                                                                                 \
    extern "C" __global__ void __launch_bounds__(128)                                                         \
        name(T* out, const T* q, const kv_t* kc, const kv_t* vc, const int* seq, const int* pos,           \
             int heads, int kv_heads, int hd, int seqs, int max_len, int layer, float scale) { pdl_begin();    \
        attn_rows_body<EPT, true, T>(0, out, q, kc, vc, seq, pos, heads, kv_heads, hd, seqs, max_len, layer,  \
                                     scale);                                                                   \
    }

#define ATTN_PROMPT(name, HD, T)                                                                                \
    extern "C" __global__ void __launch_bounds__(128)                                                         \
        name(T* out, const T* q, const kv_t* kc, const kv_t* vc, const int* seq, const int* pos, int n,    \
             int heads, int kv_heads, int seqs, int max_len, int layer, float scale, bf16_t* y16) { pdl_begin(); \
        attn_prompt_body<HD, T>(out, y16, q, kc, vc, seq, pos, n, heads, kv_heads, seqs, max_len, layer, scale); \
    }

#define ATTN_CHUNK(name, HD, T)                                                                                 \
    extern "C" __global__ void __launch_bounds__(256)                                                         \
        name(float* part, const T* q, const kv_t* kc, const kv_t* vc, const int* seq, const int* pos, int n,   \
             int heads, int kv_heads, int seqs, int max_len, int layer, float scale, int cl) { pdl_begin();   \
        attn_chunk_body<HD, T>(part, q, kc, vc, seq, pos, n, heads, kv_heads, seqs, max_len, layer, scale, cl); \
    }

#define ATTN_PROMPT_WIDE(name, HD, T)                                                                           \
    extern "C" __global__ void __launch_bounds__(128)                                                         \
        name(T* out, const T* q, const kv_t* kc, const kv_t* vc, const int* seq, const int* pos, int n,    \
             int heads, int kv_heads, int seqs, int max_len, int layer, float scale, bf16_t* y16) { pdl_begin(); \
        attn_wide_body<HD, T, false>(out, y16, 0, q, kc, vc, seq, pos, n, heads, kv_heads, seqs, max_len, layer, \
                                     scale, 0);                                                                \
    }

#define ATTN_CHUNK_WIDE(name, HD, T)                                                                            \
    extern "C" __global__ void __launch_bounds__(128)                                                         \
        name(float* part, const T* q, const kv_t* kc, const kv_t* vc, const int* seq, const int* pos, int n,   \
             int heads, int kv_heads, int seqs, int max_len, int layer, float scale, int cl) { pdl_begin();   \
        attn_wide_body<HD, T, true>(0, 0, part, q, kc, vc, seq, pos, n, heads, kv_heads, seqs, max_len, layer,  \
                                    scale, cl);                                                                \
    }
