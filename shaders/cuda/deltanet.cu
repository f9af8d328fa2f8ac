// deltanet.cu: the gated DeltaNet layers' kernels (backend.LinearAttention and backend.SigmoidGate; the hybrid
// models Qwen3.5 and Qwen3-Next, backend/hybrid.go): the short causal conv with SiLU, the gated delta rule over
// each sequence's recurrent state, the gated RMSNorm and the sigmoid gate. The CPU reference is
// internal/cpu/deltanet.go; contracts are repeated in docs/kernels.md ("CUDA"). Activations are T = float (_f32, the backend's) or
// bf16 (_bf16: tests and tools); the recurrent state and all arithmetic are f32.
//
// Arithmetic follows the CPU reference step by step (__fmul_rn / __fadd_rn: no FMA contraction, which Go does
// not do on amd64; exp and log in f64 rounded to f32 as the CPU's math.Exp), so the conv and the sigmoid gate are
// bit-exact against the CPU on f32 inputs; the delta rule sums its norms and dot products in another (parallel)
// order, equal to the CPU's recurrent form within f32 rounding, and a prompt run takes its chunked form
// (gated_delta_chunk: FMA and f64 exps, as the CPU's deltaChunked), equal within f32 rounding too. Every
// kernel reads seq/pos on the device and its grid depends on the row count and the state's geometry only, so a
// recorded decode graph replays for any sequence/position values.

#define DN_THREADS 128
#define CONV_KMAX 8   // largest conv kernel (Qwen3.5/Next use 4); must match convKMax in internal/cuda/deltanet.go
#define DELTA_LANES 4 // lanes sharing one column of S (must match deltaLanes in internal/cuda/deltanet.go)
#define DELTA_COLS 32 // value columns per delta-rule block (must match deltaCols)
#define DELTA_THREADS (DELTA_COLS * DELTA_LANES)

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

// gated_delta_prep_{f32,bf16} (the delta rule's per-row pre-pass, every row at once)
//   in:  qkv T [n, 2·KH·dk + VH·dv] ([q | k | v], heads in order); a, b T [n, VH]; aLog, dtBias f32 [VH];
//        scale = f32(1/√dk)
//   out: qk f32 [n, KH, 2, dk]: q·iq·scale then k·ik, iq = f32(1/√(Σq² + 1e-6)) (ik likewise, sqrt in f64);
//        coef f32 [n, VH, 2]: β = sigmoid(b), decay = f32(exp(−f32(exp(aLog))·softplus(a + dtBias)))
//   grid: (n, KH) blocks of DN_THREADS threads; Σq², Σk²: thread t sums dims t, t+DN_THREADS, … in order, warp_sum,
//        then the warps' sums in warp order from 0; threads < VH/KH form the coefficients of the key head's value
//        heads
//   promise: the CPU's f32 steps but the order of the two sums (f32 rounding of Σ over dk terms)
template <typename T>
__device__ __forceinline__ void gated_delta_prep(float* __restrict__ qk, float* __restrict__ coef,
                                                 const T* __restrict__ qkv, const T* __restrict__ a,
                                                 const T* __restrict__ bt, const float* __restrict__ aLog,
                                                 const float* __restrict__ dtBias, int KH, int VH, int dk, int dv,
                                                 float scale) {
    __shared__ float red[2][DN_THREADS / 32];
    const int r = blockIdx.x, kh = blockIdx.y;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const T* row = qkv + (long long)r * (2 * KH * dk + VH * dv);
    const T* qp = row + kh * dk;
    const T* kp = row + KH * dk + kh * dk;
    float sq = 0.f, sk = 0.f;
    for (int i = threadIdx.x; i < dk; i += DN_THREADS) {
        const float q = ld1(qp + i), k = ld1(kp + i);
        sq = __fadd_rn(sq, __fmul_rn(q, q));
        sk = __fadd_rn(sk, __fmul_rn(k, k));
    }
    sq = warp_sum(sq);
    sk = warp_sum(sk);
    if (lane == 0) red[0][w] = sq, red[1][w] = sk;
    __syncthreads();
    sq = 0.f, sk = 0.f;
#pragma unroll
    for (int i = 0; i < DN_THREADS / 32; i++) sq = __fadd_rn(sq, red[0][i]), sk = __fadd_rn(sk, red[1][i]);
    const float iq = __fdiv_rn(1.0f, (float)sqrt((double)__fadd_rn(sq, 1e-6f)));
    const float ik = __fdiv_rn(1.0f, (float)sqrt((double)__fadd_rn(sk, 1e-6f)));
    float* o = qk + ((long long)r * KH + kh) * 2 * dk;
    for (int i = threadIdx.x; i < dk; i += DN_THREADS) {
        o[i] = __fmul_rn(__fmul_rn(ld1(qp + i), iq), scale);
        o[dk + i] = __fmul_rn(ld1(kp + i), ik);
    }
    const int G = VH / KH;
    for (int t = threadIdx.x; t < G; t += DN_THREADS) {
        const int h = kh * G + t;
        const long long ab = (long long)r * VH + h;
        const float A = -(float)exp((double)aLog[h]);
        coef[2 * ab] = dn_sigmoid(ld1(bt + ab));
        coef[2 * ab + 1] = (float)exp((double)__fmul_rn(A, dn_softplus(__fadd_rn(ld1(a + ab), dtBias[h]))));
    }
}

