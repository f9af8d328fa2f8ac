// deltanet.cu: the gated DeltaNet layers' kernels (backend.LinearAttention and backend.SigmoidGate; the hybrid
// models Qwen3.5 and Qwen3-Next, backend/hybrid.go): the short causal conv with SiLU, the gated delta rule over
// each sequence's recurrent state, the gated RMSNorm and the sigmoid gate. The CPU reference is
// internal/cpu/deltanet.go; contracts are repeated in docs/kernels.md ("CUDA"). Activations are T = float (_f32, the backend's) or
// bf16 (_bf16: tests and tools); the recurrent state and all arithmetic are f32.
//
// Arithmetic follows the CPU reference step by step (__fmul_rn / __fadd_rn: no FMA contraction, which Go does
// not do on amd64; exp and log in f64 rounded to f32 as the CPU's math.Exp), so the conv, the recurrent delta
// rule and the sigmoid gate are bit-exact against the CPU's recurrent form on f32 inputs. Every
// kernel reads seq/pos on the device and its grid depends on the row count and the state's geometry only, so a
// recorded decode graph replays for any sequence/position values.

#define DN_THREADS 128
#define CONV_KMAX 8   // largest conv kernel (Qwen3.5/Next use 4); must match convKMax in internal/cuda/deltanet.go
#define DELTA_COLS 128 // value columns per delta-rule block: one per thread

__device__ __forceinline__ float dn_sigmoid(float x) { return __fdiv_rn(1.0f, __fadd_rn(1.0f, (float)exp(-(double)x))); }
__device__ __forceinline__ float dn_silu(float x) { return __fdiv_rn(x, __fadd_rn(1.0f, (float)exp(-(double)x))); }
// softplus is torch's F.softplus (beta 1, threshold 20), as cpu.softplus.
__device__ __forceinline__ float dn_softplus(float x) { return x > 20.0f ? x : (float)log1p(exp((double)x)); }

// causal_conv_{f32,bf16}_w{f32,bf16}
//   in:  x T [n, C]; w TW [C, K] (K ≤ CONV_KMAX); seq, pos int32 [n]; conv f32 [seqs, K-1, C]: this layer's
//        state, the last K-1 inputs of each sequence, oldest first
//   out: dst T [n, C] (may alias x): dst[r][c] = silu(Σ_{j<K-1} w[c][j]·win[j] + w[c][K-1]·x[r][c]) in that order,
//        win the sequence's window (zeroed at a row of position 0), which then shifts in x[r][c]; conv updated
//   grid: (ceil(C/128), seqs) blocks of 128 threads; thread = one channel of one sequence, its rows in row order
//        (rows of other sequences skipped; rows with seq outside [0, seqs) touch nothing)
//   promise: bit-exact against cpu.CausalConv on f32 activations
template <typename T, typename TW>
__device__ __forceinline__ void causal_conv(T* dst, const T* x, const TW* __restrict__ w, float* __restrict__ conv,
                                            const int* __restrict__ seq, const int* __restrict__ pos, int n, int C,
                                            int K) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int s = blockIdx.y;
    if (c >= C) return;
    float win[CONV_KMAX - 1];
    float wc[CONV_KMAX];
    float* st = conv + (long long)s * (K - 1) * C + c;
#pragma unroll
    for (int j = 0; j < CONV_KMAX - 1; j++) win[j] = j < K - 1 ? st[(long long)j * C] : 0.f;
#pragma unroll
    for (int j = 0; j < CONV_KMAX; j++) wc[j] = j < K ? ld1(w + (long long)c * K + j) : 0.f;
    bool touched = false;
    for (int r = 0; r < n; r++) {
        if (seq[r] != s) continue;
        touched = true;
        if (pos[r] == 0) {
#pragma unroll
            for (int j = 0; j < CONV_KMAX - 1; j++) win[j] = 0.f;
        }
        const float xv = ld1(x + (long long)r * C + c);
        float acc = 0.f;
#pragma unroll
        for (int j = 0; j < CONV_KMAX - 1; j++)
            if (j < K - 1) acc = __fadd_rn(acc, __fmul_rn(wc[j], win[j]));
        // w[c][K-1] is wc[K-1]: pick it without a dynamic register index
        float wl = 0.f;
#pragma unroll
        for (int j = 0; j < CONV_KMAX; j++)
            if (j == K - 1) wl = wc[j];
        acc = __fadd_rn(acc, __fmul_rn(wl, xv));
#pragma unroll
        for (int j = 0; j < CONV_KMAX - 2; j++)
            if (j < K - 2) win[j] = win[j + 1];
#pragma unroll
        for (int j = 0; j < CONV_KMAX - 1; j++)
            if (j == K - 2) win[j] = xv;
        store_out(dst + (long long)r * C + c, dn_silu(acc));
    }
    if (touched) {
#pragma unroll
        for (int j = 0; j < CONV_KMAX - 1; j++)
            if (j < K - 1) st[(long long)j * C] = win[j];
    }
}

