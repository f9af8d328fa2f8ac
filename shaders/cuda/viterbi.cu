// viterbi.cu: the trellis encoder's block search on the device: the tail-biting Viterbi of internal/trellis
// (viterbi.search, encodeBlock; docs/trellis-format.md section 8) over the bitshift trellis of 2^L states, one
// thread block per coded block of T positions. It runs trellis's float32 operations in trellis's order with
// trellis's tie-breaks, so its paths are trellis.CPU's bit for bit; the host (internal/cuda/viterbi.go) does
// everything around the search (scales, packing, the refit, LDLQ) in the CPU's code. The contract is repeated in
// docs/kernels.md ("viterbi.cu").
//
// viterbi_k{K}_l{L} (VITERBI(name, K, L, NT); K 2..4, L 12..16, NT from viterbiThreads in internal/cuda/viterbi.go)
//   in:  x f32 [nblocks, T]: each coded block's weights divided by its row's first-pass scale, as trellis hands
//        them to a Searcher; T even, 2 ≤ T, the shared memory below within the device's limit
//   out: states u16 [nblocks, T]: block j's path s_0..s_{T−1}, encodeBlock's: the search of the block rotated by
//        T/2 with free ends, then the search constrained to start in a state whose top L−K bits and end in one whose
//        low L−K bits are the overlap (the rotated path's state at T/2, shifted right by K)
//   scratch: bp u32 [gridDim.x, T, NT]: a thread block's backpointers, one word a thread and step — word (t, i)
//        holds the winning predecessor index h of thread i's groups g = i + r·NT at step t, at bits r·K..r·K+K−1
//        (G/NT·K ≤ 32); written and read back by the same thread block only (after a barrier; not __restrict__, so
//        no load of it may become a read-only-cache load)
//   grid: persistent: gridDim.x ≤ nblocks thread blocks (the host sizes it to what is resident), thread block b
//        codes blocks b, b + gridDim.x, ...; NT threads (a multiple of 32 dividing G), thread i owns the successor
//        groups g = i + r·NT, r < G/NT, each with its H = 2^K predecessors h·G + g; shared memory (dynamic,
//        viterbiSmem): where a thread owns more than 16 states (L 15, 16) the code table, 1021 × 32 f32 (VIT_CODES),
//        then NT/32 u64 + G u32 + T f32 + T u32. Launch bounds (NT, 1024/NT): 64 registers a thread.
//   cost (SASS of NVRTC 11.8, sm_90, TestViterbiNoSpill: no stack, no spills): per state and step LDS of m, FADD,
//        FMUL, FADD, the tag's LOP3 and a VIMNMX, plus at L 15–16 the code value's IADD3, dp4a and conflict-free
//        LDS from the table (L ≤ 14: held in registers); a group's STS and backpointer bits, a thread's STG a step:
//        7.3–7.6 instructions a state-step at L 12–14, 9.6–10.1 at L 16 (k 2, L 15: 14.9, its loop unrolled by 2)
//   order: step 0: cost(s) = (x_0 − c(s))², or 1e30 where the overlap forbids the start (s>>K ≠ overlap); each
//        later step t: group g's minimum m_g = min over h of the cost of h·G + g as f32 bits with the K low bits
//        replaced by h (integer min: the lowest h wins ties, the tag's perturbation is kept in the sum), then
//        cost(s) = f32(m_{s>>K}) + (x_t − c(s))², every operation rounded on its own (no FMA contraction), c(s)
//        = trellis_value(trellis_y(s)) = Value1MAD(s) exactly; the end state is the least cost, lowest s on ties,
//        among all states (or those whose low L−K bits are the overlap); backtracking state_{t−1} = h·2^(L−K) +
//        (state_t >> K). Integer minima and the (cost, s) argmin do not depend on which thread compares what.
//   promise: states equal trellis.CPU's on the same spec and x whenever every cost stays finite (|x| < 1e18):
//        TestViterbiTranscription runs this file's loops in Go against trellis.CPU; scripts/device/quant.sh
//        viterbi checks the device against the CPU on the fixture models' layers.

#define VIT_BIG 0x7149f2cau // the bits of 1e30f, trellis's bigCost (TestViterbiConstants reads this line)

