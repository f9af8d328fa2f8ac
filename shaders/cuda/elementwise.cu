// elementwise.cu: the first kernels of the CUDA backend, small enough to prove the NVRTC -> module -> launch ->
// graph path end to end: f32 and bf16 adds, an axpy (float scalar argument), bf16<->f32 conversion, and
// deterministic pseudo-random fills for tests and benchmarks (never time or test on zeros).
//
// bf16 is handled as its bit pattern (unsigned short) so the file needs no toolkit header: NVRTC compiles it with
// nothing on the include path. Conversion rounds to nearest even, like __float2bfloat16_rn.
//
// All kernels use grid-stride loops over a 64-bit element count, so any grid size is correct.

typedef unsigned short bf16_t;

__device__ __forceinline__ float bf16_to_float(bf16_t h) { return __uint_as_float(((unsigned)h) << 16); }

__device__ __forceinline__ bf16_t float_to_bf16(float f) {
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40u); // NaN stays a (quiet) NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return (bf16_t)(u >> 16);
}

#define GRID_STRIDE(i, n) \
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < (n); \
         i += (unsigned long long)gridDim.x * blockDim.x)

extern "C" __global__ void add_f32(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
                                   unsigned long long n) { pdl_begin();
    GRID_STRIDE(i, n) c[i] = a[i] + b[i];
}

extern "C" __global__ void add_bf16(bf16_t* __restrict__ c, const bf16_t* __restrict__ a,
                                    const bf16_t* __restrict__ b, unsigned long long n) { pdl_begin();
    GRID_STRIDE(i, n) c[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
}

// y = alpha * x + y
extern "C" __global__ void axpy_f32(float* __restrict__ y, const float* __restrict__ x, float alpha,
                                    unsigned long long n) { pdl_begin();
    GRID_STRIDE(i, n) y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" __global__ void f32_to_bf16(bf16_t* __restrict__ dst, const float* __restrict__ src, unsigned long long n) { pdl_begin();
    GRID_STRIDE(i, n) dst[i] = float_to_bf16(src[i]);
}

extern "C" __global__ void bf16_to_f32(float* __restrict__ dst, const bf16_t* __restrict__ src, unsigned long long n) { pdl_begin();
    GRID_STRIDE(i, n) dst[i] = bf16_to_float(src[i]);
}

// A counter-based hash (splitmix64 finaliser): element i's value depends only on (seed, i), whatever the grid.
__device__ __forceinline__ float uniform01(unsigned long long seed, unsigned long long i) {
    unsigned long long z = seed * 0x9e3779b97f4a7c15ull + i + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f); // 24 random bits: exact in a float
}

extern "C" __global__ void fill_uniform_f32(float* __restrict__ dst, unsigned long long n, unsigned long long seed,
                                            float lo, float hi) { pdl_begin();
    GRID_STRIDE(i, n) dst[i] = fmaf(hi - lo, uniform01(seed, i), lo);
}

extern "C" __global__ void fill_uniform_bf16(bf16_t* __restrict__ dst, unsigned long long n, unsigned long long seed,
                                             float lo, float hi) { pdl_begin();
    GRID_STRIDE(i, n) dst[i] = float_to_bf16(fmaf(hi - lo, uniform01(seed, i), lo));
}