// gated_delta_{f32,bf16}_k{KD}
//   in:  qkv T [n, 2·KH·dk + VH·dv] (its v part); qk, coef f32 from gated_delta_prep; seq, pos int32 [n];
//        S f32 [seqs, VH, dk, dv]: this layer's delta-rule states; dk ≤ KD
//   out: dst T [n, VH·dv]; S updated. For value head h (key head h/(VH/KH)) of each row r of sequence s, in row
//        order: S = 0 at a row of position 0; S ← decay·S; per column j: o_j = Σ_i S[i][j]·k_i;
//        δ_j = (v_j − o_j)·β; S[i][j] += k_i·δ_j; dst = Σ_i S[i][j]·q_i
//   grid: (ceil(dv/DELTA_COLS), VH, seqs) blocks of DELTA_THREADS; DELTA_LANES consecutive lanes share one column
//        j of S, lane l holding rows i = l + DELTA_LANES·e (e < KD/DELTA_LANES) in registers (rows ≥ dk zero and
//        kept zero: their k and q are zero): each dot product is DELTA_LANES partial sums in i order, combined by
//        shuffles as (p0 + p1) + (p2 + p3). The rows of the block's sequence run one after the other (the
//        recurrent form, for a decode step and a prompt alike), with no barrier between them
//   promise: the CPU's recurrent form (cpu.deltaStep) but the order of the sums: within f32 rounding
// dn_state_load, dn_state_store: a lane's R rows sub + DELTA_LANES·e of state column j (rows ≥ dk and columns
// outside the head read as zero and are not written), as gated_delta holds them.
template <int R>
__device__ __forceinline__ void dn_state_load(float (&st)[R], const float* Sh, bool col, int sub, int j, int dk, int dv) {
#pragma unroll
    for (int e = 0; e < R; e++) {
        const int i = sub + DELTA_LANES * e;
        st[e] = col && i < dk ? Sh[(long long)i * dv + j] : 0.f;
    }
}
template <int R>
__device__ __forceinline__ void dn_state_store(const float (&st)[R], float* Sh, int sub, int j, int dk, int dv) {
#pragma unroll
    for (int e = 0; e < R; e++) {
        const int i = sub + DELTA_LANES * e;
        if (i < dk) Sh[(long long)i * dv + j] = st[e];
    }
}

template <int KD, typename T>
__device__ __forceinline__ void gated_delta(T* __restrict__ dst, const T* __restrict__ qkv, const float* __restrict__ qk,
                                            const float* __restrict__ coef, float* __restrict__ S,
                                            const int* __restrict__ seq, const int* __restrict__ pos, int n, int KH,
                                            int VH, int dk, int dv) {
    constexpr int R = KD / DELTA_LANES;
    const int sub = threadIdx.x % DELTA_LANES;
    const int j = blockIdx.x * DELTA_COLS + threadIdx.x / DELTA_LANES;
    const int h = blockIdx.y, s = blockIdx.z;
    const int kh = h / (VH / KH);
    const int C = 2 * KH * dk + VH * dv;
    const bool col = j < dv;
    float* Sh = S + ((long long)s * VH + h) * dk * dv;
    float st[R];
    dn_state_load(st, Sh, col, sub, j, dk, dv);
    bool touched = false;
    for (int r = 0; r < n; r++) {
        if (seq[r] != s) continue; // uniform across the block
        touched = true;
        const float* q = qk + ((long long)r * KH + kh) * 2 * dk;
        const float* k = q + dk;
        const float beta = coef[2 * ((long long)r * VH + h)], decay = coef[2 * ((long long)r * VH + h) + 1];
        if (pos[r] == 0) {
#pragma unroll
            for (int e = 0; e < R; e++) st[e] = 0.f;
        }
        float kv[R], qv[R];
#pragma unroll
        for (int e = 0; e < R; e++) {
            const int i = sub + DELTA_LANES * e;
            kv[e] = i < dk ? k[i] : 0.f;
            qv[e] = i < dk ? q[i] : 0.f;
        }
        float o = 0.f;
#pragma unroll
        for (int e = 0; e < R; e++) {
            st[e] = __fmul_rn(st[e], decay);
            o = __fadd_rn(o, __fmul_rn(st[e], kv[e]));
        }
#pragma unroll
        for (int m = 1; m < DELTA_LANES; m <<= 1) o = __fadd_rn(o, __shfl_xor_sync(0xffffffffu, o, m));
        const float vj = col ? ld1(qkv + (long long)r * C + 2 * KH * dk + h * dv + j) : 0.f;
        const float d = __fmul_rn(__fsub_rn(vj, o), beta);
        o = 0.f;
#pragma unroll
        for (int e = 0; e < R; e++) {
            st[e] = __fadd_rn(st[e], __fmul_rn(kv[e], d));
            o = __fadd_rn(o, __fmul_rn(st[e], qv[e]));
        }
#pragma unroll
        for (int m = 1; m < DELTA_LANES; m <<= 1) o = __fadd_rn(o, __shfl_xor_sync(0xffffffffu, o, m));
        if (col && sub == 0) store_out(dst + (long long)r * VH * dv + h * dv + j, o);
    }
    if (touched && col) dn_state_store(st, Sh, sub, j, dk, dv);
}

