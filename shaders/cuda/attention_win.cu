// attention_win.cu: windowed / softcapped attention (backend.WindowedAttention; the Gemma families, docs/gemma.md)
// over a per-layer cache whose sliding-window layers keep a ring of Window slots: the ring-slot store of such a
// layer's keys and values, and the attention in a split (decode) and a rows form. The CPU reference is
// internal/cpu/attention.go; contracts are repeated in docs/kernels.md ("CUDA"). Activations are T = float
// (names ending _f32, the backend's) or bf16 (_bf16: tests and tools); arithmetic f32. The instantiation list of
// the attention forms is appended by the host (internal/cuda/kernels.go: winSplitName, winRowsName).

// kv_store_ring_{f32,bf16}
//   in:  k, v T [n, width]; seq, pos int32 [n]; a ring layer's geometry (seqs, slots)
//   out: kc, vc kv_t [seqs, slots, width]: slot (seq[r], pos[r] mod slots) = row r, unless a later row of the
//        call lands in the same slot of the same sequence (the CPU stores rows in order: the last one wins);
//        rows outside the cache are skipped
//   grid: x = n rows; 128 threads (each block first scans the later rows)
//   promise: exact copy
template <typename T>
__device__ __forceinline__ void kv_store_ring(kv_t* __restrict__ kc, kv_t* __restrict__ vc, const T* __restrict__ k,
                                              const T* __restrict__ v, const int* __restrict__ seq,
                                              const int* __restrict__ pos, int n, int width, int seqs, int slots) {
    const int r = blockIdx.x;
    const int s = seq[r], p = pos[r];
    if (s < 0 || s >= seqs || p < 0) return;
    int later = 0;
    for (int r2 = r + 1 + threadIdx.x; r2 < n; r2 += blockDim.x)
        later |= seq[r2] == s && pos[r2] >= 0 && pos[r2] % slots == p % slots;
    if (__syncthreads_or(later)) return;
    const long long slot = ((long long)s * slots + p % slots) * width;
    const T* ks = k + (long long)r * width;
    const T* vs = v + (long long)r * width;
    for (int j = threadIdx.x; j < width; j += blockDim.x) {
        kc[slot + j] = ld1(ks + j);
        vc[slot + j] = ld1(vs + j);
    }
}

#define KV_STORE_RING_INSTANTIATE(T, SFX)                                                                        \
    extern "C" __global__ void kv_store_ring_##SFX(kv_t* kc, kv_t* vc, const T* k, const T* v, const int* seq, \
                                                   const int* pos, int n, int width, int seqs, int slots) { pdl_begin(); \
        kv_store_ring<T>(kc, vc, k, v, seq, pos, n, width, seqs, slots);                                       \
    }
KV_STORE_RING_INSTANTIATE(float, f32)
KV_STORE_RING_INSTANTIATE(bf16_t, bf16)

#define WIN_WARPS 4
#define WIN_MAX_SPLITS 128 // must match attnMaxSplits in internal/cuda/attention.go (shared with the split form)
#define WIN_MIN_CHUNK 8    // must match attnMinChunk
#define WIN_TILE 1024      // positions whose in-call sources one pass maps in shared memory

// The window of a row at position P: positions first..P, first = max(0, P−window+1) (window 0: from 0).
__device__ __forceinline__ int win_first(int P, int window) { return window > 0 ? max(0, P - window + 1) : 0; }
__device__ __forceinline__ int win_chunk(int len, int S) {
    const int cl = (len + S - 1) / S;
    return cl < WIN_MIN_CHUNK ? WIN_MIN_CHUNK : cl;
}