// VIT_CODES: the 1MAD code takes 1021 values, y = (byte sum of s·34038481 + 76625530) − 510 (code1mad.cuh's
// trellis_y); a form that does not hold its code values in registers reads them from a shared table of those
// values, 32 copies interleaved so that lane l reads copy l (word 32·bytesum + l: always bank l, no conflicts).
#define VIT_CODES 1021

template <int K, int L, int NT>
struct Vit {
    static constexpr int G = 1 << (L - K); // successor groups (and predecessor rows)
    static constexpr int H = 1 << K;       // predecessors of a group
    static constexpr int RG = G / NT;      // groups a thread owns
    // A thread's 2^L/NT code values stay in registers when there are at most 16 of them; else each is read from
    // the shared table (IMAD or IADD3, dp4a, LDS: half the instructions of recomputing it).
    static constexpr bool CBREG = (1 << L) / NT <= 16;
    static constexpr unsigned KEEP = ~(unsigned)(H - 1);
    // HU: the unroll of the predecessor loops of step 0 and the last position where the code values come from the
    // table: fully unrolled there, ptxas hoists every state's loads ahead and spills (NVRTC 11.8, sm_90: up to
    // 672 bytes; the steps between, fully unrolled, do not).
    static constexpr int HU = CBREG ? H : (K == 2 ? 1 : 2);
    // HS: the steps' predecessor unroll, full but at k 2, L 15 (fully unrolled ptxas spills 16 bytes there).
    static constexpr int HS = K == 2 && L == 15 ? 2 : H;
    static_assert(NT % 32 == 0 && G % NT == 0, "NT must be a multiple of 32 dividing 2^(L-K)");
    static_assert(L >= 2 * K && L <= 16, "a group's predecessors must share their minimum's word (L >= 2K), L <= 16");
    static_assert(RG * K <= 32, "a thread's backpointers of one step must fill one word");
};

// VitCodes: the code value c(s) of the states a thread owns (h·G + tid + r·NT), held or read from the table.
template <int K, int L, int NT, bool REG = Vit<K, L, NT>::CBREG>
struct VitCodes;

template <int K, int L, int NT>
struct VitCodes<K, L, NT, true> {
    float v[Vit<K, L, NT>::RG][Vit<K, L, NT>::H];
    __device__ __forceinline__ void init(unsigned tid, float*) {
#pragma unroll
        for (int r = 0; r < Vit<K, L, NT>::RG; r++)
#pragma unroll
            for (int h = 0; h < Vit<K, L, NT>::H; h++) v[r][h] = trellis_value(trellis_y(h * Vit<K, L, NT>::G + tid + r * NT));
    }
    __device__ __forceinline__ float at(int r, int h, unsigned) const { return v[r][h]; }
};

template <int K, int L, int NT>
struct VitCodes<K, L, NT, false> {
    unsigned lane4; // the shared address of the lane's copy of the table (VIT_CODES × 32 f32)
    // init fills the table (every thread of the block; a barrier follows before the first read).
    __device__ __forceinline__ void init(unsigned tid, float* t) {
        for (unsigned i = tid; i < VIT_CODES * 32; i += NT) t[i] = trellis_value(__uint_as_float(0x4B3FFE02u + (i >> 5)) - 12582912.0f);
        lane4 = (unsigned)__cvta_generic_to_shared(t) + (tid & 31) * 4;
    }
    // at: dp4a of s's LCG bytes against 128 each is 128·bytesum, the byte offset of the code's row, added onto the
    // lane's copy: the shared address, one dp4a and one LDS.
    __device__ __forceinline__ float at(int, int, unsigned s) const {
        unsigned a;
        float c;
        asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(a) : "r"(s * 34038481u + 76625530u), "r"(0x80808080u), "r"(lane4));
        asm("ld.shared.f32 %0, [%1];" : "=f"(c) : "r"(a));
        return c;
    }
};

// vit_base: the thread's first successor group, tid. Where the code values come from the table it goes through
// an opaque move at each step, so the compiler cannot hoist the 2^L/NT loop-invariant table offsets out of the
// step loop (and spill them).
template <int K, int L, int NT>
__device__ __forceinline__ unsigned vit_base(unsigned tid) {
    if (!Vit<K, L, NT>::CBREG) asm volatile("mov.b32 %0, %0;" : "+r"(tid));
    return tid;
}