// gated_delta_chunk_{f32,bf16}_k{KD} (KD ≤ 128: a prompt run, the chunked (WY/UT) form)
//   in:  as gated_delta_*, plus a T [n, VH] and aLog, dtBias f32 [VH] (each row's gate g = A·softplus(a + dtBias),
//        A = −f32(exp(aLog)), the CPU's f32 steps); every seq[r] == seq[0] and pos[r] == pos[0] + r (one sequence
//        at consecutive positions: the host checks the values it wrote), so only row 0 may restart the state
//   out: as gated_delta_*. The rows go DELTA_CHUNK at a time; within a chunk from state S₀, with c_t the f64 sum of
//        g from the chunk's first row to t (the CPU's deltaChunked, chunk DELTA_CHUNK):
//          u_t = β_t(v_t − e^{c_t}·S₀ᵀk_t) − Σ_{j<t} β_t·e^{c_t−c_j}(k_t·k_j)·u_j   (forward substitution, j in order)
//          o_t = e^{c_t}·S₀ᵀq_t + Σ_{j≤t} e^{c_t−c_j}(q_t·k_j)·u_j
//          S   = e^{c_T}·S₀ + Σ_j e^{c_T−c_j}·k_j ⊗ u_j
//        each exp in f64 rounded to f32 (math.Exp's), sums in f32 with FMA
//   grid: (ceil(dv/DELTA_COLS), VH) blocks of DELTA_CHUNK_THREADS; thread x = tid mod DELTA_COLS is one column of
//        the block's slice of S, warp w = tid / DELTA_COLS its rows i = w + 8e (S in shared memory, [KD][DELTA_COLS]).
//        Per chunk: the chunk's k, q staged (rows ≥ dk and past n zero); the T×T products k_t·k_j, q_t·k_j one pair
//        (t, j) per thread over KD in four float4 chains; S₀ᵀk_t, S₀ᵀq_t for rows w and w+8 of every column; the
//        substitution by warp 0 (a lane a column, u in registers); then o and the state update in parallel.
//        Four barriers a chunk; no row-by-row chain but the substitution's DELTA_CHUNK steps
//   promise: the CPU's chunked form (equal to its recurrent form within f32 rounding) but the order of the sums,
//        FMA contraction and the chunk length: within f32 rounding of the recurrent form
#define DELTA_CHUNK 16          // rows per chunk (must match deltaChunk in internal/cuda/deltanet.go)
#define DELTA_CHUNK_THREADS 256 // (must match deltaChunkThreads)
template <int KD, typename T>
__device__ __forceinline__ void gated_delta_chunk(T* __restrict__ dst, const T* __restrict__ qkv,
                                                  const float* __restrict__ qk, const float* __restrict__ coef,
                                                  const T* __restrict__ a, const float* __restrict__ aLog,
                                                  const float* __restrict__ dtBias, float* __restrict__ S,
                                                  const int* __restrict__ seq, const int* __restrict__ pos, int n,
                                                  int seqs, int KH, int VH, int dk, int dv) {
    constexpr int CT = DELTA_CHUNK, DC = DELTA_COLS, NW = DELTA_CHUNK_THREADS / DELTA_COLS, LDK = KD + 4;
    static_assert(CT == 2 * NW && CT * CT == DELTA_CHUNK_THREADS && DC == 32 && KD % NW == 0 && KD % 4 == 0,
                  "a pair (t, j) a thread, rows w and w + NW a warp, warp 0 a lane a column");
    __shared__ float Ss[KD][DC];
    __shared__ __align__(16) float Ks[CT][LDK];
    __shared__ __align__(16) float Qs[CT][LDK];
    __shared__ float Us[CT][DC], Os[CT][DC];
    __shared__ float Ms[CT][CT], Ps[CT][CT];
    __shared__ double cum[CT];
    __shared__ float beta[CT], gate[CT];
    const int x = threadIdx.x % DC, w = threadIdx.x / DC;
    const int j0 = blockIdx.x * DC + x, h = blockIdx.y;
    const int kh = h / (VH / KH);
    const int C = 2 * KH * dk + VH * dv;
    const bool col = j0 < dv;
    const int s = seq[0];
    if (s < 0 || s >= seqs) return;
    float* Sh = S + ((long long)s * VH + h) * dk * dv;
    const bool fresh = pos[0] == 0;
#pragma unroll
    for (int e = 0; e < KD / NW; e++) {
        const int i = w + NW * e;
        Ss[i][x] = !fresh && col && i < dk ? Sh[(long long)i * dv + j0] : 0.f;
    }
    const float A = -(float)exp((double)aLog[h]);
    for (int r0 = 0; r0 < n; r0 += CT) {
        const int nt = min(CT, n - r0);
        __syncthreads(); // the previous chunk's reads of Ks, Qs, Us, Ms, Ps, cum are done (and Ss is loaded)
        for (int idx = threadIdx.x; idx < CT * KD; idx += DELTA_CHUNK_THREADS) {
            const int t = idx / KD, i = idx - t * KD;
            const float* qr = qk + ((long long)(r0 + t) * KH + kh) * 2 * dk;
            const bool in = t < nt && i < dk;
            Qs[t][i] = in ? qr[i] : 0.f;
            Ks[t][i] = in ? qr[dk + i] : 0.f;
        }
        if (threadIdx.x < CT) {
            const int t = threadIdx.x;
            const long long ab = (long long)(r0 + t) * VH + h;
            beta[t] = t < nt ? coef[2 * ab] : 0.f;
            gate[t] = t < nt ? __fmul_rn(A, dn_softplus(__fadd_rn(ld1(a + ab), dtBias[h]))) : 0.f;
        }
        __syncthreads();
        if (threadIdx.x == 0) { // c_t: the f64 sum of the gates in row order, as the CPU's
            double acc = 0;
            for (int t = 0; t < CT; t++) acc += (double)gate[t], cum[t] = acc;
        }
        // S₀ᵀk_t and S₀ᵀq_t of column x for rows t = w and w + NW, four chains each over i
        float sk[2] = {0.f, 0.f}, sq[2] = {0.f, 0.f};
#pragma unroll 4
        for (int i = 0; i < KD; i += 4) {
            const float s0 = Ss[i][x], s1 = Ss[i + 1][x], s2 = Ss[i + 2][x], s3 = Ss[i + 3][x];
#pragma unroll
            for (int m = 0; m < 2; m++) {
                const float4 kv = *(const float4*)&Ks[w + NW * m][i];
                const float4 qv = *(const float4*)&Qs[w + NW * m][i];
                sk[m] = fmaf(s3, kv.w, fmaf(s2, kv.z, fmaf(s1, kv.y, fmaf(s0, kv.x, sk[m]))));
                sq[m] = fmaf(s3, qv.w, fmaf(s2, qv.z, fmaf(s1, qv.y, fmaf(s0, qv.x, sq[m]))));
            }
        }
        // the pair (t, j) = (tid / CT, tid mod CT): k_t·k_j and q_t·k_j, four chains over i
        const int pt = threadIdx.x / CT, pj = threadIdx.x % CT;
        float4 kk = make_float4(0.f, 0.f, 0.f, 0.f), qq = kk;
#pragma unroll 4
        for (int i = 0; i < KD; i += 4) {
            const float4 kt = *(const float4*)&Ks[pt][i], qt = *(const float4*)&Qs[pt][i];
            const float4 kj = *(const float4*)&Ks[pj][i];
            kk.x = fmaf(kt.x, kj.x, kk.x), kk.y = fmaf(kt.y, kj.y, kk.y);
            kk.z = fmaf(kt.z, kj.z, kk.z), kk.w = fmaf(kt.w, kj.w, kk.w);
            qq.x = fmaf(qt.x, kj.x, qq.x), qq.y = fmaf(qt.y, kj.y, qq.y);
            qq.z = fmaf(qt.z, kj.z, qq.z), qq.w = fmaf(qt.w, kj.w, qq.w);
        }
        __syncthreads(); // cum is written
        {
            const float e = (float)exp(cum[pt] - cum[pj]);
            Ms[pt][pj] = pj < pt ? beta[pt] * e * ((kk.x + kk.y) + (kk.z + kk.w)) : 0.f;
            Ps[pt][pj] = pj <= pt ? e * ((qq.x + qq.y) + (qq.z + qq.w)) : 0.f;
        }
#pragma unroll
        for (int m = 0; m < 2; m++) {
            const int t = w + NW * m;
            const float ct = (float)exp(cum[t]);
            const float v = col && t < nt ? ld1(qkv + (long long)(r0 + t) * C + 2 * KH * dk + h * dv + j0) : 0.f;
            Us[t][x] = beta[t] * (v - ct * sk[m]); // β_t(v_t − e^{c_t}·S₀ᵀk_t), before the substitution
            Os[t][x] = ct * sq[m];
        }
        __syncthreads();
        if (w == 0) { // forward substitution, one lane a column: u_t −= Σ_{j<t} Ms[t][j]·u_j, j in order
            float u[CT];
#pragma unroll
            for (int t = 0; t < CT; t++) {
                float acc = Us[t][x];
#pragma unroll
                for (int j = 0; j < t; j++) acc = fmaf(-Ms[t][j], u[j], acc);
                u[t] = acc;
                Us[t][x] = acc;
            }
        }
        __syncthreads();
        // o_t = e^{c_t}·S₀ᵀq_t + Σ_{j≤t} Ps[t][j]·u_j for rows w and w + NW
#pragma unroll
        for (int m = 0; m < 2; m++) {
            const int t = w + NW * m;
            float o = Os[t][x];
#pragma unroll
            for (int j = 0; j < CT; j++) o = fmaf(Ps[t][j], Us[j][x], o); // Ps[t][j] = 0 past t
            if (col && t < nt) store_out(dst + (long long)(r0 + t) * VH * dv + h * dv + j0, o);
        }
        // S = e^{c_T}·S₀ + Σ_j e^{c_T−c_j}·k_j ⊗ u_j over this thread's rows of column x
        const double cl = cum[nt - 1];
        const float total = (float)exp(cl);
        float wu[CT];
#pragma unroll
        for (int j = 0; j < CT; j++) wu[j] = j < nt ? (float)exp(cl - cum[j]) * Us[j][x] : 0.f;
#pragma unroll 4
        for (int e = 0; e < KD / NW; e++) {
            const int i = w + NW * e;
            float acc = total * Ss[i][x];
#pragma unroll
            for (int j = 0; j < CT; j++) acc = fmaf(Ks[j][i], wu[j], acc);
            Ss[i][x] = acc;
        }
    }
    __syncthreads();
    if (col) {
#pragma unroll
        for (int e = 0; e < KD / NW; e++) {
            const int i = w + NW * e;
            if (i < dk) Sh[(long long)i * dv + j0] = Ss[i][x];
        }
    }
}