// gated_delta_{f32,bf16}_k{KD}
//   in:  qkv T [n, 2·KH·dk + VH·dv] ([q | k | v], heads in order); a, b T [n, VH]; aLog, dtBias f32 [VH];
//        seq, pos int32 [n]; S f32 [seqs, VH, dk, dv]: this layer's delta-rule states; scale = f32(1/√dk); dk ≤ KD
//   out: dst T [n, VH·dv]; S updated. For value head h (key head h/(VH/KH)) of each row r of sequence s, in row
//        order: S = 0 at a row of position 0; q = l2(q)·scale, k = l2(k) (Σx² summed in order by one thread);
//        β = sigmoid(b), g = −f32(exp(aLog))·softplus(a + dtBias); S ← f32(exp(g))·S; per column j:
//        o_j = Σ_i S[i][j]·k_i; δ_j = (v_j − o_j)·β; S[i][j] += k_i·δ_j; dst = Σ_i S[i][j]·q_i (i ascending)
//   grid: (ceil(dv/128), VH, seqs) blocks of 128 threads; thread = one column j of S, held in KD registers
//        (rows ≥ dk are zero and stay zero: their k and q are zero); the rows of the block's sequence run one
//        after the other inside the kernel (the recurrent form, for a decode step and a prompt alike)
//   promise: bit-exact against cpu.deltaStep (the CPU's recurrent form, runs under 64 rows); against its
//        chunked form (runs of ≥ 64 rows) equal within f32 rounding
template <int KD, typename T>
__device__ __forceinline__ void gated_delta(T* __restrict__ dst, const T* __restrict__ qkv, const T* __restrict__ a,
                                            const T* __restrict__ bt, const float* __restrict__ aLog,
                                            const float* __restrict__ dtBias, float* __restrict__ S,
                                            const int* __restrict__ seq, const int* __restrict__ pos, int n, int KH,
                                            int VH, int dk, int dv, float scale) {
    __shared__ float qs[KD], ks[KD];
    __shared__ float coef[2]; // β, decay of the current row
    const int j = blockIdx.x * DELTA_COLS + threadIdx.x;
    const int h = blockIdx.y, s = blockIdx.z;
    const int kh = h / (VH / KH);
    const int C = 2 * KH * dk + VH * dv;
    const bool col = j < dv;
    float* Sh = S + ((long long)s * VH + h) * dk * dv;
    float st[KD];
#pragma unroll
    for (int i = 0; i < KD; i++) st[i] = col && i < dk ? Sh[(long long)i * dv + j] : 0.f;
    const float A = -(float)exp((double)aLog[h]);
    bool touched = false;
    for (int r = 0; r < n; r++) {
        if (seq[r] != s) continue; // uniform across the block
        touched = true;
        const T* row = qkv + (long long)r * C;
        __syncthreads(); // the previous row's readers of qs, ks, coef are done
        for (int i = threadIdx.x; i < KD; i += blockDim.x) {
            qs[i] = i < dk ? ld1(row + kh * dk + i) : 0.f;
            ks[i] = i < dk ? ld1(row + KH * dk + kh * dk + i) : 0.f;
        }
        __syncthreads();
        if (threadIdx.x == 0) { // l2 norms in the CPU's order; then β and the decay
            float sq = 0.f, sk = 0.f;
            for (int i = 0; i < dk; i++) {
                sq = __fadd_rn(sq, __fmul_rn(qs[i], qs[i]));
                sk = __fadd_rn(sk, __fmul_rn(ks[i], ks[i]));
            }
            const float iq = __fdiv_rn(1.0f, (float)sqrt((double)__fadd_rn(sq, 1e-6f)));
            const float ik = __fdiv_rn(1.0f, (float)sqrt((double)__fadd_rn(sk, 1e-6f)));
            for (int i = 0; i < dk; i++) {
                qs[i] = __fmul_rn(__fmul_rn(qs[i], iq), scale);
                ks[i] = __fmul_rn(__fmul_rn(ks[i], ik), 1.0f);
            }
            const long long ab = (long long)r * VH + h;
            coef[0] = dn_sigmoid(ld1(bt + ab));
            coef[1] = (float)exp((double)__fmul_rn(A, dn_softplus(__fadd_rn(ld1(a + ab), dtBias[h]))));
        }
        __syncthreads();
        if (!col) continue;
        if (pos[r] == 0) {
#pragma unroll
            for (int i = 0; i < KD; i++) st[i] = 0.f;
        }
        const float beta = coef[0], decay = coef[1];
        float o = 0.f;
#pragma unroll
        for (int i = 0; i < KD; i++) {
            st[i] = __fmul_rn(st[i], decay);
            o = __fadd_rn(o, __fmul_rn(st[i], ks[i]));
        }
        const float d = __fmul_rn(__fsub_rn(ld1(row + 2 * KH * dk + h * dv + j), o), beta);
        o = 0.f;
#pragma unroll
        for (int i = 0; i < KD; i++) {
            st[i] = __fadd_rn(st[i], __fmul_rn(ks[i], d));
            o = __fadd_rn(o, __fmul_rn(st[i], qs[i]));
        }
        store_out(dst + (long long)r * VH * dv + h * dv + j, o);
    }
    if (touched && col) {
#pragma unroll
        for (int i = 0; i < KD; i++)
            if (i < dk) Sh[(long long)i * dv + j] = st[i];
    }
}

