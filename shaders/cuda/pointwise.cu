// pointwise.cu: the pointwise ops beyond ops.cu (backend/pointwise.go; the Gemma families use them, docs/gemma.md):
// Scale, Softcap (the final logit softcap) and GeGLU. The CPU reference is internal/cpu/pointwise.go; contracts
// are repeated in docs/kernels.md ("CUDA"). Activations are T = float (names ending _f32, the backend's) or bf16
// (_bf16: tests and tools); arithmetic f32 (softcap1 in common.cuh: the windowed attention caps its scores with
// it too).

#define GRID_STRIDE(i, n)                                                                                   \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)(n);              \
         i += (long long)gridDim.x * blockDim.x)

// scale_{f32,bf16}
//   in:  x T [n], s f32; out: dst T [n] = f32(x·s) rounded to T; dst may alias x
//   grid: grid-stride over n; promise: exactly the CPU's f32 product (one more rounding for bf16)
// softcap_{f32,bf16} (Gemma's final logit softcap, fused: one pass for the divide, tanh and multiply)
//   in:  x T [n], c f32 > 0; out: dst T [n] = f32(tanh(f64(f32(x/c))))·c, each step rounded to f32 as the CPU does
//   promise: f64 tanh rounded to f32 (the CPU's math.Tanh may differ by an ulp of f64: the f32 results agree
//        but in rare double-rounding ties)
// geglu_{f32,bf16}
//   in:  gate, up T [n]; out: dst T [n] = f32(gelu_tanh(gate))·up, gelu_tanh(x) = ½·x·(1 + tanh(√(2/π)·(x +
//        0.044715·x³))) in f64 in the CPU's order (no FMA contraction), rounded once, then the f32 product
//   promise: as softcap
__device__ __forceinline__ float gelu_tanh1(float x) {
    const double v = (double)x;
    const double k = 0.7978845608028654; // sqrt(2/pi), as math.Sqrt(2/math.Pi) rounds it
    const double cube = __dmul_rn(__dmul_rn(__dmul_rn(0.044715, v), v), v);
    const double inner = __dmul_rn(k, __dadd_rn(v, cube));
    return (float)__dmul_rn(__dmul_rn(0.5, v), __dadd_rn(1.0, tanh(inner)));
}
template <typename T> __device__ __forceinline__ void scale_op(T* dst, const T* x, float s, long long n) {
    GRID_STRIDE(k, n) store_out(dst + k, __fmul_rn(ld1(x + k), s));
}
template <typename T> __device__ __forceinline__ void softcap_op(T* dst, const T* x, float c, long long n) {
    GRID_STRIDE(k, n) store_out(dst + k, softcap1(ld1(x + k), c));
}
template <typename T> __device__ __forceinline__ void geglu_op(T* dst, const T* gate, const T* up, long long n) {
    GRID_STRIDE(k, n) store_out(dst + k, __fmul_rn(gelu_tanh1(ld1(gate + k)), ld1(up + k)));
}

#define POINTWISE_INSTANTIATE(T, SFX)                                                                            \
    extern "C" __global__ void scale_##SFX(T* dst, const T* x, float s, long long n) { pdl_begin(); scale_op<T>(dst, x, s, n); } \
    extern "C" __global__ void softcap_##SFX(T* dst, const T* x, float c, long long n) { pdl_begin();           \
        softcap_op<T>(dst, x, c, n);                                                                            \
    }                                                                                                          \
    extern "C" __global__ void geglu_##SFX(T* dst, const T* gate, const T* up, long long n) { pdl_begin();      \
        geglu_op<T>(dst, gate, up, n);                                                                          \
    }
POINTWISE_INSTANTIATE(float, f32)
POINTWISE_INSTANTIATE(bf16_t, bf16)