// gated_delta_norm[_cl]_{f32,bf16}_k{KD} (KD ≤ 128: backend.OpDeltaRuleNormGated, the recurrent form of a decode
// step or a short run: gated_delta_prep; gated_delta; rmsnorm_gated over each value head, in one launch)
//   in:  as gated_delta_prep and gated_delta, plus z T [n, VH·dv] and w f32 [dv] (the gated norm's weight, one
//        group a value head: dv ≤ DELTA_HEAD_COLS)
//   out: dst T [n, VH·dv] = rmsnorm_gated(gated_delta(...), z, w, eps); S updated
//   grid: gated_delta_norm (VH, seqs) blocks of DELTA_HEAD_COLS·DELTA_LANES threads, a value head's every column
//        (j = tid / DELTA_LANES); gated_delta_norm_cl (sm_90+) (VH·DELTA_HEAD_BLOCKS, seqs) blocks of DN_THREADS
//        in clusters of DELTA_HEAD_BLOCKS along x, a cluster a value head and its block c the columns
//        j = c·DELTA_COLS + tid / DELTA_LANES. Lanes and rows of S as gated_delta's. Per row of the block's
//        sequence, in row order: threads < DN_THREADS form the row's normalized q and k of the key head and thread
//        0 the head's β and decay, each exactly as gated_delta_prep's block and thread would (into shared memory,
//        not the scratch); the delta step as gated_delta's; the column outputs, rounded to T as gated_delta stores
//        them, to shared memory; then the gated norm as rmsnorm_gated's block of DN_THREADS over the head, whose
//        thread t takes column t (dv ≤ DN_THREADS) and warp w the f64 part of columns 32w..: in the cluster form
//        block c's first warp forms exactly warp c's part, the blocks exchange their parts through distributed
//        shared memory and each sums them in warp order. The key head's q/k norms are formed again by every
//        block of its VH/KH value heads (2·dk values: less than a launch).
//        Why the cluster: a head's 128 KB of state read and written by one block put Qwen3.5-27B's 48 heads on
//        48 SMs (13.6 µs a call on the H200, docs/perf.md); four blocks a head take 192.
//   promise: bit-identical to gated_delta_prep, gated_delta, rmsnorm_gated launched in turn (the same operations
//        in the same order in every thread)
#define DELTA_HEAD_COLS 128 // value columns of a head's gated_delta_norm blocks (must match deltaHeadCols)
#define DELTA_HEAD_BLOCKS (DELTA_HEAD_COLS / DELTA_COLS) // gated_delta_norm_cl's cluster