// rmsnorm_gated_{f32,bf16}
//   in:  x, z T [groups·g]; w f32 [g]; out: dst T (may alias x) = w·(x·inv)·silu(z), inv = f32(1/√(Σx²/g + eps))
//        with Σx² in f64 (as the CPU)
//   grid: one block of 128 threads per group (x: groups)
//   promise: the CPU's f32 steps; Σx² in f64 in another order (equal after the f32 rounding but in rare ties)
template <typename T>
__device__ __forceinline__ void rmsnorm_gated(T* dst, const T* x, const T* __restrict__ z,
                                              const float* __restrict__ w, int g, float eps) {
    __shared__ double part[DN_THREADS / 32];
    const long long base = (long long)blockIdx.x * g;
    double ss = 0;
    for (int j = threadIdx.x; j < g; j += blockDim.x) {
        const double v = ld1(x + base + j);
        ss += v * v;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = ss;
    __syncthreads();
    double tot = 0;
    for (int i = 0; i < (int)(blockDim.x >> 5); i++) tot += part[i];
    const float inv = (float)(1.0 / sqrt(tot / g + (double)eps));
    for (int j = threadIdx.x; j < g; j += blockDim.x) {
        const float e = ld1(x + base + j);
        store_out(dst + base + j, __fmul_rn(__fmul_rn(w[j], __fmul_rn(e, inv)), dn_silu(ld1(z + base + j))));
    }
}

// sigmoid_mul_{f32,bf16}
//   in:  x T [n·c]; g T [n·c] (per_row = 0) or [n] (per_row = 1: one gate per row of c columns)
//   out: dst T (may alias x) = x·sigmoid(g), sigmoid = 1/(1 + f32(exp(−g)))
//   grid: grid-stride over n·c; promise: bit-exact against the CPU on f32 activations
template <typename T>
__device__ __forceinline__ void sigmoid_mul(T* dst, const T* x, const T* g, long long total, int c, int per_row) {
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total; k += (long long)gridDim.x * blockDim.x) {
        const float gv = ld1(g + (per_row ? k / c : k));
        store_out(dst + k, __fmul_rn(ld1(x + k), dn_sigmoid(gv)));
    }
}

#define DELTANET_INSTANTIATE(T, SFX)                                                                          \
    extern "C" __global__ void causal_conv_##SFX##_wf32(T* dst, const T* x, const float* w, float* conv,         \
                                                        const int* seq, const int* pos, int n, int C, int K) { pdl_begin(); \
        causal_conv<T, float>(dst, x, w, conv, seq, pos, n, C, K);                                              \
    }                                                                                                          \
    extern "C" __global__ void causal_conv_##SFX##_wbf16(T* dst, const T* x, const bf16_t* w, float* conv,       \
                                                         const int* seq, const int* pos, int n, int C, int K) { pdl_begin(); \
        causal_conv<T, bf16_t>(dst, x, w, conv, seq, pos, n, C, K);                                             \
    }                                                                                                          \
    extern "C" __global__ void rmsnorm_gated_##SFX(T* dst, const T* x, const T* z, const float* w, int g,        \
                                                   float eps) { pdl_begin();                                   \
        rmsnorm_gated<T>(dst, x, z, w, g, eps);                                                                 \
    }                                                                                                          \
    extern "C" __global__ void sigmoid_mul_##SFX(T* dst, const T* x, const T* g, long long total, int c,        \
                                                 int per_row) { pdl_begin();                                   \
        sigmoid_mul<T>(dst, x, g, total, c, per_row);                                                           \
    }

// The delta-rule instantiations, one per key-dim bound KD (internal/cuda/kernels.go: deltaName).
#define GATED_DELTA(NAME, KD, T)                                                                                  \
    extern "C" __global__ void __launch_bounds__(DELTA_COLS) NAME(T* dst, const T* qkv, const T* a, const T* b,   \
                                                                  const float* aLog, const float* dtBias,       \
                                                                  float* S, const int* seq, const int* pos,     \
                                                                  int n, int KH, int VH, int dk, int dv,        \
                                                                  float scale) { pdl_begin();                   \
        gated_delta<KD, T>(dst, qkv, a, b, aLog, dtBias, S, seq, pos, n, KH, VH, dk, dv, scale);                  \
    }

DELTANET_INSTANTIATE(float, f32)
DELTANET_INSTANTIATE(bf16_t, bf16)
