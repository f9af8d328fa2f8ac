// common.cuh: the helpers every kernel file of the CUDA backend shares. internal/cuda prepends it to each .cu file
// before NVRTC compiles it (NVRTC runs with nothing on the include path), then appends the instantiation list the
// host generates from its kernel tables (one naming function per family, used for both).
//
// bf16 is carried as its bit pattern (unsigned short, or two of them in a 32-bit word) so no toolkit header is
// needed. Widening is exact; narrowing rounds to nearest even and keeps NaN a NaN, exactly as
// backend.F32ToBF16 does on the host (must match internal/backend/dtype.go).

typedef unsigned short bf16_t;

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

// Output stores by destination type: activations are bf16, logits f32.
__device__ __forceinline__ void store_out(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_out(bf16_t* p, float v) { *p = f2bf(v); }

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