// cluster_sync: every block of the cluster has arrived before any goes on (arrive releases and wait acquires by
// default: each block's earlier shared-memory writes are visible to the others).
__device__ __forceinline__ void cluster_sync() {
#if __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
#endif
}

// cluster_ld: the double at the shared-memory address p of the cluster's block rank (sm_90+).
__device__ __forceinline__ double cluster_ld(const double* p, unsigned rank) {
    double v = 0;
#if __CUDA_ARCH__ >= 900
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    asm volatile("ld.shared::cluster.f64 %0, [%1];" : "=d"(v) : "r"(r) : "memory");
#endif
    return v;
}

// dn_row_prep: gated_delta_prep's block (row, key head kh) for a gated_delta_norm block — Σq², Σk² by threads
// < DN_THREADS over dims tid, tid + DN_THREADS, … then the warps in order, into the normalized q (times scale)
// and k in qs, ks; thread 0 the value head's β and decay in bd — with the block's barriers after each half.
template <typename T>
__device__ __forceinline__ void dn_row_prep(float* qs, float* ks, float (*red)[DN_THREADS / 32], float* bd, const T* row,
                                            const T* bt, const T* a, long long ab, float A, float dtb, int kh, int KH,
                                            int dk, float scale) {
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const T* qp = row + kh * dk;
    const T* kp = row + KH * dk + kh * dk;
    if (tid < DN_THREADS) {
        float sq = 0.f, sk = 0.f;
        for (int i = tid; i < dk; i += DN_THREADS) {
            const float q = ld1(qp + i), k = ld1(kp + i);
            sq = __fadd_rn(sq, __fmul_rn(q, q));
            sk = __fadd_rn(sk, __fmul_rn(k, k));
        }
        sq = warp_sum(sq);
        sk = warp_sum(sk);
        if (lane == 0) red[0][w] = sq, red[1][w] = sk;
    }
    if (tid == 0) {
        bd[0] = dn_sigmoid(ld1(bt + ab));
        bd[1] = (float)exp((double)__fmul_rn(A, dn_softplus(__fadd_rn(ld1(a + ab), dtb))));
    }
    __syncthreads();
    if (tid < DN_THREADS) {
        float sq = 0.f, sk = 0.f;
#pragma unroll
        for (int i = 0; i < DN_THREADS / 32; i++) sq = __fadd_rn(sq, red[0][i]), sk = __fadd_rn(sk, red[1][i]);
        const float iq = __fdiv_rn(1.0f, (float)sqrt((double)__fadd_rn(sq, 1e-6f)));
        const float ik = __fdiv_rn(1.0f, (float)sqrt((double)__fadd_rn(sk, 1e-6f)));
        for (int i = tid; i < dk; i += DN_THREADS) {
            qs[i] = __fmul_rn(__fmul_rn(ld1(qp + i), iq), scale);
            ks[i] = __fmul_rn(ld1(kp + i), ik);
        }
    }
    __syncthreads();
}

