// moe.cu: the sparse MoE block's kernels (backend.MoE; Qwen3-Next, Qwen3-30B-A3B): the router, the per-expert
// accumulation, and the routed decode form (a GEMV over each row's chosen experts and the weighted combine).
// The CPU reference is internal/cpu/moe.go; contracts are repeated in docs/kernels.md ("CUDA"). Activations are
// T = float (_f32, the backend's) or bf16 (_bf16: tests and tools); arithmetic f32 in the CPU's order
// (__fmul_rn / __fadd_rn, exp in f64 rounded to f32), so the router is bit-exact against the CPU.

#define MOE_THREADS 128 // threads of a moe_route block (the host launches 128)

// moe_route
//   in:  logits f32 [n, E]; k ≤ E; norm; out: ids int32 [n, k], weights f32 [n, k]
//   p = softmax(logits[r]) as the CPU: mx = max, p_j = f32(exp(f64(v_j − mx))), Σ p in index order (one thread),
//   p_j /= Σ; then k rounds of the largest remaining p (the lower index among equals), its p then −1;
//   weights = the chosen p, divided by their sum (in choice order) when norm
//   grid: one block of 128 threads per row, E floats of dynamic shared memory
//   promise: bit-exact against cpu.Route (ids and weights)
extern "C" __global__ void moe_route(int* __restrict__ ids, float* __restrict__ weights,
                                     const float* __restrict__ logits, int E, int k, int norm) { pdl_begin();
    extern __shared__ float p[];
    __shared__ float rv[MOE_THREADS / 32];
    __shared__ int ri[MOE_THREADS / 32];
    __shared__ float total;
    const int r = blockIdx.x;
    const float* row = logits + (long long)r * E;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float mx = __int_as_float(0xff800000); // -inf
    for (int j = threadIdx.x; j < E; j += blockDim.x) mx = fmaxf(mx, row[j]);
    mx = warp_max(mx);
    if (lane == 0) rv[wid] = mx;
    __syncthreads();
    mx = rv[0];
    for (int i = 1; i < nw; i++) mx = fmaxf(mx, rv[i]);
    for (int j = threadIdx.x; j < E; j += blockDim.x) p[j] = (float)exp((double)__fsub_rn(row[j], mx));
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.f;
        for (int j = 0; j < E; j++) sum = __fadd_rn(sum, p[j]);
        total = sum;
    }
    __syncthreads();
    const float sum = total;
    for (int j = threadIdx.x; j < E; j += blockDim.x) p[j] = __fdiv_rn(p[j], sum);
    __syncthreads();
    float chosen = 0.f; // thread 0: the sum of the chosen p, in choice order
    for (int t = 0; t < k; t++) {
        float bv = -1.f;
        int bi = -1;
        for (int j = threadIdx.x; j < E; j += blockDim.x) { // ascending j: a later equal value never wins
            const float v = p[j];
            if (v >= 0.f && (bi < 0 || v > bv)) bv = v, bi = j;
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
            const int oi = __shfl_xor_sync(0xffffffffu, bi, o);
            if (oi >= 0 && (bi < 0 || ov > bv || (ov == bv && oi < bi))) bv = ov, bi = oi;
        }
        __syncthreads(); // the previous round's readers of rv, ri are done
        if (lane == 0) rv[wid] = bv, ri[wid] = bi;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int i = 1; i < nw; i++)
                if (ri[i] >= 0 && (bi < 0 || rv[i] > bv || (rv[i] == bv && ri[i] < bi))) bv = rv[i], bi = ri[i];
            ids[(long long)r * k + t] = bi;
            weights[(long long)r * k + t] = bv;
            chosen = __fadd_rn(chosen, bv);
            if (bi >= 0) p[bi] = -1.f;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && norm) {
        for (int t = 0; t < k; t++) weights[(long long)r * k + t] = __fdiv_rn(weights[(long long)r * k + t], chosen);
    }
}

// moe_accum_{f32,bf16}: one expert's share of the routed sum (Experts: the host runs every expert over all rows)
//   in:  y T [n, d], expert e's SwiGLU output for every row; ids int32 [n, k], weights f32 [n, k]
//   out: dst T [n, d]: first != 0 (the first expert) starts dst at 0; then dst[r] += y[r]·weights[r][t] for each
//        t with ids[r][t] == e (f32 product, then the sum: the CPU's o += v·w), rows not routed to e unchanged
//   grid: x = n rows, 128 threads; promise: bit-exact accumulation of the given y (the CPU's order: increasing e)
template <typename T>
__device__ __forceinline__ void moe_accum(T* dst, const T* __restrict__ y, const int* __restrict__ ids,
                                          const float* __restrict__ weights, int d, int k, int e, int first) {
    const int r = blockIdx.x;
    int hits = 0;
    for (int t = 0; t < k; t++) hits += ids[(long long)r * k + t] == e;
    if (!hits && !first) return;
    for (int c = threadIdx.x; c < d; c += blockDim.x) {
        const long long at = (long long)r * d + c;
        float o = first ? 0.f : ld1(dst + at);
        for (int t = 0; t < k; t++)
            if (ids[(long long)r * k + t] == e) o = __fadd_rn(o, __fmul_rn(ld1(y + at), weights[(long long)r * k + t]));
        store_out(dst + at, o);
    }
}

