// quant.cuh: what the quantized linear kernels (trellis.cu, affine.cu) share — their launch parameters, the
// staging of activation rows in shared memory, and the decode-GEMV skeleton in which each lane owns runs of 32
// consecutive positions of R weight rows and a codec (a trellis row or an affine row) turns a run's packed words
// into 32 f32 weights. internal/cuda prepends it, after common.cuh, to the files that include it (kernels.go,
// kernelHeaders). Contracts are repeated in docs/kernels.md ("quant.cuh, trellis.cu, affine.cu").

// QGemvParams: one quantized linear's launch. Mirrored by qgemvParams in internal/cuda/trellis.go;
// TestQGemvParamsLayout checks sizes and offsets.
struct QGemvParams {
    const unsigned* W;     // 0: packed words as stored (trellis: coded rows; affine: [out, in·bits/32])
    const float* scales;   // 8: trellis [coded rows]; affine [out, in/group]
    const float* biases;   // 16: affine [out, in/group]; null for trellis
    const float* bias;     // 24: the layer's bias [out] or null
    const float* x;        // 32: activations f32 [nrows, in]
    float* y;              // 40: output f32 [nrows, out]
    float* partial;        // 48: split-K partials f32 [splits, nrows, out] (axis-0 trellis)
    int out;               // 56: output features
    int in;                // 60: input features
    int shift;             // 64: log2 of the trellis block T, or of the affine group size
    int L;                 // 68: trellis state bits (≤ 16)
    int nrows;             // 72: activation rows, 1..N of the instantiation
    int ks;                // 76: warps sharing one row group's runs (1, 2, 4, 8)
    int chunk;             // 80: positions of x staged per pass (a multiple of 32)
    int rowsPerSplit;      // 84: input rows per split (axis-0 trellis)
    int interleaved;       // 88: 1 for the 3-bit block interleave [out/512, in, 48]
    int axis;              // 92: trellis coded axis (expansion)
};                         // 96 bytes

// shf_r: the 32 bits at `s` (0..31) of the 64-bit pair hi:lo — one funnel-shift instruction.
__device__ __forceinline__ unsigned shf_r(unsigned lo, unsigned hi, unsigned s) {
    unsigned d;
    asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(lo), "r"(hi), "r"(s));
    return d;
}

// f4: component c (a compile-time constant after unrolling) of v.
__device__ __forceinline__ float f4(const float4& v, int c) { return c == 0 ? v.x : (c == 1 ? v.y : (c == 2 ? v.z : v.w)); }

// qstage: positions [c0, c0+len) of the activation rows x [nrows, in] (len % 4 == 0; rows ≥ nrows read as zeros)
// into xs[m·cs + (p/32)·36 + p%32]: four pad floats after every run of 32, so the lanes' float4 reads of
// consecutive runs (lane l at 16-byte unit 9·l + j) fall in distinct banks.
template <int N>
__device__ __forceinline__ void qstage(float* xs, int cs, const float* __restrict__ x, int in, int nrows, int c0, int len) {
    const int per = len >> 2;
    for (int i = threadIdx.x; i < N * per; i += blockDim.x) {
        const int m = i / per, q = (i - m * per) << 2;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (m < nrows) v = __ldg((const float4*)(x + (long long)m * in + c0 + q));
        *(float4*)(xs + m * cs + (q >> 5) * 36 + (q & 31)) = v;
    }
}

// qgemv_finish ends a row group of a qgemv_rows-shaped kernel (the f32 and the int8 forms alike): each lane's R×N
// sums reduced over the warp, then over the ks warps splitting the group's runs (through red, in part order), and
// written by part 0's lane 0 as y = finish(sum) + bias. Every thread of the block calls it (it syncs when ks > 1).
template <int N, int R, class Row>
__device__ __forceinline__ void qgemv_finish(const QGemvParams& p, Row (&rw)[R], float (&acc)[R][N], float (*red)[R][N],
                                             int warp, int lane, int part, int ks, int row0) {
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int m = 0; m < N; m++) acc[r][m] = warp_sum(acc[r][m]);
    if (ks > 1) {
        if (lane == 0) {
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int m = 0; m < N; m++) red[warp][r][m] = acc[r][m];
        }
        __syncthreads();
        if (part == 0 && lane == 0) {
            for (int q = 1; q < ks; q++) {
#pragma unroll
                for (int r = 0; r < R; r++)
#pragma unroll
                    for (int m = 0; m < N; m++) acc[r][m] += red[warp + q][r][m];
            }
        }
        __syncthreads();
    }
    if (part == 0 && lane == 0) {
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int row = row0 + r;
            if (row < p.out) {
                const float b = p.bias ? p.bias[row] : 0.f;
#pragma unroll
                for (int m = 0; m < N; m++)
                    if (m < p.nrows) p.y[(long long)m * p.out + row] = __fadd_rn(rw[r].finish(acc[r][m]), b);
            }
        }
    }
}