// attn_win_split_e{EPT} (DIRECT = false) / attn_win_rows_e{EPT} (DIRECT = true)
//   in:  q T [n, heads·hd]; kc, vc the layer's kv_t slots [seqs, slots, kv_heads·hd] (the host offsets a
//        per-layer cache to the layer); kn, vn T [n, kv_heads·hd], this call's keys and values; seq, pos int32
//        [n]; window (0: none), scale, softcap (0: none); ring != 0: position t of a sequence lives in slot
//        t mod slots and the call's rows are not stored yet (kv_store_ring runs after), else in slot t, stored
//   out: split: part f32 [n, heads, S, hd+2] as attn_split; rows: out T [n, heads·hd]; row r attends positions
//        first..pos[r] of seq[r] (win_first): s = f32(q·k)·scale, capped s = f32(tanh(f64(s/c)))·c when softcap
//        > 0, softmax in f32, Σ p·v. On a ring layer position t comes from the call's last row holding (seq[r],
//        t) if any (mapped per WIN_TILE positions through shared memory), else from its ring slot
//   grid: (S, kv_heads, n) blocks of 128 threads (rows: S = 1); block s takes window indices [s·cl, min((s+1)·cl,
//         len)), cl = max(ceil(len/S), 8), len = pos[r]−first+1; warp w every 4th position; lane l holds dims
//         [l·EPT, l·EPT+EPT) of attn_group<EPT>::G query heads a pass (common.cuh)
//   promise: f32 scores, online softmax (expf), f32 accumulation: ~1e-6 relative of the CPU's f32 result
template <int EPT, typename T> __device__ __forceinline__ void win_load(const T* p, int d0, int hd, float* o) {
#pragma unroll
    for (int e = 0; e < EPT; e++) o[e] = d0 + e < hd ? ld1(p + d0 + e) : 0.f;
}
template <int EPT, bool DIRECT, typename T>
__device__ __forceinline__ void attn_win_body(float* __restrict__ part, T* __restrict__ out, const T* __restrict__ q,
                                              const kv_t* __restrict__ kc, const kv_t* __restrict__ vc,
                                              const T* __restrict__ kn, const T* __restrict__ vn,
                                              const int* __restrict__ seq, const int* __restrict__ pos, int n,
                                              int heads, int kv_heads, int hd, int seqs, int slots, int ring,
                                              int window, float scale, float softcap) {
    constexpr int GM = attn_group<EPT>::G;
    __shared__ float sm_m[WIN_WARPS][GM], sm_l[WIN_WARPS][GM];
    __shared__ float sm_o[WIN_WARPS][GM][EPT * 32];
    __shared__ int src[WIN_TILE];
    const int s = blockIdx.x, kvh = blockIdx.y, r = blockIdx.z;
    const int S = gridDim.x;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int group = heads / kv_heads;
    const int P = pos[r], sq = seq[r];
    const float ninf = -__int_as_float(0x7f800000);
    if (P < 0 || sq < 0 || sq >= seqs || (!ring && P >= slots)) {
        if (DIRECT && s == 0) {
            for (int i = threadIdx.x; i < group * hd; i += blockDim.x)
                out[(long long)r * heads * hd + (long long)kvh * group * hd + i] = 0;
        }
        return;
    }
    const int first = win_first(P, window);
    const int len = P - first + 1;
    const int cl = DIRECT ? len : win_chunk(len, S);
    const int i0 = s * cl;
    if (i0 >= len) return;
    const int i1 = min(i0 + cl, len);
    const int width = kv_heads * hd;
    const long long base = (long long)sq * slots * width + (long long)kvh * hd;
    const int d0 = lane * EPT;

    for (int g0 = 0; g0 < group; g0 += GM) {
        const int gn = min(GM, group - g0);
        float qv[GM][EPT], acc[GM][EPT], m[GM], l[GM];
#pragma unroll
        for (int g = 0; g < GM; g++) {
            const int h = kvh * group + g0 + g;
            const T* qp = q + (long long)r * heads * hd + (long long)h * hd;
#pragma unroll
            for (int e = 0; e < EPT; e++) {
                qv[g][e] = (g < gn && d0 + e < hd) ? ld1(qp + d0 + e) : 0.f;
                acc[g][e] = 0.f;
            }
            m[g] = ninf;
            l[g] = 0.f;
        }
        for (int a = i0; a < i1; a += WIN_TILE) {
            const int b = min(a + WIN_TILE, i1);
            if (ring) { // which of this tile's positions the call itself holds (the last row wins)
                for (int j = threadIdx.x; j < b - a; j += blockDim.x) src[j] = -1;
                __syncthreads();
                for (int r2 = threadIdx.x; r2 < n; r2 += blockDim.x) {
                    const int j = pos[r2] - first - a;
                    if (seq[r2] == sq && j >= 0 && j < b - a) atomicMax(&src[j], r2);
                }
                __syncthreads();
            }
            for (int i = a + warp; i < b; i += WIN_WARPS) {
                const int t = first + i;
                float kv[EPT], vv[EPT];
                const int from = ring ? src[i - a] : -1;
                if (from >= 0) {
                    const long long off = (long long)from * width + (long long)kvh * hd;
                    win_load<EPT>(kn + off, d0, hd, kv);
                    win_load<EPT>(vn + off, d0, hd, vv);
                } else {
                    const long long off = base + (long long)(ring ? t % slots : t) * width;
                    win_load<EPT>(kc + off, d0, hd, kv);
                    win_load<EPT>(vc + off, d0, hd, vv);
                }
#pragma unroll
                for (int g = 0; g < GM; g++) {
                    if (g < gn) {
                        float d = 0.f;
#pragma unroll
                        for (int e = 0; e < EPT; e++) d = fmaf(qv[g][e], kv[e], d);
                        float sc = __fmul_rn(warp_sum(d), scale);
                        if (softcap > 0.f) sc = softcap1(sc, softcap);
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
            __syncthreads(); // the tile's sources are read before the next tile overwrites them
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
        for (int g = warp; g < gn; g += WIN_WARPS) {
            float M = ninf;
#pragma unroll
            for (int w = 0; w < WIN_WARPS; w++) M = fmaxf(M, sm_m[w][g]);
            float wt[WIN_WARPS], L = 0.f;
#pragma unroll
            for (int w = 0; w < WIN_WARPS; w++) {
                wt[w] = sm_m[w][g] == ninf ? 0.f : expf(sm_m[w][g] - M);
                L += sm_l[w][g] * wt[w];
            }
            const int h = kvh * group + g0 + g;
            for (int d = lane; d < hd; d += 32) {
                float o = 0.f;
#pragma unroll
                for (int w = 0; w < WIN_WARPS; w++) o += sm_o[w][g][d] * wt[w];
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

// attn_win_combine_{f32,bf16}
//   in:  part f32 [n, heads, S, hd+2] from attn_win_split; seq, pos int32 [n]; window and the validity bounds the
//        split form used; out: out T [n, heads·hd], as attn_combine over the splits holding window positions
//   grid: (heads, n) blocks of 128 threads; promise: f32, as attn_win_split
template <typename T>
__device__ __forceinline__ void attn_win_combine(T* __restrict__ out, const float* __restrict__ part,
                                                 const int* __restrict__ seq, const int* __restrict__ pos, int heads,
                                                 int hd, int S, int seqs, int slots, int ring, int window) {
    __shared__ float wt[WIN_MAX_SPLITS];
    __shared__ float red[1];
    const int h = blockIdx.x, r = blockIdx.y;
    const int P = pos[r], sq = seq[r];
    T* o = out + (long long)r * heads * hd + (long long)h * hd;
    if (P < 0 || sq < 0 || sq >= seqs || (!ring && P >= slots)) {
        for (int d = threadIdx.x; d < hd; d += blockDim.x) o[d] = 0;
        return;
    }
    const int len = P - win_first(P, window) + 1;
    const int cl = win_chunk(len, S);
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
        float acc = 0.f;
        for (int s = 0; s < active; s++) acc = fmaf(pp[s * (hd + 2) + d], wt[s], acc);
        store_out(o + d, acc * inv);
    }
}
extern "C" __global__ void attn_win_combine_f32(float* out, const float* part, const int* seq, const int* pos,
                                                int heads, int hd, int S, int seqs, int slots, int ring, int window) { pdl_begin();
    attn_win_combine<float>(out, part, seq, pos, heads, hd, S, seqs, slots, ring, window);
}
extern "C" __global__ void attn_win_combine_bf16(bf16_t* out, const float* part, const int* seq, const int* pos,
                                                 int heads, int hd, int S, int seqs, int slots, int ring, int window) { pdl_begin();
    attn_win_combine<bf16_t>(out, part, seq, pos, heads, hd, S, seqs, slots, ring, window);
}

#define ATTN_WIN_SPLIT(name, EPT, T)                                                                             \
    extern "C" __global__ void __launch_bounds__(128)                                                          \
        name(float* part, const T* q, const kv_t* kc, const kv_t* vc, const T* kn, const T* vn, const int* seq, \
             const int* pos, int n, int heads, int kv_heads, int hd, int seqs, int slots, int ring, int window,  \
             float scale, float softcap) { pdl_begin();                                                         \
        attn_win_body<EPT, false, T>(part, 0, q, kc, vc, kn, vn, seq, pos, n, heads, kv_heads, hd, seqs, slots, \
                                     ring, window, scale, softcap);                                             \
    }

#define ATTN_WIN_ROWS(name, EPT, T)                                                                              \
    extern "C" __global__ void __launch_bounds__(128)                                                          \
        name(T* out, const T* q, const kv_t* kc, const kv_t* vc, const T* kn, const T* vn, const int* seq,      \
             const int* pos, int n, int heads, int kv_heads, int hd, int seqs, int slots, int ring, int window,  \
             float scale, float softcap) { pdl_begin();                                                         \
        attn_win_body<EPT, true, T>(0, out, q, kc, vc, kn, vn, seq, pos, n, heads, kv_heads, hd, seqs, slots,   \
                                    ring, window, scale, softcap);                                              \
    }