// dn_col_step: gated_delta's step of one column for a lane's R state rows sub + DELTA_LANES·e (decay, then the
// delta with v = *vp or 0 without vp, then the output's dot product), the lanes' sums in the same butterfly.
template <int R, typename T>
__device__ __forceinline__ float dn_col_step(float (&st)[R], const float* qs, const float* ks, int sub, float decay,
                                             float beta, const T* vp) {
    float o = 0.f;
#pragma unroll
    for (int e = 0; e < R; e++) {
        st[e] = __fmul_rn(st[e], decay);
        o = __fadd_rn(o, __fmul_rn(st[e], ks[sub + DELTA_LANES * e]));
    }
#pragma unroll
    for (int m = 1; m < DELTA_LANES; m <<= 1) o = __fadd_rn(o, __shfl_xor_sync(0xffffffffu, o, m));
    const float vj = vp ? ld1(vp) : 0.f;
    const float d = __fmul_rn(__fsub_rn(vj, o), beta);
    o = 0.f;
#pragma unroll
    for (int e = 0; e < R; e++) {
        const int i = sub + DELTA_LANES * e;
        st[e] = __fadd_rn(st[e], __fmul_rn(ks[i], d));
        o = __fadd_rn(o, __fmul_rn(st[e], qs[i]));
    }
#pragma unroll
    for (int m = 1; m < DELTA_LANES; m <<= 1) o = __fadd_rn(o, __shfl_xor_sync(0xffffffffu, o, m));
    return o;
}