// qgemv_rows: y[m, o] = finish_o(Σ_i x[m, i]·w_o(i)) (+ bias[o]) for m < nrows ≤ N, each weight w_o(i) made by the
// codec Row from its row's words, applied to all N activation rows (each weight decoded once per launch).
//   Row: init(p, o) binds output row o; Row::run(p, q) is what every row shares of run q (positions
//        32q..32q+31); load(run, words) reads the row's words of it into a Row::Words; weight(words, j) is the f32
//        weight at position 32q + j (j a compile-time constant); finish(s) applies what the codec left out of the
//        sum (the factored trellis scale).
//   PF: prefetch — each lane loads its next run's words before decoding the current one (two sets of words in
//       registers), so the loads of one run overlap the arithmetic of the previous.
//   in:  x f32 [nrows, in] (in % 32 == 0, rows 16-byte aligned); out: y f32 [nrows, out]
//   grid: 256 threads = 8 warps = 8/ks row groups of R rows; the ks warps of a group split its runs (part p takes
//         runs p·32 + lane, then every 32·ks) and meet in shared memory; blocks stride over the ⌈out/(R·8/ks)⌉
//         row groups, so activations staged once (chunk ≥ in) serve every group a block takes.
//   smem: dynamic, N·(chunk/32)·36 floats (positions staged per pass; several passes when chunk < in)
//   order: per lane f32 fma chains in position order, a warp tree sum, the ks parts added in order, then finish
//          and bias: deterministic for a given launch shape.
template <class Row, int N, int R, bool PF>
__device__ __forceinline__ void qgemv_rows(const QGemvParams& p) {
    extern __shared__ float4 qsm[];
    float* xs = (float*)qsm;
    __shared__ float red[8][R][N];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int ks = p.ks, gpb = 8 / ks, grp = warp / ks, part = warp - grp * ks;
    const int rpb = gpb * R;
    const int ngroups = (p.out + rpb - 1) / rpb;
    const int chunk = p.chunk, cs = (chunk >> 5) * 36;
    const bool once = chunk >= p.in;
    if (once) {
        qstage<N>(xs, cs, p.x, p.in, p.nrows, 0, p.in);
        __syncthreads();
    }
    for (int g = blockIdx.x; g < ngroups; g += gridDim.x) {
        const int row0 = g * rpb + grp * R;
        Row rw[R];
#pragma unroll
        for (int r = 0; r < R; r++) rw[r].init(p, min(row0 + r, p.out - 1));
        float acc[R][N];
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int m = 0; m < N; m++) acc[r][m] = 0.f;
        for (int c0 = 0; c0 < p.in; c0 += chunk) {
            const int len = min(chunk, p.in - c0);
            if (!once) {
                __syncthreads();
                qstage<N>(xs, cs, p.x, p.in, p.nrows, c0, len);
                __syncthreads();
            }
            const int q0 = c0 >> 5, nq = len >> 5;
            typename Row::Words cur[R], nxt[R];
            int lq = part * 32 + lane;
            if (PF && lq < nq) {
                const typename Row::Run ru = Row::run(p, q0 + lq);
#pragma unroll
                for (int r = 0; r < R; r++) rw[r].load(ru, nxt[r]);
            }
            for (; lq < nq; lq += 32 * ks) {
                if (PF) {
#pragma unroll
                    for (int r = 0; r < R; r++) cur[r] = nxt[r];
                    if (lq + 32 * ks < nq) {
                        const typename Row::Run ru = Row::run(p, q0 + lq + 32 * ks);
#pragma unroll
                        for (int r = 0; r < R; r++) rw[r].load(ru, nxt[r]);
                    }
                } else {
                    const typename Row::Run ru = Row::run(p, q0 + lq);
#pragma unroll
                    for (int r = 0; r < R; r++) rw[r].load(ru, cur[r]);
                }
                const float* xr = xs + lq * 36;
#pragma unroll
                for (int j4 = 0; j4 < 8; j4++) {
                    float4 xv[N];
#pragma unroll
                    for (int m = 0; m < N; m++) xv[m] = *(const float4*)(xr + m * cs + 4 * j4);
#pragma unroll
                    for (int c = 0; c < 4; c++) {
#pragma unroll
                        for (int r = 0; r < R; r++) {
                            const float w = rw[r].weight(cur[r], 4 * j4 + c);
#pragma unroll
                            for (int m = 0; m < N; m++) acc[r][m] = fmaf(w, f4(xv[m], c), acc[r][m]);
                        }
                    }
                }
            }
        }
        qgemv_finish<N, R>(p, rw, acc, red, warp, lane, part, ks, row0);
    }
}