// vit_tag: a cost's f32 bits with the K low bits replaced by the predecessor index h (trellis's minGroups). keep
// is Vit::KEEP in a register the compiler cannot see through (vit_keep), so the tag is one LOP3 with h its
// immediate rather than an AND and an OR of two immediates.
__device__ __forceinline__ unsigned vit_tag(float c, int h, unsigned keep) {
    return (__float_as_uint(c) & keep) | (unsigned)h;
}

// vit_keep: Vit::KEEP, or-ed with T >> 31, which is 0 (T ≥ 2), for the opacity above.
template <int K, int L, int NT>
__device__ __forceinline__ unsigned vit_keep(int T) {
    return Vit<K, L, NT>::KEEP | (unsigned)(T >> 31);
}

// vit_store: the groups' minima of one step into M and their predecessor indices into the step's backpointer
// words bpt (one word a thread: group tid + r·NT's h at bits r·K..r·K+K−1).
template <int K, int L, int NT>
__device__ __forceinline__ void vit_store(const unsigned (&best)[Vit<K, L, NT>::RG], unsigned* M, unsigned* bpt,
                                          unsigned tid) {
    unsigned word = 0;
#pragma unroll
    for (int r = 0; r < Vit<K, L, NT>::RG; r++) {
        M[tid + r * NT] = best[r];
        word |= (best[r] & (unsigned)(Vit<K, L, NT>::H - 1)) << (r * K);
    }
    bpt[tid] = word;
}

// vit_pass: one search over xs (position t reads xs[(t + off) mod T]); overlap < 0 leaves both ends free. Returns
// (to every thread) the path's state at position stop, and with path set writes the states at positions stop..T−1
// there. Every thread calls it; it begins and ends with the block in step.
template <int K, int L, int NT>
__device__ __forceinline__ unsigned vit_pass(const VitCodes<K, L, NT>& cb, const float* xs, int T, int off, int overlap,
                                             int stop, unsigned* M, unsigned* bp, unsigned long long* red,
                                             unsigned* path) {
    using V = Vit<K, L, NT>;
    const unsigned tid = threadIdx.x;
    const unsigned keep = vit_keep<K, L, NT>(T);
    unsigned best[V::RG];
    { // step 0: the bare distortions; a start the overlap forbids costs 1e30
        const float xt = xs[off];
        const unsigned base = vit_base<K, L, NT>(tid);
#pragma unroll
        for (int r = 0; r < V::RG; r++) {
            const unsigned g = base + r * NT;
            unsigned b = 0xffffffffu;
#pragma unroll(V::HU)
            for (int h = 0; h < V::H; h++) {
                const unsigned s = h * V::G + g;
                const float d = __fsub_rn(xt, cb.at(r, h, s));
                float c = __fmul_rn(d, d);
                if (overlap >= 0 && (int)(s >> K) != overlap) c = __uint_as_float(VIT_BIG);
                const unsigned v = vit_tag(c, h, keep);
                b = v < b ? v : b;
            }
            best[r] = b;
        }
    }
    for (int t = 1;; t++) {
        __syncthreads(); // every thread has read M (the last step's minima, or the last pass's)
        vit_store<K, L, NT>(best, M, bp + (size_t)t * NT, tid);
        __syncthreads();
        if (t == T - 1) break;
        const int p = t + off;
        const float xt = xs[p < T ? p : p - T];
        const unsigned base = vit_base<K, L, NT>(tid);
#pragma unroll
        for (int r = 0; r < V::RG; r++) {
            const unsigned g = base + r * NT;
            unsigned b = 0xffffffffu;
#pragma unroll(V::HS)
            for (int h = 0; h < V::H; h++) {
                const unsigned s = h * V::G + g;
                const float m = __uint_as_float(M[h * (V::G >> K) + (g >> K)]); // M[s >> K]
                const float d = __fsub_rn(xt, cb.at(r, h, s));
                const unsigned v = vit_tag(__fadd_rn(m, __fmul_rn(d, d)), h, keep);
                b = v < b ? v : b;
            }
            best[r] = b;
        }
    }
    // the last position: the least (cost, state) among the allowed end states
    const int p = T - 1 + off;
    const float xt = xs[p < T ? p : p - T];
    unsigned long long key = ~0ull;
    const unsigned base = vit_base<K, L, NT>(tid);
#pragma unroll
    for (int r = 0; r < V::RG; r++) {
        const unsigned g = base + r * NT;
        if (overlap >= 0 && g != (unsigned)overlap) continue;
#pragma unroll(V::HU)
        for (int h = 0; h < V::H; h++) {
            const unsigned s = h * V::G + g;
            const float m = __uint_as_float(M[h * (V::G >> K) + (g >> K)]);
            const float d = __fsub_rn(xt, cb.at(r, h, s));
            const unsigned long long k = (unsigned long long)__float_as_uint(__fadd_rn(m, __fmul_rn(d, d))) << 32 | s;
            key = k < key ? k : key;
        }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long k = __shfl_xor_sync(0xffffffffu, key, o);
        key = k < key ? k : key;
    }
    if ((tid & 31) == 0) red[tid >> 5] = key;
    __syncthreads();
    if (tid == 0) {
        for (int w = 1; w < NT / 32; w++) key = red[w] < key ? red[w] : key;
        unsigned st = (unsigned)key;
        if (path) path[T - 1] = st;
        for (int t = T - 1; t > stop; t--) {
            const unsigned g = st >> K;
            const unsigned w = bp[(size_t)t * NT + (g & (NT - 1))]; // group g's word: thread g mod NT's
            const unsigned h = (w >> (g / NT * K)) & (unsigned)(V::H - 1);
            st = h << (L - K) | g;
            if (path) path[t - 1] = st;
        }
        red[0] = st;
    }
    __syncthreads();
    return (unsigned)red[0];
}