template <int KD, typename T>
__device__ __forceinline__ void gated_delta_norm(T* __restrict__ dst, const T* __restrict__ qkv, const T* __restrict__ z,
                                                 const T* __restrict__ a, const T* __restrict__ bt,
                                                 const float* __restrict__ aLog, const float* __restrict__ dtBias,
                                                 const float* __restrict__ nw, float* __restrict__ S,
                                                 const int* __restrict__ seq, const int* __restrict__ pos, int n, int KH,
                                                 int VH, int dk, int dv, float scale, float eps) {
    constexpr int R = KD / DELTA_LANES;
    static_assert(DN_THREADS <= DELTA_HEAD_COLS * DELTA_LANES, "the pre-pass and the norm take the first DN_THREADS");
    __shared__ float qs[KD], ks[KD], red[2][DN_THREADS / 32], ov[DELTA_HEAD_COLS], bd[2];
    __shared__ double part[DN_THREADS / 32];
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int sub = tid % DELTA_LANES, j = tid / DELTA_LANES;
    const int h = blockIdx.x, s = blockIdx.y;
    const int kh = h / (VH / KH);
    const int C = 2 * KH * dk + VH * dv;
    const bool col = j < dv;
    float* Sh = S + ((long long)s * VH + h) * dk * dv;
    float st[R];
    dn_state_load(st, Sh, col, sub, j, dk, dv);
    for (int i = tid; i < KD; i += blockDim.x) qs[i] = 0.f, ks[i] = 0.f; // rows ≥ dk stay zero
    const float A = -(float)exp((double)aLog[h]);
    bool touched = false;
    for (int r = 0; r < n; r++) {
        if (seq[r] != s) continue; // uniform across the block
        touched = true;
        dn_row_prep(qs, ks, red, bd, qkv + (long long)r * C, bt, a, (long long)r * VH + h, A, dtBias[h], kh, KH, dk,
                    scale);
        // gated_delta's step for column j
        if (pos[r] == 0) {
#pragma unroll
            for (int e = 0; e < R; e++) st[e] = 0.f;
        }
        const T* vp = col ? qkv + (long long)r * C + 2 * KH * dk + h * dv + j : nullptr;
        const float o = dn_col_step<R>(st, qs, ks, sub, bd[1], bd[0], vp);
        if (col && sub == 0) ov[j] = as_act(o, dst);
        __syncthreads();
        // rmsnorm_gated's block over this head's dv columns (Σx² in f64, the warps' parts in order)
        const long long base = (long long)r * VH * dv + (long long)h * dv;
        if (tid < DN_THREADS) {
            double ss = 0;
            for (int c = tid; c < dv; c += DN_THREADS) {
                const double v = ov[c];
                ss += v * v;
            }
#pragma unroll
            for (int m = 16; m > 0; m >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, m);
            if (lane == 0) part[w] = ss;
        }
        __syncthreads();
        if (tid < DN_THREADS) {
            double tot = 0;
            for (int i = 0; i < DN_THREADS / 32; i++) tot += part[i];
            const float inv = (float)(1.0 / sqrt(tot / dv + (double)eps));
            for (int c = tid; c < dv; c += DN_THREADS)
                store_out(dst + base + c, __fmul_rn(__fmul_rn(nw[c], __fmul_rn(ov[c], inv)), dn_silu(ld1(z + base + c))));
        }
        __syncthreads(); // qs, ks, ov, part, bd are free for the next row
    }
    if (touched && col) dn_state_store(st, Sh, sub, j, dk, dv);
}

template <int KD, typename T>
__device__ __forceinline__ void gated_delta_norm_cl(T* __restrict__ dst, const T* __restrict__ qkv, const T* __restrict__ z,
                                                 const T* __restrict__ a, const T* __restrict__ bt,
                                                 const float* __restrict__ aLog, const float* __restrict__ dtBias,
                                                 const float* __restrict__ nw, float* __restrict__ S,
                                                 const int* __restrict__ seq, const int* __restrict__ pos, int n, int KH,
                                                 int VH, int dk, int dv, float scale, float eps) {
    constexpr int R = KD / DELTA_LANES, COLS = DELTA_COLS, NB = DELTA_HEAD_BLOCKS;
    static_assert(DN_THREADS == COLS * DELTA_LANES && DN_THREADS == DELTA_HEAD_COLS && COLS == 32,
                  "the block's threads are the pre-pass's; rmsnorm_gated's warp c is the head's columns 32c..");
    __shared__ float qs[KD], ks[KD], red[2][DN_THREADS / 32], ov[COLS], bd[2];
    __shared__ double part;
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int sub = tid % DELTA_LANES, cb = blockIdx.x % NB;
    const int jl = tid / DELTA_LANES, j = cb * COLS + jl;
    const int h = blockIdx.x / NB, s = blockIdx.y;
    const int kh = h / (VH / KH);
    const int C = 2 * KH * dk + VH * dv;
    const bool col = j < dv;
    const int jn = cb * COLS + tid; // the column this thread normalizes (first warp)
    const bool ncol = w == 0 && jn < dv;
    float* Sh = S + ((long long)s * VH + h) * dk * dv;
    float st[R];
    dn_state_load(st, Sh, col, sub, j, dk, dv);
    for (int i = tid; i < KD; i += blockDim.x) qs[i] = 0.f, ks[i] = 0.f; // rows ≥ dk stay zero
    const float A = -(float)exp((double)aLog[h]);
    bool touched = false;
    for (int r = 0; r < n; r++) {
        if (seq[r] != s) continue; // uniform across the cluster (one sequence)
        touched = true;
        const long long base = (long long)r * VH * dv + (long long)h * dv;
        dn_row_prep(qs, ks, red, bd, qkv + (long long)r * C, bt, a, (long long)r * VH + h, A, dtBias[h], kh, KH, dk,
                    scale);
        // gated_delta's step for column j
        if (pos[r] == 0) {
#pragma unroll
            for (int e = 0; e < R; e++) st[e] = 0.f;
        }
        const T* vp = col ? qkv + (long long)r * C + 2 * KH * dk + h * dv + j : nullptr;
        const float o = dn_col_step<R>(st, qs, ks, sub, bd[1], bd[0], vp);
        if (sub == 0) ov[jl] = col ? as_act(o, dst) : 0.f;
        __syncthreads();
        // rmsnorm_gated's block over this head's dv columns (Σx² in f64, the warps' parts in order)
        if (w == 0) {
            double ss = 0;
            if (ncol) {
                const double v = ov[tid];
                ss += v * v;
            }
#pragma unroll
            for (int m = 16; m > 0; m >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, m);
            if (lane == 0) part = ss;
        }
        cluster_sync(); // every block's part is written
        if (w == 0) {
            double tot = 0;
            for (int i = 0; i < NB; i++) tot += cluster_ld(&part, i);
            const float inv = (float)(1.0 / sqrt(tot / dv + (double)eps));
            if (ncol) store_out(dst + base + jn, __fmul_rn(__fmul_rn(nw[jn], __fmul_rn(ov[tid], inv)), dn_silu(ld1(z + base + jn))));
        }
        cluster_sync(); // every block has read the parts: qs, ks, ov, part, bd are free for the next row
    }
    if (touched && col) dn_state_store(st, Sh, sub, j, dk, dv);
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
    }                                                                                                          \
    extern "C" __global__ void __launch_bounds__(DN_THREADS) gated_delta_prep_##SFX(float* qk, float* coef,     \
        const T* qkv, const T* a, const T* b, const float* aLog, const float* dtBias, int KH, int VH, int dk,     \
        int dv, float scale) { pdl_begin();                                                                    \
        gated_delta_prep<T>(qk, coef, qkv, a, b, aLog, dtBias, KH, VH, dk, dv, scale);                          \
    }