// moe_gemv_{f32,bf16} (Experts' routed form, decode: n ≤ 8 rows)
//   in:  x T: [n, in] (xslot = 0: slot s = r·k + j reads row r) or [n·k, in] (xslot = 1: slot s reads its own row);
//        ids int32 [n, k]; W a device table of E pointers to the experts' bf16 weights [out, in]
//   out: y T [n·k, out]: y[s][o] = Σ_c W_{ids[s]}[o][c]·x[..][c] in f32 — only the routed experts' weights are read
//   grid: (⌈out/4⌉, n·k) blocks of 128 threads; warp w takes output row 4·blockIdx.x + w; lanes take 8-wide chunks
//        (16-byte weight loads) when in % 8 == 0, else single columns, strided by 32; warp_sum
//   promise: f32 sums of exact products in another order than the CPU (~in·2^-24 relative)
template <typename T>
__device__ __forceinline__ void moe_gemv(T* __restrict__ y, const T* __restrict__ x, const int* __restrict__ ids,
                                         const bf16_t* const* __restrict__ W, int in, int out, int k, int xslot) {
    const int s = blockIdx.y;
    const int o = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (o >= out) return;
    const bf16_t* w = W[ids[s]] + (long long)o * in;
    const T* xr = x + (long long)(xslot ? s : s / k) * in;
    float acc = 0.f;
    if ((in & 7) == 0) {
        for (int c = lane * 8; c < in; c += 256) {
            float wv[8], xv[8];
            unpack8(ld_stream(w + c), wv);
            ld8(xr + c, xv);
#pragma unroll
            for (int e = 0; e < 8; e++) acc += wv[e] * xv[e];
        }
    } else {
        for (int c = lane; c < in; c += 32) acc += bf2f(w[c]) * ld1(xr + c);
    }
    acc = warp_sum(acc);
    if (lane == 0) store_out(y + (long long)s * out + o, acc);
}

#define MOE_MAX_K 64 // must match moeMaxK in internal/cuda/moe.go

// moe_combine_{f32,bf16} (Experts' routed form)
//   in:  y T [n·k, d], slot s = r·k + j holding expert ids[r][j]'s output for row r; weights f32 [n, k]
//   out: dst T [n, d] = Σ over row r's slots in increasing expert id (equal ids in slot order) of y[s]·weights[s],
//        from 0 (the CPU's order: o += v·w per expert, experts ascending)
//   grid: x = n rows, 128 threads; k ≤ MOE_MAX_K
template <typename T>
__device__ __forceinline__ void moe_combine(T* __restrict__ dst, const T* __restrict__ y, const int* __restrict__ ids,
                                            const float* __restrict__ weights, int d, int k) {
    __shared__ int ord[MOE_MAX_K];
    const int r = blockIdx.x;
    const int* id = ids + (long long)r * k;
    for (int j = threadIdx.x; j < k; j += blockDim.x) { // slot j's rank among the row's slots
        int rank = 0;
        for (int i = 0; i < k; i++) rank += id[i] < id[j] || (id[i] == id[j] && i < j);
        ord[rank] = j;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < d; c += blockDim.x) {
        float o = 0.f;
        for (int t = 0; t < k; t++) {
            const long long s = (long long)r * k + ord[t];
            o = __fadd_rn(o, __fmul_rn(ld1(y + s * d + c), weights[s]));
        }
        store_out(dst + (long long)r * d + c, o);
    }
}

#define MOE_INSTANTIATE(T, SFX)                                                                               \
    extern "C" __global__ void moe_accum_##SFX(T* dst, const T* y, const int* ids, const float* weights, int d,  \
                                               int k, int e, int first) { pdl_begin();                         \
        moe_accum<T>(dst, y, ids, weights, d, k, e, first);                                                     \
    }                                                                                                          \
    extern "C" __global__ void moe_gemv_##SFX(T* y, const T* x, const int* ids, const bf16_t* const* W, int in,  \
                                              int out, int k, int xslot) { pdl_begin();                        \
        moe_gemv<T>(y, x, ids, W, in, out, k, xslot);                                                           \
    }                                                                                                          \
    extern "C" __global__ void moe_combine_##SFX(T* dst, const T* y, const int* ids, const float* weights, int d, \
                                                 int k) { pdl_begin();                                         \
        moe_combine<T>(dst, y, ids, weights, d, k);                                                             \
    }
MOE_INSTANTIATE(float, f32)
MOE_INSTANTIATE(bf16_t, bf16)