// viterbi_search: the kernel body (see the contract above).
template <int K, int L, int NT>
__device__ __forceinline__ void viterbi_search(const float* __restrict__ x, unsigned short* __restrict__ states,
                                               unsigned* bpAll, int T, int nblocks) {
    using V = Vit<K, L, NT>;
    extern __shared__ unsigned long long vit_smem[];
    float* tbl = (float*)vit_smem;                                          // the code table (none with CBREG)
    unsigned long long* red = vit_smem + (V::CBREG ? 0 : VIT_CODES * 32 / 2); // NT/32: the warps' argmin keys
    unsigned* M = (unsigned*)(red + NT / 32);                               // G: the step's tagged group minima
    float* xs = (float*)(M + V::G);                                         // T: the block's weights
    unsigned* path = (unsigned*)(xs + T);                                   // T: the chosen path
    unsigned* bp = bpAll + (size_t)blockIdx.x * T * NT;
    VitCodes<K, L, NT> cb;
    cb.init(threadIdx.x, tbl);
    const int half = T / 2;
    for (int j = blockIdx.x; j < nblocks; j += gridDim.x) {
        const float* xj = x + (size_t)j * T;
        for (int i = threadIdx.x; i < T; i += NT) xs[i] = xj[i];
        __syncthreads();
        const unsigned mid = vit_pass<K, L, NT>(cb, xs, T, half, -1, half, M, bp, red, nullptr);
        vit_pass<K, L, NT>(cb, xs, T, 0, (int)(mid >> K), 0, M, bp, red, path);
        unsigned short* sj = states + (size_t)j * T;
        for (int i = threadIdx.x; i < T; i += NT) sj[i] = (unsigned short)path[i];
    }
}

// VIT_MINB: the blocks a multiprocessor should hold, for ptxas's register budget (64 a thread: 1024 threads a
// multiprocessor; without it NVRTC 11.8 picked 32 registers and spilled at L 16, or 96 at L 12 and halved the
// resident blocks).
#define VIT_MINB(NT) ((NT) >= 1024 ? 1 : 1024 / (NT))

#define VITERBI(name, K, L, NT)                                                                                   \
    extern "C" __global__ void __launch_bounds__(NT, VIT_MINB(NT)) name(const float* __restrict__ x, unsigned short* __restrict__ states, \
                                                          unsigned* bp, int T, int nblocks) {       \
        pdl_begin();                                                                                             \
        viterbi_search<K, L, NT>(x, states, bp, T, nblocks);                                                     \
    }