// moe_qgemv<Row> (backend.MoE Experts' routed decode form over quantized experts; instantiated as MOE_TRELLIS1 in
// trellis.cu and MOE_AFFINE in affine.cu, host internal/cuda/moe.go)
//   in:  x f32 [n, in] (xslot = 0: slot s = r·k + j reads row r) or [n·k, in] (xslot = 1: slot s reads its own
//        row); ids int32 [n, k]; Wt, St, Bt: device tables of E pointers to each expert's words, scales and biases
//        (what Row::init reads of a QGemvParams: W, scales, biases, in, shift, L); Wt2, St2, Bt2: null, or the
//        same of the up projection (then Wt, St, Bt are the gate's)
//   out: y f32 [n·k, out]: g[s][o] = Σ_c W_{ids[s]}[o][c]·x[..][c] with Row's weights (and finish), y = g, or with
//        Wt2 y = silu_mul(g, u) (swiglu's arithmetic), u the same over Wt2 — only the routed experts' weights
//        are read, the ids read on the device
//   grid: (⌈out/16⌉, n·k) blocks of 256 threads, (in + in/32) floats of dynamic shared memory: the slot's x row,
//        one pad float per 32 so that lane l reading its run's 32 positions (33·q + j) hits bank (l + j) % 32;
//        warp w takes output rows 16·blockIdx.x + w and + 8; lanes take runs of 32 positions strided by 32 runs
//        (Row's per-run decode, compile-time positions; with Wt2 the gate's and up's run decoded together,
//        moe_qrows); warp_sum
//   promise: each weight is the Linear decode GEMV's (Row), f32 sums in another order than the CPU: within f32
//        accumulation-order rounding (the MatMul decode bound); SwiGLU as swiglu
#define MOE_QGEMV_ARGS                                                                                          \
    float *y, const float *x, const int *ids, const unsigned *const *Wt, const float *const *St,                \
        const float *const *Bt, const unsigned *const *Wt2, const float *const *St2, const float *const *Bt2, int in, \
        int out, int k, int xslot, int shift, int L
#define MOE_QGEMV_PASS y, x, ids, Wt, St, Bt, Wt2, St2, Bt2, in, out, k, xslot, shift, L

// moe_qrows: row o of M = 1 or 2 experts' layers (gate and up) against the staged x, each row's sum in the same
// order whatever M (lane's runs ascending, positions ascending, then warp_sum); M = 2 keeps both rows' words in
// flight together and reads each staged x once for both.
template <class Row, int M>
__device__ __forceinline__ void moe_qrows(float (&out)[M], const QGemvParams (&p)[M], const float* xs, int o, int lane) {
    Row rw[M];
    float acc[M];
#pragma unroll
    for (int m = 0; m < M; m++) rw[m].init(p[m], o), acc[m] = 0.f;
    for (int q = lane; q < (p[0].in >> 5); q += 32) {
        typename Row::Words d[M];
#pragma unroll
        for (int m = 0; m < M; m++) rw[m].load(Row::run(p[m], q), d[m]);
        const float* xq = xs + 33 * q;
#pragma unroll
        for (int j = 0; j < 32; j++) {
            const float xv = xq[j];
#pragma unroll
            for (int m = 0; m < M; m++) acc[m] = fmaf(rw[m].weight(d[m], j), xv, acc[m]);
        }
    }
#pragma unroll
    for (int m = 0; m < M; m++) out[m] = rw[m].finish(warp_sum(acc[m]));
}

// moe_qparams: the QGemvParams fields Row::init and Row::run read, for expert e of tables W, S, B.
__device__ __forceinline__ QGemvParams moe_qparams(const unsigned* const* W, const float* const* S, const float* const* B, int e,
                                                   int in, int shift, int L) {
    QGemvParams p{};
    p.W = W[e], p.scales = S[e], p.biases = B[e], p.in = in, p.shift = shift, p.L = L;
    return p;
}

template <class Row>
__device__ __forceinline__ void moe_qgemv(MOE_QGEMV_ARGS) {
    extern __shared__ float xs[];
    const int s = blockIdx.y;
    const float* xr = x + (long long)(xslot ? s : s / k) * in;
    for (int c = threadIdx.x; c < in; c += blockDim.x) xs[c + (c >> 5)] = xr[c];
    __syncthreads();
    const int e = ids[s];
    const int lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    const int row0 = blockIdx.x * 2 * nw;
    for (int o = row0 + (threadIdx.x >> 5); o < min(row0 + 2 * nw, out); o += nw) {
        float v;
        if (Wt2) {
            const QGemvParams p[2] = {moe_qparams(Wt, St, Bt, e, in, shift, L), moe_qparams(Wt2, St2, Bt2, e, in, shift, L)};
            float gu[2];
            moe_qrows<Row, 2>(gu, p, xs, o, lane);
            v = silu_mul(gu[0], gu[1]);
        } else {
            const QGemvParams p[1] = {moe_qparams(Wt, St, Bt, e, in, shift, L)};
            float g[1];
            moe_qrows<Row, 1>(g, p, xs, o, lane);
            v = g[0];
        }
        if (lane == 0) y[(long long)s * out + o] = v;
    }
}
