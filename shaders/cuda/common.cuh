// common.cuh: the helpers every kernel file of the CUDA backend shares. internal/cuda prepends it to each .cu file
// before NVRTC compiles it (NVRTC runs with nothing on the include path), then appends the instantiation list the
// host generates from its kernel tables (one naming function per family, used for both).
//
// bf16 is carried as its bit pattern (unsigned short, or two of them in a 32-bit word) so no toolkit header is
// needed. Widening is exact; narrowing rounds to nearest even and keeps NaN a NaN, exactly as
// backend.F32ToBF16 does on the host (must match internal/backend/dtype.go).

typedef unsigned short bf16_t;

// The KV cache's element type: f32, so attention reads the keys and values the CPU oracle holds (a bf16 cache
// alone kept the fixture models' prompt logits ~4e-3·max|ref| away, enough to flip their near-ties).
typedef float kv_t;

__device__ __forceinline__ float bf2f(bf16_t h) { return __uint_as_float(((unsigned)h) << 16); }

__device__ __forceinline__ bf16_t f2bf(float f) {
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (bf16_t)(u >> 16);
}

// The two bf16 halves of a 32-bit word: element 0 in the low half (little-endian order in memory).
__device__ __forceinline__ float bf_lo(unsigned u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float bf_hi(unsigned u) { return __uint_as_float(u & 0xffff0000u); }
__device__ __forceinline__ unsigned pack_bf2(float lo, float hi) {
    return (unsigned)f2bf(lo) | ((unsigned)f2bf(hi) << 16);
}

// Activation access by element type (the backend's activations are f32; bf16 forms are kept for tests and
// tools). store_out rounds once for bf16; as_act is the value a T holds after storing v; ld8 / st8 move 8
// consecutive values (one 16-byte bf16 chunk, two 16-byte f32 chunks: p must be 16-byte aligned); ld2bf packs two
// consecutive values as a bf16 pair (element 0 low), the operand form of the bf16 tensor-core instructions.
__device__ __forceinline__ void store_out(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_out(bf16_t* p, float v) { *p = f2bf(v); }
__device__ __forceinline__ float ld1(const float* p) { return *p; }
__device__ __forceinline__ float ld1(const bf16_t* p) { return bf2f(*p); }
__device__ __forceinline__ float as_act(float v, const float*) { return v; }
__device__ __forceinline__ float as_act(float v, const bf16_t*) { return bf2f(f2bf(v)); }
__device__ __forceinline__ void unpack8(uint4 u, float* v) {
    v[0] = bf_lo(u.x), v[1] = bf_hi(u.x), v[2] = bf_lo(u.y), v[3] = bf_hi(u.y);
    v[4] = bf_lo(u.z), v[5] = bf_hi(u.z), v[6] = bf_lo(u.w), v[7] = bf_hi(u.w);
}
__device__ __forceinline__ uint4 pack8(const float* v) {
    return make_uint4(pack_bf2(v[0], v[1]), pack_bf2(v[2], v[3]), pack_bf2(v[4], v[5]), pack_bf2(v[6], v[7]));
}
__device__ __forceinline__ void ld8(const bf16_t* p, float* v) { unpack8(*(const uint4*)p, v); }
__device__ __forceinline__ void ld8(const float* p, float* v) {
    const float4 a = ((const float4*)p)[0], b = ((const float4*)p)[1];
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}
__device__ __forceinline__ void st8(bf16_t* p, const float* v) { *(uint4*)p = pack8(v); }
__device__ __forceinline__ void st8(float* p, const float* v) {
    ((float4*)p)[0] = make_float4(v[0], v[1], v[2], v[3]);
    ((float4*)p)[1] = make_float4(v[4], v[5], v[6], v[7]);
}
__device__ __forceinline__ unsigned ld2bf(const bf16_t* p) { return *(const unsigned*)p; }
__device__ __forceinline__ unsigned ld2bf(const float* p) {
    const float2 f = *(const float2*)p;
    return pack_bf2(f.x, f.y);
}
__device__ __forceinline__ void st2(bf16_t* p, float a, float b) { *(unsigned*)p = pack_bf2(a, b); }
__device__ __forceinline__ void st2(float* p, float a, float b) { *(float2*)p = make_float2(a, b); }

// pdl_begin: the programmatic-dependent-launch point of every kernel. The backend launches kernels allowing each
// to start while the one queued before it still runs (driver.LaunchPDL), so a kernel's blocks wait here until the
// previous kernel has finished and its writes are visible, before they read what an earlier kernel wrote or write
// what it reads; then they let the next kernel launch (its blocks fill the SMs this one frees, and wait in turn).
// Only weights, which no kernel writes during a forward pass, may be read before it (l2_prefetch). Every block
// reaches it before anything else: a kernel whose blocks all returned early would finish before its predecessor.
__device__ __forceinline__ void pdl_begin() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// l2_prefetch: ask for the bytes of read-only data at p to be brought into L2 (one bulk prefetch, sm_90+ and a
// PTX 8.0 compiler; the range is trimmed to whole 16-byte units inside it). A kernel issues it for the weights of
// its first work item before pdl_begin, so their DRAM latency overlaps the previous kernel's tail. A hint only.
__device__ __forceinline__ void l2_prefetch(const void* p, unsigned bytes) {
#if __CUDA_ARCH__ >= 900 && __CUDACC_VER_MAJOR__ >= 12
    const unsigned long long a = (unsigned long long)p, lo = (a + 15) & ~15ull, hi = (a + bytes) & ~15ull;
    if (hi > lo) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(lo), "r"((unsigned)(hi - lo)) : "memory");
#endif
}

// silu_mul: SwiGLU's g / (1 + exp(−g)) · u in the CPU's order (swiglu in ops.cu, the fused gate/up of trellis.cu).
__device__ __forceinline__ float silu_mul(float g, float u) {
    return __fmul_rn(__fdiv_rn(g, __fadd_rn(1.0f, expf(-g))), u);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// 16 bytes of read-once data (weights): skip L1 so the activations it is multiplied with stay there.
__device__ __forceinline__ uint4 ld_stream(const void* p) {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// True when every pointer is 16-byte aligned (vector paths; row views of odd widths are not).
__device__ __forceinline__ bool aligned16(const void* a, const void* b, const void* c) {
    return ((((unsigned long long)a) | ((unsigned long long)b) | ((unsigned long long)c)) & 15ull) == 0;
}

// Query heads a decode-attention pass holds at EPT dims per lane (attention.cu's and the windowed forms; a larger
// GQA group takes several passes): 8 up to EPT 8 (head dim 256), fewer beyond, so q and the accumulators stay at
// 2·8·8 registers a lane and the warps' merge buffer at 32 KiB of static shared memory (head dim 512: EPT 16,
// four heads a pass).
template <int EPT> struct attn_group { static constexpr int G = EPT > 8 ? 64 / EPT : 8; };

// softcap1 is Gemma's cap tanh(x/c)·c as the CPU rounds it: the divide in f32, tanh in f64 rounded to f32, the
// product in f32 (pointwise.cu's Softcap and attention_win.cu's capped scores).
__device__ __forceinline__ float softcap1(float x, float c) {
    return __fmul_rn((float)tanh((double)__fdiv_rn(x, c)), c);
}

// rope_pair rotates one pair of a head, rope.Table.Apply's arithmetic; T is the activation type (the prescaled
// input is rounded to it).
template <typename T>
__device__ __forceinline__ void rope_pair(float& x1, float& x2, float p, float inv_freq, float prescale) {
    const float ang = __fmul_rn(p, inv_freq);
    double sd, cd;
    sincos((double)ang, &sd, &cd);
    const float c = (float)cd, s = (float)sd;
    if (prescale != 1.0f) {
        x1 = as_act(__fmul_rn(prescale, x1), (const T*)0);
        x2 = as_act(__fmul_rn(prescale, x2), (const T*)0);
    }
    const float a = __fsub_rn(__fmul_rn(x1, c), __fmul_rn(x2, s));
    const float b = __fadd_rn(__fmul_rn(x1, s), __fmul_rn(x2, c));
    x1 = a;
    x2 = b;
}

// rmsnorm_rope_head is one warp's head of rmsnorm_rope (ops.cu): xs, ys its hd ≤ 256 values, p its row's position, sm
// hd floats of the warp's shared memory (ys may be sm). Shared by rmsnorm_rope, rmsnorm_rope_qk and attn_split_norm
// (attention.cu) so that they compute the same bits.
template <typename T>
__device__ __forceinline__ void rmsnorm_rope_head(T* ys, const T* xs, const float* __restrict__ w, float p,
                                                  const float* __restrict__ inv_freq, int hd, int dims,
                                                  int traditional, float prescale, float eps, float* sm) {
    const int lane = threadIdx.x & 31;
    float v[8];
    float ss = 0.f;
#pragma unroll
    for (int k = 0; k < 8; k++) {
        const int j = lane + 32 * k;
        v[k] = j < hd ? ld1(xs + j) : 0.f;
        ss = fmaf(v[k], v[k], ss);
    }
    ss = warp_sum(ss);
    const float inv = 1.0f / sqrtf(ss / (float)hd + eps);
#pragma unroll
    for (int k = 0; k < 8; k++) {
        const int j = lane + 32 * k;
        if (j < hd) {
            const float yn = as_act(__fmul_rn(__fmul_rn(v[k], inv), w[j]), ys);
            if (j >= dims) {
                store_out(ys + j, yn);
            } else {
                sm[j] = yn;
            }
        }
    }
    __syncwarp();
    const int half = dims / 2;
    for (int i = lane; i < half; i += 32) {
        const int ia = traditional ? 2 * i : i;
        const int ib = traditional ? 2 * i + 1 : i + half;
        float x1 = sm[ia], x2 = sm[ib];
        rope_pair<T>(x1, x2, p, inv_freq[i], prescale);
        store_out(ys + ia, x1);
        store_out(ys + ib, x2);
    }
}