// The delta-rule instantiations, one per key-dim bound KD (internal/cuda/kernels.go: deltaName; the chunked form
// deltaChunkName, KD ≤ 128).
#define GATED_DELTA(NAME, KD, T)                                                                                  \
    extern "C" __global__ void __launch_bounds__(DELTA_THREADS) NAME(T* dst, const T* qkv, const float* qk,       \
                                                                     const float* coef, float* S, const int* seq, \
                                                                     const int* pos, int n, int KH, int VH, int dk, \
                                                                     int dv) { pdl_begin();                     \
        gated_delta<KD, T>(dst, qkv, qk, coef, S, seq, pos, n, KH, VH, dk, dv);                                   \
    }
#define GATED_DELTA_CHUNK(NAME, KD, T)                                                                            \
    extern "C" __global__ void __launch_bounds__(DELTA_CHUNK_THREADS)                                             \
        NAME(T* dst, const T* qkv, const float* qk, const float* coef, const T* a, const float* aLog,             \
             const float* dtBias, float* S, const int* seq, const int* pos, int n, int seqs, int KH, int VH, int dk, \
             int dv) { pdl_begin();                                                                                \
        gated_delta_chunk<KD, T>(dst, qkv, qk, coef, a, aLog, dtBias, S, seq, pos, n, seqs, KH, VH, dk, dv);      \
    }

#define GATED_DELTA_NORM(NAME, KD, T)                                                                             \
    extern "C" __global__ void __launch_bounds__(DELTA_HEAD_COLS * DELTA_LANES)                                   \
        NAME(T* dst, const T* qkv, const T* z, const T* a, const T* b, const float* aLog, const float* dtBias,    \
             const float* nw, float* S, const int* seq, const int* pos, int n, int KH, int VH, int dk, int dv,     \
             float scale, float eps) { pdl_begin();                                                                \
        gated_delta_norm<KD, T>(dst, qkv, z, a, b, aLog, dtBias, nw, S, seq, pos, n, KH, VH, dk, dv, \
                                                 scale, eps);                                                     \
    }
#if __CUDA_ARCH__ >= 900
#define GATED_DELTA_NORM_CL(NAME, KD, T)                                                                          \
    extern "C" __global__ void __cluster_dims__(DELTA_HEAD_BLOCKS, 1, 1) __launch_bounds__(DN_THREADS)            \
        NAME(T* dst, const T* qkv, const T* z, const T* a, const T* b, const float* aLog, const float* dtBias,    \
             const float* nw, float* S, const int* seq, const int* pos, int n, int KH, int VH, int dk, int dv,     \
             float scale, float eps) { pdl_begin();                                                                \
        gated_delta_norm_cl<KD, T>(dst, qkv, z, a, b, aLog, dtBias, nw, S, seq, pos, n, KH, VH, dk, dv,  \
                                            scale, eps);                                                          \
    }
#else
#define GATED_DELTA_NORM_CL(NAME, KD, T)
#endif

DELTANET_INSTANTIATE(float, f32)
DELTANET_INSTANTIATE(bf16_t, bf16)
